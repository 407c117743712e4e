import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { rowsOf } from "../../src/db/rows";
import { normalizeIdentification } from "../../src/lib/identification";
import type { InvoiceDetail } from "../../src/modules/invoices/schemas";
import type { Client, Data } from "./api";
import { asOwner, seedTenant, uniqueName } from "./seed";
import { createProduct } from "./stock";

/** The ids of what a new tenant gets: default taxes and subtypes, by name. */
export async function catalogIds(api: Client) {
  const taxes = (await api.get("/taxes?per_page=100")).body.data as { id: number; name: string; type: string }[];
  const subtypes = (await api.get("/document-subtypes?per_page=100")).body.data as { id: number; prefix: string; type: string }[];
  const tax = (name: string) => taxes.find((t) => t.name === name)!.id;
  const subtype = (prefix: string) => subtypes.find((s) => s.prefix === prefix)!.id;
  return {
    itbis18: tax("ITBIS 18%"),
    itbis16: tax("ITBIS 16%"),
    exento: tax("Exento"),
    propina: tax("Propina Legal 10%"),
    b01: subtype("B01"),
    b02: subtype("B02"),
    cot: subtype("COT"),
  };
}

/** A buyer without identification (consumo under RD$250,000, regímenes especiales, …). */
export const ANONYMOUS_BUYER = { identification_type: null, identification: null };

/** A random RNC with a valid check digit (a workspace refuses two contacts with one identification). */
export function freshRnc(): string {
  for (;;) {
    const body = `1${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    for (let digit = 0; digit < 10; digit++) {
      if (normalizeIdentification("rnc", `${body}${digit}`).ok) return `${body}${digit}`;
    }
  }
}

/**
 * A buyer with a valid RNC by default: a B01 (crédito fiscal) invoice needs one (Norma 06-2018,
 * src/modules/invoices/buyer-rules.ts). Pass `identification_type: null` for an anonymous buyer.
 */
export async function createContact(api: Client, overrides: Record<string, unknown> = {}) {
  const res = await api.post("/contacts", {
    name: uniqueName("Cliente "),
    email: `${uniqueName("c")}@cliente.do`,
    phone: "809-555-0101",
    identification_type: "rnc",
    identification: freshRnc(),
    ...overrides,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: number; name: string; email: string | null };
}

/**
 * The maintained invoice counts (deltas summed per workspace and status, drizzle/0012) equal a
 * count of the tenant's live invoices: what the lists' `meta.total` relies on.
 */
export async function expectInvoiceCounts(tenantId: number) {
  const broken = await asOwner(async (db) => {
    const result = await db.execute(sql`
      SELECT coalesce(c.workspace_id, i.workspace_id) AS workspace_id, coalesce(c.status, i.status) AS status,
             coalesce(c.total, 0)::int AS maintained, coalesce(i.total, 0)::int AS counted
      FROM (SELECT workspace_id, status, sum(delta) AS total FROM invoice_status_counts WHERE tenant_id = ${tenantId} GROUP BY 1, 2) c
      FULL JOIN (SELECT workspace_id, status, count(*) AS total FROM invoices WHERE tenant_id = ${tenantId} AND deleted_at IS NULL GROUP BY 1, 2) i
        ON i.workspace_id = c.workspace_id AND i.status = c.status
      WHERE coalesce(c.total, 0) <> coalesce(i.total, 0)`);
    return rowsOf(result);
  });
  expect(broken).toEqual([]);
}

/** A fresh tenant with its catalog ids, a customer and a service (no stock): what sales tests start from. */
export async function salesSetup(contactOverrides: Record<string, unknown> = {}) {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api, contactOverrides);
  const service = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
  return { tenant, ids, contact, service };
}

/** A fresh tenant with one B02 invoice of a single untaxed service line worth `total`: what payment tests start from. */
export async function serviceInvoice(total: string) {
  const { tenant, ids, contact, service } = await salesSetup();
  const res = await tenant.api.post<Data<InvoiceDetail>>("/invoices", {
    contact_id: contact.id,
    document_subtype_id: ids.b02,
    issue_date: "2026-11-20",
    items: [{ product_id: service.id, quantity: "1", unit_price: total, tax_ids: [] }],
  });
  expect(res.status, res.text).toBe(201);
  return { tenant, id: res.body.data.id, number: res.body.data.document_number, total: res.body.data.total_amount };
}
