import { expect } from "vitest";
import type { PurchaseSummary } from "../../src/modules/purchases/schemas";
import type { Data } from "../support/api";
import { catalogIds, createContact, freshRnc } from "../support/sales";
import { ownerRow, ownerRows, type SeededTenant, seedTenant, sql } from "../support/seed";
import { createProduct } from "../support/stock";

/** A supplier (contact_type supplier) with a valid RNC unless overridden. */
export async function createSupplier(tenant: SeededTenant, overrides: Record<string, unknown> = {}) {
  return createContact(tenant.api, { contact_type: "supplier", identification: freshRnc(), ...overrides });
}

/** A fresh tenant with its taxes, a supplier and a product that tracks inventory (cost 60.00, no stock). */
export async function purchaseSetup() {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const supplier = await createSupplier(tenant);
  const product = await createProduct(tenant.api, { cost: "60.00" });
  return { tenant, ids, supplier, product };
}

let ncfCounter = Math.floor(Math.random() * 1e6);
/** A supplier NCF (B01) not used before in this run. */
const freshNcf = () => `B01${String(ncfCounter++).padStart(8, "0")}`;

/** A body of POST /purchases: one line of `quantity` × `unit_cost` of the product, ITBIS 18 %, expense type 09. */
export function purchaseBody(
  setup: { supplier: { id: number }; product: { id: number }; ids: { itbis18: number } },
  quantity: string,
  unitCost: string,
  overrides: Record<string, unknown> = {},
) {
  return {
    supplier_id: setup.supplier.id,
    supplier_ncf: freshNcf(),
    issue_date: "2026-11-20",
    expense_type: "09",
    payment_method: "bank_transfer",
    items: [{ product_id: setup.product.id, quantity, unit_cost: unitCost, tax_ids: [setup.ids.itbis18] }],
    ...overrides,
  };
}

/** A sequence of a type the buyer issues (B11, B13, B17…), numbers 1-100. */
export async function sequence(tenant: SeededTenant, prefix: string) {
  const res = await tenant.api.post("/document-subtypes", {
    name: `Secuencia ${prefix}`,
    type: "invoice",
    prefix,
    start_number: 1,
    end_number: 100,
    valid_until: "2027-12-31",
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

export async function createPurchase(tenant: SeededTenant, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await tenant.api.post<Data<PurchaseSummary>>("/purchases", body, { headers });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

/** Sells `quantity` of the product on a B01 invoice to a new customer (stock leaves the workspace). */
export async function sell(setup: { tenant: SeededTenant; ids: { b01: number }; product: { id: number } }, quantity: string) {
  const customer = await createContact(setup.tenant.api);
  const sale = await setup.tenant.api.post("/invoices", {
    contact_id: customer.id,
    document_subtype_id: setup.ids.b01,
    issue_date: "2026-11-21",
    items: [{ product_id: setup.product.id, quantity, unit_price: "150.00" }],
  });
  expect(sale.status, sale.text).toBe(201);
}

/** The product's cost as stored. */
export async function costOf(productId: number): Promise<string | null> {
  return (await ownerRow<{ cost: string | null }>(sql`SELECT cost::text AS cost FROM products WHERE id = ${productId}`)).cost;
}

/** The stock movements a purchase wrote, oldest first. */
export async function purchaseMovements(purchaseId: number) {
  return ownerRows<{ type: string; quantity: string; unit_cost: string | null; workspace_id: number; reference: string | null }>(
    sql`SELECT type, quantity::text AS quantity, unit_cost::text AS unit_cost, workspace_id, reference FROM stock_movements WHERE purchase_id = ${purchaseId} ORDER BY id`,
  );
}
