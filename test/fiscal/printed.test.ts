import { describe, expect, it } from "vitest";
import { fetchBytes, pdfText } from "../support/pdf";
import { salesSetup } from "../support/sales";
import { TEST_RNC } from "../support/seed";

/**
 * What Norma General 06-2018 wants printed on a fiscal document (FISCAL.md, "The printed
 * document"): the issuer's legal name, trade name, RNC and address, the branch; the document type's
 * name; the NCF and, where the sequence expires, "Válida hasta"; the buyer's name and RNC/cédula;
 * the lines, ITBIS apart, the totals.
 */
describe("the printed invoice", () => {
  it("carries the issuer, the branch, the document type, the NCF with its expiry and the buyer's RNC", async () => {
    const {
      tenant,
      ids,
      contact,
      service: product,
    } = await salesSetup({ name: "Constructora Norte SRL", identification_type: "rnc", identification: "101010632" });
    const profile = await tenant.api.patch("/company", {
      trade_name: "Ferretería La Esquina",
      address: "Av. Duarte 45, Santiago",
      phone: "809-555-0100",
      email: "ventas@esquina.do",
    });
    expect(profile.status).toBe(200);
    const branch = await tenant.api.patch(`/workspaces/${tenant.workspaceId}`, { address: "Calle del Sol 12, Santiago", phone: "809-555-0199" });
    expect(branch.status).toBe(200);
    const b01 = (await tenant.api.get(`/document-subtypes/${ids.b01}`)).body.data as { valid_until: string };
    const created = await tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: ids.b01,
      issue_date: "2026-11-20",
      items: [{ product_id: product.id, quantity: "2", unit_price: "500", tax_ids: [ids.itbis18] }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.document_number).toBe("B0100000001");

    const res = await fetchBytes(tenant.subdomain, tenant.admin.token, `/invoices/${created.body.data.id}/pdf`);
    expect(res.status).toBe(200);
    const text = (await pdfText(res.bytes)).replace(/\s+/g, " ");
    for (const element of [
      `Tenant ${tenant.subdomain} SRL`, // legal name (razón social)
      "Ferretería La Esquina", // trade name
      `RNC: ${TEST_RNC}`,
      "Av. Duarte 45, Santiago",
      "Tel.: 809-555-0100 · ventas@esquina.do",
      "Sucursal: Principal — Calle del Sol 12, Santiago — Tel.: 809-555-0199",
      "Factura de Crédito Fiscal",
      "NCF: B0100000001",
      `Válida hasta: ${b01.valid_until.split("-").reverse().join("-")}`,
      "Fecha de emisión: 20-11-2026",
      "Constructora Norte SRL",
      "RNC: 101010632",
      "ITBIS 18% (base 1,000.00) 180.00", // the ITBIS per rate, apart, with its base
      "Subtotal RD$1,000.00",
      "Total RD$1,180.00",
    ]) {
      expect(text, element).toContain(element);
    }
  });
});

describe("the printed quotation", () => {
  it("prints its foreign currency with the currency's rate, and the issuer as invoices do", async () => {
    const { tenant, ids, contact, service } = await salesSetup();
    const currencies = (await tenant.api.get("/currencies?per_page=100")).body.data as { id: number; code: string }[];
    const created = await tenant.api.post("/quotations", {
      contact_id: contact.id,
      document_subtype_id: ids.cot,
      issue_date: "2026-11-20",
      currency_id: currencies.find((c) => c.code === "USD")!.id,
      items: [{ product_id: service.id, quantity: "1", unit_price: "100.00", tax_ids: [ids.itbis18] }],
    });
    expect(created.status, created.text).toBe(201);
    const res = await fetchBytes(tenant.subdomain, tenant.admin.token, `/quotations/${created.body.data.id}/pdf`);
    const text = (await pdfText(res.bytes)).replace(/\s+/g, " ");
    for (const element of [
      "Cotización",
      `Tenant ${tenant.subdomain} SRL`,
      `RNC: ${TEST_RNC}`,
      "Moneda: USD — Tasa: 60.00",
      "ITBIS 18% (base 100.00) 18.00",
      "Total US$118.00",
    ]) {
      expect(text, element).toContain(element);
    }
  });
});
