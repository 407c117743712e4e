/**
 * The parse stage alone, in its own process (run by bench/rnc.ts with --max-old-space-size=64):
 * download → unzip → decode → lines → records → batches → the JSON each Queue message would carry.
 * Prints one JSON line with its time and peak memory, sampled after every chunk of the body.
 */
import { streamRegistryZip, utf8Length } from "../src/modules/rnc/sync/parse";
import { openUrl } from "../src/modules/rnc/sync/sync";

const url = process.argv[2]!;
const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
global.gc?.();
const base = process.memoryUsage();
let peakHeap = 0;
let peakHeapAndBuffers = 0;
let peakRss = 0;
const sample = () => {
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakHeapAndBuffers = Math.max(peakHeapAndBuffers, m.heapUsed + m.arrayBuffers);
  peakRss = Math.max(peakRss, m.rss);
};
let batches = 0;
let bytes = 0;
const started = performance.now();
const stats = await streamRegistryZip(await openUrl(url)(), {
  onBatch: async (records) => {
    bytes += utf8Length(JSON.stringify({ kind: "rnc-batch", runId: 1, seq: batches++, records }));
  },
  onChunk: sample,
});
const seconds = (performance.now() - started) / 1000;
sample();
console.log(
  JSON.stringify({
    seconds: Math.round(seconds * 100) / 100,
    records: stats.recordsAccepted,
    linesRejected: stats.linesRejected,
    batches,
    messageMB: mb(bytes),
    baselineHeapMB: mb(base.heapUsed),
    baselineRssMB: mb(base.rss),
    peakHeapMB: mb(peakHeap),
    peakHeapAndArrayBuffersMB: mb(peakHeapAndBuffers),
    peakRssMB: mb(peakRss),
    maxOldSpaceMB: 64,
  }),
);
