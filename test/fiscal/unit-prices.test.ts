import { describe, expect, it } from "vitest";
import { salesSetup } from "../support/sales";

/**
 * Unit prices carry up to 4 decimals (Formato e-CF v1.0, PrecioUnitarioItem); each line's
 * subtotal, discount, taxes and total round half-up to the cent, and the document sums the lines.
 */
describe("unit prices with up to 4 decimals", () => {
  it("are kept as given, the line amounts rounded half-up to the cent, on invoices and on quotations converted to invoices", async () => {
    const { tenant, ids, contact, service: product } = await salesSetup();
    const items = [
      // 3 × 10.1235 = 30.3705 → 30.37; ITBIS 18 % of 30.37 = 5.4666 → 5.47; total 35.84.
      { product_id: product.id, quantity: "3", unit_price: "10.1235", tax_ids: [ids.itbis18] },
      // 1 × 0.005 = 0.005 → 0.01 (half-up), no tax.
      { product_id: product.id, quantity: "1", unit_price: "0.005", tax_ids: [] },
      // 2 × 12.5 = 25.00.
      { product_id: product.id, quantity: "2", unit_price: 12.5, tax_ids: [] },
    ];
    const created = await tenant.api.post("/invoices", { contact_id: contact.id, document_subtype_id: ids.b02, issue_date: "2026-11-20", items });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const invoice = (await tenant.api.get(`/invoices/${created.body.data.id}`)).body.data;
    expect(
      invoice.items.map((it: { unit_price: string; subtotal: string; tax_amount: string; total: string }) => [
        it.unit_price,
        it.subtotal,
        it.tax_amount,
        it.total,
      ]),
    ).toEqual([
      ["10.1235", "30.37", "5.47", "35.84"],
      ["0.005", "0.01", "0.00", "0.01"],
      ["12.50", "25.00", "0.00", "25.00"],
    ]);
    expect(invoice).toMatchObject({ subtotal_amount: "55.38", tax_amount: "5.47", total_amount: "60.85" });

    const quotation = await tenant.api.post("/quotations", { contact_id: contact.id, document_subtype_id: ids.cot, issue_date: "2026-11-20", items });
    expect(quotation.status).toBe(201);
    const q = (await tenant.api.get(`/quotations/${quotation.body.data.id}`)).body.data;
    expect(q.items.map((it: { unit_price: string }) => it.unit_price)).toEqual(["10.1235", "0.005", "12.50"]);
    expect(q.total_amount).toBe("60.85");
    const converted = await tenant.api.post(`/quotations/${quotation.body.data.id}/convert-to-invoice`, { document_subtype_id: ids.b02 });
    expect(converted.status, JSON.stringify(converted.body)).toBe(201);
    const again = (await tenant.api.get(`/invoices/${converted.body.data.invoice_id}`)).body.data;
    expect(again.total_amount).toBe("60.85");
    expect(again.items.map((it: { unit_price: string }) => it.unit_price)).toEqual(["10.1235", "0.005", "12.50"]);
  });

  it("refuses a fifth decimal with 422 on the line's unit_price", async () => {
    const { tenant, ids, contact, service: product } = await salesSetup();
    const res = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "1", unit_price: "1.00001", tax_ids: [] }],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ "items.0.unit_price": ["At most 4 decimal places."] });
  });
});
