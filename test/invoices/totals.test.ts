import { describe, expect, it } from "vitest";
import type { InvoiceDetail } from "../../src/modules/invoices/schemas";
import { documentAmounts, lineAmounts } from "../../src/modules/sales/lines";
import type { Data } from "../support/api";
import { catalogIds, createContact } from "../support/sales";
import { seedTenant } from "../support/seed";
import { createProduct, initialStock } from "../support/stock";

const itbis18 = { id: 1, name: "ITBIS 18%", type: "itbis", rate: "18" };
const propina = { id: 2, name: "Propina Legal 10%", type: "propina_legal", rate: "10" };

describe("line math (exact decimals, half-up to cents)", () => {
  const cases: { name: string; line: Parameters<typeof lineAmounts>[0]; expected: Omit<ReturnType<typeof lineAmounts>, "taxes"> & { taxes: string[] } }[] = [
    {
      name: "one tax, no discount",
      line: { quantity: "3", unitPrice: "100.00", discount: "0", taxes: [itbis18] },
      expected: { subtotal: "300.00", discountAmount: "0.00", taxAmount: "54.00", total: "354.00", taxes: ["54.00"] },
    },
    {
      name: "discount then two taxes on the discounted base",
      line: { quantity: "2", unitPrice: "49.99", discount: "10", taxes: [itbis18, propina] },
      // 99.98; discount 9.998 → 10.00; base 89.98; ITBIS 16.1964 → 16.20; propina 8.998 → 9.00
      expected: { subtotal: "99.98", discountAmount: "10.00", taxAmount: "25.20", total: "115.18", taxes: ["16.20", "9.00"] },
    },
    {
      name: "rounding at exactly half a cent goes up",
      line: { quantity: "1", unitPrice: "0.25", discount: "0", taxes: [{ ...itbis18, rate: "18" }] },
      // 0.045 → 0.05
      expected: { subtotal: "0.25", discountAmount: "0.00", taxAmount: "0.05", total: "0.30", taxes: ["0.05"] },
    },
    {
      name: "fractional quantity",
      line: { quantity: "1.5", unitPrice: "33.33", discount: "0", taxes: [] },
      // 49.995 → 50.00
      expected: { subtotal: "50.00", discountAmount: "0.00", taxAmount: "0.00", total: "50.00", taxes: [] },
    },
    {
      name: "full discount",
      line: { quantity: "4", unitPrice: "10", discount: "100", taxes: [itbis18] },
      expected: { subtotal: "40.00", discountAmount: "40.00", taxAmount: "0.00", total: "0.00", taxes: ["0.00"] },
    },
    {
      name: "discount amount at .005 rounds up",
      line: { quantity: "1", unitPrice: "10.10", discount: "2.5", taxes: [] },
      // 0.2525 → 0.25 (below half); total 9.85
      expected: { subtotal: "10.10", discountAmount: "0.25", taxAmount: "0.00", total: "9.85", taxes: [] },
    },
  ];
  for (const { name, line, expected } of cases) {
    it(name, () => {
      const result = lineAmounts(line);
      expect({ ...result, taxes: result.taxes.map((t) => t.amount) }).toEqual(expected);
    });
  }

  it("document totals are the sums of the lines", () => {
    const lines = cases.map((c) => lineAmounts(c.line));
    expect(documentAmounts(lines)).toEqual({ subtotalAmount: "500.33", discountAmount: "50.25", taxAmount: "79.25", totalAmount: "529.33" });
  });
});

describe("invoice totals through the API", () => {
  it("computes every line and the document to the cent; client-sent totals are refused, naming each (issue 44)", async () => {
    const tenant = await seedTenant();
    const ids = await catalogIds(tenant.api);
    const contact = await createContact(tenant.api);
    const a = await createProduct(tenant.api, { default_tax_ids: [ids.itbis18] });
    const b = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
    await initialStock(tenant.api, [{ product_id: a.id, quantity: "10" }]);
    const body = {
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [
        { product_id: a.id, quantity: "2", unit_price: "49.99", discount: "10" },
        { product_id: b.id, quantity: 1, unit_price: 1000, tax_ids: [ids.itbis16, ids.propina], description: "Instalación" },
      ],
    };
    // What the server sets is not the client's to send: a 422 naming every such field, nothing written.
    const forged = await tenant.api.post("/invoices", { ...body, total_amount: "1.00", status: "paid", document_number: "B0199999999", workspace_id: 999 });
    expect(forged.status).toBe(422);
    expect(Object.keys(forged.body.errors).sort()).toEqual(["document_number", "status", "total_amount", "workspace_id"]);
    expect(forged.body.errors.total_amount).toEqual(["Unknown field: this request takes no such field."]);
    const res = await tenant.api.post("/invoices", body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({
      status: "pending_payment",
      document_number: "B0100000001",
      workspace_id: tenant.workspaceId,
      total_amount: "1366.18",
    });
    const got = await tenant.api.get<Data<InvoiceDetail>>(`/invoices/${res.body.data.id}`);
    expect(got.body.data).toMatchObject({
      subtotal_amount: "1099.98",
      discount_amount: "10.00",
      tax_amount: "276.20",
      total_amount: "1366.18",
      amount_paid: "0.00",
      amount_due: "1366.18",
    });
    expect(got.body.data.items.map((i) => [i.description, i.subtotal, i.discount_amount, i.tax_amount, i.total])).toEqual([
      [a.name, "99.98", "10.00", "16.20", "106.18"],
      ["Instalación", "1000.00", "0.00", "260.00", "1260.00"],
    ]);
    expect(got.body.data.items[1]!.taxes.map((t) => [t.name, t.rate, t.amount])).toEqual([
      ["ITBIS 16%", "16.00", "160.00"],
      ["Propina Legal 10%", "10.00", "100.00"],
    ]);
  });
});
