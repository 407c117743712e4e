import { describe, expect, it } from "vitest";
import { Big } from "../../src/lib/decimal";
import type { Currency } from "../../src/modules/currencies/schemas";
import type { InvoiceDetail, InvoiceSummary } from "../../src/modules/invoices/schemas";
import type { PurchaseSummary } from "../../src/modules/purchases/schemas";
import type { Data, Page } from "../support/api";
import { createContact } from "../support/sales";
import type { SeededTenant } from "../support/seed";
import { createProduct } from "../support/stock";
import { createPurchase, purchaseBody, purchaseSetup } from "./helpers";

/** A tenant that buys (purchaseSetup: a supplier, a product) and sells: a company buyer with an RNC, a service. */
async function bothSides() {
  const setup = await purchaseSetup();
  const buyer = await createContact(setup.tenant.api, { identification_type: "rnc", identification: "101000112" });
  const service = await createProduct(setup.tenant.api, { product_type: "service", track_inventory: false });
  return { ...setup, buyer, service };
}

/**
 * Pays what is due on `path` (an invoice's or a purchase's) in two payments, a cent short then the
 * cent, after a cent too many is refused; then removes both. Answers the document after each step.
 */
async function payAndRemove(api: SeededTenant["api"], path: string, document: "invoice" | "purchase", due: string) {
  const pay = (amount: string) => api.post(`${path}/payments`, { amount, payment_date: "2026-11-26", payment_method: "cash" });
  const cent = new Big("0.01");
  const over = await pay(new Big(due).plus(cent).toFixed(2));
  expect(over.status).toBe(422);
  expect(over.body.errors.amount[0]).toContain(due);
  const part = await pay(new Big(due).minus(cent).toFixed(2));
  expect(part.status, part.text).toBe(201);
  const rest = await pay("0.01");
  expect(rest.status, rest.text).toBe(201);
  for (const payment of [part, rest]) expect((await api.delete(`${path}/payments/${payment.body.data.payment.id}`)).status).toBe(200);
  return { part: part.body.data[document], paid: rest.body.data[document], removed: (await api.get(path)).body.data };
}

/**
 * One money rule for both sides of a withholding (docs/money.md): what a company buyer withholds
 * of our invoice settles that part of it for us (partially_paid before any payment), and what we
 * withhold of a supplier's bill we owe DGII, not the supplier (pending_payment until we pay; due
 * total − withholdings). The same amounts on both, to the cent: 1,234.57 + ITBIS 18 % 222.22 =
 * 1,456.79; 30 % of the ITBIS 66.67 and 10 % ISR 123.46 withheld; 1,266.66 left to pay.
 */
describe("amount due and status with withholdings, invoice and purchase", () => {
  const withheld = { itbis_withheld: "66.67", isr_withheld: "123.46", withholding_date: "2026-11-25" };

  it("an invoice: the buyer's withholdings settle their part, so it is partially paid before any payment", async () => {
    const { tenant, ids, buyer: company, service } = await bothSides();
    const created = await tenant.api.post<Data<InvoiceSummary>>("/invoices", {
      contact_id: company.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: service.id, quantity: "1", unit_price: "1234.57", tax_ids: [ids.itbis18] }],
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data).toMatchObject({ total_amount: "1456.79", status: "pending_payment" });
    expect((await tenant.api.get(`/invoices/${id}`)).body.data).toMatchObject({ amount_due: "1456.79", status: "pending_payment", exchange_rate: "1.00" });

    const put = await tenant.api.put<Data<InvoiceSummary>>(`/invoices/${id}/withholdings`, withheld);
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({ amount_paid: "0.00", amount_due: "1266.66", refund_due: "0.00", status: "partially_paid" });
    const listed = (await tenant.api.get<Page<InvoiceSummary>>("/invoices")).body.data.find((row) => row.id === id);
    expect(listed).toMatchObject({ amount_due: "1266.66", refund_due: "0.00", status: "partially_paid" });

    const { part, paid, removed } = await payAndRemove(tenant.api, `/invoices/${id}`, "invoice", "1266.66");
    expect(part).toMatchObject({ amount_paid: "1266.65", amount_due: "0.01", status: "partially_paid" });
    expect(paid).toMatchObject({ amount_paid: "1266.66", amount_due: "0.00", status: "paid" });
    // Without the payments, the withholdings' part is still settled: partially paid again, not pending.
    expect(removed).toMatchObject({ amount_paid: "0.00", amount_due: "1266.66", status: "partially_paid" });
  });

  it("a purchase: the withholdings are owed to DGII, so it stays pending until the supplier is paid total − withholdings", async () => {
    const setup = await purchaseSetup();
    const { tenant } = setup;
    const purchase = await createPurchase(
      tenant,
      purchaseBody(setup, "1", "1234.57", {
        ...withheld,
        expense_type: "02",
        items: [{ description: "Asesoría", quantity: "1", unit_cost: "1234.57", tax_ids: [setup.ids.itbis18] }],
      }),
    );
    expect(purchase).toMatchObject({ total_amount: "1456.79", amount_paid: "0.00", amount_due: "1266.66", status: "pending_payment", exchange_rate: "1.00" });
    const listed = (await tenant.api.get<Page<PurchaseSummary>>("/purchases")).body.data.find((row) => row.id === purchase.id);
    expect(listed).toMatchObject({ amount_due: "1266.66", status: "pending_payment" });

    const { part, paid, removed } = await payAndRemove(tenant.api, `/purchases/${purchase.id}`, "purchase", "1266.66");
    expect(part).toMatchObject({ amount_paid: "1266.65", amount_due: "0.01", status: "partially_paid" });
    expect(paid).toMatchObject({ amount_paid: "1266.66", amount_due: "0.00", status: "paid" });
    expect(removed).toMatchObject({ amount_paid: "0.00", amount_due: "1266.66", status: "pending_payment", payments: [] });
  });
});

describe("the rate a document is fixed at, invoice and purchase", () => {
  it("DOP is 1.00 and refuses another rate; another currency takes the rate given, else its own, shown as the API shows a rate", async () => {
    const setup = await bothSides();
    const { tenant, ids, buyer, service } = setup;
    const usd = (await tenant.api.get<Page<Currency>>("/currencies?per_page=100")).body.data.find((c) => c.code === "USD")!;
    expect((await tenant.api.patch(`/currencies/${usd.id}`, { exchange_rate: "60.125" })).status).toBe(200);
    const invoiceBody = () => ({
      contact_id: buyer.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: [ids.itbis18] }],
    });
    const kinds = [
      { path: "/invoices", body: invoiceBody },
      { path: "/purchases", body: () => purchaseBody(setup, "1", "100.00") },
    ];
    for (const kind of kinds) {
      const post = (extra: Record<string, unknown>) => tenant.api.post(kind.path, { ...kind.body(), ...extra });
      /** The document as GET shows it (POST /invoices answers a few fields only). */
      const shown = async (extra: Record<string, unknown>) => {
        const res = await post(extra);
        expect(res.status, res.text).toBe(201);
        return (await tenant.api.get<Data<{ exchange_rate: string; total_amount_dop: string }>>(`${kind.path}/${res.body.data.id}`)).body.data;
      };
      // 118.00 at each rate: 1 → 118.00; 58.4567 → 6,897.8906 → 6,897.89; 60.125 → 7,094.75.
      expect(await shown({ exchange_rate: "1.000000" }), kind.path).toMatchObject({ exchange_rate: "1.00", total_amount_dop: "118.00" });
      const refused = await post({ exchange_rate: "2" });
      expect(refused.status, kind.path).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(["exchange_rate"]);
      expect(await shown({ currency_id: usd.id, exchange_rate: "58.456700" }), kind.path).toMatchObject({
        exchange_rate: "58.4567",
        total_amount_dop: "6897.89",
      });
      expect(await shown({ currency_id: usd.id }), kind.path).toMatchObject({ exchange_rate: "60.125", total_amount_dop: "7094.75" });
    }
  });
});

describe("totals, one rendering on every document", () => {
  it("an invoice, its list, a quotation, a credit note and a purchase of the same line show the same totals, in one order, to the cent", async () => {
    const setup = await bothSides();
    const { tenant, ids, buyer, service } = setup;
    // 3 × 33.33 = 99.99; 10 % off: 10.00 (9.999); ITBIS 18 % of 89.99: 16.20 (16.1982); total 106.19.
    const line = { quantity: "3", discount: "10", tax_ids: [ids.itbis18] };
    const totals = { subtotal_amount: "99.99", tax_amount: "16.20", discount_amount: "10.00", total_amount: "106.19" };
    const sale = { contact_id: buyer.id, issue_date: "2026-11-20", items: [{ ...line, product_id: service.id, unit_price: "33.33" }] };
    const invoice = await tenant.api.post<Data<{ id: number }>>("/invoices", { ...sale, document_subtype_id: ids.b01 });
    expect(invoice.status, invoice.text).toBe(201);
    const shownInvoice = await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${invoice.body.data.id}`);
    const quotation = await tenant.api.post<Data<{ id: number }>>("/quotations", { ...sale, document_subtype_id: ids.cot });
    expect(quotation.status, quotation.text).toBe(201);
    const note = await tenant.api.post<Data<{ id: number }>>(`/invoices/${invoice.body.data.id}/credit-notes`, {
      modification_code: 3,
      reason: "Devolución",
      issue_date: "2026-11-21",
      items: [{ invoice_item_id: shownInvoice.body.data.items[0]!.id, quantity: "3" }],
    });
    expect(note.status, note.text).toBe(201);
    const purchase = await createPurchase(tenant, { ...purchaseBody(setup, "3", "33.33"), items: [{ ...line, description: "Servicio", unit_cost: "33.33" }] });
    const shown = [
      shownInvoice.body.data,
      (await tenant.api.get<Page<InvoiceSummary>>("/invoices")).body.data.find((row) => row.id === invoice.body.data.id),
      (await tenant.api.get(`/quotations/${quotation.body.data.id}`)).body.data,
      (await tenant.api.get(`/credit-notes/${note.body.data.id}`)).body.data,
      (await tenant.api.get(`/purchases/${purchase.id}`)).body.data,
    ] as Record<string, unknown>[];
    for (const data of shown) {
      expect(data).toMatchObject(totals);
      expect(Object.keys(data).filter((key) => key in totals)).toEqual(Object.keys(totals));
    }
  });
});
