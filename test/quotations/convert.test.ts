import { afterEach, describe, expect, it } from "vitest";
import { dominicanToday } from "../../src/lib/dates";
import type { MovementReportItem } from "../../src/modules/inventory/schemas";
import type { LineItemOutput } from "../../src/modules/sales/schemas";
import type { Page } from "../support/api";
import { inParallel } from "../support/parallel";
import { expectInvoiceCounts } from "../support/sales";
import { asOwner, seedUser, sql } from "../support/seed";
import { expectStockInvariant, levelOf } from "../support/stock";
import { quotationSetup, walk } from "./helpers";

const touched: number[] = [];
afterEach(async () => {
  for (const tenantId of touched.splice(0)) {
    await expectStockInvariant(tenantId);
    await expectInvoiceCounts(tenantId);
  }
});

const lineView = (i: LineItemOutput) => [
  i.product_id,
  i.description,
  i.quantity,
  i.unit_price,
  i.discount,
  i.subtotal,
  i.discount_amount,
  i.tax_amount,
  i.total,
  i.taxes,
];

async function invoiceCount(tenantId: number): Promise<number> {
  return asOwner(async (db) => {
    const result = await db.execute(sql`SELECT count(*)::int AS n FROM invoices WHERE tenant_id = ${tenantId}`);
    return (result as unknown as { rows: { n: number }[] }).rows[0]!.n;
  });
}

describe("quotations: convert to invoice", () => {
  it("creates an invoice with the quotation's lines and totals, today's date, the default subtype, stock sold, and links both", async () => {
    const { tenant, ids, contact, a, create } = await quotationSetup();
    touched.push(tenant.tenantId);
    const q = await create();
    await walk(tenant.api, q.id, ["send", "approve"]);
    const quotation = (await tenant.api.get(`/quotations/${q.id}`)).body.data;

    const res = await tenant.api.post(`/quotations/${q.id}/convert-to-invoice`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const invoiceId = res.body.data.invoice_id;
    expect(res.body).toEqual({
      message: "Quotation converted into invoice B0100000001.",
      redirect_url: `/invoices/${invoiceId}`,
      data: { invoice_id: invoiceId, document_number: "B0100000001" },
    });

    const invoice = (await tenant.api.get(`/invoices/${invoiceId}`)).body.data;
    expect(invoice).toMatchObject({
      document_subtype_id: ids.b01,
      document_number: "B0100000001",
      status: "pending_payment",
      contact_id: contact.id,
      workspace_id: tenant.workspaceId,
      issue_date: dominicanToday(),
      due_date: null,
      currency_id: quotation.currency_id,
      notes: "Cotización COT00000001. Válida 30 días",
      subtotal_amount: "1099.98",
      discount_amount: "10.00",
      tax_amount: "276.20",
      total_amount: "1366.18",
      amount_due: "1366.18",
    });
    for (const field of ["subtotal_amount", "discount_amount", "tax_amount", "total_amount"]) expect(invoice[field]).toBe(quotation[field]);
    expect(invoice.items.map(lineView)).toEqual(quotation.items.map(lineView));
    expect(await levelOf(a.id, tenant.workspaceId)).toBe("8.00");
    const movements = await tenant.api.get<Page<MovementReportItem>>(`/inventory/movements?product_id=${a.id}&type=sale`);
    expect(movements.body.data.map((m) => [m.quantity, m.invoice_id, m.reference])).toEqual([["-2.00", invoiceId, "B0100000001"]]);

    const after = (await tenant.api.get(`/quotations/${q.id}`)).body.data;
    expect(after).toMatchObject({ status: "converted", invoice_id: invoiceId });
    const linked = await asOwner(async (db) => {
      const result = await db.execute(sql`SELECT quotation_id FROM invoices WHERE id = ${invoiceId}`);
      return (result as unknown as { rows: { quotation_id: number }[] }).rows[0]!.quotation_id;
    });
    expect(linked).toBe(q.id);

    // Converted: never again, and no longer editable.
    const again = await tenant.api.post(`/quotations/${q.id}/convert-to-invoice`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("quotation_not_convertible");
    expect(again.body.message).toContain("converted");
    expect((await tenant.api.post(`/quotations/${q.id}/cancel`)).status).toBe(409);
    expect((await tenant.api.patch(`/quotations/${q.id}`, { notes: "x" })).status).toBe(409);
    expect((await tenant.api.get("/invoices")).body.meta.total).toBe(1);
    expect(await levelOf(a.id, tenant.workspaceId)).toBe("8.00");
  });

  it("uses the workspace's preferred invoice subtype, else the default; a body document_subtype_id overrides; drafts and sent convert too", async () => {
    const { tenant, ids, create } = await quotationSetup();
    touched.push(tenant.tenantId);
    const pref = await tenant.api.put(`/workspaces/${tenant.workspaceId}/preferred-document-subtype`, { type: "invoice", document_subtype_id: ids.b02 });
    expect(pref.status, JSON.stringify(pref.body)).toBe(200);
    const draft = await create();
    const preferred = await tenant.api.post(`/quotations/${draft.id}/convert-to-invoice`);
    expect(preferred.status, JSON.stringify(preferred.body)).toBe(201);
    expect(preferred.body.data.document_number).toBe("B0200000001");

    const sent = await create();
    await walk(tenant.api, sent.id, ["send"]);
    const overridden = await tenant.api.post(`/quotations/${sent.id}/convert-to-invoice`, { document_subtype_id: ids.b01 });
    expect(overridden.status, JSON.stringify(overridden.body)).toBe(201);
    expect(overridden.body.data.document_number).toBe("B0100000001");

    const wrongType = await create();
    const refused = await tenant.api.post(`/quotations/${wrongType.id}/convert-to-invoice`, { document_subtype_id: ids.cot });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["document_subtype_id"]);

    await tenant.api.put(`/workspaces/${tenant.workspaceId}/preferred-document-subtype`, { type: "invoice", document_subtype_id: null });
    const fallback = await tenant.api.post(`/quotations/${wrongType.id}/convert-to-invoice`);
    expect(fallback.body.data.document_number).toBe("B0100000002");
    expect((await tenant.api.get(`/quotations/${wrongType.id}`)).body.data.status).toBe("converted");
    expect(await levelOf((await tenant.api.get(`/quotations/${wrongType.id}`)).body.data.items[0].product_id, tenant.workspaceId)).toBe("4.00");
  });

  it("gives the invoice the income type the body names (01 without one); another code is 422 on income_type", async () => {
    const { tenant, create } = await quotationSetup();
    touched.push(tenant.tenantId);
    const rent = await create();
    const refused = await tenant.api.post(`/quotations/${rent.id}/convert-to-invoice`, { income_type: "07" });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["income_type"]);
    const converted = await tenant.api.post(`/quotations/${rent.id}/convert-to-invoice`, { income_type: "04" });
    expect(converted.status, converted.text).toBe(201);
    expect((await tenant.api.get(`/invoices/${converted.body.data.invoice_id}`)).body.data.income_type).toBe("04");
    const plain = await tenant.api.post(`/quotations/${(await create()).id}/convert-to-invoice`);
    expect(plain.status, plain.text).toBe(201);
    expect((await tenant.api.get(`/invoices/${plain.body.data.invoice_id}`)).body.data.income_type).toBe("01");
  });

  it("refuses cancelled and rejected quotations with 409 quotation_not_convertible", async () => {
    const { tenant, create } = await quotationSetup();
    const cancelled = await create();
    const rejected = await create();
    await walk(tenant.api, cancelled.id, ["cancel"]);
    await walk(tenant.api, rejected.id, ["send", "reject"]);
    for (const [id, status] of [
      [cancelled.id, "cancelled"],
      [rejected.id, "rejected"],
    ] as const) {
      const res = await tenant.api.post(`/quotations/${id}/convert-to-invoice`);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: "quotation_not_convertible" });
      expect(res.body.message).toContain(status);
    }
    expect((await tenant.api.post("/quotations/999999/convert-to-invoice")).status).toBe(404);
    expect(await invoiceCount(tenant.tenantId)).toBe(0);
  });

  it("when the invoice cannot be created the quotation stays as it was and the invoice's error is returned", async () => {
    const { tenant, ids, a, create } = await quotationSetup();
    touched.push(tenant.tenantId);
    const big = await create(tenant.api, { items: [{ product_id: a.id, quantity: "10.5", unit_price: "10" }] });
    await walk(tenant.api, big.id, ["send", "approve"]);
    const stock = await tenant.api.post(`/quotations/${big.id}/convert-to-invoice`);
    expect(stock.status).toBe(422);
    expect(stock.body.code).toBe("insufficient_stock");
    expect(Object.keys(stock.body.errors)).toEqual(["items.0.quantity"]);
    expect((await tenant.api.get(`/quotations/${big.id}`)).body.data).toMatchObject({ status: "approved", invoice_id: null });
    expect(await levelOf(a.id, tenant.workspaceId)).toBe("10.00");

    const fits = await create();
    await asOwner((db) => db.execute(sql`UPDATE document_subtypes SET next_number = end_number + 1 WHERE id = ${ids.b01}`));
    const exhausted = await tenant.api.post(`/quotations/${fits.id}/convert-to-invoice`);
    expect(exhausted.status).toBe(422);
    expect(exhausted.body.code).toBe("ncf_sequence_exhausted");
    expect((await tenant.api.get(`/quotations/${fits.id}`)).body.data).toMatchObject({ status: "draft", invoice_id: null });
    expect(await invoiceCount(tenant.tenantId)).toBe(0);
    expect(await levelOf(a.id, tenant.workspaceId)).toBe("10.00");
  });

  it("needs invoices:create besides quotations:edit (403 forbidden)", async () => {
    const { tenant, create } = await quotationSetup();
    const role = await tenant.api.post("/roles", { name: "cotizador", display_name: "Cotizador", permissions: ["quotations:view", "quotations:edit"] });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const user = await seedUser(tenant, { role: "cotizador", workspaceIds: [tenant.workspaceId] });
    const q = await create();
    const res = await user.api.post(`/quotations/${q.id}/convert-to-invoice`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("forbidden");
    expect(res.body.message).toContain("invoices:create");
    expect((await user.api.post(`/quotations/${q.id}/send`)).status).toBe(200);
    const member = await seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] });
    expect((await member.api.post(`/quotations/${q.id}/convert-to-invoice`)).status).toBe(201);
  });

  it("converts once under concurrency: 8 concurrent converts of one quotation make exactly one invoice", async () => {
    const { tenant, a, create } = await quotationSetup();
    touched.push(tenant.tenantId);
    const users = await Promise.all([0, 1, 2, 3].map(() => seedUser(tenant, { role: "member", workspaceIds: [tenant.workspaceId] })));
    const quotations = [await create(), await create(), await create()];
    for (const q of quotations) await walk(tenant.api, q.id, ["send", "approve"]);
    const results = await inParallel(
      quotations.flatMap((q) => Array.from({ length: 8 }, (_, i) => () => users[i % 4]!.api.post(`/quotations/${q.id}/convert-to-invoice`))),
    );
    for (let k = 0; k < quotations.length; k++) {
      const mine = results.slice(k * 8, k * 8 + 8);
      expect(mine.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      expect(mine.filter((r) => r.status === 409).every((r) => r.body.code === "quotation_not_convertible")).toBe(true);
    }
    expect(await invoiceCount(tenant.tenantId)).toBe(3);
    const numbers = results
      .filter((r) => r.status === 201)
      .map((r) => r.body.data.document_number)
      .sort();
    expect(numbers).toEqual(["B0100000001", "B0100000002", "B0100000003"]);
    // Each conversion sold 2 units of A once.
    expect(await levelOf(a.id, tenant.workspaceId)).toBe("4.00");
    const linked = await asOwner(async (db) => {
      const result = await db.execute(
        sql`SELECT q.id, q.invoice_id, i.quotation_id FROM quotations q JOIN invoices i ON i.id = q.invoice_id WHERE q.tenant_id = ${tenant.tenantId} ORDER BY q.id`,
      );
      return (result as unknown as { rows: { id: number; invoice_id: number; quotation_id: number }[] }).rows;
    });
    expect(linked.map((r) => [r.id, r.quotation_id])).toEqual(quotations.map((q) => [q.id, q.id]));
  });
});
