import { describe, expect, it } from "vitest";
import type { InvoiceDetail } from "../../src/modules/invoices/schemas";
import type { NoteDetail, NoteSummary } from "../../src/modules/notes/schemas";
import type { Data, Page } from "../support/api";
import { fetchBytes, pdfText } from "../support/pdf";
import { salesSetup } from "../support/sales";
import { ownerRows, seedTenant, seedWorkspace, sql } from "../support/seed";
import { createProduct, initialStock, levelOf } from "../support/stock";

/**
 * Credit and debit notes (issue 17; docs/fiscal.md "Credit and debit notes"): fiscal documents
 * numbered from B04/B03 that modify an issued invoice — never crediting more than it holds, even
 * under concurrency — returning stock, and moving what the buyer owes.
 */

async function noteSetup(issueDate = "2026-11-20") {
  const setup = await salesSetup();
  const { tenant, ids, contact, service } = setup;
  const product = await createProduct(tenant.api, { price: "100.00" });
  await initialStock(tenant.api, [{ product_id: product.id, quantity: "10" }]);
  const created = await tenant.api.post("/invoices", {
    contact_id: contact.id,
    document_subtype_id: ids.b01,
    issue_date: issueDate,
    items: [
      { product_id: product.id, quantity: "5", unit_price: "100.00", tax_ids: [ids.itbis18] },
      { product_id: service.id, quantity: "1", unit_price: "200.00", tax_ids: [] },
    ],
  });
  expect(created.status, created.text).toBe(201);
  const invoice = (await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${created.body.data.id}`)).body.data;
  // 5 × 100 + 18 % = 590.00, plus 200.00: 790.00.
  expect(invoice.total_amount).toBe("790.00");
  const [goods, services] = invoice.items.map((item) => item.id) as [number, number];
  return { ...setup, product, invoice, goods, services };
}

const credit = (reason = "Devolución de mercancía") => ({ modification_code: 3, reason });

describe("credit notes", () => {
  it("credits lines: its own B04 number, the invoice's NCF and date, stock back to the selling workspace, amount due reduced", async () => {
    const { tenant, invoice, goods, product, contact } = await noteSetup();
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("5.00");
    const res = await tenant.api.post<Data<NoteSummary>>(`/invoices/${invoice.id}/credit-notes`, {
      ...credit(),
      issue_date: "2026-11-22",
      items: [{ invoice_item_id: goods, quantity: "2" }],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      kind: "credit",
      invoice_id: invoice.id,
      document_number: "B0400000001",
      issue_date: "2026-11-22",
      modified_ncf: invoice.document_number,
      modified_issue_date: "2026-11-20",
      modification_code: 3,
      credit_note_indicator: 0,
      restock: true,
      subtotal_amount: "200.00",
      tax_amount: "36.00",
      total_amount: "236.00",
      exchange_rate: "1.00",
      total_amount_dop: "236.00",
    });
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("7.00");
    const returns = await ownerRows<{ type: string; quantity: string; reference: string }>(
      sql`SELECT type, quantity::text, reference FROM stock_movements WHERE invoice_id = ${invoice.id} AND type = 'return'`,
    );
    expect(returns).toEqual([{ type: "return", quantity: "2.00", reference: "B0400000001" }]);

    const after = (await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${invoice.id}`)).body.data;
    expect(after).toMatchObject({ credited_amount: "236.00", debited_amount: "0.00", amount_due: "554.00", refund_due: "0.00", status: "pending_payment" });
    expect(after.credit_notes).toEqual([
      {
        id: res.body.data.id,
        document_number: "B0400000001",
        issue_date: "2026-11-22",
        modification_code: 3,
        reason: "Devolución de mercancía",
        status: "issued",
        total_amount: "236.00",
      },
    ]);

    const shown = (await tenant.api.get<Data<NoteDetail>>(`/credit-notes/${res.body.data.id}`)).body.data;
    expect(shown.items.map((i) => [i.invoice_item_id, i.quantity, i.unit_price, i.subtotal, i.tax_amount, i.total, i.product?.id])).toEqual([
      [goods, "2.00", "100.00", "200.00", "36.00", "236.00", product.id],
    ]);
    expect(shown.snapshot.buyer).toMatchObject({ contact_id: contact.id, name: contact.name, identification_type: "rnc" });
    expect(shown.snapshot.sequence.prefix).toBe("B04");

    const list = await tenant.api.get<Page<NoteSummary>>(`/credit-notes?filter[invoice_id]=${invoice.id}`);
    expect(list.body.data.map((n) => n.document_number)).toEqual(["B0400000001"]);
    expect((await tenant.api.get(`/debit-notes/${res.body.data.id}`)).status).toBe(404);

    // The invoice's PDF shows what the note took, so its amounts add up: 790.00 − 236.00 = 554.00.
    const printed = (await pdfText((await fetchBytes(tenant.subdomain, tenant.admin.token, `/invoices/${invoice.id}/pdf`)).bytes)).replace(/\s+/g, " ");
    expect(printed).toContain("Total RD$790.00");
    expect(printed).toContain("Notas de crédito -RD$236.00");
    expect(printed).toContain("Pendiente RD$554.00");

    const history = (await tenant.api.get(`/invoices/${invoice.id}/history`)).body.data as { action: string; before: unknown; after: unknown }[];
    expect(history.map((h) => [h.action, h.before, h.after])).toEqual([["credit_note", { credited_amount: "0.00" }, { credited_amount: "236.00" }]]);
  });

  it("never credits more than a line holds; full credits the rest to the cent and settles the invoice", async () => {
    const { tenant, invoice, goods, services } = await noteSetup();
    expect((await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, { ...credit(), items: [{ invoice_item_id: goods, quantity: "2" }] })).status).toBe(
      201,
    );
    const over = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, { ...credit(), items: [{ invoice_item_id: goods, quantity: "3.01" }] });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ "items.0.quantity": ["Only 3.00 of this line is left to credit."] });
    const twice = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, {
      ...credit(),
      items: [
        { invoice_item_id: goods, quantity: "2" },
        { invoice_item_id: goods, quantity: "2" },
      ],
    });
    expect(twice.body.errors).toEqual({ "items.1.quantity": ["Only 1.00 of this line is left to credit."] });
    const foreign = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, {
      ...credit(),
      items: [{ invoice_item_id: services + 1000, quantity: "1" }],
    });
    expect(foreign.body.errors).toEqual({ "items.0.invoice_item_id": ["Not a line of this invoice."] });
    const tooMuch = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, { ...credit(), items: [{ description: "Descuento", amount: "600.00" }] });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.errors).toEqual({ items: ["The note's total (600.00) exceeds what is left to credit on the invoice (554.00)."] });

    const full = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, { modification_code: 1, reason: "Anulación", full: true });
    expect(full.status, full.text).toBe(201);
    expect(full.body.data).toMatchObject({ document_number: "B0400000002", subtotal_amount: "500.00", tax_amount: "54.00", total_amount: "554.00" });
    expect((await tenant.api.get(`/invoices/${invoice.id}`)).body.data).toMatchObject({
      credited_amount: "790.00",
      amount_due: "0.00",
      refund_due: "0.00",
      status: "paid",
    });
    const nothing = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, { ...credit(), full: true });
    expect(nothing.status).toBe(422);
    expect(Object.keys(nothing.body.errors)).toEqual(["full"]);
    const payment = await tenant.api.post(`/invoices/${invoice.id}/payments`, { amount: "1.00", payment_date: "2026-11-21", payment_method: "cash" });
    expect(payment.status).toBe(409);
  });

  it("a line credited in parts adds up to the line exactly: the last part takes what is left of each amount", async () => {
    const { tenant, ids, service } = await salesSetup();
    const created = await tenant.api.post("/invoices", {
      contact_id: (await tenant.api.get("/contacts?per_page=1")).body.data[0].id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: service.id, quantity: "3", unit_price: "33.3333", tax_ids: [ids.itbis18] }],
    });
    const invoice = (await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${created.body.data.id}`)).body.data;
    expect(invoice.total_amount).toBe("118.00");
    const line = invoice.items[0]!.id;
    const parts = [];
    for (let i = 0; i < 3; i++) {
      const res = await tenant.api.post<Data<NoteSummary>>(`/invoices/${invoice.id}/credit-notes`, {
        ...credit(),
        items: [{ invoice_item_id: line, quantity: "1" }],
      });
      expect(res.status, res.text).toBe(201);
      parts.push([res.body.data.subtotal_amount, res.body.data.tax_amount, res.body.data.total_amount]);
    }
    // 33.3333 → 33.33 per unit, ITBIS 6.00 each; the third part is 100.00 − 66.66 and 118.00 − 78.66.
    expect(parts).toEqual([
      ["33.33", "6.00", "39.33"],
      ["33.33", "6.00", "39.33"],
      ["33.34", "6.00", "39.34"],
    ]);
    expect((await tenant.api.get(`/invoices/${invoice.id}`)).body.data).toMatchObject({ credited_amount: "118.00", amount_due: "0.00" });
  });

  it("20 concurrent notes of one unit each on a line of 10: exactly 10 issued, consecutive numbers, the line credited once over", async () => {
    const { tenant, ids, contact } = await salesSetup();
    const product = await createProduct(tenant.api, { price: "10.00" });
    await initialStock(tenant.api, [{ product_id: product.id, quantity: "10" }]);
    const created = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "10", unit_price: "10.00", tax_ids: [] }],
    });
    const invoice = (await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${created.body.data.id}`)).body.data;
    const line = invoice.items[0]!.id;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        tenant.api.post(`/invoices/${invoice.id}/credit-notes`, { ...credit(), items: [{ invoice_item_id: line, quantity: "1" }] }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(10);
    expect(answers.some((a) => a.status >= 500)).toBe(false);
    const numbers = answers.filter((a) => a.status === 201).map((a) => a.body.data.document_number as string);
    expect(numbers.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `B04${String(i + 1).padStart(8, "0")}`));
    expect((await tenant.api.get(`/invoices/${invoice.id}`)).body.data).toMatchObject({ credited_amount: "100.00", amount_due: "0.00" });
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("10.00");
  });

  it("after payment, credit becomes a refund owed; restock: false returns nothing; more than 30 days sets IndicadorNotaCredito", async () => {
    const { tenant, invoice, goods, product } = await noteSetup("2026-10-01");
    expect((await tenant.api.post(`/invoices/${invoice.id}/payments`, { amount: "790.00", payment_date: "2026-10-02", payment_method: "cash" })).status).toBe(
      201,
    );
    const within = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, {
      ...credit(),
      issue_date: "2026-10-31",
      restock: false,
      items: [{ invoice_item_id: goods, quantity: "1" }],
    });
    expect(within.status, within.text).toBe(201);
    expect(within.body.data).toMatchObject({ credit_note_indicator: 0, restock: false, total_amount: "118.00" });
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("5.00");
    const late = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, {
      ...credit(),
      issue_date: "2026-11-01",
      items: [{ description: "Bonificación", amount: "10.00" }],
    });
    expect(late.body.data).toMatchObject({ credit_note_indicator: 1, total_amount: "10.00" });
    expect((await tenant.api.get(`/invoices/${invoice.id}`)).body.data).toMatchObject({ amount_due: "0.00", refund_due: "128.00", status: "paid" });
    const printed = (await pdfText((await fetchBytes(tenant.subdomain, tenant.admin.token, `/invoices/${invoice.id}/pdf`)).bytes)).replace(/\s+/g, " ");
    expect(printed).toContain("Reembolso al cliente RD$128.00");
  });

  it("refuses what no note can do, naming the field; an invoice with notes keeps its lines and its number", async () => {
    const { tenant, ids, contact, service, invoice, goods } = await noteSetup();
    const post = (body: Record<string, unknown>, id = invoice.id) => tenant.api.post(`/invoices/${id}/credit-notes`, body);
    const fieldsOf = async (body: Record<string, unknown>) => Object.keys((await post(body)).body.errors ?? {});
    expect(await fieldsOf({ ...credit() })).toEqual(["items"]);
    expect(await fieldsOf({ ...credit(), full: true, items: [{ invoice_item_id: goods, quantity: "1" }] })).toEqual(["items"]);
    expect(await fieldsOf({ modification_code: 1, reason: "x", items: [{ invoice_item_id: goods, quantity: "1" }] })).toEqual(["modification_code"]);
    expect(await fieldsOf({ modification_code: 5, reason: "x", full: true })).toEqual(["modification_code"]);
    expect(await fieldsOf({ modification_code: 3, reason: "", full: true })).toEqual(["reason"]);
    expect(await fieldsOf({ ...credit(), issue_date: "2026-11-19", full: true })).toEqual(["issue_date"]);
    expect(await fieldsOf({ ...credit(), document_subtype_id: ids.b01, full: true })).toEqual(["document_subtype_id"]);

    const draft = await tenant.api.post("/invoices", {
      draft: true,
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: service.id, quantity: "1", unit_price: "10.00" }],
    });
    const onDraft = await post({ ...credit(), full: true }, draft.body.data.id);
    expect(onDraft.status).toBe(409);
    expect(onDraft.body.code).toBe("invoice_not_modifiable");
    expect((await post({ ...credit(), full: true }, 999999)).status).toBe(404);
    const elsewhere = await seedWorkspace(tenant);
    const other = await tenant.api.post(
      `/invoices/${invoice.id}/credit-notes`,
      { ...credit(), full: true },
      { headers: { "X-Workspace-Id": String(elsewhere) } },
    );
    expect(other.status).toBe(404);

    expect((await post({ ...credit(), items: [{ invoice_item_id: goods, quantity: "1" }] })).status).toBe(201);
    for (const res of [
      await tenant.api.patch(`/invoices/${invoice.id}`, { items: [{ product_id: service.id, quantity: "1", unit_price: "1.00" }] }),
      await tenant.api.post(`/invoices/${invoice.id}/cancel`),
      await tenant.api.delete(`/invoices/${invoice.id}`),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("invoice_has_notes");
    }
    expect((await tenant.api.patch(`/invoices/${invoice.id}`, { notes: "Se puede anotar" })).status).toBe(200);

    const stranger = await seedTenant();
    expect((await stranger.api.get("/credit-notes")).body.data).toEqual([]);
  });

  it("prints its type, number, the modified NCF and date, the reason, the issuer and the buyer", async () => {
    const { tenant, invoice, goods, contact } = await noteSetup();
    const res = await tenant.api.post(`/invoices/${invoice.id}/credit-notes`, {
      modification_code: 3,
      reason: "Error en precio del artículo",
      items: [{ invoice_item_id: goods, quantity: "1" }],
    });
    const pdf = await fetchBytes(tenant.subdomain, tenant.admin.token, `/credit-notes/${res.body.data.id}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-disposition")).toBe('attachment; filename="B0400000001.pdf"');
    const text = await pdfText(pdf.bytes);
    for (const expected of [
      "Nota de Crédito",
      "NCF: B0400000001",
      `NCF modificado: ${invoice.document_number}`,
      "Fecha NCF modificado: 20-11-2026",
      "Error en precio del artículo",
      `Tenant ${tenant.subdomain} SRL`,
      "RNC: 131246796",
      contact.name,
      "118.00",
    ]) {
      expect(text, expected).toContain(expected);
    }
  });
});

describe("debit notes", () => {
  it("adds a charge with its taxes to what the buyer owes, from its own B03 sequence; no stock, no full, no annulment", async () => {
    const { tenant, ids, invoice, product } = await noteSetup();
    const res = await tenant.api.post(`/invoices/${invoice.id}/debit-notes`, {
      modification_code: 3,
      reason: "Intereses por mora",
      items: [{ description: "Intereses por mora", amount: "100.00", tax_ids: [ids.itbis18] }],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ kind: "debit", document_number: "B0300000001", credit_note_indicator: null, total_amount: "118.00" });
    expect((await tenant.api.get(`/invoices/${invoice.id}`)).body.data).toMatchObject({ debited_amount: "118.00", amount_due: "908.00" });
    expect(await levelOf(product.id, tenant.workspaceId)).toBe("5.00");
    const list = await tenant.api.get<Page<NoteSummary>>("/debit-notes");
    expect(list.body.data.map((n) => n.document_number)).toEqual(["B0300000001"]);
    expect((await tenant.api.get("/credit-notes")).body.data).toEqual([]);
    const text = await pdfText((await fetchBytes(tenant.subdomain, tenant.admin.token, `/debit-notes/${res.body.data.id}/pdf`)).bytes);
    expect(text).toContain("Nota de Débito");
    expect(text).toContain(`NCF modificado: ${invoice.document_number}`);

    const refused = async (body: Record<string, unknown>) => Object.keys((await tenant.api.post(`/invoices/${invoice.id}/debit-notes`, body)).body.errors);
    expect(await refused({ modification_code: 3, reason: "x", full: true })).toEqual(["full"]);
    expect(await refused({ modification_code: 3, reason: "x", restock: true, items: [{ description: "x", amount: "1" }] })).toEqual(["restock"]);
    expect(await refused({ modification_code: 1, reason: "x", items: [{ description: "x", amount: "1" }] })).toEqual(["modification_code"]);
  });
});
