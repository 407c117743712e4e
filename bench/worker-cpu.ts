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
  /**
   * The median of the requests' own CPU (each request's, from the scheduler's nanosecond counts:
   * /proc/<pid>/task/<tid>/schedstat, every thread), raw and minus the /health median; absent in
   * results of earlier runs. The mean is pulled up by the few requests that pay a garbage
   * collection or a compilation; the median is the typical request.
   */
  rawMedianMs?: number | null;
  medianMs?: number | null;
  /**
   * An E31's request alone: measured on a Worker without queue consumers (bench/run.ts), the
   * figure its budget is judged on; the fields above then include the e-CF queue's work.
   */
  alone?: { rawMs: number; rawMedianMs: number | null; ms: number; medianMs: number | null };
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

/**
 * utime + stime of the processes, in ms (children not counted: workerd forks none per request). A
 * process that ended (wrangler restarts a runtime now and then) counts as nothing: callers measure
 * over the processes alive at both ends.
 */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the command (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of proc(5))
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Nanoseconds every thread of the processes has run (schedstat's first field), or null. */
function runNs(pids: number[]): number | null {
  let ns = 0;
  try {
    for (const pid of pids) {
      if (!fs.existsSync(`/proc/${pid}`)) continue;
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    }
  } catch {
    return null;
  }
  return ns;
}

function median(values: number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface CpuRequest {
  method: string;
  path: string;
  body?: string;
}

/** One request on the agent's keep-alive connection, its body read and dropped; resolves to its status. */
function sendRequest(url: URL, agent: http.Agent, caller: { host: string; token: string }, req: CpuRequest): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const headers: Record<string, string> = { host: caller.host, authorization: `Bearer ${caller.token}` };
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
}): Promise<{ rawMs: number; rawMedianMs: number | null; requests: number; statuses: Record<string, number> } | null> {
  if (os.platform() !== "linux") return null;
  const pids = await workerdPids(options.processGroup);
  if (!pids.length) return null;
  const url = new URL(options.target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses: Record<string, number> = {};
  const send = (req: CpuRequest) => sendRequest(url, agent, options, req);
  try {
    for (let i = 0; i < (options.warmup ?? 20); i++) await send(options.make());
    // Requests prepared beforehand: their JSON is the bench's CPU, not workerd's (not measured anyway).
    const prepared = Array.from({ length: options.requests }, () => options.make());
    await new Promise((r) => setTimeout(r, 300)); // work left from the warm-up (queues, connections closing)
    const before = cpuMs(pids);
    // Each request's CPU: from before it is sent to before the next is, so a read's COMMIT after
    // its response counts with it. Work that waits longer (the e-CF queue's batches, at most one a
    // second) lands in a few requests' figures: the mean includes it, the median does not — for an
    // E31 the median is the request's own invocation, the queue consumer being another.
    const perRequestNs: number[] = [];
    let mark = runNs(pids);
    for (const req of prepared) {
      const status = await send(req);
      statuses[status] = (statuses[status] ?? 0) + 1;
      const now = runNs(pids);
      if (mark !== null && now !== null) perRequestNs.push(now - mark);
      mark = now;
    }
    if (options.settleMs) await new Promise((r) => setTimeout(r, options.settleMs));
    const alive = pids.filter((pid) => fs.existsSync(`/proc/${pid}`));
    if (alive.length !== pids.length) return null;
    const after = cpuMs(pids);
    const med = median(perRequestNs);
    return {
      rawMs: Math.round(((after - before) / options.requests) * 1000) / 1000,
      rawMedianMs: med === null ? null : Math.round(med / 1000) / 1000,
      requests: options.requests,
      statuses,
    };
  } finally {
    agent.destroy();
  }
}

export interface PairedCpu {
  requests: number;
  /** Per request, from the scheduler's counts (ns resolution): this tree's Worker and the other's. */
  own: { meanMs: number; medianMs: number | null };
  other: { meanMs: number; medianMs: number | null };
  statuses: { own: Record<string, number>; other: Record<string, number> };
}

/**
 * Two Workers measured together (`npm run bench -- --compare <tree>`): the same requests sent to each
 * in turn, one at a time, each request's CPU read from its own workerd's threads. On a machine
 * shared with other work, CPU time per request moves with the load (caches, the sibling hyperthread)
 * by more than the changes measured; alternating request by request puts both under the same load.
 */
export async function measurePairedCpu(options: {
  own: { target: string; processGroup: number };
  other: { target: string; processGroup: number };
  host: string;
  token: string;
  make: () => CpuRequest;
  requests: number;
  warmup?: number;
}): Promise<PairedCpu | null> {
  if (os.platform() !== "linux") return null;
  const sides = await Promise.all(
    [options.own, options.other].map(async (side) => {
      const url = new URL(side.target);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      return { url, agent, pids: await workerdPids(side.processGroup), ns: [] as number[], statuses: {} as Record<string, number> };
    }),
  );
  if (sides.some((s) => !s.pids.length)) return null;
  const send = (side: (typeof sides)[number], req: CpuRequest) => sendRequest(side.url, side.agent, options, req);
  try {
    for (let i = 0; i < (options.warmup ?? 20); i++) for (const side of sides) await send(side, options.make());
    const prepared = Array.from({ length: options.requests }, () => options.make());
    await new Promise((r) => setTimeout(r, 300));
    // Each request's window runs from before it is sent to before the next one to the same Worker
    // is, so what a Worker does after its response (a read's COMMIT, closing) counts with it.
    const marks: (number | null)[] = sides.map(() => null);
    const mark = (i: number) => {
      const now = runNs(sides[i]!.pids);
      const last = marks[i];
      if (last !== null && last !== undefined && now !== null) sides[i]!.ns.push(now - last);
      marks[i] = now;
    };
    for (const [k, req] of prepared.entries()) {
      // Which goes first alternates too.
      for (const i of k % 2 ? [1, 0] : [0, 1]) {
        mark(i);
        const side = sides[i]!;
        const status = await send(side, req);
        side.statuses[status] = (side.statuses[status] ?? 0) + 1;
      }
    }
    await new Promise((r) => setTimeout(r, 300));
    mark(0);
    mark(1);
  } finally {
    for (const side of sides) side.agent.destroy();
  }
  const figures = (ns: number[]) => {
    const med = median(ns);
    return {
      meanMs: Math.round(ns.reduce((a, b) => a + b, 0) / Math.max(ns.length, 1) / 1000) / 1000,
      medianMs: med === null ? null : Math.round(med / 1000) / 1000,
    };
  };
  return {
    requests: options.requests,
    own: figures(sides[0]!.ns),
    other: figures(sides[1]!.ns),
    statuses: { own: sides[0]!.statuses, other: sides[1]!.statuses },
  };
}
