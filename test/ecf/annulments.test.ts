import { describe, expect, it } from "vitest";
import { ownerRow, sql } from "../support/seed";
import { ecfTenant, fakeDgii, waitForStatus } from "./helpers";

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
        issue_date: "2026-11-23",
        items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
      });
      expect(res.status, res.text).toBe(201);
      return res.body.data as { id: number; document_number: string };
    };
    const first = await issue();
    await waitForStatus(t, `/invoices/${first.id}`, "accepted");

    const annul = (body: Record<string, unknown>) => t.tenant.api.post("/ecf/annulments", { document_subtype_id: subtype, ...body });
    const early = await annul({ from: 1, to: 5 });
    expect(early.status).toBe(422);
    expect(early.body.errors.from[0]).toMatch(/^The unused numbers of this sequence start at 2 \(E310000000002\)/);
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
    const sent = (await (await fetch(`${fakeDgii}/_control/annulments?signer=${encodeURIComponent(t.signer)}`)).json()) as { xml: string; errors: string[] }[];
    expect(sent).toHaveLength(1);
    expect(sent[0]!.errors).toEqual([]);
    expect(sent[0]!.xml).toContain("<SecuenciaeNCFDesde>E310000000002</SecuenciaeNCFDesde><SecuenciaeNCFHasta>E310000000011</SecuenciaeNCFHasta>");
    expect(sent[0]!.xml).toContain(`<RncEmisor>${t.rnc}</RncEmisor><CantidadeNCFAnulados>10</CantidadeNCFAnulados>`);

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
      issue_date: "2026-11-23",
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
});
