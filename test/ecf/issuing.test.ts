import { describe, expect, it } from "vitest";
import { atInstant, today } from "../support/dates";
import { ownerRow, seedWorkspace, sql } from "../support/seed";
import { ecfOf, ecfTenant, received, script, waitForStatus } from "./helpers";

/**
 * Issuing an e-CF (issue 18): numbered, built, signed inside the issuing transaction, stored byte
 * for byte, then sent to DGII (the fake, which checks the schema and the signature independently)
 * through ECF_QUEUE after the commit, and its result queried until final.
 */
describe("e-CF issuing: an E31 through HTTP", () => {
  it("signs the E31 in the issuing transaction, sends it after commit, and records DGII's acceptance", async () => {
    const t = await ecfTenant();
    const res = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [
        { product_id: t.service.id, description: "Consultoría fiscal & contable <noviembre>", quantity: "3", unit_price: "1500.5", tax_ids: [t.ids.itbis18] },
        { product_id: t.service.id, description: "Capacitación", quantity: "1", unit_price: "2000", tax_ids: [t.ids.exento] },
      ],
    });
    expect(res.status, res.text).toBe(201);
    const invoice = res.body.data;
    expect(invoice.document_number).toBe("E310000000001");
    // 3 × 1,500.50 = 4,501.50 + 18 % = 810.27; exempt 2,000.00 → 7,311.77.
    expect(invoice.total_amount).toBe("7311.77");

    // The signed XML exists as soon as the invoice does, and is what ecf.xml answers, byte for byte.
    const stored = await ownerRow<{ xml: string; security_code: string }>(sql`SELECT xml, security_code FROM ecf_documents WHERE invoice_id = ${invoice.id}`);
    const xml = await t.tenant.api.get(`/invoices/${invoice.id}/ecf.xml`);
    expect(xml.status).toBe(200);
    expect(xml.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(xml.text).toBe(stored.xml);
    expect(xml.text).toContain("<eNCF>E310000000001</eNCF>");
    expect(xml.text).toContain("<RNCComprador>");
    expect(xml.text).toContain("<NombreItem>Consultoría fiscal &amp; contable &lt;noviembre&gt;</NombreItem>");
    expect(xml.text).toContain("<MontoGravadoTotal>4501.50</MontoGravadoTotal>");
    expect(xml.text).toContain("<MontoExento>2000.00</MontoExento>");
    expect(xml.text).toContain("<TotalITBIS>810.27</TotalITBIS>");
    expect(xml.text).toContain("<MontoTotal>7311.77</MontoTotal>");
    const signatureValue = /<SignatureValue>([^<]+)<\/SignatureValue>/.exec(xml.text)![1]!;
    expect(stored.security_code).toBe(signatureValue.slice(0, 6));

    const accepted = await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    expect(accepted).toMatchObject({
      encf: "E310000000001",
      type: "31",
      status: "accepted",
      security_code: stored.security_code,
      dgii_messages: [],
      sequence_used: null,
      consumer_summary: false,
      total_amount: "7311.77",
      next_attempt_at: null,
      last_error: null,
    });
    expect(accepted.track_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(accepted.attempts).toBe(2);

    // DGII received it once, valid against e-CF-31.xsd with a signature its own verifier accepts.
    const got = await received(t.signer);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ kind: "ecf", encf: "E310000000001", fileName: `${t.rnc}E310000000001.xml`, errors: [], trackId: accepted.track_id });
    expect(got[0]!.xml).toBe(stored.xml);
  });

  it("numbers consecutive e-NCFs and refuses an E31 without a buyer's RNC, giving the number back", async () => {
    const t = await ecfTenant();
    const subtype = await t.subtype("E31");
    const body = (contactId: number) => ({
      contact_id: contactId,
      document_subtype_id: subtype,
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    const anonymous = (await t.tenant.api.post("/contacts", { name: "Consumidor final" })).body.data;
    const refused = await t.tenant.api.post("/invoices", body(anonymous.id));
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["contact_id"]);
    const first = await t.tenant.api.post("/invoices", body(t.contact.id));
    const second = await t.tenant.api.post("/invoices", body(t.contact.id));
    expect([first.body.data.document_number, second.body.data.document_number]).toEqual(["E310000000001", "E310000000002"]);
    const count = await ownerRow<{ n: number }>(sql`SELECT count(*)::int AS n FROM ecf_documents WHERE tenant_id = ${t.tenant.tenantId}`);
    expect(count.n).toBe(2);
    // More lines than DGII's 1,000 (the API's own limit is 500): 422 on items, no number taken.
    const long = await t.tenant.api.post("/invoices", {
      ...body(t.contact.id),
      items: Array.from({ length: 1001 }, () => ({ product_id: t.service.id, quantity: "1", unit_price: "1", tax_ids: [t.ids.itbis18] })),
    });
    expect(long.status).toBe(422);
    expect(Object.keys(long.body.errors)).toEqual(["items"]);
    expect((await t.tenant.api.get(`/document-subtypes/${subtype}`)).body.data.next_number).toBe(3);
  });

  it("an issued e-CF cannot be changed or deleted (409), and a B-series invoice has no e-CF (404)", async () => {
    const t = await ecfTenant();
    await script(t.signer, { results: ["accepted"] });
    const res = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    expect(res.status, res.text).toBe(201);
    const id = res.body.data.id;
    await waitForStatus(t, `/invoices/${id}`, "accepted");
    const patch = await t.tenant.api.patch(`/invoices/${id}`, { notes: "otra nota" });
    expect(patch.status).toBe(409);
    expect(patch.body.code).toBe("ecf_already_sent");
    const del = await t.tenant.api.delete(`/invoices/${id}`);
    expect(del.status).toBe(409);
    expect(del.body.code).toBe("ecf_already_sent");
    const b01 = await t.tenant.api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: t.ids.b01,
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    expect((await t.tenant.api.get(`/invoices/${b01.body.data.id}/ecf`)).status).toBe(404);
    expect((await ecfOf(t, `/invoices/${id}`)).status).toBe("accepted");
  });
});

describe("e-CF submissions: the operator's view", () => {
  it("lists the workspace's e-CF with DGII's state, filtered by status, type and date; another branch sees none", async () => {
    const t = await ecfTenant();
    await script(t.signer, { results: ["accepted", "rejected"] });
    const e31 = await t.subtype("E31");
    const issue = async () => {
      const res = await t.tenant.api.post("/invoices", {
        contact_id: t.contact.id,
        document_subtype_id: e31,
        issue_date: today(),
        items: [{ product_id: t.service.id, quantity: "2", unit_price: "50", tax_ids: [t.ids.itbis18] }],
      });
      expect(res.status, res.text).toBe(201);
      return res.body.data as { id: number; issue_date: string };
    };
    // The first issued a day earlier (an e-CF bears the day it is signed): the clock moved back for it.
    const { id: first, issue_date: firstDate } = await atInstant(Date.now() - 86_400_000, issue);
    await waitForStatus(t, `/invoices/${first}`, "accepted");
    const { id: second } = await issue();
    await waitForStatus(t, `/invoices/${second}`, "rejected");

    const all = await t.tenant.api.get("/ecf/submissions");
    expect(all.status, all.text).toBe(200);
    expect(all.body.meta.total).toBe(2);
    expect(all.body.data.map((s: { encf: string; status: string; document_id: number }) => [s.encf, s.status, s.document_id])).toEqual([
      ["E310000000002", "rejected", second],
      ["E310000000001", "accepted", first],
    ]);
    expect(all.body.data[1]).toMatchObject({ document_kind: "invoice", type: "31", issue_date: firstDate, total_amount: "118.00" });
    const rejected = await t.tenant.api.get("/ecf/submissions?filter[status]=rejected");
    expect(rejected.body.data.map((s: { encf: string }) => s.encf)).toEqual(["E310000000002"]);
    const early = await t.tenant.api.get(`/ecf/submissions?filter[issue_date_to]=${firstDate}&filter[type]=31`);
    expect(early.body.data.map((s: { encf: string }) => s.encf)).toEqual(["E310000000001"]);
    expect((await t.tenant.api.get("/ecf/submissions?filter[type]=32")).body.meta.total).toBe(0);
    expect((await t.tenant.api.get("/ecf/submissions?filter[status]=sent")).status).toBe(422);

    const other = await seedWorkspace(t.tenant);
    const elsewhere = await t.tenant.api.get("/ecf/submissions", { headers: { "x-workspace-id": String(other) } });
    expect(elsewhere.status, elsewhere.text).toBe(200);
    expect(elsewhere.body.meta.total).toBe(0);
    expect((await t.tenant.api.get(`/invoices/${first}/ecf`, { headers: { "x-workspace-id": String(other) } })).status).toBe(404);
  });
});
