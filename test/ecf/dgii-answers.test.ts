import { describe, expect, it, vi } from "vitest";
import { stepEcfDocument } from "../../src/jobs/ecf";
import { today } from "../support/dates";
import { env } from "../support/env";
import { storedEvents } from "../webhooks/helpers";
import { afterFirstAttempt, type EcfTenant, ecfRow, ecfTenant, received, script, waitForStatus } from "./helpers";

/**
 * DGII's answers are judged by their body — its codigo, estado and messages — never by the HTTP
 * status alone (issue 33, "Fiscal state is never wrong"). The fake DGII answers what a test scripts
 * (`answers`): a refusal with HTTP 200, an acceptance with HTTP 400.
 */

type Answer = { service: string; status: number; body: unknown };

/** An E32 to a final consumer under RD$250,000: its summary (RFCE) is what DGII receives, answered at once. */
async function consumerInvoice(t: EcfTenant) {
  const anonymous = (await t.tenant.api.post("/contacts", { name: "Consumidor final" })).body.data;
  const res = await t.tenant.api.post("/invoices", {
    contact_id: anonymous.id,
    document_subtype_id: await t.subtype("E32"),
    issue_date: today(),
    items: [{ product_id: t.service.id, quantity: "1", unit_price: "450", tax_ids: [t.ids.itbis18] }],
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: number; document_number: string };
}

async function ecfView(t: EcfTenant, invoiceId: number) {
  const res = await t.tenant.api.get(`/invoices/${invoiceId}/ecf`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe("DGII's answers judged by their body (issue 33)", () => {
  it("ANECF: a refusal answered 200 refuses, an answer not saying the numbers were annulled refuses, nothing is annulled until DGII says so", async () => {
    const t = await ecfTenant();
    const subtype = await t.subtype("E31", { end_number: 100 });
    // DGII unreachable for this e-CF: it stays pending, never received, and can be annulled.
    await script(t.signer, { down: 1000 });
    const invoice = (
      await t.tenant.api.post("/invoices", {
        contact_id: t.contact.id,
        document_subtype_id: subtype,
        issue_date: today(),
        items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
      })
    ).body.data as { id: number; document_number: string };
    await afterFirstAttempt(invoice.id);
    await script(t.signer, { down: 0 });
    const annul = () => t.tenant.api.post("/ecf/annulments", { document_subtype_id: subtype, from: 1, to: 3 });
    const unchanged = async () => {
      expect((await t.tenant.api.get(`/invoices/${invoice.id}`)).body.data.status).toBe("pending_payment");
      expect((await ecfView(t, invoice.id)).status).toBe("pending");
      // The sequence did not move past the numbers (the invoice took 1; 2 is next).
      expect((await t.tenant.api.get(`/document-subtypes/${subtype}`)).body.data.next_number).toBe(2);
      expect(await storedEvents(t.tenant.tenantId, "ecf.annulled")).toEqual([]);
    };

    // HTTP 200 whose body refuses (DGII's wording for used numbers).
    const refusal: Answer = {
      service: "anulacionrangos",
      status: 200,
      body: {
        rnc: t.rnc,
        codigo: "2",
        nombre: "No fue posible anular las siguientes secuencias",
        mensajes: ["Las secuencias que está intentando anular han sido utilizadas."],
      },
    };
    await script(t.signer, { answers: [refusal] });
    const refused = await annul();
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toMatchObject({
      code: "validation_failed",
      message: "DGII did not annul the numbers.",
      errors: { from: ["Las secuencias que está intentando anular han sido utilizadas."] },
    });
    await unchanged();

    // HTTP 200 with a codigo but nothing saying the sequences were annulled: DGII publishes no table
    // of ANECF codes, so a code alone annuls nothing (docs/ecf.md, "Annulling unused numbers").
    await script(t.signer, { answers: [{ service: "anulacionrangos", status: 200, body: { rnc: t.rnc, codigo: "1", nombre: "Recibido", mensajes: [] } }] });
    const unsaid = await annul();
    expect(unsaid.status, unsaid.text).toBe(422);
    expect(unsaid.body.errors).toEqual({ from: ["Recibido"] });
    await unchanged();

    // "Annulled, except the sequences of the detail" with a detail naming no e-NCF: nothing can be
    // said number by number, so nothing changes.
    const partly = (detail: string[]): Answer => ({
      service: "anulacionrangos",
      status: 200,
      body: {
        rnc: t.rnc,
        codigo: "1",
        nombre: "Anulación recibida",
        mensajes: ["Las secuencias fueron anuladas correctamente. Con excepción de las secuencias del detalle", ...detail],
      },
    });
    await script(t.signer, { answers: [partly(["No fue posible anular algunas secuencias."])] });
    expect((await annul()).status).toBe(422);
    await unchanged();

    // A partial ANECF (issue 43), reported number by number: the detail names the invoice's e-NCF,
    // which stays as it was; 2 and 3 are annulled and the sequence moves past them.
    await script(t.signer, { answers: [partly([`${invoice.document_number}: No fue posible anular la secuencia.`])] });
    const partial = await annul();
    expect(partial.status, partial.text).toBe(201);
    expect(partial.body.message).toBe(`2 of 3 e-NCF annulled with DGII; DGII did not annul ${invoice.document_number} (not_annulled says why).`);
    expect(partial.body.data).toMatchObject({
      from: "E310000000001",
      to: "E310000000003",
      count: 2,
      not_annulled: [{ encf: invoice.document_number, reason: `${invoice.document_number}: No fue posible anular la secuencia.` }],
    });
    expect((await t.tenant.api.get(`/invoices/${invoice.id}`)).body.data.status).toBe("pending_payment");
    expect((await ecfView(t, invoice.id)).status).toBe("pending");
    expect((await t.tenant.api.get(`/document-subtypes/${subtype}`)).body.data.next_number).toBe(4);
    expect(await storedEvents(t.tenant.tenantId, "ecf.annulled")).toEqual([]);

    // DGII's own answer for the number left: annulled (the fake's, HTTP 200).
    const done = await t.tenant.api.post("/ecf/annulments", { document_subtype_id: subtype, from: 1, to: 1 });
    expect(done.status, done.text).toBe(201);
    expect(done.body.data).toMatchObject({ from: "E310000000001", to: "E310000000001", count: 1, not_annulled: [] });
    expect(done.body.data.dgii_messages).toEqual([{ codigo: "", valor: "Las secuencias fueron anuladas correctamente." }]);
    expect((await ecfView(t, invoice.id)).status).toBe("annulled");
    expect((await t.tenant.api.get(`/document-subtypes/${subtype}`)).body.data.next_number).toBe(4);
    const annulled = await storedEvents(t.tenant.tenantId, "ecf.annulled");
    expect(annulled.map((event) => [event.resource_type, event.resource_id, event.data.encf, event.data.status, event.data.transition.state])).toEqual([
      ["invoice", invoice.id, invoice.document_number, "annulled", "annulled"],
    ]);
  });

  it("ANECF: an answer with HTTP 400 whose body says the sequences were annulled annuls them", async () => {
    const t = await ecfTenant();
    const subtype = await t.subtype("E31", { end_number: 100 });
    await script(t.signer, {
      answers: [
        { service: "anulacionrangos", status: 400, body: { rnc: t.rnc, codigo: "1", nombre: "", mensajes: ["Las secuencias fueron anuladas correctamente."] } },
      ],
    });
    const done = await t.tenant.api.post("/ecf/annulments", { document_subtype_id: subtype, from: 1, to: 2 });
    expect(done.status, done.text).toBe(201);
    expect(done.body.data).toMatchObject({ from: "E310000000001", to: "E310000000002", count: 2 });
    // The sequence goes on after the annulled numbers.
    expect((await t.tenant.api.get(`/document-subtypes/${subtype}`)).body.data.next_number).toBe(3);
  });

  it("RFCE: Rechazado with HTTP 400 used the number as its body says; Aceptado with HTTP 400 is accepted; estado alone is read, and decides over a codigo saying otherwise", async () => {
    const t = await ecfTenant();
    const rejectedBody = (used: boolean) => ({
      codigo: 2,
      estado: "Rechazado",
      mensajes: [{ codigo: "2", valor: "El RNC Emisor no se encuentra activo." }],
      secuenciaUtilizada: used,
    });

    // 400 whose body is DGII's rejection that used the number: rejected, number used (not "refused, unused").
    await script(t.signer, { answers: [{ service: "recepcionfc", status: 400, body: rejectedBody(true) }] });
    const used = await consumerInvoice(t);
    const usedView = await waitForStatus(t, `/invoices/${used.id}`, "rejected");
    expect(usedView).toMatchObject({
      consumer_summary: true,
      sequence_used: true,
      dgii_messages: [{ codigo: "2", valor: "El RNC Emisor no se encuentra activo." }],
    });
    expect((await ecfView(t, used.id)).next_action).toMatchObject({ code: "issue_again" });

    // 400 whose body says Aceptado: accepted.
    await script(t.signer, {
      answers: [{ service: "recepcionfc", status: 400, body: { codigo: 1, estado: "Aceptado", mensajes: [], secuenciaUtilizada: true } }],
    });
    const accepted = await consumerInvoice(t);
    expect(await waitForStatus(t, `/invoices/${accepted.id}`, "accepted")).toMatchObject({ consumer_summary: true, dgii_messages: [] });

    // 200 with estado "Rechazado" and no codigo: rejected (read by its estado), its number not used as it says.
    await script(t.signer, { answers: [{ service: "recepcionfc", status: 200, body: { ...rejectedBody(false), codigo: undefined } }] });
    const byState = await consumerInvoice(t);
    expect(await waitForStatus(t, `/invoices/${byState.id}`, "rejected")).toMatchObject({ sequence_used: false });

    // codigo 1 with estado "Rechazado": the estado is DGII's verdict, a rejection.
    await script(t.signer, { answers: [{ service: "recepcionfc", status: 200, body: { ...rejectedBody(true), codigo: 1 } }] });
    const contradictory = await consumerInvoice(t);
    expect(await waitForStatus(t, `/invoices/${contradictory.id}`, "rejected")).toMatchObject({ sequence_used: true });

    // An answer with neither codigo nor estado (issue 43): DGII received the summary, so it is never
    // sent again; its state is asked of DGII (consultarfce), which says it was accepted.
    await script(t.signer, { answers: [{ service: "recepcionfc", status: 200, body: { mensajes: [] } }] });
    const unjudged = await consumerInvoice(t);
    expect(await waitForStatus(t, `/invoices/${unjudged.id}`, "accepted")).toMatchObject({ consumer_summary: true, last_error: null });
    expect((await received(t.signer)).filter((r) => r.encf === unjudged.document_number)).toHaveLength(1);
    const { timeline } = await ecfView(t, unjudged.id);
    expect(timeline.map((entry: { state: string; code: string; attempt: number | null }) => [entry.state, entry.code, entry.attempt])).toEqual([
      ["signed", "issued", null],
      ["sent", "first_attempt", 1],
      ["unanswered", "unjudged", 1],
      ["accepted", "reconciled", 2],
    ]);
    expect(timeline[3].cause).toBe("Not sent again on attempt 2: DGII's consultarfce says the consumer summary (RFCE) it received is Aceptado.");
  });

  it("reception and result: a reception answered 200 without a trackId is a refusal; a result's estado decides, whatever the status", async () => {
    const t = await ecfTenant();
    // Recepción answering 200 with DGII's error and no trackId: rejected, the number not used (nothing was received).
    await script(t.signer, {
      answers: [{ service: "recepcion", status: 200, body: { trackId: null, error: "Tipo de archivo no valido, favor proveer un XML", mensaje: null } }],
    });
    const refusedInvoice = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    expect(refusedInvoice.status).toBe(201);
    const refused = await waitForStatus(t, `/invoices/${refusedInvoice.body.data.id}`, "rejected");
    expect(refused).toMatchObject({
      track_id: null,
      sequence_used: false,
      dgii_messages: [{ codigo: "", valor: "Tipo de archivo no valido, favor proveer un XML" }],
    });

    // Consulta resultado answering 200 with estado "Rechazado" and no codigo: rejected, not "not found" forever.
    await script(t.signer, {
      answers: [
        {
          service: "consultaresultado",
          status: 200,
          body: { trackId: "x", estado: "Rechazado", mensajes: [{ codigo: 2, valor: "El RNC Comprador no se encuentra activo." }], secuenciaUtilizada: true },
        },
      ],
    });
    const rejectedInvoice = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    const rejected = await waitForStatus(t, `/invoices/${rejectedInvoice.body.data.id}`, "rejected");
    expect(rejected).toMatchObject({ sequence_used: true, dgii_messages: [{ codigo: "2", valor: "El RNC Comprador no se encuentra activo." }] });

    // Consulta resultado answering 200 with neither codigo nor estado: not judged final, asked again, then accepted.
    await script(t.signer, { answers: [{ service: "consultaresultado", status: 200, body: { trackId: "x", mensajes: [] } }] });
    const unjudgedInvoice = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    const unjudgedId = unjudgedInvoice.body.data.id as number;
    // Sent by the issuing request's message; its result query is then taken here, past its due time.
    const sent = await afterFirstAttempt(unjudgedId);
    const asked = await stepEcfDocument(env, { tenant_id: t.tenant.tenantId, ecf_id: sent.id }, { now: new Date(Date.now() + 3000) });
    expect(asked).toMatchObject({ outcome: "in_process", status: "in_process" });
    expect(await ecfRow(unjudgedId)).toMatchObject({ status: "in_process", last_error: expect.stringContaining("could not be judged") });
    expect(await waitForStatus(t, `/invoices/${unjudgedId}`, "accepted")).toMatchObject({ last_error: null });

    // Consulta resultado answering 404 with DGII's acceptance in the body: accepted.
    await script(t.signer, { answers: [{ service: "consultaresultado", status: 404, body: { codigo: 1, estado: "Aceptado", mensajes: [] } }] });
    const acceptedInvoice = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    await waitForStatus(t, `/invoices/${acceptedInvoice.body.data.id}`, "accepted");
    const row = await ecfRow(acceptedInvoice.body.data.id);
    expect(row.status).toBe("accepted");
    await vi.waitFor(async () =>
      expect((await ecfView(t, acceptedInvoice.body.data.id)).timeline.map((e: { state: string }) => e.state)).toEqual(["signed", "sent", "accepted"]),
    );
  });
});
