import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Redis from "ioredis";

/**
 * Serves Upstash's REST protocol (POST /, /pipeline, /multi-exec; Bearer token; optional
 * `Upstash-Encoding: base64`) in front of a real Redis, for local runs and tests.
 *
 * @upstash/ratelimit ≥ 2.1 starts its scripts with `#!lua flags=allow-key-locking`, which Redis 7.0
 * rejects. We strip that line and keep a map from the hash of the original script (what the client
 * computes and sends to EVALSHA) to the hash Redis knows.
 */
export interface UpstashRelay {
  url: string;
  token: string;
  close(): Promise<void>;
}

type Command = (string | number)[];
type Reply = Buffer | number | null | Reply[] | string;

const SHEBANG = /^#!lua[^\n]*\n/;

export async function startUpstashRelay(options: { redisUrl?: string; token?: string; port?: number } = {}): Promise<UpstashRelay> {
  const redis = new Redis(options.redisUrl ?? "redis://127.0.0.1:6379", { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const token = options.token ?? "local-upstash-token";
  const shaAliases = new Map<string, string>();

  const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

  function rewrite(command: Command): Command {
    const name = String(command[0]).toUpperCase();
    if (name === "EVAL" && typeof command[1] === "string" && SHEBANG.test(command[1])) {
      const stripped = command[1].replace(SHEBANG, "");
      shaAliases.set(sha1(command[1]), sha1(stripped));
      return [command[0]!, stripped, ...command.slice(2)];
    }
    if (name === "SCRIPT" && String(command[1]).toUpperCase() === "LOAD" && typeof command[2] === "string") {
      const original = command[2];
      const stripped = original.replace(SHEBANG, "");
      shaAliases.set(sha1(original), sha1(stripped));
      return [command[0]!, command[1]!, stripped];
    }
    if (name === "EVALSHA" && typeof command[1] === "string" && shaAliases.has(command[1])) {
      return [command[0]!, shaAliases.get(command[1])!, ...command.slice(2)];
    }
    return command;
  }

  function encode(reply: Reply, base64: boolean, originalSha?: string): unknown {
    if (Buffer.isBuffer(reply) || typeof reply === "string") {
      let text = reply.toString();
      // SCRIPT LOAD answers with the stripped script's hash; the client expects the original's.
      if (originalSha) text = originalSha;
      return base64 ? Buffer.from(text, "utf8").toString("base64") : text;
    }
    if (Array.isArray(reply)) return reply.map((item) => encode(item, base64));
    return reply;
  }

  async function run(command: Command, base64: boolean): Promise<{ result?: unknown; error?: string }> {
    try {
      const rewritten = rewrite(command);
      const isLoad = String(command[0]).toUpperCase() === "SCRIPT" && String(command[1]).toUpperCase() === "LOAD";
      const reply = (await redis.callBuffer(String(rewritten[0]), ...rewritten.slice(1).map(String))) as Reply;
      return { result: encode(reply, base64, isLoad ? sha1(String(command[2])) : undefined) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }

  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "Unauthorized" });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(400, { error: "ERR invalid JSON" });
    }
    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/pipeline" || path === "/multi-exec") {
      const commands = body as Command[];
      if (path === "/multi-exec") {
        const multi = redis.multi(commands.map((command) => rewrite(command).map(String)) as string[][]);
        const replies = (await multi.exec().catch(() => null)) as [Error | null, Reply][] | null;
        if (!replies) return send(400, { error: "ERR transaction aborted" });
        return send(
          200,
          replies.map(([error, reply]) => (error ? { error: error.message } : { result: encode(reply, base64) })),
        );
      }
      const results = [];
      for (const command of commands) results.push(await run(command, base64));
      return send(200, results);
    }
    const outcome = await run(body as Command, base64);
    return send(outcome.error ? 400 : 200, outcome);
  });

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}
