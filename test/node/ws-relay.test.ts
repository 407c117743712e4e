import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type DatabaseTarget, startEmbedded } from "../../scripts/lib/database";
import { startWsRelay, type WsRelay } from "../../scripts/lib/ws-relay";

/** A v3 StartupMessage for user and database `postgres` (PGlite trusts it). */
function startupMessage(): Buffer {
  const params = Buffer.from("user\0postgres\0database\0postgres\0\0", "latin1");
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + params.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, params]);
}

const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);
/** ReadyForQuery: 'Z', length 5, a status byte. */
const readyForQuery = (data: Buffer) => data.includes(Buffer.from([0x5a, 0, 0, 0, 5]));

describe("the local WebSocket relay to the embedded database (npm run dev)", () => {
  let database: DatabaseTarget;
  let relay: WsRelay;
  // Starting PGlite takes seconds, more on a busy machine.
  beforeAll(async () => {
    database = await startEmbedded();
    relay = await startWsRelay();
  }, 60_000);
  afterAll(async () => {
    await relay?.close();
    await database?.stop();
  });

  // PGlite's socket server keeps a connection open after Terminate; a WebSocket left open kept a
  // Worker's queue batch from finishing, so e-CF result queries never ran under `npm run dev`.
  it("closes the client's WebSocket once the client sends Terminate, as Postgres closes its connection", async () => {
    const ws = new WebSocket(`ws://${relay.url}/v2?address=${encodeURIComponent(database.tcpAddress)}`);
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    const ready = new Promise<void>((resolve) => {
      let received = Buffer.alloc(0);
      ws.on("message", (data: Buffer) => {
        received = Buffer.concat([received, data]);
        if (readyForQuery(received)) resolve();
      });
    });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    ws.send(startupMessage());
    await ready;
    ws.send(TERMINATE);
    const outcome = await Promise.race([closed.then(() => "closed"), new Promise((resolve) => setTimeout(() => resolve("still open"), 5_000))]);
    expect(outcome).toBe("closed");
    expect(ws.readyState).toBe(WebSocket.CLOSED);
  });
});
