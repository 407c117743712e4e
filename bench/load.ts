/**
 * One autocannon load, in its own process so that the load generator does not share an event
 * loop (or a core's queue) with the bench's WebSocket relay. Reads a JSON job file, cycles through
 * its pre-generated requests, prints one JSON line with the result. The same for the SQL-over-HTTP
 * stand-in's own load (the job's `headers`: Neon's, no token).
 *
 * tsx bench/load.ts <job.json>
 */
import fs from "node:fs";
import autocannon from "autocannon";

interface Job {
  url: string;
  host: string;
  token: string;
  connections: number;
  seconds: number;
  requests: { method: string; path: string; body?: string }[];
  /** Sent instead of the API's Host, Authorization and JSON content type (the SQL-over-HTTP stand-in's load). */
  headers?: Record<string, string>;
}

const job = JSON.parse(fs.readFileSync(process.argv[2]!, "utf8")) as Job;
let next = 0;
const result = await autocannon({
  url: job.url,
  connections: job.connections,
  duration: job.seconds,
  timeout: 10,
  headers: job.headers ?? { host: job.host, authorization: `Bearer ${job.token}`, "content-type": "application/json" },
  requests: [
    {
      setupRequest: (request: Record<string, unknown>) => {
        const r = job.requests[next++ % job.requests.length]!;
        return { ...request, method: r.method, path: r.path, body: r.body };
      },
    },
  ],
} as unknown as autocannon.Options);
console.log(
  JSON.stringify({
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  }),
);
