import { describe, expect, it } from "vitest";
import { NOT_FOUND_TEXT } from "../../src/modules/lookup/page";
import { call, testRequest, workerFetch } from "../support/api";
import { dmy, today } from "../support/dates";
import { fetchBytes, pdfText } from "../support/pdf";
import { seedTenant } from "../support/seed";
import { ecfTenant, waitForStatus } from "./helpers";

/**
 * The consumer's lookup of an E32 (issue 32; Formato RFCE v1.0, introduction: the issuer offers its
 * customers an electronic way to look the document up): a public page on the tenant's host, no
 * token; e-NCF + security code show the document and its downloads; any miss is the same 404.
 */
describe("the consumer's lookup page of an E32", () => {
  it("shows the E32 for its e-NCF and security code, downloads its PDF (printing the page's address) and signed XML; any miss is the same 404", async () => {
    const t = await ecfTenant();
    const consumer = (await t.tenant.api.post("/contacts", { name: "Consumidor final" })).body.data;
    const res = await t.tenant.api.post("/invoices", {
      contact_id: consumer.id,
      document_subtype_id: await t.subtype("E32"),
      issue_date: today(),
      items: [
        { product_id: t.service.id, description: "Corte de cabello", quantity: "2", unit_price: "250", tax_ids: [t.ids.itbis18] },
        { product_id: t.service.id, description: "Lavado <especial> & secado", quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] },
      ],
    });
    expect(res.status, res.text).toBe(201);
    const view = await waitForStatus(t, `/invoices/${res.body.data.id}`, "accepted");
    const encf = view.encf;
    const code = view.security_code;
    expect(encf).toBe("E320000000001");
    const host = `http://${t.tenant.subdomain}.sucursal.test`;

    const empty = await call(t.tenant.subdomain, "/consulta");
    expect(empty.status).toBe(200);
    expect(empty.headers.get("content-type")).toBe("text/html; charset=UTF-8");
    expect(empty.text).toContain('<form method="get" action="/consulta">');
    expect(empty.text).not.toContain('id="comprobante"');

    const page = await call(t.tenant.subdomain, `/consulta?encf=${encf.toLowerCase()}&codigo=${encodeURIComponent(code)}`);
    expect(page.status, page.text).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.text).toContain('<h2 id="titulo">Factura de Consumo Electrónica</h2>');
    expect(page.text).toContain(`<strong>Tenant ${t.tenant.subdomain} SRL</strong>`);
    expect(page.text).toContain(`RNC: <span id="rnc">${t.rnc}</span>`);
    expect(page.text).toContain(`<dd id="encf">${encf}</dd>`);
    expect(page.text).toContain(`<dd id="fecha">${dmy(res.body.data.issue_date)}</dd>`);
    expect(page.text).toContain('<td data-label="Descripción" class="d">Corte de cabello</td>');
    // Escaped, never markup.
    expect(page.text).toContain('<td data-label="Descripción" class="d">Lavado &lt;especial&gt; &amp; secado</td>');
    expect(page.text).toContain('<th scope="row">Total</th><td class="n">708.00</td>');
    expect(page.text).toContain('<th scope="row">Total ITBIS</th><td class="n">108.00</td>');
    expect(page.text).not.toContain("Pendiente");
    expect(page.text).toMatch(/<svg [^>]*aria-label="Código QR del timbre de la DGII"[^>]*><rect [^>]*\/><path d="M/);
    expect(page.text).toContain(`Código de seguridad: <span id="codigo">${code}</span>`);
    expect(page.text).toContain(`href="${view.qr_url!.replace(/&/g, "&amp;")}"`);
    const query = `?codigo=${encodeURIComponent(code)}`;
    expect(page.text).toContain(`<a id="pdf" href="/consulta/${encf}/pdf${query.replace(/&/g, "&amp;")}">`);

    const pdf = await workerFetch(testRequest(t.tenant.subdomain, `/consulta/${encf}/pdf${query}`));
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-disposition")).toBe(`attachment; filename="${encf}.pdf"`);
    const text = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(text).toContain(`e-NCF: ${encf}`);
    expect(text).toContain(`Código de Seguridad: ${code}`);
    expect(text).toContain(`Consulte este comprobante en: ${host}/consulta`);
    // The admin's own PDF of the invoice prints the same address.
    const own = await fetchBytes(t.tenant.subdomain, t.tenant.admin.token, `/invoices/${res.body.data.id}/pdf`);
    expect(await pdfText(own.bytes)).toContain(`Consulte este comprobante en: ${host}/consulta`);

    const xml = await call(t.tenant.subdomain, `/consulta/${encf}/xml${query}`);
    expect(xml.status).toBe(200);
    expect(xml.headers.get("content-disposition")).toBe(`attachment; filename="${t.rnc}${encf}.xml"`);
    expect(xml.text).toBe((await t.tenant.api.get(`/invoices/${res.body.data.id}/ecf.xml`)).text);

    // Misses: a wrong code, an unknown e-NCF, another tenant's host: one status, one body.
    const wrongCode = code === "AAAAAA" ? "BBBBBB" : "AAAAAA";
    const browser = { headers: { accept: "text/html,application/xhtml+xml" } };
    const misses = [
      await call(t.tenant.subdomain, `/consulta?encf=${encf}&codigo=${wrongCode}`, browser),
      await call(t.tenant.subdomain, `/consulta?encf=E320000000999&codigo=${encodeURIComponent(code)}`, browser),
      await call(t.tenant.subdomain, `/consulta?encf=B0200000001&codigo=${encodeURIComponent(code)}`, browser),
      await call(t.tenant.subdomain, `/consulta?encf=${encf}`, browser),
    ];
    for (const miss of misses) {
      expect(miss.status).toBe(404);
      expect(miss.text).toContain(NOT_FOUND_TEXT);
      expect(miss.text).not.toContain(encf);
      expect(miss.text).toBe(misses[0]!.text);
    }
    const other = await seedTenant();
    const elsewhere = await call(other.subdomain, `/consulta?encf=${encf}&codigo=${encodeURIComponent(code)}`, browser);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.text).toContain(NOT_FOUND_TEXT);
    // A client that does not ask for HTML gets the API's error body, one for every miss.
    const api = [
      await call(t.tenant.subdomain, `/consulta?encf=${encf}&codigo=${wrongCode}`),
      await call(t.tenant.subdomain, `/consulta?encf=E320000000999&codigo=${encodeURIComponent(code)}`),
    ];
    for (const miss of api) {
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ message: "No consumer invoice (E32) with this e-NCF and security code.", code: "not_found" });
    }
    const downloads = [
      await call(t.tenant.subdomain, `/consulta/${encf}/pdf?codigo=${wrongCode}`),
      await call(t.tenant.subdomain, `/consulta/E320000000999/xml${query}`),
      await call(other.subdomain, `/consulta/${encf}/xml${query}`),
    ];
    for (const miss of downloads) {
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ message: "No consumer invoice (E32) with this e-NCF and security code.", code: "not_found" });
    }
  });

  it("is limited per IP: the 11th lookup in a minute from one address is 429, another address still looks up", async () => {
    const tenant = await seedTenant();
    const ip = "10.77.1.1";
    for (let i = 0; i < 10; i++) expect((await call(tenant.subdomain, `/consulta?encf=E32000000000${i}&codigo=x`, { ip })).status).toBe(404);
    const limited = await call(tenant.subdomain, "/consulta?encf=E320000000001&codigo=x", { ip });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect((await workerFetch(testRequest(tenant.subdomain, "/consulta", { ip: "10.77.1.2" }))).status).toBe(200);
  });
});
