import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { Zip, ZipDeflate } from "fflate";
import { type DgiiRecord, dgiiLine, dgiiText, dgiiZip, malformedLine, syntheticRecord } from "../../bench/rnc-generator";
import worker from "../../src/index";
import type { RncBatchMessage } from "../../src/modules/rnc/sync/runs";
import type { RncQueue } from "../../src/modules/rnc/sync/sync";
import { env } from "../support/env";
import { asOwner, sql } from "../support/seed";

export const fileServer = () => (env as unknown as { TEST_FILE_SERVER_URL: string }).TEST_FILE_SERVER_URL;

/** Stores `bytes` on the local file server; returns its URL. */
export async function serveFile(name: string, bytes: Uint8Array): Promise<string> {
  const url = `${fileServer()}/files/${name}`;
  const response = await fetch(url, { method: "PUT", body: new Uint8Array(bytes) });
  if (response.status !== 201) throw new Error(`file server answered ${response.status}`);
  return url;
}

/** A stand-in for the RNC_SYNC_QUEUE binding that keeps what the producer sends. */
export function captureQueue() {
  const messages: RncBatchMessage[] = [];
  const queue: RncQueue = {
    async sendBatch(batch) {
      for (const message of batch) messages.push(structuredClone(message.body));
    },
  };
  return { queue, messages };
}

let messageCounter = 0;

/** Delivers messages to the Worker's real queue handler (as miniflare would) and returns the ack/retry state. */
export async function deliver(bodies: unknown[], attempts = 1) {
  const batch = createMessageBatch(
    "rnc-sync",
    bodies.map((body) => ({ id: `msg-${messageCounter++}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await (worker as ExportedHandler<typeof env>).queue!(batch as MessageBatch<unknown>, env, ctx);
  return getQueueResult(batch, ctx);
}

export interface Row {
  identification: string;
  name: string;
  comercial_name: string;
  status: string;
}

/** The registry as readers see it (the latest completed generation), ordered by identification. */
export async function registry(): Promise<Row[]> {
  return asOwner(async (db) => {
    const result = await db.execute(sql`
      SELECT identification, name, comercial_name, status FROM rnc_records
      WHERE run_id = (SELECT max(id) FROM rnc_sync_runs WHERE status = 'completed') ORDER BY identification`);
    return (result as unknown as { rows: Row[] }).rows;
  });
}

export async function runRow(runId: number) {
  return asOwner(async (db) => {
    const result = await db.execute(sql`SELECT * FROM rnc_sync_runs WHERE id = ${runId}`);
    return (result as unknown as { rows: Record<string, unknown>[] }).rows[0]!;
  });
}

export async function leftovers(): Promise<{ generations: number; receipts: number }> {
  return asOwner(async (db) => {
    const result = await db.execute(sql`
      SELECT (SELECT count(DISTINCT run_id) FROM rnc_records)::int AS generations, (SELECT count(*) FROM rnc_sync_batches)::int AS receipts`);
    return (result as unknown as { rows: { generations: number; receipts: number }[] }).rows[0]!;
  });
}

const norm = (s: string | undefined) => (s ?? "").replace(/\s+/g, " ").trim();

export const expectedRow = (r: DgiiRecord): Row => ({
  identification: r.identification,
  name: norm(r.name),
  comercial_name: norm(r.comercialName),
  status: r.status,
});

/** A DGII file: synthetic records `from..to` of `version`, minus `skip`, plus `extra`, with malformed lines sprinkled in. */
export function buildFile(options: { from: number; to: number; version: number; skip?: (i: number) => boolean; extra: DgiiRecord[] }) {
  const records: DgiiRecord[] = [];
  const lines: string[] = [];
  for (let i = options.from; i < options.to; i++) {
    if (i % 700 === 3) lines.push(malformedLine(i));
    if (options.skip?.(i)) continue;
    const record = syntheticRecord(i, options.version);
    records.push(record);
    lines.push(dgiiLine(record));
  }
  for (const record of options.extra) {
    records.push(record);
    lines.push(dgiiLine(record));
  }
  const expected = records.map(expectedRow).sort((a, b) => (a.identification < b.identification ? -1 : 1));
  return { zip: dgiiZip(dgiiText(lines)), expected, malformed: lines.length - records.length, lines };
}

/** A ZIP written as a stream (sizes in a data descriptor after the data, none in the local header), as DGII's may be. */
export function streamedZip(text: Uint8Array, path = "TMP/DGII_RNC.TXT"): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    parts.push(chunk);
  });
  const entry = new ZipDeflate(path, { level: 6 });
  zip.add(entry);
  entry.push(text, true);
  zip.end();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
