import { describe, expect, it } from "vitest";
import { dominicanToday } from "../../src/lib/dates";
import { catalogIds, createContact } from "../support/sales";
import { ownerRows, type SeededTenant, seedTenant, sql, uniqueName } from "../support/seed";

/**
 * An issued B-series invoice that is deleted or cancelled keeps its NCF, used, and is recorded as
 * annulled with DGII's Formato 608 reason code (01-10; 04 when the request names none).
 */
async function issue(tenant: SeededTenant, count: number) {
  const ids = await catalogIds(tenant.api);
  const contact = await createContact(tenant.api);
  const product = (await tenant.api.post("/products", { name: uniqueName("Servicio "), product_type: "service", price: "100", track_inventory: false })).body
    .data;
  const invoices: { id: number; document_number: string }[] = [];
  for (let i = 0; i < count; i++) {
    const res = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b02,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "1", unit_price: "100" }],
    });
    expect(res.status).toBe(201);
    invoices.push(res.body.data);
  }
  return invoices;
}

const annulments = (tenantId: number) =>
  ownerRows<{ ncf: string; reason_code: string; action: string; annulled_on: string; invoice_id: number; created_by: number }>(
    sql`SELECT ncf, reason_code, action, annulled_on::text, invoice_id, created_by FROM ncf_annulments WHERE tenant_id = ${tenantId} ORDER BY ncf`,
  );

describe("NCF annulments (Formato 608)", () => {
  it("DELETE records the NCF as annulled, with 04 by default and the reason given otherwise; the number is never reissued", async () => {
    const tenant = await seedTenant();
    const [first, second] = await issue(tenant, 2);
    expect((await tenant.api.delete(`/invoices/${first!.id}`)).status).toBe(200);
    const withReason = await tenant.api.delete(`/invoices/${second!.id}`, { body: { annulment_reason: "08" } });
    expect(withReason.status).toBe(200);
    expect(withReason.body).toEqual({ message: "Invoice deleted." });
    expect(await annulments(tenant.tenantId)).toEqual([
      { ncf: "B0200000001", reason_code: "04", action: "deleted", annulled_on: dominicanToday(), invoice_id: first!.id, created_by: tenant.admin.id },
      { ncf: "B0200000002", reason_code: "08", action: "deleted", annulled_on: dominicanToday(), invoice_id: second!.id, created_by: tenant.admin.id },
    ]);
    const [next] = await issue(tenant, 1);
    expect(next!.document_number).toBe("B0200000003");
  });

  it("cancel records the annulment too and keeps the number on the cancelled invoice", async () => {
    const tenant = await seedTenant();
    const [invoice] = await issue(tenant, 1);
    const res = await tenant.api.post(`/invoices/${invoice!.id}/cancel`, { annulment_reason: "05" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: "cancelled", document_number: "B0200000001" });
    expect(await annulments(tenant.tenantId)).toMatchObject([{ ncf: "B0200000001", reason_code: "05", action: "cancelled" }]);
  });

  it("refuses a reason outside DGII's list (422 on the field) and records nothing", async () => {
    const tenant = await seedTenant();
    const [invoice] = await issue(tenant, 1);
    for (const reason of ["11", "4", "00", 4]) {
      const res = await tenant.api.delete(`/invoices/${invoice!.id}`, { body: { annulment_reason: reason } });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["annulment_reason"]);
    }
    const cancel = await tenant.api.post(`/invoices/${invoice!.id}/cancel`, { annulment_reason: "99" });
    expect(cancel.status).toBe(422);
    expect(await annulments(tenant.tenantId)).toEqual([]);
    expect((await tenant.api.get(`/invoices/${invoice!.id}`)).body.data.status).toBe("pending_payment");
  });
});
