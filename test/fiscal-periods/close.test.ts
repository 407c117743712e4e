import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/lib/crypto";
import { dominicanToday } from "../../src/lib/dates";
import type { FiscalPeriod } from "../../src/modules/fiscal-periods/schemas";
import { createPurchase, createSupplier } from "../purchases/helpers";
import type { ApiResponse, Data } from "../support/api";
import { catalogIds, createContact } from "../support/sales";
import { type SeededTenant, type SeededUser, seedTenant, seedUser, uniqueName } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * Closing a month (issue 47; docs/reports.md, "Closing the month"): a September 2026 with sales,
 * payments, a credit note, a withheld purchase; closed by the owner (not by an admin of one branch,
 * yes by whom the owner granted it at company level); then every write dated in September is
 * 409 period_closed naming it, while October goes on; the 606, 607 and 608 stay byte for byte what
 * they were at the close; the owner re-opens with a reason, and the next close keeps both versions.
 */

const PERIOD = "202609";
const REPORTS = ["606", "607", "608"] as const;

let tenant: SeededTenant;
let branchAdmin: SeededUser;
let closer: SeededUser;
let ids: Awaited<ReturnType<typeof catalogIds>>;
let buyer: number;
let product: number;
let supplier: number;
let septInvoice: { id: number; document_number: string };
/** September's unpaid sale, without notes: one that may be edited or cancelled, were its month open. */
let septUnpaid: { id: number };
let septPaymentId: number;
let septPurchase: { id: number };
let before: Record<string, string>;

const line = (price: string) => ({ product_id: product, quantity: "1", unit_price: price, tax_ids: [ids.itbis18] });
const invoice = (date: string, price = "1000.00") => ({ contact_id: buyer, document_subtype_id: ids.b01, issue_date: date, items: [line(price)] });
const purchase = (date: string, rest: Record<string, unknown> = {}) => ({
  supplier_id: supplier,
  supplier_ncf: `B01${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`,
  issue_date: date,
  expense_type: "02",
  payment_method: "bank_transfer",
  items: [{ description: "Servicio", quantity: "1", unit_cost: "2000.00", tax_ids: [ids.itbis18] }],
  ...rest,
});

/** Every report of the month, TXT and JSON (the 607 with and without e-CF), as downloaded. */
async function reports(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const report of REPORTS) {
    for (const format of ["txt", "json"]) {
      const res = await tenant.api.get(`/reports/${report}?period=${PERIOD}&format=${format}`);
      expect(res.status, res.text).toBe(200);
      out[`${report}.${format}`] = res.text;
    }
  }
  const ecf = await tenant.api.get(`/reports/607?period=${PERIOD}&format=txt&include_ecf=true`);
  out["607-ecf.txt"] = ecf.text;
  return out;
}

function expectClosed(res: ApiResponse, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBe(409);
  expect(res.body.code, what).toBe("period_closed");
  expect(res.body.errors, what).toEqual({ period: [PERIOD] });
  expect(res.body.message, what).toContain(PERIOD);
}

beforeAll(async () => {
  tenant = await seedTenant();
  ids = await catalogIds(tenant.api);
  buyer = (await createContact(tenant.api)).id;
  product = (await createProduct(tenant.api, { product_type: "service", track_inventory: false })).id;
  supplier = (await createSupplier(tenant)).id;
  branchAdmin = await seedUser(tenant, { role: "admin", workspaceIds: [tenant.workspaceId] });
  closer = await seedUser(tenant, { role: "viewer", workspaceIds: [tenant.workspaceId] });
  const role = await tenant.api.post("/roles", { name: uniqueName("cierre_").toLowerCase(), display_name: "Cierre", permissions: ["fiscal_periods:close"] });
  expect(role.status, role.text).toBe(201);
  expect((await tenant.api.put(`/company/members/${closer.id}`, { role: role.body.data.name })).status).toBe(201);

  // September: two sales (one half paid in cash), a credit note, a purchase withheld and paid.
  const a = await tenant.api.post("/invoices", invoice("2026-09-10"));
  expect(a.status, a.text).toBe(201);
  septInvoice = a.body.data;
  const paid = await tenant.api.post(`/invoices/${septInvoice.id}/payments`, { amount: "590.00", payment_date: "2026-09-15", payment_method: "cash" });
  expect(paid.status, paid.text).toBe(201);
  septPaymentId = paid.body.data.payment?.id ?? paid.body.data.id;
  const b = await tenant.api.post("/invoices", invoice("2026-09-28", "500.00"));
  expect(b.status, b.text).toBe(201);
  septUnpaid = b.body.data;
  const note = await tenant.api.post(`/invoices/${septInvoice.id}/credit-notes`, {
    modification_code: 3,
    reason: "Descuento posterior",
    issue_date: "2026-09-25",
    items: [{ description: "Descuento", amount: "100.00", tax_ids: [ids.itbis18] }],
  });
  expect(note.status, note.text).toBe(201);
  septPurchase = await createPurchase(tenant, purchase("2026-09-12", { itbis_withheld: "360.00", isr_withheld: "200.00", withholding_date: "2026-09-20" }));
  before = await reports();
});

describe("closing a month", () => {
  it("is a company-level act: an admin of the branch is refused 403 company_forbidden; the owner or a company role granted it may", async () => {
    const refused = await branchAdmin.api.post(`/fiscal-periods/${PERIOD}/close`);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.code).toBe("company_forbidden");
    // Closing the current month, or one before DGII's formats, is refused.
    const current = dominicanToday().slice(0, 7).replace("-", "");
    const early = await tenant.api.post(`/fiscal-periods/${current}/close`);
    expect([early.status, Object.keys(early.body.errors ?? {})]).toEqual([422, ["period"]]);
    expect((await tenant.api.post("/fiscal-periods/201804/close")).status).toBe(422);

    const res = await closer.api.post<Data<FiscalPeriod>>(`/fiscal-periods/${PERIOD}/close`);
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({
      period: PERIOD,
      status: "closed",
      closed_by: { id: closer.id },
      deadlines: { ir17: "2026-10-10", formats_606_607_608: "2026-10-15", it1: "2026-10-20" },
    });
    expect(data.deadlines.note).toContain("next business day");
    expect(data.closes).toHaveLength(1);
    // What was kept is what was downloaded just before, byte for byte, with its SHA-256.
    const kept = Object.fromEntries(data.closes[0]!.snapshots.map((s) => [`${s.report}.${s.format}`, s.sha256]));
    expect(Object.keys(kept).sort()).toEqual(
      ["606.json", "606.txt", "607.json", "607.txt", "607-ecf.json", "607-ecf.txt", "608.json", "608.txt", "it1.json", "ir17.json"].sort(),
    );
    for (const [name, body] of Object.entries(before)) expect(kept[name], name).toBe(await sha256Hex(body));

    expectClosed(await tenant.api.post(`/fiscal-periods/${PERIOD}/close`), "a second close");
  });

  it("refuses 409 period_closed every write dated in it; October goes on", async () => {
    const api = tenant.api;
    const september = "2026-09-30";
    expectClosed(await api.post("/invoices", invoice(september)), "an invoice dated in it");
    expectClosed(
      await api.post(`/invoices/${septInvoice.id}/payments`, { amount: "10.00", payment_date: september, payment_method: "cash" }),
      "a payment dated in it",
    );
    expectClosed(await api.delete(`/invoices/${septInvoice.id}/payments/${septPaymentId}`), "deleting a payment dated in it");
    expectClosed(await api.patch(`/invoices/${septUnpaid.id}`, { items: [line("900.00")] }), "changing an invoice of it");
    expectClosed(await api.post(`/invoices/${septUnpaid.id}/cancel`, {}), "cancelling an invoice of it (its 607 row would go)");
    expectClosed(
      await api.put(`/invoices/${septUnpaid.id}/withholdings`, { itbis_withheld: "54.00", isr_withheld: "0.00", withholding_date: september }),
      "a buyer's withholding dated in it",
    );
    expectClosed(
      await api.post(`/invoices/${septInvoice.id}/credit-notes`, {
        modification_code: 3,
        reason: "Otro descuento",
        issue_date: september,
        items: [{ description: "Descuento", amount: "10.00", tax_ids: [ids.itbis18] }],
      }),
      "a credit note dated in it",
    );
    expectClosed(await api.post("/purchases", purchase(september)), "a purchase dated in it");
    expectClosed(
      await api.post(`/purchases/${septPurchase.id}/payments`, { amount: "10.00", payment_date: september, payment_method: "cash" }),
      "a purchase payment dated in it",
    );
    expectClosed(await api.delete(`/purchases/${septPurchase.id}`, { body: { reason: "Duplicada" } }), "voiding a purchase of it");
    // A draft dated in it may be kept, not issued into it.
    const draft = await api.post("/invoices", { ...invoice(september), draft: true });
    expect(draft.status, draft.text).toBe(201);
    expectClosed(await api.post(`/invoices/${draft.body.data.id}/issue`, { issue_date: september }), "issuing a draft into it");

    // October is open: a sale, a payment of September's invoice, a credit note on it dated now.
    expect((await api.post("/invoices", invoice("2026-10-05"))).status).toBe(201);
    const octPayment = await api.post(`/invoices/${septInvoice.id}/payments`, { amount: "100.00", payment_date: "2026-10-03", payment_method: "credit_card" });
    expect(octPayment.status, octPayment.text).toBe(201);
    const octNote = await api.post(`/invoices/${septInvoice.id}/credit-notes`, {
      modification_code: 3,
      reason: "Corrección",
      issue_date: "2026-10-06",
      items: [{ description: "Descuento", amount: "50.00", tax_ids: [ids.itbis18] }],
    });
    expect(octNote.status, octNote.text).toBe(201);
    expect((await api.post("/purchases", purchase("2026-10-02"))).status).toBe(201);

    // September's reports are still what was filed, byte for byte, served from the close.
    expect(await reports()).toEqual(before);
    const txt = await api.get(`/reports/607?period=${PERIOD}`);
    expect(txt.headers.get("x-content-sha256")).toBe(await sha256Hex(before["607.txt"]!));
    expect(txt.headers.get("content-disposition")).toBe(`attachment; filename="DGII_F_607_131246796_${PERIOD}.TXT"`);
  });

  it("lists each month's state and deadlines", async () => {
    const res = await tenant.api.get<Data<FiscalPeriod[]>>("/fiscal-periods?from=202608&to=202610");
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((p) => [p.period, p.status, p.closed_by?.id ?? null])).toEqual([
      ["202610", "open", null],
      ["202609", "closed", closer.id],
      ["202608", "open", null],
    ]);
    expect(res.body.data[0]!.deadlines).toMatchObject({ ir17: "2026-11-10", formats_606_607_608: "2026-11-15", it1: "2026-11-20" });
  });

  it("is re-opened by the owner alone, with a reason; the next close keeps both versions", async () => {
    const body = { body: { reason: "Declaración rectificativa: factura omitida" } };
    const refused = await closer.api.delete(`/fiscal-periods/${PERIOD}/close`, body);
    expect([refused.status, refused.body.code]).toEqual([403, "company_forbidden"]);
    const reopened = await tenant.api.delete<Data<FiscalPeriod>>(`/fiscal-periods/${PERIOD}/close`, body);
    expect(reopened.status, reopened.text).toBe(200);
    expect(reopened.body.data).toMatchObject({ status: "open", closed_at: null });
    expect(reopened.body.data.closes[0]).toMatchObject({ version: 1, reopened_by: { id: tenant.admin.id }, reopen_reason: body.body.reason });
    expect((await tenant.api.delete(`/fiscal-periods/${PERIOD}/close`, body)).status).toBe(409);

    // Open again: the omitted sale is entered, and the 607 read from the books has it.
    const omitted = await tenant.api.post("/invoices", invoice("2026-09-30", "300.00"));
    expect(omitted.status, omitted.text).toBe(201);
    const live = (await tenant.api.get(`/reports/607?period=${PERIOD}`)).text;
    expect(live).not.toBe(before["607.txt"]);
    expect(live).toContain(omitted.body.data.document_number);

    const again = await tenant.api.post<Data<FiscalPeriod>>(`/fiscal-periods/${PERIOD}/close`);
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.closes.map((c) => [c.version, c.reopened_at === null])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect((await tenant.api.get(`/reports/607?period=${PERIOD}`)).text).toBe(live);
    const v1 = await tenant.api.get(`/fiscal-periods/${PERIOD}/snapshot?report=607&version=1`);
    expect(v1.status).toBe(200);
    expect(v1.text).toBe(before["607.txt"]);
    expect(v1.headers.get("x-content-sha256")).toBe(await sha256Hex(before["607.txt"]!));
    const v2 = await tenant.api.get(`/fiscal-periods/${PERIOD}/snapshot?report=607`);
    expect([v2.text, v2.headers.get("x-fiscal-period-version")]).toEqual([live, "2"]);
    const json1 = await tenant.api.get(`/fiscal-periods/${PERIOD}/snapshot?report=606&format=json&version=1`);
    expect(json1.text).toBe(before["606.json"]);
    expect((await tenant.api.get(`/fiscal-periods/${PERIOD}/snapshot?report=606&version=3`)).status).toBe(404);
  });
});
