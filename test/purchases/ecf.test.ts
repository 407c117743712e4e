import { describe, expect, it } from "vitest";
import type { PurchaseSummary } from "../../src/modules/purchases/schemas";
import { ecfTenant, received, waitForStatus } from "../ecf/helpers";
import type { Data } from "../support/api";
import { today } from "../support/dates";
import { fetchBytes, pdfText } from "../support/pdf";
import { ownerRow, seedTenant, sql } from "../support/seed";
import { storedEvents } from "../webhooks/helpers";
import { createSupplier } from "./helpers";

/**
 * The e-CF the buyer issues about its own purchases (issue 19; Formato e-CF v1.0, types 41, 43,
 * 47): numbered from its E-series sequence, signed in the purchase's transaction, sent to DGII
 * after commit — here to the fake DGII, which checks the XML against e-CF-41.xsd / e-CF-43.xsd
 * and the signature with an implementation of its own before accepting it.
 */
const field = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((m) => m[1]);

describe("purchases: E41, E43 through the e-CF pipeline", () => {
  it("an E41 to an informal supplier with ITBIS and ISR withheld: e-NCF taken, XML with each line's Retencion, accepted by DGII", async () => {
    const t = await ecfTenant();
    const e41 = await t.subtype("E41");
    const informal = await createSupplier(t.tenant, { name: "Pedro Almonte (transportista)", identification_type: "cedula", identification: "00113918205" });
    const res = await t.tenant.api.post<Data<PurchaseSummary>>("/purchases", {
      supplier_id: informal.id,
      self_issued_subtype_id: e41,
      issue_date: today(),
      expense_type: "02",
      items: [
        { description: "Flete Santiago - Santo Domingo", quantity: "1", unit_cost: "5000", tax_ids: [t.ids.itbis18] },
        { description: "Carga y descarga", quantity: "2", unit_cost: "1000", tax_ids: [t.ids.exento] },
      ],
      itbis_withheld: "900.00",
      isr_withheld: "700.00",
      withholding_date: today(),
      payment_method: "cash",
    });
    expect(res.status, res.text).toBe(201);
    const purchase = res.body.data;
    // 5,000.00 + 18 % = 900.00; 2 × 1,000.00 exempt → 7,900.00; due 7,900.00 − 900.00 − 700.00.
    expect(purchase).toMatchObject({ ncf: "E410000000001", total_amount: "7900.00", amount_due: "6300.00", status: "pending_payment" });

    const ecf = await waitForStatus(t, `/purchases/${purchase.id}`, "accepted");
    expect(ecf).toMatchObject({ encf: "E410000000001", type: "41", status: "accepted", total_amount: "7900.00" });
    const xml = (await t.tenant.api.get(`/purchases/${purchase.id}/ecf.xml`)).text;
    expect(field(xml, "TipoeCF")).toEqual(["41"]);
    expect(field(xml, "RNCEmisor")).toEqual([t.rnc]);
    expect(field(xml, "RNCComprador")).toEqual(["00113918205"]);
    // Each line's Retencion: ITBIS by the lines' ITBIS, ISR by the services' amounts (5,000 and 2,000 of 7,000).
    expect(field(xml, "MontoITBISRetenido")).toEqual(["900.00", "0.00"]);
    expect(field(xml, "MontoISRRetenido")).toEqual(["500.00", "200.00"]);
    expect(field(xml, "TotalITBISRetenido")).toEqual(["900.00"]);
    expect(field(xml, "TotalISRRetencion")).toEqual(["700.00"]);
    expect(field(xml, "MontoTotal")).toEqual(["7900.00"]);
    const atDgii = (await received(t.signer)).filter((r) => r.encf === "E410000000001");
    expect(atDgii).toHaveLength(1);
    expect(atDgii[0]!.errors).toEqual([]);
    expect(atDgii[0]!.xml).toBe(xml);

    // Its receipt prints the e-CF's security code and signature time beside the QR.
    const pdf = await fetchBytes(t.tenant.subdomain, t.tenant.admin.token, `/purchases/${purchase.id}/pdf`);
    expect(pdf.status).toBe(200);
    const text = await pdfText(pdf.bytes);
    for (const printed of ["E410000000001", "Pedro Almonte (transportista)", `Código de Seguridad: ${ecf.security_code}`, "Fecha Firma:"])
      expect(text).toContain(printed);

    const submissions = await t.tenant.api.get("/ecf/submissions?filter[type]=41");
    expect(submissions.body.data).toEqual([expect.objectContaining({ document_kind: "purchase", document_id: purchase.id, encf: "E410000000001" })]);
    // Each transition an event about the purchase (test/ecf/events.test.ts follows them all).
    const events = (await storedEvents(t.tenant.tenantId)).filter((event) => event.type.startsWith("ecf."));
    expect(events.map((event) => [event.type, event.resource_type, event.resource_id, event.data.encf])).toEqual([
      ["ecf.signed", "purchase", purchase.id, "E410000000001"],
      ["ecf.sent", "purchase", purchase.id, "E410000000001"],
      ["ecf.accepted", "purchase", purchase.id, "E410000000001"],
    ]);
    // An issued e-CF is never voided.
    const voided = await t.tenant.api.delete(`/purchases/${purchase.id}`, { body: { reason: "error" } });
    expect(voided.status).toBe(409);
    expect(voided.body.code).toBe("ecf_already_sent");
  });

  it("an E43 (gastos menores) without supplier nor withholding, entered from a draft; withholding on an E43 is 422", async () => {
    const t = await ecfTenant();
    const e43 = await t.subtype("E43");
    const body = {
      self_issued_subtype_id: e43,
      issue_date: today(),
      expense_type: "02",
      items: [{ description: "Parqueo y peajes", quantity: "3", unit_cost: "150", tax_ids: [t.ids.exento] }],
    };
    const withheld = await t.tenant.api.post("/purchases", { ...body, itbis_withheld: "0.00", isr_withheld: "10.00", withholding_date: today() });
    expect(withheld.status).toBe(422);
    expect(withheld.body.errors).toEqual({ isr_withheld: [expect.stringContaining("E43")] });
    const draft = await t.tenant.api.post<Data<PurchaseSummary>>("/purchases", { ...body, status: "draft" });
    expect(draft.status, draft.text).toBe(201);
    const entered = await t.tenant.api.post<Data<PurchaseSummary>>(`/purchases/${draft.body.data.id}/enter`);
    expect(entered.status, entered.text).toBe(200);
    // The refused one gave its number back.
    expect(entered.body.data).toMatchObject({ ncf: "E430000000001", total_amount: "450.00" });
    expect((await storedEvents(t.tenant.tenantId, "ecf.signed")).map((event) => [event.resource_type, event.resource_id, event.data.status])).toEqual([
      ["purchase", draft.body.data.id, "pending"],
    ]);
    await waitForStatus(t, `/purchases/${draft.body.data.id}`, "accepted");
    const xml = (await t.tenant.api.get(`/purchases/${draft.body.data.id}/ecf.xml`)).text;
    expect(xml).not.toContain("<Comprador>");
    expect(field(xml, "MontoTotal")).toEqual(["450.00"]);
  });

  it("an E-series purchase without e-CF set up is refused on self_issued_subtype_id and takes no number", async () => {
    const tenant = await seedTenant();
    const seq = await tenant.api.post("/document-subtypes", {
      name: "Compras electrónicas",
      type: "invoice",
      prefix: "E43",
      start_number: 1,
      end_number: 100,
      valid_until: "2027-12-31",
    });
    expect(seq.status, seq.text).toBe(201);
    const res = await tenant.api.post("/purchases", {
      self_issued_subtype_id: seq.body.data.id,
      issue_date: today(),
      expense_type: "02",
      items: [{ description: "Peaje", quantity: "1", unit_cost: "100" }],
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("ecf_not_configured");
    expect(Object.keys(res.body.errors)).toEqual(["self_issued_subtype_id"]);
    const next = await ownerRow<{ next_number: number }>(sql`SELECT next_number FROM document_subtypes WHERE id = ${seq.body.data.id}`);
    expect(Number(next.next_number)).toBe(1);
  });
});
