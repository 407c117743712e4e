/**
 * A CPU profile of the Worker in workerd (`npm run bench -- --profile --only …`): V8's sampling
 * profiler through the devtools inspector (Chrome DevTools Protocol: Profiler.start/stop) while
 * N requests of a scenario run one after another, then the self time summed by where the code
 * comes from: the bundle's modules (esbuild marks each with a `// path` comment) folded into
 * packages (node_modules/<name>) and our own files (src/…). The .cpuprofile files are written
 * beside the results, for Chrome's DevTools or speedscope.
 */
import fs from "node:fs";
import WebSocket from "ws";

interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  requests: number;
  /** Sampled CPU of the isolate's thread per request, ms (idle and GC reported apart). */
  msPerRequest: number;
  gcMsPerRequest: number;
  /** Self time per request by origin (package or source file), ms, largest first. */
  byOrigin: { origin: string; ms: number }[];
  /** Self time per request by function, with its origin, ms, largest first. */
  byFunction: { fn: string; origin: string; ms: number }[];
  file: string;
}

class Inspector {
  private nextId = 1;
  private pending = new Map<number, (result: unknown) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: unknown };
      if (message.id !== undefined) this.pending.get(message.id)?.(message.error ? { error: message.error } : message.result);
    });
  }
  static async connect(port: number): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string; title?: string }[];
    // The user Worker's isolate (wrangler's own proxy workers are named with "ProxyWorker").
    const target = targets.find((t) => !/proxy/i.test(t.title ?? "")) ?? targets[0];
    if (!target) throw new Error("no inspector target");
    const ws = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return new Inspector(ws);
  }
  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve) => this.pending.set(id, resolve as (r: unknown) => void));
  }
  close() {
    this.ws.close();
  }
}

/** Bundle line → the module it belongs to, from esbuild's `// path` comments, per script. */
async function moduleMap(inspector: Inspector, scriptId: string, cache: Map<string, string[]>): Promise<string[]> {
  const known = cache.get(scriptId);
  if (known) return known;
  const { scriptSource } = await inspector.send<{ scriptSource: string }>("Debugger.getScriptSource", { scriptId });
  const lines = (scriptSource ?? "").split("\n");
  const owner: string[] = [];
  let current = "(bundle)";
  for (const line of lines) {
    const m = /^\/\/ (\S+\.(?:m?[jt]s|cjs|json|wasm))$/.exec(line);
    if (m) current = m[1]!;
    owner.push(current);
  }
  cache.set(scriptId, owner);
  return owner;
}

function originOf(module: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (pkg) return pkg[1]!;
  const ours = /(?:^|\/)(src\/.+)$/.exec(module);
  return ours ? ours[1]! : module;
}

export async function profileRequests(options: { inspectorPort: number; run: () => Promise<number>; out: string }): Promise<ProfileSummary> {
  const inspector = await Inspector.connect(options.inspectorPort);
  try {
    await inspector.send("Debugger.enable");
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: 100 });
    await inspector.send("Profiler.start");
    const requests = await options.run();
    const { profile } = await inspector.send<{ profile: Profile }>("Profiler.stop");
    fs.writeFileSync(options.out, JSON.stringify(profile));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map<number, number>();
    for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
    const cache = new Map<string, string[]>();
    const origins = new Map<string, number>();
    const functions = new Map<string, { fn: string; origin: string; us: number }>();
    let busy = 0;
    let gc = 0;
    for (const [id, us] of self) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === "(idle)" || frame.functionName === "(program)") continue;
      if (frame.functionName === "(garbage collector)") {
        gc += us;
        continue;
      }
      busy += us;
      let origin = frame.url ? frame.url.replace(/^.*\//, "") : "(native)";
      // workerd's own JavaScript of the node: modules (Buffer, timers, process.nextTick), which
      // the driver leans on: named apart from the bundle.
      if (frame.url.startsWith("node-internal:")) origin = "node-internal (workerd's node:buffer, timers…)";
      else if (frame.scriptId && frame.scriptId !== "0" && frame.url) {
        const owners = await moduleMap(inspector, frame.scriptId, cache).catch(() => [] as string[]);
        origin = originOf(owners[frame.lineNumber] ?? origin);
      }
      origins.set(origin, (origins.get(origin) ?? 0) + us);
      const key = `${frame.functionName || "(anonymous)"}@${origin}:${frame.lineNumber}`;
      const entry = functions.get(key) ?? { fn: frame.functionName || "(anonymous)", origin, us: 0 };
      entry.us += us;
      functions.set(key, entry);
    }
    const per = (us: number) => Math.round((us / 1000 / requests) * 1000) / 1000;
    return {
      requests,
      msPerRequest: per(busy),
      gcMsPerRequest: per(gc),
      byOrigin: [...origins.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([origin, us]) => ({ origin, ms: per(us) })),
      byFunction: [...functions.values()]
        .sort((a, b) => b.us - a.us)
        .slice(0, 15)
        .map((f) => ({ fn: f.fn, origin: f.origin, ms: per(f.us) })),
      file: options.out,
    };
  } finally {
    inspector.close();
  }
}
