import { afterEach, describe, expect, it, vi } from "vitest";
import { inParallel } from "../support/parallel";
import { catalogIds, createContact, expectInvoiceCounts } from "../support/sales";
import { ownerRow, ownerRows, seedTenant, sql } from "../support/seed";
import { createProduct, expectStockInvariant, initialStock } from "../support/stock";
import { appCall, control, NO_LIMIT, record, SOAK, securityEnv } from "./world";

/**
 * Faults: the Redis relay stopped and restarted, database connections cut while requests are in
 * flight, Postgres unreachable or hung. Each fault acts on a relay of its own (the control server's
 * fault relays, scripts/lib/test-control.ts), never on the relays other test files use.
 * Resend down and DGII unreachable / a truncated ZIP are covered by test/integrations/outbox.test.ts
 * and test/rnc/registry.test.ts.
 */
const within = <T>(ms: number, promise: Promise<T>, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms))]);
let cases = 0;
let invariants = 0;

describe("faults", () => {
  afterEach(async () => {
    vi.restoreAllMocks();
    await control("/db/delay?ms=0");
    await control("/redis/start");
  });

  it("serves requests while Redis is down (fail open, one warning) and limits again when it returns", async () => {
    const { configured } = await control("/redis", "GET");
    if (!configured) return; // no Redis on this machine: the in-memory window has no outage
    const tenant = await seedTenant();
    const env = { UPSTASH_REDIS_REST_URL: securityEnv.TEST_FAULT_UPSTASH_URL, UPSTASH_REDIS_REST_TOKEN: securityEnv.TEST_FAULT_UPSTASH_TOKEN };
    const me = () => appCall(tenant.subdomain, "/me", { token: tenant.admin.token, env });
    const before = await me();
    expect(before.status).toBe(200);
    expect(before.headers.get("x-ratelimit-limit")).toBe("60");

    await control("/redis/stop");
    const warn = vi.spyOn(console, "warn");
    const during = await inParallel(
      Array.from({ length: 10 }, () => me),
      4,
    );
    cases += 11;
    expect(during.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(during[0]!.headers.get("x-ratelimit-limit")).toBeNull(); // no decision: let through
    const warnings = warn.mock.calls.map((args) => String(args[0])).filter((line) => line.includes("rate limiter unavailable"));
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.length).toBeLessThanOrEqual(1); // at most once a minute
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: "warn", message: "rate limiter unavailable; request allowed" });

    await control("/redis/start");
    const after = await me();
    cases += 1;
    expect(after.status).toBe(200);
    expect(after.headers.get("x-ratelimit-limit")).toBe("60");
    expect(Number(after.headers.get("x-ratelimit-remaining"))).toBeLessThan(59); // the window kept counting
    invariants += 2;
  }, 60_000);

  it("counts a Redis that accepts and never answers as unavailable: each request waits at most ~1 s, is allowed, one warning a minute", async () => {
    const { configured } = await control("/redis", "GET");
    if (!configured) return; // no Redis on this machine: nothing can hang
    const tenant = await seedTenant();
    const env = { UPSTASH_REDIS_REST_URL: securityEnv.TEST_FAULT_UPSTASH_URL, UPSTASH_REDIS_REST_TOKEN: securityEnv.TEST_FAULT_UPSTASH_TOKEN };
    const me = () => appCall(tenant.subdomain, "/me", { token: tenant.admin.token, env });
    expect((await me()).headers.get("x-ratelimit-limit")).toBe("60");

    await control("/redis/hang");
    // The warning is rate-limited per isolate, and the test above may have just written it: two
    // minutes on, its once-a-minute gate is open again.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 120_000 });
    try {
      const warn = vi.spyOn(console, "warn");
      const started = performance.now();
      const during = await within(
        15_000,
        inParallel(
          Array.from({ length: 6 }, () => me),
          3,
        ),
        "requests under a hung Redis",
      );
      const elapsed = performance.now() - started;
      cases += 6;
      expect(during.map((r) => r.status)).toEqual(Array(6).fill(200));
      expect(during[0]!.headers.get("x-ratelimit-limit")).toBeNull(); // no decision: let through
      expect(elapsed).toBeLessThan(6_000); // two waves of 3, each bounded by the 1 s timeout
      // A failed login calls the limiter three times (IP, account check, failure): one timeout in all.
      const loginStarted = performance.now();
      const login = await within(
        15_000,
        appCall(tenant.subdomain, "/auth/tokens", { method: "POST", body: { email: tenant.admin.email, password: "wrong-password" }, env }),
        "login under a hung Redis",
      );
      expect(login.status).toBe(401);
      expect(performance.now() - loginStarted).toBeLessThan(2_500);
      const warnings = warn.mock.calls.map((args) => String(args[0])).filter((line) => line.includes("rate limiter unavailable"));
      expect(warnings).toHaveLength(1); // at most once a minute, however many requests
      expect(JSON.parse(warnings[0]!)).toMatchObject({
        level: "warn",
        message: "rate limiter unavailable; request allowed",
        cause: "Error: Redis did not answer within 1000 ms",
      });
    } finally {
      vi.useRealTimers();
    }

    await control("/redis/start");
    const after = await me();
    cases += 1;
    expect(after.status).toBe(200);
    expect(after.headers.get("x-ratelimit-limit")).toBe("60");
    invariants += 2;
  }, 60_000);

  it("answers 503 with Retry-After, quickly, when Postgres refuses connections", async () => {
    const tenant = await seedTenant();
    const started = Date.now();
    const res = await within(
      15_000,
      appCall(tenant.subdomain, "/me", { token: tenant.admin.token, env: { ...NO_LIMIT, DATABASE_URL: "postgres://sucursal_app@127.0.0.1:1/x" } }),
      "refused",
    );
    cases += 1;
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: "service_unavailable" });
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(Date.now() - started).toBeLessThan(5_000);
    invariants += 1;
  }, 30_000);

  it("answers 503 with Retry-After, not a hang, when Postgres accepts the connection and never answers", async () => {
    const tenant = await seedTenant();
    const res = await within(
      20_000,
      appCall(tenant.subdomain, "/me", { token: tenant.admin.token, env: { ...NO_LIMIT, DATABASE_URL: securityEnv.TEST_BLACKHOLE_DATABASE_URL } }),
      "hung database",
    );
    cases += 1;
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    invariants += 1;
  }, 40_000);

  it(
    "leaves no partial invoice, stock or number when connections are cut mid-transaction",
    async () => {
      const tenant = await seedTenant();
      const ids = await catalogIds(tenant.api);
      const contact = await createContact(tenant.api);
      const product = await createProduct(tenant.api, { workspace_id: null });
      await initialStock(tenant.api, [{ product_id: product.id, quantity: "1000" }]);
      const { next_number: startNumber } = await ownerRow(sql`SELECT next_number FROM document_subtypes WHERE id = ${ids.b02}`);
      const env = { ...NO_LIMIT, UPSTASH_REDIS_REST_URL: "", DB_WS_PROXY: securityEnv.TEST_FAULT_WS_PROXY };
      const create = () =>
        appCall(tenant.subdomain, "/invoices", {
          method: "POST",
          token: tenant.admin.token,
          env,
          body: {
            contact_id: contact.id,
            document_subtype_id: ids.b02,
            issue_date: "2026-11-20",
            items: [{ product_id: product.id, quantity: "1", unit_price: "10" }],
          },
        });
      const errors = vi.spyOn(console, "error");
      // 15 ms each way: a request spans ~10 round trips, so cuts land between its statements.
      await control("/db/delay?ms=15");
      const statuses: number[] = [];
      const rounds = SOAK ? 20 : 4;
      for (let round = 0; round < rounds; round++) {
        // Staggered starts and a cut part-way: some requests finish, some are cut between statements.
        await control(`/db/cut?after_ms=${250 + round * 60}`);
        const burst = Array.from({ length: 6 }, (_, k) =>
          new Promise((r) => setTimeout(r, k * 60)).then(() => within(20_000, create(), "invoice under a cut")),
        );
        for (const res of await Promise.all(burst)) {
          statuses.push(res.status);
          if (res.status !== 201) {
            // Cut before, between or during statements: the database is unavailable, never a 500.
            expect(res.status, res.text).toBe(503);
            expect(res.body.code).toBe("service_unavailable");
            expect(res.headers.get("retry-after")).toBe("5");
          }
        }
      }
      await control("/db/delay?ms=0");
      cases += statuses.length;
      // The 503s' log lines name the failure, never the statement's parameters (request data).
      const unavailable = errors.mock.calls.map((args) => String(args[0])).filter((line) => line.includes("database unavailable"));
      errors.mockRestore();
      expect(unavailable.length).toBeGreaterThan(0);
      for (const line of unavailable) {
        expect(line).not.toContain("params:");
        expect(line).not.toContain(String(contact.email));
      }
      // Every invoice that exists is whole, numbers are consecutive, and stock matches them.
      const invoices = await ownerRows(
        sql`SELECT i.id, i.document_number, i.total_amount::text AS total, (SELECT count(*)::int FROM invoice_items it WHERE it.invoice_id = i.id) AS lines FROM invoices i WHERE i.tenant_id = ${tenant.tenantId} ORDER BY i.document_number`,
      );
      for (const invoice of invoices) {
        expect(invoice.lines).toBe(1);
        expect(invoice.total).not.toBe("0.00");
      }
      const created = statuses.filter((s) => s === 201).length;
      // A cut after COMMIT reached Postgres but before the answer: the invoice exists though the client saw an error.
      expect(invoices.length).toBeGreaterThanOrEqual(created);
      const numbers = invoices.map((i) => Number(String(i.document_number).slice(3)));
      expect(numbers).toEqual(Array.from({ length: invoices.length }, (_, k) => Number(startNumber) + k));
      const { next_number: nextNumber } = await ownerRow(sql`SELECT next_number FROM document_subtypes WHERE id = ${ids.b02}`);
      expect(Number(nextNumber)).toBe(Number(startNumber) + invoices.length);
      const { q } = await ownerRow(sql`SELECT quantity::text AS q FROM stock_levels WHERE product_id = ${product.id} AND workspace_id = ${tenant.workspaceId}`);
      expect(Number(q)).toBe(1000 - invoices.length);
      await expectStockInvariant(tenant.tenantId);
      await expectInvoiceCounts(tenant.tenantId);
      invariants += 4;
      console.log(`db cut: ${statuses.length} requests, ${created} created, ${invoices.length} invoices exist, statuses ${JSON.stringify(statuses)}`);
      expect(statuses.some((s) => s !== 201)).toBe(true); // the cuts did land
    },
    SOAK ? 600_000 : 120_000,
  );

  it("records the figures", async () => {
    await record({ suite: "faults", cases, failures: 0, invariants });
  });
});
