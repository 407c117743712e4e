import net from "node:net";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * The local stand-in for Neon's WebSocket proxy: `ws://127.0.0.1:PORT/v2?address=host:port` is
 * piped to that TCP address. Loopback destinations only. It also measures what the bench needs:
 * round trips (a client write followed by the server's answer) per connection, and it can add a
 * delay each way (simulated distance to the database) or cut every connection (fault tests).
 */
export interface WsRelay {
  port: number;
  url: string;
  stats(): { connections: number; roundTrips: number };
  resetStats(): void;
  setDelayMs(oneWay: number): void;
  /** Where a requested `host:port` is actually connected (the bench bypasses its sniffer for loads). */
  setRoute(route: ((address: string) => string) | null): void;
  cutAll(): void;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** The wire protocol's Terminate message: 'X' and a length of 4, nothing else. */
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);
const endsWithTerminate = (data: Buffer) => data.length >= TERMINATE.length && data.subarray(data.length - TERMINATE.length).equals(TERMINATE);

export async function startWsRelay(options: { port?: number; oneWayDelayMs?: number } = {}): Promise<WsRelay> {
  let delay = options.oneWayDelayMs ?? 0;
  let route: ((address: string) => string) | null = null;
  let connections = 0;
  let roundTrips = 0;
  const live = new Set<{ ws: WebSocket; socket: net.Socket }>();
  const server = new WebSocketServer({ host: "127.0.0.1", port: options.port ?? 0 });

  const later = (fn: () => void) => (delay > 0 ? setTimeout(fn, delay) : fn());

  server.on("connection", (ws, request) => {
    const url = new URL(request.url ?? "/", "http://relay");
    const requested = url.searchParams.get("address") ?? "";
    const address = route ? route(requested) : requested;
    const separator = address.lastIndexOf(":");
    const host = address.slice(0, separator);
    const port = Number(address.slice(separator + 1));
    if (!LOOPBACK.has(host) || !Number.isInteger(port)) {
      ws.close(1008, "only loopback destinations");
      return;
    }
    connections++;
    const socket = net.connect({ host, port });
    socket.setNoDelay(true);
    const pair = { ws, socket };
    live.add(pair);
    // A round trip starts when the client writes after having last heard from the server.
    let awaitingAnswer = false;
    ws.on("message", (data: Buffer) => {
      if (!awaitingAnswer) {
        awaitingAnswer = true;
        roundTrips++;
      }
      later(() => {
        socket.write(data);
        // A client's Terminate message ends the session. Postgres then closes the connection, but
        // the embedded database's socket server (PGlite) keeps it open, and a WebSocket left open
        // keeps a Worker's queue or cron invocation from finishing: close it here, as Postgres does.
        if (endsWithTerminate(data)) socket.end();
      });
    });
    socket.on("data", (data) => {
      awaitingAnswer = false;
      later(() => {
        if (ws.readyState === ws.OPEN) ws.send(data);
      });
    });
    const closeBoth = () => {
      live.delete(pair);
      socket.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
    };
    socket.on("error", closeBoth);
    socket.on("close", closeBoth);
    ws.on("close", closeBoth);
    ws.on("error", closeBoth);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `127.0.0.1:${port}`,
    stats: () => ({ connections, roundTrips }),
    resetStats: () => {
      connections = 0;
      roundTrips = 0;
    },
    setDelayMs: (oneWay) => {
      delay = oneWay;
    },
    setRoute: (next) => {
      route = next;
    },
    cutAll: () => {
      for (const pair of live) {
        pair.socket.destroy();
        pair.ws.terminate();
      }
    },
    close: async () => {
      for (const pair of live) {
        pair.socket.destroy();
        pair.ws.terminate();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
