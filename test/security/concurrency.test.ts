import { afterEach, describe, expect, it, vi } from "vitest";
import { quotationSetup, walk } from "../quotations/helpers";
import { call } from "../support/api";
import { inParallel } from "../support/parallel";
import { catalogIds, createContact, expectInvoiceCounts, serviceInvoice } from "../support/sales";
import { ownerRow, ownerRows, seedTenant, seedUser, seedWorkspace, sql } from "../support/seed";
import { createProduct, expectStockInvariant, initialStock } from "../support/stock";
import { NO_LIMIT, record, SOAK, unlimited } from "./world";

/**
 * Invariants under parallel load through the app's fetch handler. Postgres allows ~100
 * connections and every request holds one, so bursts are bounded to 16 in flight (other test files
 * run alongside); the per-user limit is lifted (NO_LIMIT) except in the rate-limit burst, which is
 * what it tests.
 */
const IN_FLIGHT = 16;
const ENV = { ...NO_LIMIT, UPSTASH_REDIS_REST_URL: "" };
let invariants = 0;
let cases = 0;

describe("concurrency invariants", () => {
  afterEach(() => vi.useRealTimers());

  it(
    `numbers ${SOAK ? 1000 : 200} parallel invoices of one NCF sequence with distinct consecutive numbers`,
    async () => {
      const count = SOAK ? 1000 : 200;
      const tenant = await seedTenant();
      const ids = await catalogIds(tenant.api);
      const contact = await createContact(tenant.api);
      const product = await createProduct(tenant.api, { workspace_id: null });
      await initialStock(tenant.api, [{ product_id: product.id, quantity: String(count * 2) }]);
      const users = await Promise.all(Array.from({ length: 4 }, () => seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] })));
      const results = await inParallel(
        Array.from(
          { length: count },
          (_, i) => () =>
            unlimited(tenant.subdomain, users[i % users.length]!.token, ENV).post("/invoices", {
              contact_id: contact.id,
              document_subtype_id: ids.b02,
              issue_date: "2026-11-20",
              items: [{ product_id: product.id, quantity: "1", unit_price: "10" }],
            }),
        ),
        IN_FLIGHT,
      );
      cases += count;
      expect(results.map((r) => r.status)).toEqual(Array(count).fill(201));
      const numbers = results.map((r) => r.body.data.document_number as string).sort();
      expect(new Set(numbers).size).toBe(count);
      const sequence = numbers.map((n) => Number(n.slice(3)));
      expect(sequence[sequence.length - 1]! - sequence[0]! + 1).toBe(count); // no gaps, no repeats
      const subtype = await ownerRow(sql`SELECT next_number FROM document_subtypes WHERE id = ${ids.b02}`);
      expect(Number(subtype.next_number)).toBe(sequence[sequence.length - 1]! + 1);
      const level = await ownerRow(sql`SELECT quantity::text AS q FROM stock_levels WHERE product_id = ${product.id} AND workspace_id = ${tenant.workspaceId}`);
      expect(level.q).toBe(`${count}.00`);
      await expectStockInvariant(tenant.tenantId);
      await expectInvoiceCounts(tenant.tenantId);
      invariants += 4;
    },
    SOAK ? 600_000 : 120_000,
  );

  it(
    `conserves stock over ${SOAK ? 3000 : 500} random parallel transfers among 4 workspaces`,
    async () => {
      const count = SOAK ? 3000 : 500;
      const tenant = await seedTenant();
      const workspaces = [tenant.workspaceId, await seedWorkspace(tenant), await seedWorkspace(tenant), await seedWorkspace(tenant)];
      const products = [
        await createProduct(tenant.api, { workspace_id: null }),
        await createProduct(tenant.api, { workspace_id: null }),
        await createProduct(tenant.api, { workspace_id: null }),
      ];
      for (const ws of workspaces) {
        await initialStock(
          tenant.api,
          products.map((p) => ({ product_id: p.id, quantity: "40" })),
          { "x-workspace-id": String(ws) },
        );
      }
      const api = unlimited(tenant.subdomain, tenant.admin.token, ENV);
      let seed = 42; // mulberry32: a seeded plan, the same every run
      const random = (n: number) => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) % n;
      };
      const plan = Array.from({ length: count }, () => {
        const from = random(4);
        const to = (from + 1 + random(3)) % 4;
        return { from: workspaces[from]!, to: workspaces[to]!, product: products[random(3)]!.id, quantity: String(1 + random(15)) };
      });
      const results = await inParallel(
        plan.map(
          (t) => () =>
            api.post(
              "/stock-transfers",
              { product_id: t.product, to_workspace_id: t.to, quantity: t.quantity },
              { headers: { "x-workspace-id": String(t.from) } },
            ),
        ),
        IN_FLIGHT,
      );
      cases += count;
      const unexpected = results.filter((r) => r.status !== 201 && !(r.status === 422 && r.body.code === "insufficient_stock"));
      expect(unexpected.map((r) => `${r.status} ${r.text}`)).toEqual([]);
      expect(results.filter((r) => r.status === 201).length).toBeGreaterThan(count / 4);
      const levels = await ownerRows(
        sql`SELECT product_id, sum(quantity)::text AS total, min(quantity)::text AS lowest FROM stock_levels WHERE tenant_id = ${tenant.tenantId} GROUP BY product_id`,
      );
      for (const level of levels) {
        expect(level.total).toBe("160.00");
        expect(Number(level.lowest)).toBeGreaterThanOrEqual(0);
      }
      await expectStockInvariant(tenant.tenantId);
      await expectInvoiceCounts(tenant.tenantId);
      invariants += 3;
    },
    SOAK ? 600_000 : 120_000,
  );

  it("never lets parallel payments exceed an invoice's total", async () => {
    const invoice = await serviceInvoice("1000");
    const { tenant } = invoice;
    const total = Number(invoice.total);
    const api = unlimited(tenant.subdomain, tenant.admin.token, ENV);
    const attempts = SOAK ? 100 : 24;
    const results = await inParallel(
      Array.from(
        { length: attempts },
        () => () => api.post(`/invoices/${invoice.id}/payments`, { amount: (total / 5).toFixed(2), payment_date: "2026-11-21", payment_method: "cash" }),
      ),
      IN_FLIGHT,
    );
    cases += attempts;
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    for (const r of results.filter((r) => r.status !== 201)) expect([409, 422]).toContain(r.status);
    const row = await ownerRow(
      sql`SELECT amount_paid::text AS paid, total_amount::text AS total, status, (SELECT sum(amount)::text FROM invoice_payments WHERE invoice_id = ${invoice.id}) AS payments FROM invoices WHERE id = ${invoice.id}`,
    );
    expect(row).toEqual({ paid: row.total, total: row.total, status: "paid", payments: row.total });
    invariants += 2;
  }, 60_000);

  it("converts a quotation once when two conversions race", async () => {
    const { tenant, create, a } = await quotationSetup();
    const rounds = SOAK ? 20 : 3;
    const admin = unlimited(tenant.subdomain, tenant.admin.token, ENV) as unknown as typeof tenant.api; // 4 requests a round
    for (let round = 0; round < rounds; round++) {
      // Each conversion sells 2 of product A (10 in stock): top it up for the next round.
      const topUp = await admin.post("/inventory-adjustments", { items: [{ product_id: a.id, quantity_adjustment: "2", reason: "found" }] });
      expect(topUp.status, topUp.text).toBe(201);
      const quotation = await create(admin);
      await walk(admin, quotation.id, ["send", "approve"]);
      const api = unlimited(tenant.subdomain, tenant.admin.token, ENV);
      const results = await Promise.all([0, 1].map(() => api.post(`/quotations/${quotation.id}/convert-to-invoice`, {})));
      cases += 2;
      expect(results.map((r) => r.status).sort(), results.map((r) => r.text).join("\n")).toEqual([201, 409].sort());
      const count = await ownerRow(sql`SELECT count(*)::int AS n FROM invoices WHERE quotation_id = ${quotation.id}`);
      expect(count.n).toBe(1);
    }
    await expectStockInvariant(tenant.tenantId);
    await expectInvoiceCounts(tenant.tenantId);
    invariants += 2;
  }, 120_000);

  it("lets exactly 60 of 100 parallel requests of one user through (real limiter)", async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    vi.useFakeTimers({ toFake: ["Date"], now: minute + 30_000 });
    const tenant = await seedTenant();
    // 25 in flight: every request takes a connection for the tenant lookup before the limiter decides.
    const results = await inParallel(
      Array.from({ length: 100 }, () => () => call(tenant.subdomain, "/api/v1/me", { token: tenant.admin.token })),
      25,
    );
    cases += 100;
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    invariants += 1;
  }, 60_000);

  it("records the figures", async () => {
    await record({ suite: "concurrency invariants", cases, failures: 0, invariants });
  });
});
