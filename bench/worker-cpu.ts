/**
 * The Worker's own CPU per request (issue 46): workerd's process CPU (user + system, every thread,
 * from /proc/<pid>/stat) over N requests sent one after another on one keep-alive connection to
 * the Worker's socket, divided by N. The same figure for GET /health (no database, no tenant: the
 * runtime's HTTP handling and the pipeline's first steps) is the floor subtracted from each
 * endpoint's, so what remains is the request's own work in the Worker: JSON and validation, query
 * building, the driver's protocol, serialization, signing.
 *
 * Linux only (null elsewhere). /proc's CPU times tick at 100 Hz: N is chosen so that a run takes
 * about a second of workerd CPU or more, which keeps the tick error near 1 %.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import { promisify } from "node:util";

const exec = promisify(execFile);
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface WorkerCpu {
  requests: number;
  /** workerd's CPU per request, the /health floor not subtracted. */
  rawMs: number;
  /** rawMs minus the /health floor of the same run (null for /health itself). */
  ms: number | null;
  /** The budget of issue 46 (null: none), and whether `ms` is within it. */
  budgetMs: number | null;
  withinBudget: boolean | null;
  statuses: Record<string, number>;
}

async function workerdPids(processGroup: number): Promise<number[]> {
  const { stdout } = await exec("ps", ["-o", "pid=,comm=", "-g", String(processGroup)]).catch(() => ({ stdout: "" }));
  return stdout
    .split("\n")
    .filter((line) => /workerd/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** utime + stime of the processes, in ms (children not counted: workerd forks none per request). */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of proc(5))
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

export interface CpuRequest {
  method: string;
  path: string;
  body?: string;
}

/** N requests one after another on one keep-alive connection; workerd's CPU over them ÷ N. */
export async function measureWorkerCpu(options: {
  target: string;
  host: string;
  token: string;
  processGroup: number;
  make: () => CpuRequest;
  requests: number;
  warmup?: number;
  /** Wait after the last response (work the Worker does after it: the e-CF queue's sends). */
  settleMs?: number;
}): Promise<{ rawMs: number; requests: number; statuses: Record<string, number> } | null> {
  if (os.platform() !== "linux") return null;
  const pids = await workerdPids(options.processGroup);
  if (!pids.length) return null;
  const url = new URL(options.target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses: Record<string, number> = {};
  const send = (req: CpuRequest) =>
    new Promise<number>((resolve, reject) => {
      const headers: Record<string, string> = { host: options.host, authorization: `Bearer ${options.token}` };
      if (req.body) {
        headers["content-type"] = "application/json";
        headers["content-length"] = String(Buffer.byteLength(req.body));
      }
      const request = http.request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent, timeout: 15_000 }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      });
      request.on("timeout", () => request.destroy(new Error("request timed out")));
      request.on("error", reject);
      request.end(req.body);
    });
  try {
    for (let i = 0; i < (options.warmup ?? 20); i++) await send(options.make());
    // Requests prepared beforehand: their JSON is the bench's CPU, not workerd's (not measured anyway).
    const prepared = Array.from({ length: options.requests }, () => options.make());
    await new Promise((r) => setTimeout(r, 300)); // work left from the warm-up (queues, pool ends)
    const before = cpuMs(pids);
    for (const req of prepared) {
      const status = await send(req);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    if (options.settleMs) await new Promise((r) => setTimeout(r, options.settleMs));
    const after = cpuMs(pids);
    return { rawMs: Math.round(((after - before) / options.requests) * 1000) / 1000, requests: options.requests, statuses };
  } finally {
    agent.destroy();
  }
}
