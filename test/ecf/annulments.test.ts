import { describe, expect, it } from "vitest";
import { stepEcfDocument } from "../../src/jobs/ecf";
import { today } from "../support/dates";
import { env } from "../support/env";
import { ownerRow, sql, uniqueName } from "../support/seed";
import { afterFirstAttempt, ecfTenant, fakeDgii, received, script, waitForStatus } from "./helpers";

/**
 * Annulment of unused e-NCF (ANECF; issue 18): signed, sent to DGII (the fake validates ANECF.xsd
 * and the signature), and only then does the sequence skip the numbers.
 */
describe("e-CF annulment of unused ranges (ANECF)", () => {
  it("annuls from the next number; the sequence skips them; DGII refuses used numbers; the range is checked", async () => {
    const t = await ecfTenant();
    const subtype = await t.subtype("E31", { end_number: 100 });
    const issue = async () => {
      const res = await t.tenant.api.post("/invoices", {
        contact_id: t.contact.id,
        document_subtype_id: subtype,
        issue_date: today(),
        items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
      });
      expect(res.status, res.text).toBe(201);
      return res.body.data as { id: number; document_number: string };
    };
    const first = await issue();
    await waitForStatus(t, `/invoices/${first.id}`, "accepted");

    const annul = (body: Record<string, unknown>) => t.tenant.api.post("/ecf/annulments", { document_subtype_id: subtype, ...body });
    const sent = await annul({ from: 1, to: 5 });
    expect(sent.status).toBe(409);
    expect(sent.body).toMatchObject({
      code: "ecf_already_sent",
      message: "E310000000001 was sent to DGII (accepted): it is annulled by a credit note (modification code 1), not by an annulment of numbers.",
    });
    const gap = await annul({ from: 3, to: 5 });
    expect(gap.status).toBe(422);
    expect(gap.body.errors.from[0]).toMatch(/^The unused numbers of this sequence start at 2 \(E310000000002\)/);
    expect((await annul({ from: 2, to: 101 })).body.errors).toEqual({ to: ["The authorized range of this sequence ends at 100."] });
    expect((await annul({ from: 2, to: 1 })).body.errors).toEqual({ to: ["The range ends at or after where it starts."] });
    expect((await annul({ document_subtype_id: t.ids.b01, from: 2, to: 3 })).body.errors).toEqual({
      document_subtype_id: ["No such e-CF (E-series) document subtype."],
    });

    const done = await annul({ from: 2, to: 11 });
    expect(done.status, done.text).toBe(201);
    expect(done.body).toMatchObject({
      message: "10 e-NCF annulled with DGII.",
      data: { type: "31", from: "E310000000002", to: "E310000000011", count: 10, environment: "testecf" },
    });
    expect(done.body.data.dgii_messages).toEqual([{ codigo: "", valor: "Las secuencias fueron anuladas correctamente." }]);
    const anecf = (await (await fetch(`${fakeDgii}/_control/annulments?signer=${encodeURIComponent(t.signer)}`)).json()) as { xml: string; errors: string[] }[];
    expect(anecf).toHaveLength(1);
    expect(anecf[0]!.errors).toEqual([]);
    expect(anecf[0]!.xml).toContain("<SecuenciaeNCFDesde>E310000000002</SecuenciaeNCFDesde><SecuenciaeNCFHasta>E310000000011</SecuenciaeNCFHasta>");
    expect(anecf[0]!.xml).toContain(`<RncEmisor>${t.rnc}</RncEmisor><CantidadeNCFAnulados>10</CantidadeNCFAnulados>`);

    // The next invoice skips the annulled numbers.
    expect((await issue()).document_number).toBe("E310000000012");
    const stored = await ownerRow<{ n: number }>(sql`SELECT count(*)::int AS n FROM ecf_annulments WHERE tenant_id = ${t.tenant.tenantId}`);
    expect(stored.n).toBe(1);
  });

  it("DGII refusing (the numbers were received) is a 422 with its messages, and nothing changes", async () => {
    const t = await ecfTenant();
    const subtype = await t.subtype("E31", { end_number: 100 });
    const res = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: subtype,
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    await waitForStatus(t, `/invoices/${res.body.data.id}`, "accepted");
    // Rewind the sequence behind the API's back, as a hand-edited database would: DGII still knows number 1 was used.
    await ownerRow(sql`UPDATE document_subtypes SET next_number = 1 WHERE id = ${subtype} RETURNING id`);
    const refused = await t.tenant.api.post("/ecf/annulments", { document_subtype_id: subtype, from: 1, to: 3 });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.from).toEqual(["Las secuencias que está intentando anular han sido utilizadas: E310000000001."]);
    const after = await ownerRow<{ next: number; n: number }>(
      sql`SELECT next_number::int AS next, (SELECT count(*)::int FROM ecf_annulments WHERE tenant_id = ${t.tenant.tenantId}) AS n FROM document_subtypes WHERE id = ${subtype}`,
    );
    expect(after).toEqual({ next: 1, n: 0 });
  });

  it("annuls the e-NCF of an invoice DGII never received: the e-CF is annulled and never sent, the invoice cancelled, its stock back", async () => {
    const t = await ecfTenant();
    const subtype = await t.subtype("E31", { end_number: 100 });
    // DGII unreachable for this tenant: its e-CF stay pending, never received.
    await script(t.signer, { down: 1000 });
    const product = (await t.tenant.api.post("/products", { name: uniqueName("Cemento "), price: "500", track_inventory: true })).body.data;
    expect((await t.tenant.api.post("/inventory/initial-stock", { items: [{ product_id: product.id, quantity: "10", cost: "300" }] })).status).toBe(201);
    const issue = async () => {
      const res = await t.tenant.api.post("/invoices", {
        contact_id: t.contact.id,
        document_subtype_id: subtype,
        issue_date: today(),
        items: [{ product_id: product.id, quantity: "2", unit_price: "500", tax_ids: [t.ids.itbis18] }],
      });
      expect(res.status, res.text).toBe(201);
      return res.body.data as { id: number; document_number: string };
    };
    const first = await issue();
    await afterFirstAttempt(first.id);
    // DGII's 503 to the first made the company wait (issue 48): the second is not even attempted.
    const second = await issue();

    // DGII unreachable for the annulment too: 503, and nothing changes.
    const unreachable = await t.tenant.api.post("/ecf/annulments", { document_subtype_id: subtype, from: 1, to: 4 });
    expect(unreachable.status).toBe(503);
    expect((await t.tenant.api.get(`/invoices/${first.id}`)).body.data.status).toBe("pending_payment");

    // DGII is back (the e-CF's own retries are 30 s away): the annulment goes through.
    await script(t.signer, { down: 0 });
    const done = await t.tenant.api.post("/ecf/annulments", { document_subtype_id: subtype, from: 1, to: 4 });
    expect(done.status, done.text).toBe(201);
    expect(done.body.data).toMatchObject({ from: "E310000000001", to: "E310000000004", count: 4 });
    for (const invoice of [first, second]) {
      expect((await t.tenant.api.get(`/invoices/${invoice.id}`)).body.data.status).toBe("cancelled");
      expect((await t.tenant.api.get(`/invoices/${invoice.id}/ecf`)).body.data).toMatchObject({ status: "annulled", next_attempt_at: null });
    }
    const row = await ownerRow<{ id: number }>(sql`SELECT id FROM ecf_documents WHERE invoice_id = ${first.id}`);
    expect(await stepEcfDocument(env, { tenant_id: t.tenant.tenantId, ecf_id: row.id }, { now: new Date(Date.now() + 86_400_000) })).toEqual({
      outcome: "done",
      status: "annulled",
    });
    const quantity = await ownerRow<{ q: string }>(sql`SELECT quantity::text AS q FROM stock_levels WHERE product_id = ${product.id}`);
    expect(quantity.q).toBe("10.00");
    // The next number skips the annulled ones; nothing of the annulled pair ever reached DGII.
    expect((await issue()).document_number).toBe("E310000000005");
    expect((await received(t.signer)).map((r) => r.encf)).not.toContain("E310000000001");
  });
});
