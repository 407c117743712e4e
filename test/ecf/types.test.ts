import { describe, expect, it } from "vitest";
import type { Data } from "../support/api";
import { daysFromToday, dmy, today } from "../support/dates";
import { ownerRow, sql } from "../support/seed";
import { type EcfTenant, ecfTenant, received, waitForStatus } from "./helpers";

/**
 * A golden case per e-CF type the project issues (issue 18, "Tests"), built through HTTP. The fake
 * DGII validates each document against its xsd-strict schema (xmllint-wasm) and verifies its
 * signature (xmldsigjs): `accepted` with no errors means both held. The XML's totals are the
 * document's, to the cent.
 */
interface Doc {
  id: number;
  document_number: string;
  issue_date: string;
  total_amount: string;
  tax_amount: string;
}

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? null;

async function issue(t: EcfTenant, prefix: string, body: Record<string, unknown>): Promise<Doc> {
  const res = await t.tenant.api.post<Data<Doc>>("/invoices", {
    contact_id: t.contact.id,
    document_subtype_id: await t.subtype(prefix),
    issue_date: today(),
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

async function storedXml(t: EcfTenant, path: string) {
  const res = await t.tenant.api.get(`${path}/ecf.xml`);
  expect(res.status).toBe(200);
  return res.text;
}

/** Accepted by the fake (schema and signature held), received once as `kind`, and the XML's totals are the document's. */
async function expectAccepted(t: EcfTenant, path: string, doc: Doc, kind: "ecf" | "rfce" = "ecf") {
  const view = await waitForStatus(t, path, "accepted");
  const xml = await storedXml(t, path);
  expect(tag(xml, "eNCF")).toBe(doc.document_number);
  expect(tag(xml, "MontoTotal")).toBe(doc.total_amount);
  expect(view.security_code).toBe(tag(xml, "SignatureValue")!.slice(0, 6));
  const got = (await received(t.signer)).filter((r) => r.encf === doc.document_number);
  expect(got.map((r) => [r.kind, r.errors])).toEqual([[kind, []]]);
  return { view, xml, received: got[0]! };
}

/** An E34 of the day taking 100.00 + ITBIS off the invoice (modification code 3). */
async function discountNote(t: EcfTenant, invoiceId: number, reason: string): Promise<Doc & { modified_ncf: string }> {
  const res = await t.tenant.api.post<Data<Doc & { modified_ncf: string }>>(`/invoices/${invoiceId}/credit-notes`, {
    document_subtype_id: await t.subtype("E34"),
    issue_date: today(),
    modification_code: 3,
    reason,
    items: [{ description: "Descuento", amount: "100", tax_ids: [t.ids.itbis18] }],
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

describe("e-CF types through HTTP: golden cases", () => {
  it("E32 under RD$250,000: the full E32 is kept, its signed RFCE is what DGII receives, final at once", async () => {
    const t = await ecfTenant();
    const anonymous = (await t.tenant.api.post("/contacts", { name: "Consumidor final" })).body.data;
    const doc = await issue(t, "E32", {
      contact_id: anonymous.id,
      items: [{ product_id: t.service.id, description: "Almuerzo ejecutivo", quantity: "4", unit_price: "450", tax_ids: [t.ids.itbis18, t.ids.propina] }],
    });
    // 1,800.00 + ITBIS 324.00 + propina 180.00.
    expect(doc.total_amount).toBe("2304.00");
    const { view, xml, received: summary } = await expectAccepted(t, `/invoices/${doc.id}`, doc, "rfce");
    expect(view).toMatchObject({ type: "32", consumer_summary: true, attempts: 1, track_id: null });
    expect(tag(xml, "TipoeCF")).toBe("32");
    expect(summary.xml).toContain("<RFCE>");
    expect(tag(summary.xml, "CodigoSeguridadeCF")).toBe(view.security_code);
    expect(tag(summary.xml, "MontoTotal")).toBe("2304.00");
    expect(summary.fileName).toBe(`${t.rnc}${doc.document_number}.xml`);
  });

  it("E32 from RD$250,000: sent whole with the buyer's id, through reception and result query", async () => {
    const t = await ecfTenant();
    const doc = await issue(t, "E32", {
      items: [{ product_id: t.service.id, description: "Equipo de refrigeración", quantity: "1", unit_price: "250000", tax_ids: [t.ids.itbis18] }],
    });
    expect(doc.total_amount).toBe("295000.00");
    const { view, xml } = await expectAccepted(t, `/invoices/${doc.id}`, doc);
    expect(view).toMatchObject({ consumer_summary: false, attempts: 2 });
    expect(view.track_id).not.toBeNull();
    expect(tag(xml, "RNCComprador")).not.toBeNull();
    expect(tag(xml, "TotalITBIS")).toBe("45000.00");
  });

  it("E44 (regímenes especiales), E45 (gubernamental), E46 (exportaciones)", async () => {
    const t = await ecfTenant();
    const e44 = await issue(t, "E44", { items: [{ product_id: t.service.id, quantity: "2", unit_price: "1500", tax_ids: [t.ids.exento] }] });
    const r44 = await expectAccepted(t, `/invoices/${e44.id}`, e44);
    expect(tag(r44.xml, "MontoExento")).toBe("3000.00");
    expect(tag(r44.xml, "TotalITBIS")).toBeNull();

    const due = daysFromToday(26);
    const e45 = await issue(t, "E45", {
      due_date: due,
      items: [{ product_id: t.service.id, quantity: "10", unit_price: "99.99", tax_ids: [t.ids.itbis18] }],
    });
    expect(e45.total_amount).toBe("1179.88");
    const r45 = await expectAccepted(t, `/invoices/${e45.id}`, e45);
    expect(tag(r45.xml, "TipoPago")).toBe("2");
    expect(tag(r45.xml, "FechaLimitePago")).toBe(dmy(due));
    expect(tag(r45.xml, "TotalITBIS1")).toBe("179.98");

    const zero = (await t.tenant.api.post("/taxes", { name: "ITBIS 0%", type: "itbis", rate: "0" })).body.data;
    const e46 = await issue(t, "E46", { items: [{ product_id: t.service.id, quantity: "100", unit_price: "12.5", tax_ids: [zero.id] }] });
    const r46 = await expectAccepted(t, `/invoices/${e46.id}`, e46);
    expect(tag(r46.xml, "MontoGravadoI3")).toBe("1250.00");
    expect(tag(r46.xml, "ITBIS3")).toBe("0");
  });

  it("an E31 in US dollars carries OtraMoneda; the peso amounts are at the invoice's rate", async () => {
    const t = await ecfTenant();
    const currencies = (await t.tenant.api.get("/currencies")).body.data as { id: number; code: string }[];
    const usd = currencies.find((c) => c.code === "USD")!;
    const doc = await issue(t, "E31", {
      currency_id: usd.id,
      exchange_rate: "60.5",
      items: [{ product_id: t.service.id, quantity: "2", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    expect(doc.total_amount).toBe("236.00");
    const view = await waitForStatus(t, `/invoices/${doc.id}`, "accepted");
    const xml = await storedXml(t, `/invoices/${doc.id}`);
    expect(tag(xml, "TipoMoneda")).toBe("USD");
    expect(tag(xml, "TipoCambio")).toBe("60.50");
    expect(tag(xml, "MontoTotalOtraMoneda")).toBe("236.00");
    // 200 × 60.5 = 12,100.00 + 2,178.00 ITBIS.
    expect(tag(xml, "MontoTotal")).toBe("14278.00");
    // The e-CF's MontoTotal is in pesos; the invoice keeps its dollars.
    expect(view.total_amount).toBe("14278.00");
  });

  it("a credit note E34 and a debit note E33 reference the E31 they modify", async () => {
    const t = await ecfTenant();
    const invoice = await issue(t, "E31", {
      items: [{ product_id: t.service.id, description: "Mantenimiento", quantity: "5", unit_price: "200", tax_ids: [t.ids.itbis18] }],
    });
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    const note = await discountNote(t, invoice.id, "Descuento por pronto pago");
    expect(note).toMatchObject({ document_number: "E340000000001", total_amount: "118.00", modified_ncf: invoice.document_number });
    const r34 = await expectAccepted(t, `/credit-notes/${note.id}`, note);
    expect(tag(r34.xml, "NCFModificado")).toBe("E310000000001");
    expect(tag(r34.xml, "FechaNCFModificado")).toBe(dmy(invoice.issue_date));
    expect(tag(r34.xml, "CodigoModificacion")).toBe("3");
    expect(tag(r34.xml, "IndicadorNotaCredito")).toBe("0");

    const debit = await t.tenant.api.post(`/invoices/${invoice.id}/debit-notes`, {
      document_subtype_id: await t.subtype("E33"),
      issue_date: today(),
      modification_code: 3,
      reason: "Cargo por flete",
      items: [{ description: "Flete", amount: "50", tax_ids: [t.ids.itbis18] }],
    });
    expect(debit.status, debit.text).toBe(201);
    const r33 = await expectAccepted(t, `/debit-notes/${debit.body.data.id}`, debit.body.data as Doc);
    expect(tag(r33.xml, "TipoeCF")).toBe("33");
    expect(tag(r33.xml, "NCFModificado")).toBe("E310000000001");
    const row = await ownerRow<{ n: number }>(sql`SELECT count(*)::int AS n FROM ecf_documents WHERE tenant_id = ${t.tenant.tenantId} AND note_id IS NOT NULL`);
    expect(row.n).toBe(2);
  });
});

describe("the e-CF's TipoIngresos", () => {
  it("is the invoice's income type, on create and on a draft issued, and a note's is its invoice's (Formato e-CF field 8, the 607's classification)", async () => {
    const t = await ecfTenant();
    const line = [{ product_id: t.service.id, quantity: "1", unit_price: "1000", tax_ids: [t.ids.itbis18] }];
    const plain = await issue(t, "E31", { items: line });
    expect(tag(await storedXml(t, `/invoices/${plain.id}`), "TipoIngresos")).toBe("01");
    const rent = await issue(t, "E31", { items: line, income_type: "04" });
    expect(tag(await storedXml(t, `/invoices/${rent.id}`), "TipoIngresos")).toBe("04");

    const draft = await t.tenant.api.post<Data<Doc>>("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: line,
      income_type: "02",
      draft: true,
    });
    expect(draft.status, draft.text).toBe(201);
    expect((await t.tenant.api.patch(`/invoices/${draft.body.data.id}`, { income_type: "05" })).status).toBe(200);
    const issued = await t.tenant.api.post(`/invoices/${draft.body.data.id}/issue`, { issue_date: today() });
    expect(issued.status, issued.text).toBe(200);
    expect(tag(await storedXml(t, `/invoices/${draft.body.data.id}`), "TipoIngresos")).toBe("05");

    const credit = await discountNote(t, rent.id, "Descuento");
    expect(tag(await storedXml(t, `/credit-notes/${credit.id}`), "TipoIngresos")).toBe("04");
    // As DGII takes them (schema and signature).
    await expectAccepted(t, `/invoices/${rent.id}`, rent);
    await expectAccepted(t, `/credit-notes/${credit.id}`, credit);
  });
});

describe("cancelling an e-CF", () => {
  it("issues an E34 with modification code 1 for all of it, or 409 naming the missing E34 sequence", async () => {
    const t = await ecfTenant();
    const invoice = await issue(t, "E31", { items: [{ product_id: t.service.id, quantity: "3", unit_price: "100", tax_ids: [t.ids.itbis18] }] });
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    const missing = await t.tenant.api.post(`/invoices/${invoice.id}/cancel`, {});
    expect(missing.status).toBe(409);
    expect(missing.body.message).toContain("the company has no active E34 sequence");
    await t.subtype("E34");
    const cancelled = await t.tenant.api.post(`/invoices/${invoice.id}/cancel`, { annulment_reason: "05" });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.message).toBe("Invoice cancelled by credit note E340000000001.");
    expect(cancelled.body.data).toMatchObject({ status: "cancelled", credited_amount: "354.00" });
    const notes = (await t.tenant.api.get(`/credit-notes?filter[invoice_id]=${invoice.id}`)).body.data;
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ document_number: "E340000000001", modification_code: 1, reason: "Cambio de productos", total_amount: "354.00" });
    const r34 = await expectAccepted(t, `/credit-notes/${notes[0].id}`, notes[0] as Doc);
    expect(tag(r34.xml, "CodigoModificacion")).toBe("1");
    expect(tag(r34.xml, "NCFModificado")).toBe(invoice.document_number);

    // The 607 with e-CF: the sale DGII holds stays, and its E34 takes it back (a cancelled B-series
    // invoice, with no note, is the 608's instead). Before, the E31 was left out and only the E34 counted.
    const period = invoice.issue_date.slice(0, 7).replace("-", "");
    const report = await t.tenant.api.get(`/reports/607?period=${period}&format=json&include_ecf=true`);
    expect(report.status, report.text).toBe(200);
    expect(
      report.body.rows.map((row: { ncf: string; modified_ncf: string; amount: string; itbis_invoiced: string }) => [
        row.ncf,
        row.modified_ncf,
        row.amount,
        row.itbis_invoiced,
      ]),
    ).toEqual([
      [invoice.document_number, "", "300.00", "54.00"],
      ["E340000000001", invoice.document_number, "300.00", "54.00"],
    ]);
  });
});

describe("what an e-CF cannot carry yet", () => {
  it("refuses ISC on alcohol and tobacco (DGII computes it from data the products lack) with 422 on the line, the number given back", async () => {
    const t = await ecfTenant();
    const isc = (await t.tenant.api.post("/taxes", { name: "ISC ron", type: "isc", rate: "0", dgii_code: "013", amount_per_unit: "632.58" })).body.data;
    const refused = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [
        { product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] },
        { product_id: t.service.id, quantity: "2", unit_price: "900", tax_ids: [t.ids.itbis18, isc.id] },
      ],
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors).toEqual({
      "items.1.tax_ids": [
        "ISC 013 (alcohol and tobacco) cannot go on an e-CF yet: DGII computes it from reference quantities, degrees and prices the products do not record.",
      ],
    });
    const next = await issue(t, "E31", { items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }] });
    expect(next.document_number).toBe("E310000000001");
  });
});
