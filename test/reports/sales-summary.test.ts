import { beforeAll, describe, expect, it } from "vitest";
import type { SalesSummary } from "../../src/modules/reports/schemas";
import type { Data } from "../support/api";
import { catalogIds, createContact, freshRnc } from "../support/sales";
import { type SeededTenant, seedTenant, seedUser, seedWorkspace } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * GET /reports/sales-summary (issue 20, docs/reports.md "Sales summary"): November 2026 of a
 * company with two branches — B01 at 18 %, B02 with 16 % and exempt lines and a legal tip, a
 * dollar invoice, a partial payment, a credit note, a cancelled (annulled) B01 and a draft that
 * stay out, a sale outside the range — whose totals are checked to the cent, by hand and against
 * the documents read back through their GET.
 */

interface World {
  tenant: SeededTenant;
  branch: number;
  /** The invoices in the range, with the workspace each is read from. */
  invoices: { id: number; workspace: number }[];
  notes: number[];
}

const summary = (tenant: SeededTenant, query: string, headers: Record<string, string> = {}) =>
  tenant.api.get<Data<SalesSummary>>(`/reports/sales-summary?${query}`, { headers });

async function issue(tenant: SeededTenant, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await tenant.api.post("/invoices", body, { headers });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: number; document_number: string; total_amount: string };
}

let world: World;

beforeAll(async () => {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const service = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
  const rncBuyer = await createContact(tenant.api);
  const consumer = await createContact(tenant.api, { identification_type: null, identification: null });
  const usd = ((await tenant.api.get("/currencies")).body.data as { id: number; code: string }[]).find((c) => c.code === "USD")!.id;
  const line = (price: string, taxIds: number[], quantity = "1") => ({ product_id: service.id, quantity, unit_price: price, tax_ids: taxIds });

  // Main branch: B01 1,000 + 18 % = 1,180.00, paid 500 (due 680), later credited 100 + 18.
  const b01 = await issue(tenant, { contact_id: rncBuyer.id, document_subtype_id: ids.b01, issue_date: "2026-11-03", items: [line("1000.00", [ids.itbis18])] });
  expect((await tenant.api.post(`/invoices/${b01.id}/payments`, { amount: "500.00", payment_date: "2026-11-03", payment_method: "cash" })).status).toBe(201);
  const items = (await tenant.api.get(`/invoices/${b01.id}`)).body.data.items as { id: number }[];
  const note = await tenant.api.post(`/invoices/${b01.id}/credit-notes`, {
    modification_code: 3,
    reason: "Descuento posterior",
    issue_date: "2026-11-10",
    items: [{ invoice_item_id: items[0]!.id, quantity: "0.1" }],
  });
  expect(note.status, note.text).toBe(201);
  // B02: 200 at 16 % (32.00) + 300 exempt + 10 % tip on both (50.00) = 582.00, paid in full by card.
  const b02 = await issue(tenant, {
    contact_id: consumer.id,
    document_subtype_id: ids.b02,
    issue_date: "2026-11-03",
    items: [line("200.00", [ids.itbis16, ids.propina]), line("300.00", [ids.exento, ids.propina])],
  });
  expect(
    (await tenant.api.post(`/invoices/${b02.id}/payments`, { amount: b02.total_amount, payment_date: "2026-11-04", payment_method: "credit_card" })).status,
  ).toBe(201);
  // US$100 + 18 % at 60.00: 6,000.00 + 1,080.00 = 7,080.00 DOP, unpaid.
  const dollars = await issue(tenant, {
    contact_id: rncBuyer.id,
    document_subtype_id: ids.b01,
    issue_date: "2026-11-05",
    currency_id: usd,
    exchange_rate: "60.00",
    items: [line("100.00", [ids.itbis18])],
  });
  // Out: a B01 cancelled (its NCF annulled, Formato 608), a draft, and a sale of December.
  const cancelled = await issue(tenant, { contact_id: rncBuyer.id, document_subtype_id: ids.b01, issue_date: "2026-11-06", items: [line("999.00", [])] });
  expect((await tenant.api.post(`/invoices/${cancelled.id}/cancel`)).status).toBe(200);
  const draft = await tenant.api.post("/invoices", {
    contact_id: rncBuyer.id,
    document_subtype_id: ids.b01,
    issue_date: "2026-11-07",
    draft: true,
    items: [line("777.00", [])],
  });
  expect(draft.body.data.status).toBe("draft");
  await issue(tenant, { contact_id: rncBuyer.id, document_subtype_id: ids.b01, issue_date: "2026-12-01", items: [line("555.00", [])] });

  // Another branch: B01 2,000 + 18 % = 2,360.00, paid by transfer.
  const branch = await seedWorkspace(tenant, "Sucursal Santiago");
  const inBranch = { "X-Workspace-ID": String(branch) };
  const branchBuyer = await tenant.api.post(
    "/contacts",
    { name: "Cliente Santiago SRL", identification_type: "rnc", identification: freshRnc() },
    { headers: inBranch },
  );
  expect(branchBuyer.status, branchBuyer.text).toBe(201);
  const branchInvoice = await issue(
    tenant,
    { contact_id: branchBuyer.body.data.id, document_subtype_id: ids.b01, issue_date: "2026-11-03", items: [line("2000.00", [ids.itbis18])] },
    inBranch,
  );
  expect(
    (
      await tenant.api.post(
        `/invoices/${branchInvoice.id}/payments`,
        { amount: "2360.00", payment_date: "2026-11-03", payment_method: "bank_transfer" },
        { headers: inBranch },
      )
    ).status,
  ).toBe(201);

  world = {
    tenant,
    branch,
    invoices: [...[b01, b02, dollars].map((invoice) => ({ id: invoice.id, workspace: tenant.workspaceId })), { id: branchInvoice.id, workspace: branch }],
    notes: [note.body.data.id],
  };
});

describe("GET /reports/sales-summary", () => {
  it("groups by document type: net sales to the cent, ITBIS by rate, the exempt base, the tip, paid and due; cancelled, drafts and other months out", async () => {
    const res = await summary(world.tenant, "from=2026-11-01&to=2026-11-30&group_by=document_type");
    expect(res.status, res.text).toBe(200);
    const { groups, totals } = res.body.data;
    expect(groups.map((g) => [g.key, g.count])).toEqual([
      ["B01", 3],
      ["B02", 1],
      ["B04", 1],
    ]);
    expect(groups[0]).toMatchObject({
      label: "B01",
      subtotal: "9000.00",
      discounts: "0.00",
      itbis: [{ rate: "18.00", base: "9000.00", amount: "1620.00" }],
      exempt_base: "0.00",
      isc: "0.00",
      other_taxes: "0.00",
      legal_tip: "0.00",
      total: "10620.00",
      paid: "2860.00",
      // 1,180 − 500 paid − 118 credited; 7,080 unpaid; the branch's paid in full.
      due: "7642.00",
    });
    expect(groups[1]).toMatchObject({
      subtotal: "500.00",
      itbis: [{ rate: "16.00", base: "200.00", amount: "32.00" }],
      exempt_base: "300.00",
      legal_tip: "50.00",
      total: "582.00",
      paid: "582.00",
      due: "0.00",
    });
    // The credit note subtracts.
    expect(groups[2]).toMatchObject({
      subtotal: "-100.00",
      itbis: [{ rate: "18.00", base: "-100.00", amount: "-18.00" }],
      total: "-118.00",
      paid: "0.00",
      due: "0.00",
    });
    expect(totals).toMatchObject({
      count: 5,
      subtotal: "9400.00",
      itbis: [
        { rate: "18.00", base: "8900.00", amount: "1602.00" },
        { rate: "16.00", base: "200.00", amount: "32.00" },
      ],
      exempt_base: "300.00",
      legal_tip: "50.00",
      total: "11084.00",
      paid: "3442.00",
      due: "7642.00",
    });
    expect(res.body.data).toMatchObject({ from: "2026-11-01", to: "2026-11-30", group_by: "document_type", currency: "DOP" });
  });

  it("equals the documents read back through their GET: totals in DOP, paid and due", async () => {
    const { tenant, invoices, notes } = world;
    let total = 0;
    let due = 0;
    for (const { id, workspace } of invoices) {
      const invoice = (await tenant.api.get(`/invoices/${id}`, { headers: { "X-Workspace-ID": String(workspace) } })).body.data;
      total += Math.round(Number(invoice.total_amount_dop) * 100);
      due += Math.round(Number(invoice.amount_due) * Number(invoice.exchange_rate) * 100);
    }
    for (const id of notes) total -= Math.round(Number((await tenant.api.get(`/credit-notes/${id}`)).body.data.total_amount_dop) * 100);
    const res = await summary(tenant, "from=2026-11-01&to=2026-11-30&group_by=day");
    expect(res.body.data.totals.total).toBe((total / 100).toFixed(2));
    expect(res.body.data.totals.due).toBe((due / 100).toFixed(2));
    expect(res.body.data.groups.map((g) => g.key)).toEqual(["2026-11-03", "2026-11-05", "2026-11-10"]);
  });

  it("groups by workspace with its name; workspace_id narrows; a user without view_all_locations sees only the request's workspace", async () => {
    const { tenant, branch } = world;
    const byWorkspace = (await summary(tenant, "from=2026-11-01&to=2026-11-30&group_by=workspace")).body.data.groups;
    expect(byWorkspace.map((g) => [g.key, g.total])).toEqual([
      [String(tenant.workspaceId), "8724.00"],
      [String(branch), "2360.00"],
    ]);
    expect(byWorkspace[1]!.label).toBe("Sucursal Santiago");
    const narrowed = await summary(tenant, `from=2026-11-01&to=2026-11-30&group_by=workspace&workspace_id=${branch}`);
    expect(narrowed.body.data.groups.map((g) => g.key)).toEqual([String(branch)]);

    // A member holds no reports:view; a custom role with it but without view_all_locations sums only the request's workspace.
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    expect((await member.api.get("/reports/sales-summary?from=2026-11-01&to=2026-11-30&group_by=day")).status).toBe(403);
    const role = await tenant.api.post("/roles", { name: "cashier_reports", display_name: "Caja con reportes", permissions: ["reports:view"] });
    expect(role.status, role.text).toBe(201);
    const cashier = await seedUser(tenant, { role: "cashier_reports", workspaceIds: [tenant.workspaceId, branch] });
    const own = await cashier.api.get<Data<SalesSummary>>("/reports/sales-summary?from=2026-11-01&to=2026-11-30&group_by=workspace");
    expect(own.status, own.text).toBe(200);
    expect(own.body.data.groups.map((g) => [g.key, g.total])).toEqual([[String(tenant.workspaceId), "8724.00"]]);
    const inBranch = await cashier.api.get<Data<SalesSummary>>("/reports/sales-summary?from=2026-11-01&to=2026-11-30&group_by=workspace", {
      headers: { "X-Workspace-ID": String(branch) },
    });
    expect(inBranch.body.data.groups.map((g) => [g.key, g.total])).toEqual([[String(branch), "2360.00"]]);
    const elsewhere = await cashier.api.get(`/reports/sales-summary?from=2026-11-01&to=2026-11-30&group_by=workspace&workspace_id=${branch}`);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.code).toBe("workspace_forbidden");
  });

  it("refuses a bad range or grouping (422, by field) and another tenant's workspace; another tenant sees none of it", async () => {
    const { tenant } = world;
    const bad = async (query: string, field: string) => {
      const res = await tenant.api.get(`/reports/sales-summary?${query}`);
      expect(res.status, res.text).toBe(422);
      expect(Object.keys(res.body.errors ?? {})).toContain(field);
    };
    await bad("from=2026-11-30&to=2026-11-01&group_by=day", "to");
    await bad("from=2025-01-01&to=2026-01-02&group_by=day", "to");
    await bad("from=2026-02-30&to=2026-03-01&group_by=day", "from");
    await bad("from=2026-11-01&to=2026-11-30&group_by=week", "group_by");
    await bad("from=2026-11-01&group_by=day", "to");
    const other = await seedTenant();
    const foreign = await other.api.get(`/reports/sales-summary?from=2026-11-01&to=2026-11-30&group_by=day&workspace_id=${tenant.workspaceId}`);
    expect(foreign.status, foreign.text).toBe(422);
    expect(Object.keys(foreign.body.errors ?? {})).toEqual(["workspace_id"]);
    const theirs = await summary(other, "from=2026-11-01&to=2026-11-30&group_by=document_type");
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.groups).toEqual([]);
    expect(theirs.body.data.totals).toMatchObject({ count: 0, total: "0.00", itbis: [] });
  });
});
