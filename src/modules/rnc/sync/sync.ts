import { log } from "../../../lib/log";
import { type ParseStats, RegistryFileError, streamRegistryZip, utf8Length } from "./parse";
import { currentRegistrySize, failRun, finishParsing, type RegistryStore, type RncBatchMessage, startRun, tryComplete } from "./runs";

/** What the producer needs of a Queue binding (Cloudflare's `Queue`, or an in-process stand-in). */
export interface RncQueue {
  sendBatch(messages: Iterable<MessageSendRequest<RncBatchMessage>>): Promise<unknown>;
}

export interface SyncOptions {
  store: RegistryStore;
  queue: RncQueue;
  /** Where the file comes from, for the run record (a URL or a path). */
  source: string;
  trigger: "cron" | "cli" | "bench" | "test";
  /** Opens the ZIP's bytes; throw RegistryFileError for a download that failed. */
  open: () => Promise<ReadableStream<Uint8Array>>;
  onChunk?: (bytesRead: number) => void;
  maxBatchBytes?: number;
  /** Replace the registry even with a file of under MIN_SHARE_OF_CURRENT of its records (operator's `--force`; the cron never forces). */
  force?: boolean;
  /** Parser limits (tests lower them): see MAX_LINE_CHARS and MAX_UNCOMPRESSED_BYTES in ./parse. */
  maxLineChars?: number;
  maxUncompressedBytes?: number;
}

export interface SyncResult {
  runId: number;
  status: "running" | "completed" | "failed";
  batches: number;
  stats: ParseStats | null;
  error?: string;
}

/**
 * A file with fewer valid records than this share of the current registry does not replace it
 * unless forced: a truncated or half-empty download from DGII must not wipe most of the registry.
 */
const MIN_SHARE_OF_CURRENT = 0.5;

/** Queues limit one sendBatch call to 100 messages and 256 KB. */
const SEND_MAX_MESSAGES = 100;
const SEND_MAX_BYTES = 240_000;

/** Downloads `url` as a stream; any failure is a RegistryFileError naming it. */
export function openUrl(url: string, fetchImpl: typeof fetch = fetch): () => Promise<ReadableStream<Uint8Array>> {
  return async () => {
    let response: Response;
    try {
      response = await fetchImpl(url);
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new RegistryFileError(`download failed: ${(error as Error).message}${cause ? ` (${cause})` : ""}`);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new RegistryFileError(`download failed: HTTP ${response.status}`);
    }
    return response.body;
  };
}

/**
 * The producer half of a sync: starts a run, streams the file into batches sent to the Queue, then
 * records the totals. The consumers (`writeBatch`) write the batches and the last one completes the
 * run; if they were all written before the totals were recorded, this completes it.
 */
export async function runRncSync(options: SyncOptions): Promise<SyncResult> {
  const { store, queue } = options;
  const runId = await startRun(store, { source: options.source, trigger: options.trigger });
  let seq = 0;
  let pending: MessageSendRequest<RncBatchMessage>[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (!pending.length) return;
    const messages = pending;
    pending = [];
    pendingBytes = 0;
    await queue.sendBatch(messages);
  };
  try {
    const body = await options.open();
    const stats = await streamRegistryZip(body, {
      maxBatchBytes: options.maxBatchBytes,
      maxLineChars: options.maxLineChars,
      maxUncompressedBytes: options.maxUncompressedBytes,
      onChunk: options.onChunk,
      onBatch: async (records) => {
        const message: RncBatchMessage = { kind: "rnc-batch", runId, seq: seq++, records };
        const bytes = utf8Length(JSON.stringify(message));
        if (pending.length >= SEND_MAX_MESSAGES || pendingBytes + bytes > SEND_MAX_BYTES) await flush();
        pending.push({ body: message, contentType: "json" });
        pendingBytes += bytes;
      },
    });
    await flush();
    if (stats.recordsAccepted === 0) throw new RegistryFileError("the file holds no valid records");
    // Decided before finishParsing: until then the run cannot complete, so nothing was replaced.
    if (!options.force) {
      const current = await currentRegistrySize(store);
      if (stats.recordsAccepted < current * MIN_SHARE_OF_CURRENT) {
        throw new RegistryFileError(
          `refused: the file holds ${stats.recordsAccepted} valid records, under ${MIN_SHARE_OF_CURRENT * 100} % of the current registry's ${current}; the registry is unchanged (an operator can replace it with npm run rnc:sync -- --force)`,
        );
      }
    }
    await finishParsing(store, runId, stats, seq);
    const completed = await tryComplete(store, runId);
    log.info("rnc sync parsed", { runId, batches: seq, linesRead: stats.linesRead, linesRejected: stats.linesRejected, completed });
    return { runId, status: completed ? "completed" : "running", batches: seq, stats };
  } catch (error) {
    const reason = error instanceof RegistryFileError ? error.message : `sync failed: ${(error as Error).message}`;
    log.error("rnc sync failed", { runId, reason });
    await failRun(store, runId, reason);
    return { runId, status: "failed", batches: seq, stats: null, error: reason };
  }
}
