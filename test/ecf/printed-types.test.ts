import { describe, expect, it } from "vitest";
import { createSupplier } from "../purchases/helpers";
import type { Data } from "../support/api";
import { dmy, today } from "../support/dates";
import { fetchBytes, pdfText } from "../support/pdf";
import { type EcfTenant, ecfTenant, waitForStatus } from "./helpers";

/**
 * Issue 42, "The printed representation is DGII's": each e-CF type's PDF, fetched over HTTP, says
 * what DGII's printed models say (representacion-impresa.pdf, 1.1 to 2.2), in their words: the type
 * in words, "e-NCF:", "Fecha Vencimiento:" only where the type carries FechaVencimientoSecuencia
 * (Formato e-CF v1.0, field 4: not 32 nor 34), "Fecha Emisión:" dd-MM-yyyy, "Razón Social Cliente:",
 * "RNC Cliente:", the columns Cantidad/Descripción/Precio/ITBIS/Valor, "Subtotal Gravado:",
 * "Total ITBIS:", "Total:" with thousands separators, "Código de Seguridad:" and "Fecha Firma:";
 * a note "NCF Modificado:" and its CodigoModificacion in words. Never the sequence's own name,
 * payments ("Pagado", "Pendiente") nor the paper layout's labels.
 */
interface Doc {
  id: number;
  document_number: string;
  issue_date: string;
}

const flat = (text: string) => text.replace(/\s+/g, " ");
const SEQUENCE_EXPIRY = "31-12-2027"; // ecfTenant's sequences are valid until 2027-12-31.

async function printed(t: EcfTenant, path: string): Promise<{ text: string; code: string; signedAt: string }> {
  const view = await waitForStatus(t, path, "accepted");
  const pdf = await fetchBytes(t.tenant.subdomain, t.tenant.admin.token, `${path}/pdf`);
  expect(pdf.status).toBe(200);
  const xml = (await t.tenant.api.get(`${path}/ecf.xml`)).text;
  const signedAt = /<FechaHoraFirma>([^<]+)</.exec(xml)![1]!;
  return { text: flat(await pdfText(pdf.bytes)), code: view.security_code, signedAt };
}

function expectDgiiLayout(text: string, expected: string[], absent: string[] = []) {
  for (const element of expected) expect(text, element).toContain(element);
  expect(text, "the paper layout's NCF label").not.toMatch(/(?<!e-)NCF: E/);
  for (const element of ["Fecha: ", "Impuestos", "Pagado", "Pendiente", "Válida hasta", "certificación", "Desglose de impuestos", ...absent]) {
    expect(text, `not ${element}`).not.toContain(element);
  }
  // Labels in DGII's order: the type and number before the buyer, the buyer before the lines, the lines before the totals, the QR's lines last.
  const order = ["e-NCF:", "Cantidad", "Total:", "Código de Seguridad:", "Fecha Firma:"].map((label) => text.indexOf(label));
  expect(order).toEqual([...order].sort((a, b) => a - b));
}

async function invoice(t: EcfTenant, prefix: string, body: Record<string, unknown>, contactId = t.contact.id): Promise<Doc> {
  const res = await t.tenant.api.post<Data<Doc>>("/invoices", {
    contact_id: contactId,
    document_subtype_id: await t.subtype(prefix, { name: `${prefix} certificación ${Math.random().toString(36).slice(2, 8)}` }),
    issue_date: today(),
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

describe("the printed e-CF of each type is laid out as DGII's models (issue 42)", () => {
  it("E31, its E34 and E33: labels, values, order, amounts grouped; the note names the modified e-NCF and the modification in words", async () => {
    const t = await ecfTenant();
    const e31 = await invoice(t, "E31", {
      items: [
        { product_id: t.service.id, description: "Zapatos", quantity: "150", unit_price: "550", tax_ids: [t.ids.itbis18] },
        { product_id: t.service.id, description: "Vestidos", quantity: "200", unit_price: "800", discount: "10", tax_ids: [t.ids.itbis18] },
      ],
    });
    // 82,500.00 + (160,000.00 − 16,000.00) = 226,500.00 gravado; ITBIS 14,850.00 + 25,920.00 = 40,770.00.
    const p31 = await printed(t, `/invoices/${e31.id}`);
    expectDgiiLayout(p31.text, [
      "Factura de Crédito Fiscal Electrónica",
      `e-NCF: ${e31.document_number}`,
      `Fecha Vencimiento: ${SEQUENCE_EXPIRY}`,
      `Fecha Emisión: ${dmy(e31.issue_date)}`,
      `RNC ${t.rnc}`,
      `Razón Social Cliente: ${t.contact.name}`,
      `RNC Cliente: ${(t.contact as { identification?: string }).identification}`,
      "Cantidad Descripción Precio Descuento ITBIS Valor",
      "150 550.00 0.00 14,850.00 82,500.00",
      "200 800.00 16,000.00 25,920.00 144,000.00",
      "Subtotal Gravado: RD$226,500.00",
      "Total ITBIS: RD$40,770.00",
      "Total: RD$267,270.00",
      `Código de Seguridad: ${p31.code}`,
      `Fecha Firma: ${p31.signedAt}`,
    ]);

    const credit = await t.tenant.api.post<Data<Doc>>(`/invoices/${e31.id}/credit-notes`, {
      document_subtype_id: await t.subtype("E34"),
      issue_date: today(),
      modification_code: 3,
      reason: "Descuento por pronto pago",
      items: [{ description: "Descuento", amount: "1000", tax_ids: [t.ids.itbis18] }],
    });
    expect(credit.status, credit.text).toBe(201);
    const p34 = await printed(t, `/credit-notes/${credit.body.data.id}`);
    expectDgiiLayout(
      p34.text,
      [
        "Nota de Crédito Electrónica",
        `e-NCF: ${credit.body.data.document_number}`,
        `NCF Modificado: ${e31.document_number}`,
        "Corrige montos del NCF modificado",
        `Fecha Emisión: ${dmy(credit.body.data.issue_date)}`,
        `Razón Social Cliente: ${t.contact.name}`,
        "Cantidad Descripción Precio ITBIS Valor",
        "1 1,000.00 180.00 1,000.00",
        "Subtotal Gravado: RD$1,000.00",
        "Total ITBIS: RD$180.00",
        "Total: RD$1,180.00",
        `Código de Seguridad: ${p34.code}`,
        "Razón de la modificación Descuento por pronto pago",
      ],
      // An E34 carries no sequence expiry (Formato e-CF v1.0, field 4: "0").
      ["Fecha Vencimiento"],
    );

    const debit = await t.tenant.api.post<Data<Doc>>(`/invoices/${e31.id}/debit-notes`, {
      document_subtype_id: await t.subtype("E33"),
      issue_date: today(),
      modification_code: 3,
      reason: "Cargo por flete",
      items: [{ description: "Flete", amount: "2500", tax_ids: [t.ids.itbis18] }],
    });
    expect(debit.status, debit.text).toBe(201);
    const p33 = await printed(t, `/debit-notes/${debit.body.data.id}`);
    expectDgiiLayout(p33.text, [
      "Nota de Débito Electrónica",
      `e-NCF: ${debit.body.data.document_number}`,
      `Fecha Vencimiento: ${SEQUENCE_EXPIRY}`,
      `NCF Modificado: ${e31.document_number}`,
      "Corrige montos del NCF modificado",
      "Total ITBIS: RD$450.00",
      "Total: RD$2,950.00",
      `Fecha Firma: ${p33.signedAt}`,
    ]);
  });

  it("E32 (no expiry, no buyer block for a consumer without id, the lookup address), E44 (exempt), E45, E46", async () => {
    const t = await ecfTenant();
    const consumer = (await t.tenant.api.post("/contacts", { name: "Consumidor final" })).body.data as { id: number };
    const e32 = await invoice(
      t,
      "E32",
      { items: [{ product_id: t.service.id, description: "Neveras", quantity: "7", unit_price: "7000", tax_ids: [t.ids.itbis18] }] },
      consumer.id,
    );
    const p32 = await printed(t, `/invoices/${e32.id}`);
    expectDgiiLayout(
      p32.text,
      [
        "Factura de Consumo Electrónica",
        `e-NCF: ${e32.document_number}`,
        `Fecha Emisión: ${dmy(e32.issue_date)}`,
        "7 7,000.00 8,820.00 49,000.00",
        "Subtotal Gravado: RD$49,000.00",
        "Total ITBIS: RD$8,820.00",
        "Total: RD$57,820.00",
        `Código de Seguridad: ${p32.code}`,
        "Consulte este comprobante en:",
      ],
      ["Fecha Vencimiento", "Razón Social Cliente", "Descuento"],
    );

    const e44 = await invoice(t, "E44", { items: [{ product_id: t.service.id, quantity: "2", unit_price: "1500", tax_ids: [t.ids.exento] }] });
    const p44 = await printed(t, `/invoices/${e44.id}`);
    expectDgiiLayout(
      p44.text,
      [
        "Regímenes Especiales Electrónica",
        `e-NCF: ${e44.document_number}`,
        `Fecha Vencimiento: ${SEQUENCE_EXPIRY}`,
        "Monto Exento: RD$3,000.00",
        "Total: RD$3,000.00",
      ],
      ["Subtotal Gravado", "Total ITBIS"],
    );

    const e45 = await invoice(t, "E45", { items: [{ product_id: t.service.id, quantity: "10", unit_price: "99.99", tax_ids: [t.ids.itbis18] }] });
    const p45 = await printed(t, `/invoices/${e45.id}`);
    expectDgiiLayout(p45.text, ["Gubernamental Electrónico", `e-NCF: ${e45.document_number}`, `Fecha Vencimiento: ${SEQUENCE_EXPIRY}`, "Total: RD$1,179.88"]);

    const zero = (await t.tenant.api.post("/taxes", { name: "ITBIS 0%", type: "itbis", rate: "0" })).body.data as { id: number };
    const e46 = await invoice(t, "E46", { items: [{ product_id: t.service.id, quantity: "100", unit_price: "12.5", tax_ids: [zero.id] }] });
    const p46 = await printed(t, `/invoices/${e46.id}`);
    expectDgiiLayout(p46.text, [
      "Comprobante para Exportaciones Electrónico",
      `e-NCF: ${e46.document_number}`,
      "Subtotal Gravado: RD$1,250.00",
      "Total ITBIS: RD$0.00",
      "Total: RD$1,250.00",
    ]);
  });

  it("E41 (the supplier as the other party, withholdings, no payments), E43 and E47 (the foreign supplier by its foreign identifier, ISR withheld, no ITBIS)", async () => {
    const t = await ecfTenant();
    const informal = await createSupplier(t.tenant, { name: "Pedro Almonte (transportista)", identification_type: "cedula", identification: "00113918205" });
    const e41 = await t.tenant.api.post<Data<{ id: number; ncf: string; issue_date: string }>>("/purchases", {
      supplier_id: informal.id,
      self_issued_subtype_id: await t.subtype("E41"),
      issue_date: today(),
      expense_type: "02",
      items: [{ description: "Flete Santiago - Santo Domingo", quantity: "1", unit_cost: "5000", tax_ids: [t.ids.itbis18] }],
      itbis_withheld: "900.00",
      isr_withheld: "500.00",
      withholding_date: today(),
      payment_method: "cash",
    });
    expect(e41.status, e41.text).toBe(201);
    const p41 = await printed(t, `/purchases/${e41.body.data.id}`);
    expectDgiiLayout(p41.text, [
      "Compras Electrónico",
      `e-NCF: ${e41.body.data.ncf}`,
      `Fecha Vencimiento: ${SEQUENCE_EXPIRY}`,
      `Fecha Emisión: ${dmy(e41.body.data.issue_date)}`,
      "Razón Social Proveedor: Pedro Almonte (transportista)",
      "Cédula Proveedor: 00113918205",
      "Total: RD$5,900.00",
      "ITBIS retenido: -RD$900.00",
      "ISR retenido: -RD$500.00",
    ]);

    const e43 = await t.tenant.api.post<Data<{ id: number; ncf: string }>>("/purchases", {
      self_issued_subtype_id: await t.subtype("E43"),
      issue_date: today(),
      expense_type: "02",
      items: [{ description: "Parqueo y peajes", quantity: "3", unit_cost: "150", tax_ids: [t.ids.exento] }],
    });
    expect(e43.status, e43.text).toBe(201);
    const p43 = await printed(t, `/purchases/${e43.body.data.id}`);
    expectDgiiLayout(p43.text, ["Gastos Menores Electrónico", `e-NCF: ${e43.body.data.ncf}`, "Monto Exento: RD$450.00", "Total: RD$450.00"]);

    const abroad = await createSupplier(t.tenant, { name: "Cloud Hosting LLC", identification_type: "passport", identification: "US-98-7654321" });
    const e47 = await t.tenant.api.post<Data<{ id: number; ncf: string; issue_date: string }>>("/purchases", {
      supplier_id: abroad.id,
      self_issued_subtype_id: await t.subtype("E47"),
      issue_date: today(),
      expense_type: "02",
      items: [{ description: "Servidores, noviembre", quantity: "1", unit_cost: "12345.67", tax_ids: [t.ids.exento] }],
      isr_withheld: "3086.42",
      withholding_date: today(),
      payment_method: "bank_transfer",
    });
    expect(e47.status, e47.text).toBe(201);
    const p47 = await printed(t, `/purchases/${e47.body.data.id}`);
    expectDgiiLayout(
      p47.text,
      [
        "Comprobante para Pagos al Exterior Electrónico",
        `e-NCF: ${e47.body.data.ncf}`,
        `Fecha Vencimiento: ${SEQUENCE_EXPIRY}`,
        "Razón Social Proveedor: Cloud Hosting LLC",
        // A foreign supplier is IdentificadorExtranjero (Formato e-CF v1.0, Comprador of type 47), not an RNC.
        "Identificador Extranjero: US987654321",
        "Monto Exento: RD$12,345.67",
        "Total: RD$12,345.67",
        "ISR retenido: -RD$3,086.42",
      ],
      ["ITBIS retenido", "RNC Proveedor", "Total ITBIS"],
    );
  });
});
