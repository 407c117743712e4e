import net from "node:net";

/**
 * A loopback TCP proxy in front of Postgres that reads the wire protocol, for the bench only.
 * The Worker's path is: neon driver → WebSocket relay (scripts/lib/ws-relay.ts, which also counts
 * round trips) → this proxy → Postgres. Per connection it records:
 * - setup round trips: from the first client byte until the server's first ReadyForQuery;
 * - request round trips after that: a round trip starts when the client writes after having last
 *   heard from the server (the ws-relay's definition), except a write that is only Terminate ('X'),
 *   which nobody waits for (client.end() after the response);
 * - the statements sent in each round trip (simple Query text, or Parse text with Bind values).
 */
export interface Statement {
  rt: number;
  /** `http`: a read's batch posted to the SQL-over-HTTP endpoint (bench/run.ts), its statements in `batch`. */
  kind: "simple" | "extended" | "http";
  text: string;
  params: (string | null)[];
  batch?: { text: string; params: unknown[] }[];
}

export interface ConnectionRecord {
  id: number;
  setupRoundTrips: number;
  roundTrips: number;
  terminated: boolean;
  statements: Statement[];
  closed: boolean;
}

export interface Sniffer {
  port: number;
  connections(): ConnectionRecord[];
  reset(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

export async function startSniffer(target: { host: string; port: number }): Promise<Sniffer> {
  let records: ConnectionRecord[] = [];
  let nextId = 1;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    const record: ConnectionRecord = { id: nextId++, setupRoundTrips: 0, roundTrips: 0, terminated: false, statements: [], closed: false };
    records.push(record);
    const upstream = net.connect(target);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client);
    sockets.add(upstream);

    let ready = false; // the first ReadyForQuery has been seen
    let awaiting = false;
    let startupDone = false; // the client's untyped startup messages are over
    let clientBuf: Buffer = Buffer.alloc(0);
    let serverBuf: Buffer = Buffer.alloc(0);
    let serverExpectsSslByte = false;
    const prepared = new Map<string, string>();

    const parseClient = () => {
      for (;;) {
        if (!startupDone) {
          if (clientBuf.length < 8) return;
          const len = clientBuf.readInt32BE(0);
          if (clientBuf.length < len) return;
          const code = clientBuf.readInt32BE(4);
          if (code === SSL_REQUEST || code === GSS_REQUEST) serverExpectsSslByte = true;
          else startupDone = true;
          clientBuf = clientBuf.subarray(len);
          continue;
        }
        if (clientBuf.length < 5) return;
        const type = String.fromCharCode(clientBuf[0]!);
        const len = clientBuf.readInt32BE(1);
        if (clientBuf.length < 1 + len) return;
        const body = clientBuf.subarray(5, 1 + len);
        clientBuf = clientBuf.subarray(1 + len);
        if (!ready) continue;
        const rt = record.roundTrips;
        if (type === "Q") record.statements.push({ rt, kind: "simple", text: body.toString("utf8", 0, body.length - 1), params: [] });
        else if (type === "P") {
          const nameEnd = body.indexOf(0);
          const name = body.toString("utf8", 0, nameEnd);
          const textEnd = body.indexOf(0, nameEnd + 1);
          prepared.set(name, body.toString("utf8", nameEnd + 1, textEnd));
        } else if (type === "B") {
          let at = body.indexOf(0) + 1; // portal
          const stmtEnd = body.indexOf(0, at);
          const name = body.toString("utf8", at, stmtEnd);
          at = stmtEnd + 1;
          const nFormats = body.readInt16BE(at);
          at += 2;
          const formats: number[] = [];
          for (let i = 0; i < nFormats; i++, at += 2) formats.push(body.readInt16BE(at));
          const nParams = body.readInt16BE(at);
          at += 2;
          const params: (string | null)[] = [];
          for (let i = 0; i < nParams; i++) {
            const plen = body.readInt32BE(at);
            at += 4;
            if (plen < 0) params.push(null);
            else {
              const binary = (formats.length === 1 ? formats[0] : formats[i]) === 1;
              params.push(binary ? `\\x${body.toString("hex", at, at + plen)}` : body.toString("utf8", at, at + plen));
              at += plen;
            }
          }
          record.statements.push({ rt, kind: "extended", text: prepared.get(name) ?? "", params });
        }
      }
    };

    const parseServer = () => {
      for (;;) {
        if (serverExpectsSslByte) {
          if (serverBuf.length < 1) return;
          serverBuf = serverBuf.subarray(1);
          serverExpectsSslByte = false;
          continue;
        }
        if (serverBuf.length < 5) return;
        const type = String.fromCharCode(serverBuf[0]!);
        const len = serverBuf.readInt32BE(1);
        if (serverBuf.length < 1 + len) return;
        serverBuf = serverBuf.subarray(1 + len);
        if (type === "Z" && !ready) ready = true;
      }
    };

    client.on("data", (data: Buffer) => {
      const onlyTerminate = ready && data.length === 5 && data[0] === 0x58 && data.readInt32BE(1) === 4;
      if (onlyTerminate) record.terminated = true;
      else if (!awaiting) {
        awaiting = true;
        if (ready) record.roundTrips++;
        else record.setupRoundTrips++;
      }
      clientBuf = clientBuf.length ? Buffer.concat([clientBuf, data]) : data;
      parseClient();
      upstream.write(data);
    });
    upstream.on("data", (data: Buffer) => {
      awaiting = false;
      serverBuf = serverBuf.length ? Buffer.concat([serverBuf, data]) : data;
      parseServer();
      client.write(data);
    });
    const closeBoth = () => {
      record.closed = true;
      sockets.delete(client);
      sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", closeBoth);
    upstream.on("close", closeBoth);
    client.on("error", closeBoth);
    upstream.on("error", closeBoth);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => records,
    reset: () => {
      records = [];
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
