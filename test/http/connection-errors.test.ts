import { neonConfig } from "@neondatabase/serverless";
import { afterEach, describe, expect, it, vi } from "vitest";
import { appCall, NO_LIMIT } from "../security/world";
import { ownerRow, seedTenant, sql } from "../support/seed";

/** The next message to the database carrying this text fails as below; null: none does. */
let failOn: string | null = null;
const decoder = new TextDecoder();

/**
 * A WebSocket failing as workerd's does when the peer resets the connection under a write (seen
 * in test/security/faults.test.ts when the relay cuts connections): the write is lost, an `error`
 * event is dispatched — an ErrorEvent, which is not an Error — and the connection ends. Here it
 * happens on the message carrying `failOn`, every time, instead of once in a few hundred cuts.
 */
class ResetUnderWrite extends WebSocket {
  private reset = false;
  // The driver writes each message as bytes.
  override send(data: Uint8Array<ArrayBuffer>) {
    if (this.reset) return; // workerd drops a write after the connection failed
    const text = decoder.decode(data);
    if (failOn && text.includes(failOn)) {
      failOn = null;
      this.reset = true;
      setTimeout(() => {
        this.dispatchEvent(new ErrorEvent("error", { message: "Uncaught Error: Network connection lost.", error: new Error("Network connection lost.") }));
        this.close();
      }, 0);
      return;
    }
    super.send(data);
  }
}

describe("a database connection failing with its socket's error event", () => {
  const driverDefault = neonConfig.webSocketConstructor;
  afterEach(() => {
    neonConfig.webSocketConstructor = driverDefault;
    failOn = null;
    vi.restoreAllMocks();
  });

  it("answers 503 service_unavailable with Retry-After, logs the failure by name, and writes nothing", async () => {
    const tenant = await seedTenant();
    neonConfig.webSocketConstructor = ResetUnderWrite;
    const create = (name: string) =>
      appCall(tenant.subdomain, "/products", { method: "POST", token: tenant.admin.token, env: NO_LIMIT, body: { name, price: "10.00" } });
    // The first request leaves this isolate the caller's context: the second sends its statements
    // with BEGIN and the context query in one message (http/auth.ts, RequestTransaction.openLater),
    // and that message's failure is what the request's context confirmation (tx.confirm) sees.
    expect((await create("Before")).status).toBe(201);
    const errors = vi.spyOn(console, "error");
    const warnings = vi.spyOn(console, "warn");
    // The message that opens a transaction of this tenant (its set_config goes with BEGIN), not
    // one of background work of other test files sharing this isolate.
    failOn = `set_config('app.tenant_id', '${tenant.tenantId}', true)`;
    const res = await create("Lost");
    expect(failOn).toBeNull(); // the message was sent, and failed
    expect(res.status, res.text).toBe(503);
    expect(res.body).toEqual({ message: "The database is unavailable; try again shortly.", code: "service_unavailable" });
    expect(res.headers.get("retry-after")).toBe("5");
    // Named as the connection's failure, never "[object ErrorEvent]".
    const lines = (spy: typeof errors, message: string) =>
      spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Record<string, unknown>).filter((line) => line.message === message);
    expect(lines(errors, "database unavailable").map((line) => line.errorMessage)).toContain("database connection failed: Network connection lost.");
    expect(lines(warnings, "database connection lost").map((line) => line.cause)).toContain(
      "DatabaseConnectionError: database connection failed: Network connection lost.",
    );
    expect(JSON.stringify([...errors.mock.calls, ...warnings.mock.calls])).not.toContain("[object ErrorEvent]");
    const { count } = await ownerRow<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM products WHERE tenant_id = ${tenant.tenantId} AND name = 'Lost'`,
    );
    expect(count).toBe(0);
    // The next request, on a new connection, is served.
    expect((await create("After")).status).toBe(201);
  });
});
