/**
 * `wrangler dev` for the bench, in a child process: wrangler's own dev server (unstable_startWorker,
 * the engine behind the `wrangler dev` command) with the devtools inspector off. The command line
 * cannot turn the inspector off, and with it on, wrangler enables the inspector's Network domain
 * and forwards every event (each outbound WebSocket of the Worker: one per request here) through
 * its proxy worker to its Node process, which writes it to its debug log — measured in this bench's
 * development at a third of the API's throughput, a cost no deployed Worker pays.
 *
 * Prints one JSON line: { url, direct }. `url` is wrangler's public address (its proxy worker, as a
 * developer calls it); `direct` is the socket of the workerd running our Worker, found among this
 * process's workerd children (Linux: `ss`), or null.
 *
 * tsx bench/worker-host.ts <env-file> <port> <persist-dir> <host-header> [<inspector-port>]
 * With an inspector port (`npm run bench -- --profile`), the inspector is on there, for CPU profiles
 * (bench/worker-profile.ts); the figures of such a run are not comparable, and the bench takes none.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { unstable_startWorker } from "wrangler";

const exec = promisify(execFile);
const [envFile, port, persist, hostHeader, inspectorPort] = process.argv.slice(2);
if (!envFile || !port || !persist || !hostHeader) throw new Error("usage: worker-host.ts <env-file> <port> <persist-dir> <host-header>");

const worker = await unstable_startWorker({
  // The bench's E31 CPU figure: a copy of wrangler.toml without the queue consumers (bench/run.ts).
  config: process.env.BENCH_WRANGLER_CONFIG ?? "wrangler.toml",
  // The scale bench runs src/index.ts wrapped to count what each invocation enqueues (bench/scale-entry.ts).
  ...(process.env.BENCH_WORKER_ENTRY ? { entrypoint: process.env.BENCH_WORKER_ENTRY } : {}),
  // unstable_startWorker (wrangler 4.86) does not derive the Node.js compatibility of the bundle
  // from wrangler.toml's nodejs_compat flag as `wrangler dev` does (workers-sdk PR 14617, fixed
  // later): without this, the e-CF signer's node:crypto and xml-crypto's requires fail to bundle.
  build: { nodejsCompatMode: "v2" },
  envFiles: [envFile],
  dev: {
    server: { hostname: "127.0.0.1", port: Number(port) },
    inspector: inspectorPort ? { hostname: "127.0.0.1", port: Number(inspectorPort) } : false,
    watch: false,
    liveReload: false,
    logLevel: "warn",
    persist,
  },
});
await worker.ready;
const url = String(await worker.url).replace(/\/$/, "");

/** Listening loopback ports of workerd processes started by this process. */
async function workerdPorts(): Promise<number[]> {
  const { stdout } = await exec("ss", ["-ltnpH"]).catch(() => ({ stdout: "" }));
  const { stdout: children } = await exec("pgrep", ["-P", String(process.pid), "workerd"]).catch(() => ({ stdout: "" }));
  const pids = new Set(children.split(/\s+/).filter(Boolean));
  const ports: number[] = [];
  for (const line of stdout.split("\n")) {
    const pid = /pid=(\d+)/.exec(line)?.[1];
    const address = /127\.0\.0\.1:(\d+)/.exec(line)?.[1];
    if (pid && address && pids.has(pid)) ports.push(Number(address));
  }
  return ports;
}

// The Worker's runtime may start after `ready` resolves: one request through the public port, then
// look for its socket for up to 10 s.
await fetch(`${url}/health`, { headers: { host: hostHeader }, signal: AbortSignal.timeout(30_000) }).catch(() => null);
let direct: string | null = null;
for (let attempt = 0; attempt < 40 && !direct; attempt++) {
  for (const candidate of await workerdPorts()) {
    if (candidate === Number(port)) continue;
    const res = await fetch(`http://127.0.0.1:${candidate}/health`, { headers: { host: hostHeader }, signal: AbortSignal.timeout(2000) }).catch(() => null);
    const body = res?.ok ? await res.text() : "";
    if (body.includes('"status":"ok"')) {
      direct = `http://127.0.0.1:${candidate}`;
      break;
    }
  }
  if (!direct) await new Promise((r) => setTimeout(r, 250));
}
console.log(JSON.stringify({ url, direct }));
process.on("SIGTERM", () => void worker.dispose().finally(() => process.exit(0)));
process.on("SIGINT", () => void worker.dispose().finally(() => process.exit(0)));
