import { describe, expect, it, vi } from "vitest";
import { stepApproval, sweepApprovals } from "../../src/jobs/approvals";
import { addDays } from "../../src/lib/dates";
import { buildAcecf } from "../../src/modules/ecf/receipts";
import type { ReceivedEcf } from "../../src/modules/reception/schemas";
import { type EcfTenant, ecfTenant, script, waitForStatus } from "../ecf/helpers";
import type { Data, Page } from "../support/api";
import { today } from "../support/dates";
import { env } from "../support/env";
import { freshRnc } from "../support/sales";
import { ownerRow, ownerRows, sql } from "../support/seed";
import {
  dgiiApprovals,
  fe,
  inDirectory,
  independentCheck,
  receiveFromSupplier,
  receiverApprovals,
  receiverDown,
  signAsSupplier,
  supplierToken,
} from "./helpers";
import { SUPPLIER_TOTAL } from "./supplier";

/**
 * Commercial approval (ACECF, Formato Aprobación Comercial v1.0) in both directions: ours of an
 * e-CF a supplier sent (POST /api/v1/received-ecf/{id}/approval → DGII's aprobacioncomercial
 * service and the supplier's receiver, found in DGII's directory, retried through the queue), and a
 * buyer's of an e-CF we issued (POST /fe/aprobacioncomercial/api/ecf → its commercial_status).
 */
const approvalRow = (id: number) =>
  ownerRow<{ id: number; dgii_status: string; issuer_status: string; attempts: number; next_attempt_at: string; last_error: string | null }>(
    sql`SELECT id, dgii_status, issuer_status, attempts, next_attempt_at, last_error FROM ecf_approvals WHERE received_ecf_id = ${id}`,
  );

const field = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? null;

describe("our commercial approval of a received e-CF", () => {
  it("approving signs an ACECF and delivers it to DGII and to the supplier's receiver; once only", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    await inDirectory(supplierRnc);
    const doc = await receiveFromSupplier(t, supplierRnc);
    const res = await t.tenant.api.post<Data<ReceivedEcf>>(`/received-ecf/${doc.id}/approval`, { approved: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ commercial_status: "approved", approval: { approved: true, reason: null } });

    await vi.waitFor(
      async () => {
        const row = await approvalRow(doc.id);
        expect([row.dgii_status, row.issuer_status], row.last_error ?? "").toEqual(["delivered", "delivered"]);
      },
      { timeout: 20_000, interval: 200 },
    );
    const atDgii = await dgiiApprovals(t.signer);
    expect(atDgii).toHaveLength(1);
    expect(atDgii[0]!.errors).toEqual([]);
    const atSupplier = await receiverApprovals(supplierRnc);
    expect(atSupplier).toHaveLength(1);
    expect(atSupplier[0]!.errors).toEqual([]);
    const acecf = atSupplier[0]!.xml;
    expect(atDgii[0]!.xml).toBe(acecf);
    expect({
      RNCEmisor: field(acecf, "RNCEmisor"),
      eNCF: field(acecf, "eNCF"),
      MontoTotal: field(acecf, "MontoTotal"),
      RNCComprador: field(acecf, "RNCComprador"),
      Estado: field(acecf, "Estado"),
      DetalleMotivoRechazo: field(acecf, "DetalleMotivoRechazo"),
    }).toEqual({ RNCEmisor: supplierRnc, eNCF: doc.encf, MontoTotal: SUPPLIER_TOTAL, RNCComprador: t.rnc, Estado: "1", DetalleMotivoRechazo: null });
    expect(await independentCheck(acecf, "ACECF.xsd")).toEqual({ signature: true, signer: t.signer, schemaErrors: [] });

    const shown = await t.tenant.api.get<Data<ReceivedEcf>>(`/received-ecf/${doc.id}`);
    expect(shown.body.data.approval).toMatchObject({ dgii_status: "delivered", issuer_status: "delivered", next_attempt_at: null });
    // The list shows the approval as the e-CF's own page does (read in the page's statement, issue 46).
    const listed = await t.tenant.api.get<Page<ReceivedEcf>>("/received-ecf");
    expect(listed.body.data.find((d) => d.id === doc.id)).toEqual(shown.body.data);
    const again = await t.tenant.api.post(`/received-ecf/${doc.id}/approval`, { approved: false, reason: "Mercancía dañada" });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("approval_already_sent");
  });

  it("a rejection needs its reason (422), which the ACECF carries as DetalleMotivoRechazo with Estado 2", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    await inDirectory(supplierRnc);
    const doc = await receiveFromSupplier(t, supplierRnc);
    const missing = await t.tenant.api.post(`/received-ecf/${doc.id}/approval`, { approved: false });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ reason: ["is required when rejecting"] });
    const res = await t.tenant.api.post<Data<ReceivedEcf>>(`/received-ecf/${doc.id}/approval`, {
      approved: false,
      reason: "Mercancía llegó dañada & incompleta",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.commercial_status).toBe("rejected");
    const row = await ownerRow<{ xml: string }>(sql`SELECT xml FROM ecf_approvals WHERE received_ecf_id = ${doc.id}`);
    expect(field(row.xml, "Estado")).toBe("2");
    expect(field(row.xml, "DetalleMotivoRechazo")).toBe("Mercancía llegó dañada &amp; incompleta");
    expect((await t.tenant.api.post("/received-ecf/999999999/approval", { approved: true })).status).toBe(404);
  });

  it("the supplier's receiver down: retried with backoff until it answers, DGII's delivery not repeated", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    await inDirectory(supplierRnc);
    const doc = await receiveFromSupplier(t, supplierRnc);
    // Down for the queue's first step and the test's first: each step calls the receiver's seed once.
    await receiverDown(supplierRnc, 2);
    expect((await t.tenant.api.post(`/received-ecf/${doc.id}/approval`, { approved: true })).status).toBe(200);
    let row = await approvalRow(doc.id);
    await vi.waitFor(
      async () => {
        row = await approvalRow(doc.id);
        expect(row.attempts).toBeGreaterThanOrEqual(1);
      },
      { timeout: 20_000, interval: 100 },
    );
    expect([row.dgii_status, row.issuer_status]).toEqual(["delivered", "pending"]);
    expect(row.last_error).toContain("503");
    // Listed as shown alone: pending, its next attempt and last error; another e-CF without one.
    const other = await receiveFromSupplier(t, supplierRnc);
    const shown = (await t.tenant.api.get<Data<ReceivedEcf>>(`/received-ecf/${doc.id}`)).body.data;
    expect(shown.approval).toMatchObject({ approved: true, issuer_status: "pending", attempts: row.attempts, next_attempt_at: expect.any(String) });
    const listed = (await t.tenant.api.get<Page<ReceivedEcf>>("/received-ecf?sort=received_at")).body;
    expect(listed.meta.total).toBe(2);
    expect(listed.data.map((d) => [d.id, d.approval])).toEqual([
      [doc.id, shown.approval],
      [other.id, null],
    ]);
    const ref = { tenant_id: t.tenant.tenantId, approval_id: row.id };
    const due = new Date(row.next_attempt_at);
    // The minute sweep's function (drizzle/0061 sweep_due) finds it once it is due, not before.
    const dueIds = async (at: Date) =>
      (
        await ownerRows<{ id: number }>(
          sql`SELECT id FROM sweep_due('ecf_approvals', 1000, 1000, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz, NULL)`,
        )
      ).map((r) => Number(r.id));
    expect(await dueIds(new Date(due.getTime() - 1000))).not.toContain(row.id);
    expect(await dueIds(due)).toContain(row.id);
    expect(await stepApproval(env, ref, { now: new Date(due.getTime() - 5_000) })).toMatchObject({ outcome: "not_due" });
    expect(await stepApproval(env, ref, { now: due })).toEqual({ outcome: "retry", dgii: "delivered", issuer: "pending", retryInSeconds: 60 });
    const next = new Date((await approvalRow(doc.id)).next_attempt_at);
    expect(await stepApproval(env, ref, { now: next })).toEqual({ outcome: "done", dgii: "delivered", issuer: "delivered" });
    expect(await dgiiApprovals(t.signer)).toHaveLength(1);
    expect(await receiverApprovals(supplierRnc)).toHaveLength(1);
  });

  it("DGII answering one company's approval 429 makes that company's approvals wait (no DGII call, not swept) while another company's approval is delivered; the wait over, it is delivered once", async () => {
    const slowed = await ecfTenant();
    const other = await ecfTenant();
    const supplierRnc = freshRnc();
    await inDirectory(supplierRnc);
    const [slowedDoc, otherDoc] = [await receiveFromSupplier(slowed, supplierRnc), await receiveFromSupplier(other, supplierRnc)];
    await script(slowed.signer, { answers: [{ service: "aprobacioncomercial", status: 429, body: { mensaje: "Demasiadas solicitudes." } }] });
    expect((await slowed.tenant.api.post(`/received-ecf/${slowedDoc.id}/approval`, { approved: true })).status).toBe(200);
    let row = await approvalRow(slowedDoc.id);
    await vi.waitFor(
      async () => {
        row = await approvalRow(slowedDoc.id);
        expect(row.attempts).toBeGreaterThanOrEqual(1);
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(row.dgii_status).toBe("pending");
    expect(row.last_error).toContain("429");
    const wait = await ownerRow<{ until: string }>(sql`SELECT until FROM ecf_dgii_backoff WHERE tenant_id = ${slowed.tenant.tenantId}`);
    const until = new Date(wait.until);
    const atDgii = (await dgiiApprovals(slowed.signer)).length;

    // The other company's approval goes to DGII meanwhile.
    expect((await other.tenant.api.post(`/received-ecf/${otherDoc.id}/approval`, { approved: true })).status).toBe(200);
    await vi.waitFor(async () => expect(await approvalRow(otherDoc.id)).toMatchObject({ dgii_status: "delivered", issuer_status: "delivered" }), {
      timeout: 20_000,
      interval: 100,
    });
    expect(await dgiiApprovals(other.signer)).toHaveLength(1);

    // The slowed company's approval, due, waits: its step makes no call, the sweep passes it by.
    await ownerRows(sql`UPDATE ecf_approvals SET next_attempt_at = ${new Date(until.getTime() - 60_000).toISOString()}::timestamptz WHERE id = ${row.id}`);
    const ref = { tenant_id: slowed.tenant.tenantId, approval_id: Number(row.id) };
    const during = new Date(until.getTime() - 5_000);
    expect(await stepApproval(env, ref, { now: during })).toEqual({ outcome: "backoff", retryInSeconds: 5 });
    expect(await dgiiApprovals(slowed.signer)).toHaveLength(atDgii);
    const swept = async (now: Date) => {
      const sent: { tenant_id: number; approval_id: number }[] = [];
      const queue = { sendBatch: async (messages: { body: (typeof sent)[number] }[]) => void sent.push(...messages.map((m) => m.body)) };
      await sweepApprovals({ ...env, ECF_QUEUE: queue as unknown as Queue }, { now });
      return sent.filter((r) => r.tenant_id === slowed.tenant.tenantId);
    };
    expect(await swept(during)).toEqual([]);
    const after = new Date(until.getTime() + 16_000);
    expect(await swept(after)).toEqual([ref]);
    // DGII answers it: delivered, the company's wait over.
    expect(await stepApproval(env, ref, { now: after })).toMatchObject({ outcome: "done", dgii: "delivered" });
    expect(await ownerRows(sql`SELECT 1 FROM ecf_dgii_backoff WHERE tenant_id = ${slowed.tenant.tenantId}`)).toEqual([]);
    expect(await dgiiApprovals(slowed.signer)).toHaveLength(atDgii + 1);
  });

  it("a supplier DGII's directory does not list: the issuer delivery is refused with the reason; DGII answering 200 'rechazada' is a refusal too (judged by the body)", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    const doc = await receiveFromSupplier(t, supplierRnc);
    const refusal = { mensaje: ["Factura no encontrada para esta Aprobación comercial."], estado: "Aprobación comercial rechazada", codigo: "2" };
    await script(t.signer, { answers: [{ service: "aprobacioncomercial", status: 200, body: refusal }] });
    expect((await t.tenant.api.post(`/received-ecf/${doc.id}/approval`, { approved: true })).status).toBe(200);
    await vi.waitFor(
      async () => {
        const row = await approvalRow(doc.id);
        expect([row.dgii_status, row.issuer_status]).toEqual(["refused", "refused"]);
        expect(row.last_error).toBe(
          `DGII: DGII refused the approval: Factura no encontrada para esta Aprobación comercial. | issuer's receiver: DGII's directory lists no receiver for RNC ${supplierRnc}.`,
        );
      },
      { timeout: 20_000, interval: 200 },
    );
  });
});

describe("a buyer's commercial approval of an e-CF we issued", () => {
  async function issuedE31(t: EcfTenant) {
    const buyerRnc = freshRnc();
    const contact = await t.tenant.api.post("/contacts", { name: "Comprador Electrónico SRL", identification_type: "rnc", identification: buyerRnc });
    expect(contact.status).toBe(201);
    const res = await t.tenant.api.post("/invoices", {
      contact_id: contact.body.data.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, description: "Asesoría", quantity: "2", unit_price: "1000", tax_ids: [t.ids.itbis18] }],
    });
    expect(res.status, res.text).toBe(201);
    await waitForStatus(t, `/invoices/${res.body.data.id}`, "accepted");
    return { invoice: res.body.data as { id: number; document_number: string; issue_date: string }, buyerRnc };
  }

  const acecf = (t: EcfTenant, invoice: { document_number: string; issue_date: string }, buyerRnc: string, approved: boolean, reason?: string) =>
    buildAcecf({
      issuerRnc: t.rnc,
      encf: invoice.document_number,
      issueDate: invoice.issue_date,
      totalAmount: "2360.00",
      buyerRnc,
      approved,
      reason,
      at: new Date(),
    });

  it("an ACECF signed by the buyer records the e-CF's commercial status; a later one replaces it", async () => {
    const t = await ecfTenant();
    const { invoice, buyerRnc } = await issuedE31(t);
    const token = await supplierToken(t.tenant.subdomain, buyerRnc);
    const accepted = await fe(t.tenant.subdomain, "/fe/aprobacioncomercial/api/ecf", {
      xml: await signAsSupplier(acecf(t, invoice, buyerRnc, true)),
      token,
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toEqual({ mensaje: [`Aprobación comercial de ${invoice.document_number} recibida.`], estado: "Recibido", codigo: "1" });
    let ecf = await t.tenant.api.get(`/invoices/${invoice.id}/ecf`);
    expect(ecf.body.data).toMatchObject({ commercial_status: "approved", commercial_reason: null });
    const rejected = await fe(t.tenant.subdomain, "/fe/aprobacioncomercial/api/ecf", {
      xml: await signAsSupplier(acecf(t, invoice, buyerRnc, false, "Precio distinto al pactado")),
      token,
    });
    expect(rejected.status, rejected.text).toBe(200);
    ecf = await t.tenant.api.get(`/invoices/${invoice.id}/ecf`);
    expect(ecf.body.data).toMatchObject({ commercial_status: "rejected", commercial_reason: "Precio distinto al pactado" });
  });

  it("refuses with 400 and DGII's message: unsigned, a signer that is not RNCComprador, and one answer for any ACECF that is not exactly our e-CF", async () => {
    const t = await ecfTenant();
    const { invoice, buyerRnc } = await issuedE31(t);
    const encf = invoice.document_number;
    const token = await supplierToken(t.tenant.subdomain, buyerRnc);
    const send = (xml: string, as = token) => fe(t.tenant.subdomain, "/fe/aprobacioncomercial/api/ecf", { xml, token: as });
    const ours = { issuerRnc: t.rnc, encf, issueDate: invoice.issue_date, totalAmount: "2360.00", buyerRnc, approved: true, at: new Date() };
    const NO_MATCH = "No se encuentra un e-CF válido para esta aprobación comercial";
    // Another buyer, with a token of its own (its certificate names it): told nothing more than an unknown e-NCF.
    const otherBuyer = freshRnc();
    const otherToken = await supplierToken(t.tenant.subdomain, otherBuyer);
    const cases: [string, string, string, string?][] = [
      ["unsigned", acecf(t, invoice, buyerRnc, true), "La firma del XML no es válida"],
      ["another issuer", await signAsSupplier(buildAcecf({ ...ours, issuerRnc: freshRnc() })), NO_MATCH],
      ["another buyer", await signAsSupplier(buildAcecf({ ...ours, buyerRnc: otherBuyer })), NO_MATCH, otherToken],
      ["unknown e-NCF", await signAsSupplier(acecf(t, { ...invoice, document_number: "E310000009999" }, buyerRnc, true)), NO_MATCH],
      ["another issue date", await signAsSupplier(buildAcecf({ ...ours, issueDate: addDays(invoice.issue_date, -1) })), NO_MATCH],
      ["an impossible issue date", await signAsSupplier(buildAcecf({ ...ours, issueDate: "2026-02-31" })), NO_MATCH],
      ["another total", await signAsSupplier(buildAcecf({ ...ours, totalAmount: "2360.01" })), NO_MATCH],
      [
        "the buyer's ACECF under another buyer's token",
        await signAsSupplier(acecf(t, invoice, buyerRnc, true)),
        `El certificado no corresponde al RNCComprador ${buyerRnc} ni al que obtuvo el token.`,
        otherToken,
      ],
      [
        "signed by another taxpayer for the buyer",
        await signAsSupplier(acecf(t, invoice, buyerRnc, true), otherBuyer),
        `El certificado no corresponde al RNCComprador ${buyerRnc} ni al que obtuvo el token.`,
        otherToken,
      ],
      [
        "not an ACECF",
        await signAsSupplier("<Nada><x>1</x></Nada>"),
        "La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente",
      ],
    ];
    for (const [what, xml, message, as] of cases) {
      const res = await send(xml, as);
      expect(res.status, what).toBe(400);
      expect(res.body, what).toEqual({ mensaje: [message], estado: "Rechazado", codigo: "2" });
    }
    const ecf = await t.tenant.api.get(`/invoices/${invoice.id}/ecf`);
    expect(ecf.body.data.commercial_status).toBeNull();
  });
});
