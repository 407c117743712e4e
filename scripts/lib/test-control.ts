import { writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { type SqlHttp, startSqlHttp } from "./sql-http";
import { startUpstashRelay, type UpstashRelay } from "./upstash-relay";
import { startWsRelay, type WsRelay } from "./ws-relay";

/**
 * Fault injection for the reliability suites (test/security), started by the test global setup.
 * Tests run in workerd and reach it over loopback HTTP:
 *
 *   POST /redis/stop          close the FAULT Upstash relay (its port then refuses connections)
 *   POST /redis/hang          replace it with a server on the same port that accepts requests and never answers
 *   POST /redis/start         start it again on the same port (after a stop or a hang)
 *   GET  /redis               {"up": boolean, "hanging": boolean, "configured": boolean}
 *   POST /db/cut?after_ms=N   cut every connection of the FAULT relay (now, or N ms later)
 *   POST /db/delay?ms=N       one-way delay of the fault relay
 *   GET  /db/stats            {connections, roundTrips} of the fault relay
 *   POST /db/http-fault?status=N&body=TEXT   the FAULT SQL-over-HTTP endpoint answers every request so (no status: normally again)
 *   GET  /db/http-stats       {requests, statements} of the fault SQL-over-HTTP endpoint
 *   POST /db/http-stats/reset start counting again
 *   POST /soak/record         append a JSON record (cases tried, failures, invariants) to the run
 *   GET  /soak/records        the records so far
 *
 * The fault Upstash relay is a second relay in front of the same Redis: tests that stop it point
 * UPSTASH_REDIS_REST_URL at it, so the limiter of other test files keeps its Redis.
 * The fault relay is a second WebSocket-to-TCP relay in front of the same Postgres. Tests that cut
 * connections send their requests through it (DB_WS_PROXY overridden in the env they pass to the
 * app), so cutting never touches the connections of other test files running at the same time.
 * `blackholeUrl` is a Postgres URL whose port accepts TCP and never answers (a hung database).
 */
export interface TestControl {
  url: string;
  faultWsProxy: string;
  /** A second SQL-over-HTTP endpoint (scripts/lib/sql-http.ts) to the same Postgres, whose answers can be failed. */
  faultHttpEndpoint: string;
  /** "" when no Redis answers. */
  faultUpstashUrl: string;
  faultUpstashToken: string;
  blackholeUrl: string;
  records(): unknown[];
  close(): Promise<void>;
}

export async function startTestControl(options: { redisAvailable: boolean; recordsFile?: string }): Promise<TestControl> {
  const first: UpstashRelay | null = options.redisAvailable ? await startUpstashRelay({ token: "fault-upstash-token" }) : null;
  let upstash = first;
  const upstashPort = upstash ? Number(new URL(upstash.url).port) : 0;
  let redisUp = upstash !== null;
  // A Redis that hangs: the fault relay's port accepts HTTP requests and never answers them.
  let hanging: { server: http.Server; sockets: Set<net.Socket> } | null = null;
  const stopHanging = async () => {
    if (!hanging) return;
    const { server, sockets } = hanging;
    hanging = null;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const faultRelay: WsRelay = await startWsRelay();
  const faultHttp: SqlHttp = await startSqlHttp();
  const records: unknown[] = [];

  const held = new Set<net.Socket>();
  const blackhole = net.createServer((socket) => {
    held.add(socket);
    socket.on("close", () => held.delete(socket));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => blackhole.listen(0, "127.0.0.1", resolve));
  const blackholePort = (blackhole.address() as AddressInfo).port;

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://control");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const route = `${req.method} ${url.pathname}`;
      if (route === "POST /redis/stop") {
        await stopHanging();
        if (upstash && redisUp) {
          await upstash.close();
          redisUp = false;
        }
        return send(200, { up: redisUp });
      }
      if (route === "POST /redis/hang") {
        if (!first) return send(200, { up: false, hanging: false });
        if (upstash && redisUp) {
          await upstash.close();
          redisUp = false;
        }
        if (!hanging) {
          const sockets = new Set<net.Socket>();
          const server = http.createServer(() => undefined); // requests are read and never answered
          server.on("connection", (socket) => {
            sockets.add(socket);
            socket.on("close", () => sockets.delete(socket));
          });
          await new Promise<void>((resolve) => server.listen(upstashPort, "127.0.0.1", resolve));
          hanging = { server, sockets };
        }
        return send(200, { up: redisUp, hanging: true });
      }
      if (route === "POST /redis/start") {
        await stopHanging();
        if (first && !redisUp) {
          upstash = await startUpstashRelay({ port: upstashPort, token: first.token });
          redisUp = true;
        }
        return send(200, { up: redisUp });
      }
      if (route === "GET /redis") return send(200, { up: redisUp, hanging: hanging !== null, configured: first !== null });
      if (route === "POST /db/cut") {
        const after = Number(url.searchParams.get("after_ms") ?? 0);
        if (after > 0) setTimeout(() => faultRelay.cutAll(), after);
        else faultRelay.cutAll();
        return send(200, { cut: true, after_ms: after });
      }
      if (route === "POST /db/delay") {
        faultRelay.setDelayMs(Number(url.searchParams.get("ms") ?? 0));
        return send(200, { ok: true });
      }
      if (route === "GET /db/stats") return send(200, faultRelay.stats());
      if (route === "POST /db/http-fault") {
        const status = url.searchParams.get("status");
        faultHttp.setFault(status ? { status: Number(status), body: url.searchParams.get("body") ?? "" } : null);
        return send(200, { fault: status });
      }
      if (route === "GET /db/http-stats") return send(200, faultHttp.stats());
      if (route === "POST /db/http-stats/reset") {
        faultHttp.resetStats();
        return send(200, { reset: true });
      }
      if (route === "POST /soak/record") {
        const record = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        records.push(record);
        if (options.recordsFile) writeFileSync(options.recordsFile, JSON.stringify(records, null, 2));
        return send(200, { ok: true });
      }
      if (route === "GET /soak/records") return send(200, records);
      return send(404, { error: "unknown control route" });
    } catch (error) {
      return send(500, { error: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    faultWsProxy: faultRelay.url,
    faultHttpEndpoint: faultHttp.url,
    faultUpstashUrl: first?.url ?? "",
    faultUpstashToken: first?.token ?? "",
    blackholeUrl: `postgres://sucursal_app@127.0.0.1:${blackholePort}/sucursal`,
    records: () => records,
    close: async () => {
      await stopHanging();
      if (upstash && redisUp) await upstash.close();
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => blackhole.close(() => resolve()));
      await faultRelay.close();
      await faultHttp.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
