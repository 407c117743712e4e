/**
 * npm run rnc:sync -- [--url URL | --file PATH] [--concurrency N] [--force]
 *
 * The operator's RNC sync: the same streaming parser and batch writer as the weekly cron, in Node,
 * with an in-process queue. Default URL: TAX_AUTHORITY_DATA_URL, else DGII's (wrangler.toml).
 * A file with under 50 % of the current registry's records is refused (the run fails, the registry
 * is unchanged) unless `--force` is given; the weekly cron never forces.
 * Database: DATABASE_URL, else the embedded database of `npm run dev`.
 */
import fs from "node:fs";
import { Readable } from "node:stream";
import { RegistryFileError } from "../src/modules/rnc/sync/parse";
import { getRun } from "../src/modules/rnc/sync/runs";
import { openUrl, runRncSync } from "../src/modules/rnc/sync/sync";
import { command, commandLine, isMain, runMain } from "./lib/args";
import { openOperatorDatabase } from "./lib/local-database";
import { inProcessQueue, nodeStore } from "./lib/rnc-node";

const DGII_URL = "https://dgii.gov.do/app/WebApps/Consultas/RNC/DGII_RNC.zip";

export const COMMAND = command({
  usage: `Usage: npm run rnc:sync -- [--url URL | --file PATH] [--concurrency N] [--force]

Loads DGII's taxpayer registry (the weekly RNC file) into the database of npm run dev (.dev-data/)
or DATABASE_URL's. --url: where to download it (default TAX_AUTHORITY_DATA_URL, else DGII's);
--file: a ZIP or TXT already downloaded; --concurrency: batches written at once (1 to 32, default 4);
--force: load it even when the file is the one loaded last.`,
  options: { url: { type: "string" }, file: { type: "string" }, concurrency: { type: "string" }, force: { type: "boolean" } },
});

async function main(): Promise<number> {
  const options = commandLine(COMMAND).values;
  if (options.url && options.file) {
    console.error("Give --url or --file, not both.");
    return 1;
  }
  const concurrency = Number(options.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) {
    console.error("--concurrency must be an integer from 1 to 32.");
    return 1;
  }
  const file = options.file;
  const source = file ?? options.url ?? process.env.TAX_AUTHORITY_DATA_URL ?? DGII_URL;
  const open = file
    ? async () => {
        if (!fs.existsSync(file)) throw new RegistryFileError(`no such file: ${file}`);
        return Readable.toWeb(fs.createReadStream(file)) as unknown as ReadableStream<Uint8Array>;
      }
    : openUrl(source);

  const database = await openOperatorDatabase();
  const store = nodeStore(database.ownerUrl, { setRole: database.setRole });
  try {
    const consumer = inProcessQueue(store, { concurrency });
    const started = Date.now();
    console.log(`RNC sync from ${source}`);
    if (options.force) console.log("--force: the file replaces the registry however few records it holds.");
    const result = await runRncSync({ store, queue: consumer.queue, source, trigger: "cli", open, force: options.force === true });
    await consumer.drained();
    const run = await getRun(store, result.runId);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (run?.status !== "completed") {
      console.error(
        `Run ${result.runId} ${run?.status ?? "missing"}: ${run?.error ?? result.error ?? "not all batches were written"} (${seconds} s). The registry is unchanged.`,
      );
      return 1;
    }
    console.log(
      `Run ${run.id} completed in ${seconds} s: ${run.linesRead} lines read, ${run.recordsWritten} records written in ${run.batchesDone} batches, ${run.linesRejected} lines rejected.`,
    );
    for (const r of run.rejections) console.log(`  line ${r.line}: ${r.reason}`);
    return 0;
  } finally {
    await store.end();
    await database.stop();
  }
}

if (isMain(import.meta.url)) runMain(main);
