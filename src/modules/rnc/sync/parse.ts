import { Unzip, type UnzipFile, UnzipInflate } from "fflate";

/**
 * Streaming reader of the DGII taxpayer file, shared by the Worker (cron) and Node (operator CLI,
 * bench): bytes of the ZIP → fflate's streaming Unzip → Windows-1252 decoding → lines → records →
 * batches. Nothing but the current chunk, the current line and the batch being filled is held.
 */

/** `[identification, name, comercial_name, status]`: the shape records travel in through the Queue. */
export type RncTuple = [identification: string, name: string, comercialName: string, status: string];

interface Rejection {
  line: number;
  reason: string;
}

export interface ParseStats {
  linesRead: number;
  linesRejected: number;
  /** The first few rejected lines and why. */
  rejections: Rejection[];
  recordsAccepted: number;
}

export class RegistryFileError extends Error {}

/** The TXT inside the ZIP, matched case-insensitively and in any folder (DGII: `TMP/DGII_RNC.TXT`). */
const TXT_NAME = /(^|\/)DGII_RNC\.TXT$/i;
const COLUMNS = 11;
const KEEP_REJECTIONS = 10;
const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];

/** Trimmed, inner whitespace (including NBSP and tabs) collapsed to one space. */
export function clean(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

/** Accent- and case-folded text, the form stored in `rnc_records.search` and matched by search terms. */
export function foldForSearch(value: string): string {
  return clean(value)
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
}

/** One line of the file → a record or the reason it is rejected. Columns: DESIGN.md. */
export function parseLine(line: string): { record: RncTuple } | { reason: string } {
  const columns = line.split("|");
  if (columns.length !== COLUMNS) return { reason: `expected ${COLUMNS} columns, found ${columns.length}` };
  // The columns DESIGN.md lists: 0 the RNC or cédula, 1 the name, 2 the trade name, 9 the status.
  const [id = "", name = "", tradeName = "", , , , , , , status = ""] = columns;
  const identification = clean(id);
  if (!identification) return { reason: "empty identification" };
  if (!/^\d+$/.test(identification)) return { reason: "identification is not all digits" };
  if (identification.length > 20) return { reason: "identification longer than 20 digits" };
  return { record: [identification, clean(name), clean(tradeName), clean(status).toUpperCase()] };
}

/** UTF-8 length of a string without allocating (what the Queue counts for a JSON message). */
export function utf8Length(value: string): number {
  let bytes = value.length;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code > 0x7f) bytes += code > 0x7ff ? 2 : 1;
  }
  return bytes;
}

/**
 * Groups records into batches whose JSON encoding stays under `maxBytes` (Queue messages are
 * limited to 128 KB). An identification repeated inside one batch keeps its last occurrence, so
 * that one upsert statement never touches a row twice.
 */
class Batcher {
  private current = new Map<string, RncTuple>();
  private bytes = 0;
  readonly ready: RncTuple[][] = [];

  constructor(
    private readonly maxBytes: number,
    private readonly maxRecords: number,
  ) {}

  add(record: RncTuple): void {
    const size = utf8Length(JSON.stringify(record)) + 1;
    if (this.current.size && (this.bytes + size > this.maxBytes || this.current.size >= this.maxRecords)) this.flush();
    this.current.set(record[0], record);
    this.bytes += size;
  }

  flush(): void {
    if (!this.current.size) return;
    this.ready.push([...this.current.values()]);
    this.current = new Map();
    this.bytes = 0;
  }

  take(): RncTuple[][] {
    return this.ready.splice(0, this.ready.length);
  }
}

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32 (ZIP's), continued from `crc` (start with 0). fflate's streaming Unzip does not check it. */
function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** The end of the archive is kept to read the central directory: CRC and size of each entry. */
const TAIL_BYTES = 70 * 1024;

function centralEntry(tail: Uint8Array, matches: (name: string) => boolean): { crc: number; size: number } | null {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  for (let e = tail.length - 22; e >= 0; e--) {
    if (view.getUint32(e, true) !== 0x06054b50) continue;
    const cdSize = view.getUint32(e + 12, true);
    let p = e - cdSize;
    if (p < 0) return null;
    while (p + 46 <= e && view.getUint32(p, true) === 0x02014b50) {
      const nameLength = view.getUint16(p + 28, true);
      const name = new TextDecoder("latin1").decode(tail.subarray(p + 46, p + 46 + nameLength));
      if (matches(name)) return { crc: view.getUint32(p + 16, true), size: view.getUint32(p + 24, true) };
      p += 46 + nameLength + view.getUint16(p + 30, true) + view.getUint16(p + 32, true);
    }
    return null;
  }
  return null;
}

interface StreamOptions {
  /** Called with each full batch, in order; awaited before more of the body is read. */
  onBatch: (records: RncTuple[]) => Promise<void>;
  maxBatchBytes?: number;
  maxBatchRecords?: number;
  /** Default MAX_LINE_CHARS. */
  maxLineChars?: number;
  /** Default MAX_UNCOMPRESSED_BYTES. */
  maxUncompressedBytes?: number;
  /** Called after each chunk of the body has been processed (the bench samples memory here). */
  onChunk?: (bytesRead: number) => void;
}

/** Default batch budget: JSON of the records ≤ 100 KB, leaving room for the envelope under 128 KB. */
const MAX_BATCH_BYTES = 100_000;
const MAX_BATCH_RECORDS = 2_000;
/**
 * A line longer than this (without its line break) is rejected like a malformed one, and nothing of
 * it is kept past this length: DGII's lines are ~150 characters, and a file without line breaks
 * must not become one string the size of the file.
 */
export const MAX_LINE_CHARS = 4096;
/** The TXT may inflate to at most this (DGII's is ~150 MB): beyond it the run fails (a ZIP bomb). */
export const MAX_UNCOMPRESSED_BYTES = 512 * 1024 * 1024;

/**
 * Reads a DGII ZIP from `body` and hands its records to `onBatch` in batches. Throws
 * RegistryFileError for a body that is not a ZIP, a corrupt or truncated ZIP, or a ZIP without the
 * TXT; malformed lines are counted and skipped.
 */
export async function streamRegistryZip(body: ReadableStream<Uint8Array>, options: StreamOptions): Promise<ParseStats> {
  const stats: ParseStats = { linesRead: 0, linesRejected: 0, rejections: [], recordsAccepted: 0 };
  const maxLine = options.maxLineChars ?? MAX_LINE_CHARS;
  const maxUncompressed = options.maxUncompressedBytes ?? MAX_UNCOMPRESSED_BYTES;
  const tooBig = () => new RegistryFileError(`TMP/DGII_RNC.TXT is larger than ${maxUncompressed} bytes uncompressed`);
  const batcher = new Batcher(options.maxBatchBytes ?? MAX_BATCH_BYTES, options.maxBatchRecords ?? MAX_BATCH_RECORDS);

  let failure: Error | null = null;
  let found: "no" | "reading" | "done" = "no";
  let decoder: TextDecoder | null = null;
  let pending = "";
  let textHead = new Uint8Array(0);
  let txtCrc = 0;
  let txtSize = 0;
  let txtName = "";
  let tail = new Uint8Array(0);
  let firstBytes = true;
  /** The current line passed maxLine: the rest of it, up to the next line break, is dropped. */
  let overlong = false;

  const reject = (reason: string) => {
    stats.linesRejected++;
    if (stats.rejections.length < KEEP_REJECTIONS) stats.rejections.push({ line: stats.linesRead, reason });
  };

  const takeLine = (raw: string) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (!line.trim()) return;
    stats.linesRead++;
    if (line.length > maxLine) return reject(`line longer than ${maxLine} characters`);
    const parsed = parseLine(line);
    if ("reason" in parsed) return reject(parsed.reason);
    stats.recordsAccepted++;
    batcher.add(parsed.record);
  };

  const endOverlong = () => {
    overlong = false;
    stats.linesRead++;
    reject(`line longer than ${maxLine} characters`);
  };

  // Lines are cut with indexOf, and an unfinished line is kept only up to maxLine (+1 for a CR):
  // the work per chunk is linear in the chunk, whatever the lines' lengths.
  const takeText = (text: string) => {
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      if (overlong) endOverlong();
      else takeLine(pending + text.slice(start, end));
      pending = "";
      start = end + 1;
    }
    if (overlong) return;
    if (pending.length + text.length - start > maxLine + 1) {
      overlong = true;
      pending = "";
    } else pending += text.slice(start);
  };

  const onFile = (file: UnzipFile) => {
    if (found !== "no" || !TXT_NAME.test(file.name)) return;
    found = "reading";
    txtName = file.name;
    // The size the local header declares, when it does (not with a data descriptor): fail before inflating.
    if (file.originalSize !== undefined && file.originalSize > maxUncompressed) {
      failure ??= tooBig();
      return;
    }
    file.ondata = (error, chunk, final) => {
      if (failure) return; // the run has failed: inflate nothing more
      if (error) {
        failure ??= new RegistryFileError(`corrupt ZIP: ${error.message}`);
        return;
      }
      txtCrc = crc32(chunk, txtCrc);
      txtSize += chunk.length;
      if (txtSize > maxUncompressed) {
        failure = tooBig();
        return;
      }
      if (!decoder) {
        // A UTF-8 byte-order mark declares UTF-8 (the decoder drops it); otherwise Windows-1252.
        // Decide on the first three bytes, however the inflater happens to cut its output.
        const joined = new Uint8Array(textHead.length + chunk.length);
        joined.set(textHead);
        joined.set(chunk, textHead.length);
        if (joined.length < 3 && !final) {
          textHead = joined;
          return;
        }
        chunk = joined;
        const utf8 = chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
        decoder = new TextDecoder(utf8 ? "utf-8" : "windows-1252");
      }
      takeText(decoder.decode(chunk, { stream: !final }));
      if (final) {
        if (overlong) endOverlong();
        else if (pending) takeLine(pending);
        pending = "";
        found = "done";
      }
    };
    try {
      file.start();
    } catch (error) {
      failure ??= new RegistryFileError(`cannot read ${file.name}: ${(error as Error).message}`);
    }
  };

  const unzip = new Unzip(onFile);
  unzip.register(UnzipInflate);

  const push = (chunk: Uint8Array, final: boolean) => {
    try {
      unzip.push(chunk, final);
    } catch (error) {
      failure ??= new RegistryFileError(`corrupt ZIP: ${(error as Error).message}`);
    }
    if (failure) throw failure;
  };

  const drain = async () => {
    for (const batch of batcher.take()) await options.onBatch(batch);
  };

  const reader = body.getReader();
  let bytesRead = 0;
  let head = new Uint8Array(0);
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        throw new RegistryFileError(`download interrupted: ${(error as Error).message}`);
      }
      const { done, value } = next;
      if (done) break;
      if (!value?.length) continue;
      bytesRead += value.length;
      let chunk = value;
      if (firstBytes) {
        // Check the local-file-header signature before handing anything to the unzipper.
        const joined = new Uint8Array(head.length + chunk.length);
        joined.set(head);
        joined.set(chunk, head.length);
        if (joined.length < ZIP_SIGNATURE.length) {
          head = joined;
          continue;
        }
        if (!ZIP_SIGNATURE.every((byte, i) => joined[i] === byte)) throw new RegistryFileError("the download is not a ZIP file");
        firstBytes = false;
        chunk = joined;
      }
      if (chunk.length >= TAIL_BYTES) tail = chunk.slice(chunk.length - TAIL_BYTES);
      else {
        const keep = Math.min(tail.length, TAIL_BYTES - chunk.length);
        const joined = new Uint8Array(keep + chunk.length);
        joined.set(tail.subarray(tail.length - keep));
        joined.set(chunk, keep);
        tail = joined;
      }
      push(chunk, false);
      await drain();
      options.onChunk?.(bytesRead);
    }
    if (firstBytes) throw new RegistryFileError("the download is not a ZIP file");
    push(new Uint8Array(0), true);
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  if (found === "no") throw new RegistryFileError("the ZIP holds no TMP/DGII_RNC.TXT");
  if (found === "reading") throw new RegistryFileError("corrupt ZIP: TMP/DGII_RNC.TXT ends before its data does");
  const entry = centralEntry(tail, (name) => name === txtName);
  if (!entry) throw new RegistryFileError("corrupt ZIP: no central directory entry for TMP/DGII_RNC.TXT");
  if (entry.crc !== txtCrc || entry.size !== txtSize % 2 ** 32) throw new RegistryFileError("corrupt ZIP: TMP/DGII_RNC.TXT fails its CRC-32 check");
  batcher.flush();
  await drain();
  return stats;
}
