import { expect } from "vitest";
import type { Client } from "../support/api";
import { catalogIds, createContact } from "../support/sales";
import { seedTenant } from "../support/seed";
import { createProduct, initialStock } from "../support/stock";

/**
 * A tenant with a customer, a stocked product A (10 units, ITBIS 18% by default) and a service B,
 * and the body of the reference quotation:
 *   A: 2 × 49.99 − 10% → 99.98 − 10.00 + ITBIS 18% 16.20 = 106.18
 *   B: 1 × 1000 "Instalación", ITBIS 16% 160.00 + propina 10% 100.00 = 1260.00
 *   subtotal 1099.98, discount 10.00, taxes 276.20, total 1366.18.
 */
export async function quotationSetup() {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api, { identification_type: "rnc", identification: "131246796" });
  const a = await createProduct(tenant.api, { default_tax_ids: [ids.itbis18] });
  const b = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
  await initialStock(tenant.api, [{ product_id: a.id, quantity: "10" }]);
  const body = (extra: Record<string, unknown> = {}) => ({
    contact_id: contact.id,
    document_subtype_id: ids.cot,
    issue_date: "2026-11-20",
    due_date: "2026-12-20",
    notes: "Válida 30 días",
    items: [
      { product_id: a.id, quantity: "2", unit_price: "49.99", discount: "10" },
      { product_id: b.id, quantity: 1, unit_price: 1000, tax_ids: [ids.itbis16, ids.propina], description: "Instalación" },
    ],
    ...extra,
  });
  const create = async (api: Client = tenant.api, extra: Record<string, unknown> = {}) => {
    const res = await api.post("/quotations", body(extra));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: number; document_number: string; total_amount: string; status: string };
  };
  return { tenant, ids, contact, a, b, body, create };
}

/** Moves a quotation through the given transitions, each expected to succeed. */
export async function walk(api: Client, id: number, actions: ("send" | "approve" | "reject" | "cancel")[]) {
  for (const action of actions) {
    const res = await api.post(`/quotations/${id}/${action}`);
    expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200);
  }
}
