import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { withTenantTransaction } from "../../src/db/client";
import { rowsOf } from "../../src/db/rows";
import worker from "../../src/index";
import { compactInvoiceStatusCounts } from "../../src/modules/invoices/counts";
import type { InvoiceSummary } from "../../src/modules/invoices/schemas";
import type { Page } from "../support/api";
import { env } from "../support/env";
import { inParallel } from "../support/parallel";
import { catalogIds, createContact, expectInvoiceCounts } from "../support/sales";
import { asOwner, seedTenant, seedWorkspace, sql } from "../support/seed";
import { createProduct, initialStock } from "../support/stock";

/**
 * `meta.total` of GET /invoices filtered by status alone comes from maintained counts (deltas
 * written by triggers, folded by the cron), not from counting invoices: these follow the counts
 * through every change of status, workspace and liveness, and through folding.
 */
async function setup() {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api);
  const product = await createProduct(tenant.api);
  await initialStock(tenant.api, [{ product_id: product.id, quantity: "1000" }]);
  const create = async (headers: Record<string, string> = {}, contactId = contact.id) => {
    const res = await tenant.api.post(
      "/invoices",
      { contact_id: contactId, document_subtype_id: ids.b02, issue_date: "2026-11-20", items: [{ product_id: product.id, quantity: "1", unit_price: "100" }] },
      { headers },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: number; total_amount: string };
  };
  return { tenant, create, product };
}

async function totals(api: Awaited<ReturnType<typeof seedTenant>>["api"], headers: Record<string, string> = {}) {
  const out: Record<string, number> = {};
  for (const status of ["all", "pending_payment", "partially_paid", "paid", "cancelled"]) {
    const res = await api.get(status === "all" ? "/invoices" : `/invoices?filter[status]=${status}`, { headers });
    expect(res.status).toBe(200);
    out[status] = res.body.meta.total;
  }
  return out;
}

const countRows = (tenantId: number) =>
  asOwner(async (db) => rowsOf<{ n: number }>(await db.execute(sql`SELECT count(*)::int AS n FROM invoice_status_counts WHERE tenant_id = ${tenantId}`))[0]!.n);

describe("invoice list totals from maintained counts", () => {
  it("follow creation, payments, cancellation and deletion per status and per workspace", async () => {
    const { tenant, create, product } = await setup();
    const [a, b, c, d] = [await create(), await create(), await create(), await create()];
    const branch = await seedWorkspace(tenant);
    const inBranch = { "X-Workspace-ID": String(branch) };
    await initialStock(tenant.api, [{ product_id: product.id, quantity: "5" }], inBranch);
    const branchContact = await tenant.api.post("/contacts", { name: "Cliente de la sucursal" }, { headers: inBranch });
    expect(branchContact.status).toBe(201);
    await create(inBranch, branchContact.body.data.id);
    expect(await totals(tenant.api)).toEqual({ all: 4, pending_payment: 4, partially_paid: 0, paid: 0, cancelled: 0 });
    expect(await totals(tenant.api, inBranch)).toEqual({ all: 1, pending_payment: 1, partially_paid: 0, paid: 0, cancelled: 0 });

    const pay = (id: number, amount: string) => tenant.api.post(`/invoices/${id}/payments`, { amount, payment_date: "2026-11-21", payment_method: "cash" });
    expect((await pay(a.id, a.total_amount)).status).toBe(201);
    const partial = await pay(b.id, "10.00");
    expect(partial.status).toBe(201);
    expect((await tenant.api.post(`/invoices/${c.id}/cancel`)).status).toBe(200);
    expect((await tenant.api.delete(`/invoices/${d.id}`)).status).toBe(200);
    expect(await totals(tenant.api)).toEqual({ all: 3, pending_payment: 0, partially_paid: 1, paid: 1, cancelled: 1 });

    // Removing the only payment puts the invoice back to pending.
    expect((await tenant.api.delete(`/invoices/${b.id}/payments/${partial.body.data.payment.id}`)).status).toBe(200);
    expect(await totals(tenant.api)).toEqual({ all: 3, pending_payment: 1, partially_paid: 0, paid: 1, cancelled: 1 });
    expect(await totals(tenant.api, inBranch)).toEqual({ all: 1, pending_payment: 1, partially_paid: 0, paid: 0, cancelled: 0 });
    await expectInvoiceCounts(tenant.tenantId);

    // The list's rows (built as JSON by Postgres) show each invoice as its own page does.
    const list = await tenant.api.get<Page<InvoiceSummary>>("/invoices?sort=created_at&per_page=100");
    expect(list.body.data).toHaveLength(3);
    for (const item of list.body.data) {
      const {
        contact: _c,
        items: _i,
        payments: _p,
        salesmen: _s,
        snapshot: _n,
        credit_notes: _cn,
        debit_notes: _dn,
        tax_breakdown: _tb,
        ...fields
      } = (await tenant.api.get(`/invoices/${item.id}`)).body.data;
      expect(item).toEqual(fields);
      expect(Object.keys(item)).toEqual(Object.keys(fields));
    }
    // Answered as Postgres wrote it, and as compact as every other answer (no `"id" : 1`).
    expect(list.text).toBe(JSON.stringify(list.body));
    expect(list.body.data.map((i) => [i.status, i.amount_paid, i.amount_due])).toEqual([
      ["paid", a.total_amount, "0.00"],
      ["pending_payment", "0.00", b.total_amount],
      ["cancelled", "0.00", c.total_amount],
    ]);
    expect(list.body.data[0]!.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    // Folding leaves one row per (workspace, status) with a non-zero count, and the same totals.
    expect(await countRows(tenant.tenantId)).toBeGreaterThan(4);
    const folded = await withTenantTransaction(env, null, compactInvoiceStatusCounts);
    expect(folded).toBeGreaterThan(0);
    expect(await countRows(tenant.tenantId)).toBe(4); // main: pending, paid, cancelled; branch: pending
    expect(await totals(tenant.api)).toEqual({ all: 3, pending_payment: 1, partially_paid: 0, paid: 1, cancelled: 1 });
    await expectInvoiceCounts(tenant.tenantId);
  });

  it("stay exact with invoices created while the counts are being folded", async () => {
    const { tenant, create } = await setup();
    const calls: (() => Promise<unknown>)[] = [];
    for (let i = 0; i < 40; i++) {
      calls.push(() => create());
      if (i % 8 === 0) calls.push(() => withTenantTransaction(env, null, compactInvoiceStatusCounts));
    }
    await inParallel(calls, 8);
    await withTenantTransaction(env, null, compactInvoiceStatusCounts);
    expect(await totals(tenant.api)).toEqual({ all: 40, pending_payment: 40, partially_paid: 0, paid: 0, cancelled: 0 });
    expect(await countRows(tenant.tenantId)).toBe(1);
    await expectInvoiceCounts(tenant.tenantId);
  });

  it("are folded by the every-minute cron, totals unchanged", async () => {
    const { tenant, create } = await setup();
    const [first] = [await create(), await create(), await create()];
    expect((await tenant.api.post(`/invoices/${first!.id}/cancel`)).status).toBe(200);
    expect(await countRows(tenant.tenantId)).toBe(5); // +1 +1 +1 pending, then -1 pending +1 cancelled
    const ctx = createExecutionContext();
    // An unreachable queue: the sweep's enqueue fails softly; the folding is what is checked here.
    await worker.scheduled!(createScheduledController({ cron: "* * * * *", scheduledTime: new Date() }), { ...env, OUTBOX_QUEUE: undefined } as never, ctx);
    await waitOnExecutionContext(ctx);
    expect(await countRows(tenant.tenantId)).toBe(2);
    expect(await totals(tenant.api)).toEqual({ all: 3, pending_payment: 2, partially_paid: 0, paid: 0, cancelled: 1 });
    await expectInvoiceCounts(tenant.tenantId);
  });

  it("are not readable across tenants: row-level security applies to the counts", async () => {
    const { tenant, create } = await setup();
    await create();
    const other = await seedTenant();
    const seen = await withTenantTransaction(env, other.tenantId, async (db) =>
      rowsOf<{ n: number }>(await db.execute(sql`SELECT count(*)::int AS n FROM invoice_status_counts WHERE tenant_id = ${tenant.tenantId}`)),
    );
    expect(seen).toEqual([{ n: 0 }]);
    expect((await other.api.get<Page<InvoiceSummary>>("/invoices")).body.meta.total).toBe(0);
  });
});
