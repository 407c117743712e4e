import { describe, expect, it } from "vitest";
import { timbreQr } from "../../src/modules/sales/qr";
import { dmy, today } from "../support/dates";
import { fetchBytes, pdfText } from "../support/pdf";
import { ecfTenant, fakeDgii, waitForStatus } from "./helpers";

/**
 * The printed representation of an e-CF (issue 18): GET …/ecf's qr_url carries every parameter of
 * DGII's timbre URL with the stored values, and the PDF prints the security code and signature
 * time (the QR itself is decoded from a rasterized PDF in test/node/ecf-qr.test.ts).
 */
describe("e-CF printed representation", () => {
  it("an E31's qr_url has DGII's parameters; its PDF prints the security code and signature time; an E32 under RD$250,000 gets the consumer URL", async () => {
    const t = await ecfTenant();
    const res = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "2", unit_price: "617.5", tax_ids: [t.ids.itbis18] }],
    });
    expect(res.status, res.text).toBe(201);
    const view = await waitForStatus(t, `/invoices/${res.body.data.id}`, "accepted");
    const url = new URL(view.qr_url!);
    expect(`${url.origin}${url.pathname}`).toBe(`${fakeDgii}/testecf/consultatimbre`);
    const xml = (await t.tenant.api.get(`/invoices/${res.body.data.id}/ecf.xml`)).text;
    const buyer = /<RNCComprador>([^<]+)</.exec(xml)![1];
    const signedAt = /<FechaHoraFirma>([^<]+)</.exec(xml)![1];
    expect(Object.fromEntries(url.searchParams)).toEqual({
      rncemisor: t.rnc,
      rnccomprador: buyer,
      encf: "E310000000001",
      fechaemision: dmy(res.body.data.issue_date),
      montototal: "1457.30",
      fechafirma: signedAt,
      codigoseguridad: view.security_code,
    });
    // The signature time's space is written %20 (DGII's example).
    expect(view.qr_url).toContain(`fechafirma=${signedAt!.replace(" ", "%20")}`);
    // The QR the PDF draws holds this URL (the same encoder, decoded back inside workerd).
    const qr = timbreQr(view.qr_url!);
    expect(qr.size).toBeGreaterThanOrEqual(49);

    const pdf = await fetchBytes(t.tenant.subdomain, t.tenant.admin.token, `/invoices/${res.body.data.id}/pdf`);
    expect(pdf.status).toBe(200);
    const text = await pdfText(pdf.bytes);
    expect(text).toContain(`Código de Seguridad: ${view.security_code}`);
    expect(text).toContain(`Fecha Firma: ${signedAt}`);
    // The type's whole name, wrapped in its column rather than cut ("Factura de Crédito Fiscal El…").
    expect(text.replace(/\s+/g, " ")).toContain("Factura de Crédito Fiscal Electrónica");
    expect(text).not.toContain("…");

    const anonymous = (await t.tenant.api.post("/contacts", { name: "Consumidor final" })).body.data;
    const consumer = await t.tenant.api.post("/invoices", {
      contact_id: anonymous.id,
      document_subtype_id: await t.subtype("E32"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "500", tax_ids: [t.ids.itbis18] }],
    });
    expect(consumer.status, consumer.text).toBe(201);
    const e32 = await waitForStatus(t, `/invoices/${consumer.body.data.id}`, "accepted");
    expect(e32.qr_url).toBe(
      `${fakeDgii}/testecf/consultatimbrefc?rncemisor=${t.rnc}&encf=E320000000001&montototal=590.00&codigoseguridad=${encodeURIComponent(e32.security_code)}`,
    );
  });
});
