/**
 * npm run bench:rnc -- --records 750000 [--concurrency 4]
 *
 * Against the Postgres at 127.0.0.1:5432 (user postgres; BENCH_DATABASE_URL to change), in a fresh
 * database that is dropped at the end:
 * 1. generates two DGII-shaped ZIPs of N records (bench/rnc-generator.ts) and serves them over HTTP;
 * 2. parse stage alone in a child process capped at 64 MB of V8 old space: time and peak memory;
 * 3. COPY baseline: the same records (already cleaned and folded) into an empty table with the same
 *    indexes, with psql's \copy;
 * 4. end to end, first run: runRncSync (the function the cron calls) → in-process queue →
 *    writeBatch (the queue consumer's function) → Postgres, until the run is completed;
 * 5. search latency over 1,000 queries on the loaded registry (and EXPLAIN of a few);
 * 6. second (update) run with a lookup probe every 100 ms that must never miss.
 * Results: bench/results/rnc.json.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { Zip, ZipDeflate } from "fflate";
import pg from "pg";
import { cliOptions, runMain } from "../scripts/lib/args";
import { ROOT, runMigrations, withDatabase } from "../scripts/lib/database";
import { inProcessQueue, nodeStore } from "../scripts/lib/rnc-node";
import { startFileServer } from "../scripts/rnc-file-server";
import { inTransaction } from "../src/db/transaction";
import { findRnc, searchQuery, searchRnc } from "../src/modules/rnc/service";
import { foldForSearch, parseLine } from "../src/modules/rnc/sync/parse";
import { getRun } from "../src/modules/rnc/sync/runs";
import { openUrl, runRncSync } from "../src/modules/rnc/sync/sync";
import { dgiiLine, encodeWindows1252, malformedLine, prng, syntheticId, syntheticRecord } from "./rnc-generator";

const run = promisify(execFile);
const TMP = path.join(ROOT, "bench/results/tmp");
const RESULTS = path.join(ROOT, "bench/results/rnc.json");
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const options = cliOptions({ records: { type: "string" }, concurrency: { type: "string" } });
const N = Number(options.records ?? 750_000);
const CONCURRENCY = Number(options.concurrency ?? 4);
if (!Number.isInteger(N) || N < 1000) throw new Error("--records must be an integer ≥ 1000");

/** Which synthetic indexes each file holds: the second drops every 50th and adds N/50 new ones. */
const inFirst = (i: number) => i < N;
const inSecond = (i: number) => (i < N && i % 50 !== 0) || (i >= N && i < N + Math.floor(N / 50));

/** Writes a DGII ZIP streaming (fflate Zip + ZipDeflate), one malformed line every 5,000. */
async function writeZip(file: string, version: number, has: (i: number) => boolean, upTo: number): Promise<{ lines: number; malformed: number }> {
  const out = fs.createWriteStream(file);
  const zip = new Zip((error, chunk, final) => {
    if (error) throw error;
    out.write(chunk);
    if (final) out.end();
  });
  const entry = new ZipDeflate("TMP/DGII_RNC.TXT", { level: 6 });
  zip.add(entry);
  let lines = 0;
  let malformed = 0;
  let buffer: string[] = [];
  const flush = (final: boolean) => {
    entry.push(encodeWindows1252(buffer.join("")), final);
    buffer = [];
  };
  for (let i = 0; i < upTo; i++) {
    if (i % 5000 === 4999) {
      buffer.push(`${malformedLine(i)}\r\n`);
      malformed++;
      lines++;
    }
    if (!has(i)) continue;
    buffer.push(`${dgiiLine(syntheticRecord(i, version))}\r\n`);
    lines++;
    if (buffer.length >= 5000) flush(false);
  }
  flush(true);
  zip.end();
  await new Promise<void>((resolve) => out.on("close", () => resolve()));
  return { lines, malformed };
}

/** The COPY input: exactly the rows the sync writes (same cleaning and folding), as COPY text. */
function writeCopyInput(file: string, runId: number, version: number, has: (i: number) => boolean, upTo: number): number {
  const fd = fs.openSync(file, "w");
  const escapeCopy = (s: string) => s.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");
  let rows = 0;
  let chunk: string[] = [];
  for (let i = 0; i < upTo; i++) {
    if (!has(i)) continue;
    const parsed = parseLine(dgiiLine(syntheticRecord(i, version)));
    if (!("record" in parsed)) continue;
    const [id, name, comercial, status] = parsed.record;
    const search = `${id}\n${foldForSearch(name)}\n${foldForSearch(comercial)}`;
    chunk.push(`${[runId, id, name, comercial, status, search].map((v) => escapeCopy(String(v))).join("\t")}\n`);
    rows++;
    if (chunk.length >= 10000) {
      fs.writeSync(fd, chunk.join(""));
      chunk = [];
    }
  }
  fs.writeSync(fd, chunk.join(""));
  fs.closeSync(fd);
  return rows;
}

/** 1,000 search terms: names (accented or not), name pairs, trade words, id prefixes, exact ids, fragments. */
function searchTerms(): string[] {
  const r = prng(42);
  const terms: string[] = [];
  for (let q = 0; q < 1000; q++) {
    const i = Math.floor(r() * N);
    const record = syntheticRecord(i);
    const words = record.name.split(" ");
    const kind = q % 10;
    if (kind < 3) terms.push(words[Math.floor(r() * words.length)]!.length >= 3 ? words[Math.floor(r() * words.length)]! : record.name.slice(0, 5));
    else if (kind < 5) terms.push(foldForSearch(words.slice(0, 2).join(" ")));
    else if (kind < 6) terms.push(record.comercialName?.trim() ? foldForSearch(record.comercialName).slice(0, 12) : foldForSearch(record.name).slice(0, 8));
    else if (kind < 8) terms.push(syntheticId(i).slice(0, 6 + (q % 3)));
    else if (kind < 9) terms.push(syntheticId(i));
    else terms.push(foldForSearch(record.name).replace(/ /g, "").slice(2, 5));
  }
  return terms.map((t) => (t.trim().length >= 3 ? t : "maria"));
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const dbName = `sucursal_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const ownerUrl = withDatabase(serverUrl, dbName);
  const files = { first: path.join(TMP, "rnc-first.zip"), second: path.join(TMP, "rnc-second.zip"), copy: path.join(TMP, "rnc-copy.tsv") };
  const server = await startFileServer({ dir: TMP });
  const store = nodeStore(ownerUrl, { setRole: "sucursal_app", max: CONCURRENCY + 4 });
  const owner = new pg.Client({ connectionString: ownerUrl });
  try {
    await runMigrations(ownerUrl);
    await owner.connect();
    const pgVersion = (await owner.query("SHOW server_version")).rows[0].server_version as string;

    console.log(`generating ${N} records …`);
    let t = performance.now();
    const firstFile = await writeZip(files.first, 0, inFirst, N);
    const secondFile = await writeZip(files.second, 1, inSecond, N + Math.floor(N / 50));
    writeCopyInput(files.copy, 1, 0, inFirst, N);
    const generation = {
      seconds: round((performance.now() - t) / 1000, 1),
      firstZipMB: round(fs.statSync(files.first).size / 2 ** 20, 1),
      ...firstFile,
      secondLines: secondFile.lines,
    };
    console.log(generation);

    // Parse stage alone, in a child with a 64 MB old-space cap.
    console.log("parse stage …");
    const child = await run(
      process.execPath,
      ["--max-old-space-size=64", "--expose-gc", "--import", "tsx", path.join(ROOT, "bench/rnc-parse-stage.ts"), `${server.url}/files/rnc-first.zip`],
      { cwd: ROOT, maxBuffer: 1 << 20 },
    );
    const parseStage = JSON.parse(child.stdout.trim().split("\n").at(-1)!);
    console.log(parseStage);

    // COPY baseline: empty table, same columns and indexes as rnc_records.
    console.log("COPY baseline …");
    await owner.query("CREATE TABLE rnc_copy_baseline (LIKE rnc_records INCLUDING ALL)");
    t = performance.now();
    await run("psql", [ownerUrl, "-v", "ON_ERROR_STOP=1", "-qc", `\\copy rnc_copy_baseline FROM '${files.copy}'`]);
    const copySeconds = (performance.now() - t) / 1000;
    const copied = Number((await owner.query("SELECT count(*) FROM rnc_copy_baseline")).rows[0].count);
    await owner.query("DROP TABLE rnc_copy_baseline");
    console.log({ copySeconds, copied });

    // End to end, first run.
    const sync = async (file: string) => {
      const consumer = inProcessQueue(store, { concurrency: CONCURRENCY });
      const started = performance.now();
      const url = `${server.url}/files/${path.basename(file)}`;
      const result = await runRncSync({ store, queue: consumer.queue, source: url, trigger: "bench", open: openUrl(url) });
      const producerSeconds = (performance.now() - started) / 1000;
      await consumer.drained();
      const seconds = (performance.now() - started) / 1000;
      const row = await getRun(store, result.runId);
      if (row?.status !== "completed") throw new Error(`run ${result.runId} ended ${row?.status}: ${row?.error ?? result.error}`);
      return {
        runId: result.runId,
        seconds,
        producerSeconds,
        batches: row.batchesDone,
        records: row.recordsWritten,
        linesRejected: row.linesRejected,
        maxBacklog: consumer.maxBacklog(),
      };
    };
    console.log("end to end, first run …");
    const first = await sync(files.first);
    console.log(first);
    await owner.query("VACUUM ANALYZE rnc_records");

    // Search latency over the loaded registry.
    console.log("search …");
    const reader = await store.pool.connect();
    await reader.query("SET ROLE sucursal_app");
    const db = drizzle({ client: reader });
    const terms = searchTerms();
    // Each search in its own transaction, as in a request: searchRnc's two statements are timed.
    const timedSearch = (term: string) =>
      inTransaction(reader, async () => {
        const s = performance.now();
        const rows = await searchRnc(db, term);
        return { rows, ms: performance.now() - s };
      });
    for (const term of terms.slice(0, 50)) await timedSearch(term); // warm-up
    const latencies: number[] = [];
    let hits = 0;
    for (const term of terms) {
      const { rows, ms } = await timedSearch(term);
      latencies.push(ms);
      if (rows.length) hits++;
    }
    latencies.sort((a, b) => a - b);
    const plans: Record<string, boolean> = {};
    for (const term of ["maria", "pena", "jose nunez", "ferreteria del cibao", "100123", "40200012345", "nez"]) {
      const result = await inTransaction(reader, async () => {
        await db.execute(sql`SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)`);
        return db.execute(sql`EXPLAIN ${searchQuery(term)}`);
      });
      const text = (result as unknown as { rows: Record<string, string>[] }).rows.map((r) => r["QUERY PLAN"]).join("\n");
      plans[term] = /Seq Scan on rnc_records/.test(text);
      if (process.env.BENCH_PLANS) console.log(`-- ${term}\n${text}`);
    }
    const search = {
      queries: terms.length,
      withResults: hits,
      p50ms: round(percentile(latencies, 50)),
      p99ms: round(percentile(latencies, 99)),
      maxms: round(latencies.at(-1)!),
      seqScanInPlan: plans,
    };
    console.log(search);

    // Second (update) run with a lookup probe every 100 ms.
    console.log("end to end, second run with lookup probe …");
    const probeIds = Array.from({ length: 200 }, (_, k) => syntheticId(k * 37 + 1)).filter((_, k) => inSecond(k * 37 + 1));
    let probes = 0;
    let misses = 0;
    const probeLatencies: number[] = [];
    let stop = false;
    const probing = (async () => {
      while (!stop) {
        const s = performance.now();
        try {
          const found = await findRnc(db, probeIds[probes % probeIds.length]!);
          if (!found) misses++;
        } catch {
          misses++;
        }
        probes++;
        probeLatencies.push(performance.now() - s);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (performance.now() - s))));
      }
    })();
    const second = await sync(files.second);
    stop = true;
    await probing;
    probeLatencies.sort((a, b) => a - b);
    const count = Number((await owner.query("SELECT count(*) FROM rnc_records")).rows[0].count);
    const leftovers = (
      await owner.query("SELECT count(DISTINCT run_id)::int AS generations, (SELECT count(*) FROM rnc_sync_batches)::int AS receipts FROM rnc_records")
    ).rows[0];
    reader.release();
    const lookupProbe = { probes, misses, p50ms: round(percentile(probeLatencies, 50)), p99ms: round(percentile(probeLatencies, 99)) };
    console.log({ second, lookupProbe, count, leftovers });

    const endToEnd = first.seconds;
    const results = {
      measuredAt: new Date().toISOString(),
      machine: { node: process.version, postgres: pgVersion, cpus: (await import("node:os")).cpus().length },
      what:
        "Node process: runRncSync (the cron's function) streams the ZIP from a local HTTP server through the shared parser into an in-process queue; " +
        `${CONCURRENCY} concurrent consumers run writeBatch (the Queue consumer's function) over node-postgres to local Postgres as sucursal_app. ` +
        "Parse stage measured alone in a child process with --max-old-space-size=64. COPY baseline: psql \\copy of the same cleaned rows into an empty table with the same indexes. " +
        "Search and lookup timed from Node around the service functions (one query each, no HTTP).",
      records: N,
      generation,
      parseStage,
      copyBaseline: { seconds: round(copySeconds), rows: copied, recordsPerSecond: Math.round(copied / copySeconds) },
      endToEnd: {
        ...first,
        seconds: round(first.seconds),
        producerSeconds: round(first.producerSeconds),
        recordsPerSecond: Math.round(first.records / first.seconds),
        ratioToCopy: round(endToEnd / copySeconds),
      },
      search,
      secondRun: { ...second, seconds: round(second.seconds), producerSeconds: round(second.producerSeconds), registryRecordsAfter: count, leftovers },
      lookupProbe,
      targets: {
        endToEndAtMost2xCopy: endToEnd <= 2 * copySeconds,
        parseStageAtMost64MB: parseStage.peakHeapAndArrayBuffersMB <= 64,
        searchP50AtMost5ms: search.p50ms <= 5,
        searchP99AtMost20ms: search.p99ms <= 20,
        zeroMissedLookups: misses === 0,
      },
    };
    fs.writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
    console.log(JSON.stringify(results.targets));
    console.log(`wrote ${path.relative(ROOT, RESULTS)}`);
  } finally {
    await owner.end().catch(() => undefined);
    await store.end();
    await server.close();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    for (const file of Object.values(files)) fs.rmSync(file, { force: true });
  }
}

runMain(main);
