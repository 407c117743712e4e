import { describe, expect, it, vi } from "vitest";
import { stepEcfDocument } from "../../src/jobs/ecf";
import type { EcfContingency } from "../../src/modules/ecf/schemas";
import type { Report607 } from "../../src/modules/reports/schemas";
import type { Data, DataWithMessage } from "../support/api";
import { daysFromToday, dmy, today } from "../support/dates";
import { env } from "../support/env";
import { createContact } from "../support/sales";
import { ownerRows, seedTenant, seedUser, seedWorkspace, sql } from "../support/seed";
import { createProduct, expectStockInvariant, initialStock, levelOf } from "../support/stock";
import { ecfOf, ecfRow, ecfTenant, fakeDgii, issueE31, received, waitForStatus } from "./helpers";

/**
 * Contingency, total or per branch (issue 33; Ley 32-23 art. 21): the admin opens and closes it,
 * each is listed with its period; while one covers a branch its e-CF are issued and signed and
 * held (no attempt, no backoff) until it closes (a total one closing by itself when DGII's status
 * service reports reception available again is tested in dgii-status.test.ts, the one file that
 * scripts DGII's status, which every test file shares); paper B-series entered as replacements.
 */

const apiTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe("opening, listing and closing contingencies", () => {
  it("opens per branch or total, refuses overlaps (409 contingency_overlap), lists each with its period and closes it once", async () => {
    const t = { tenant: await seedTenant() };
    const api = t.tenant.api;
    const main = t.tenant.workspaceId;
    const other = await seedWorkspace(t.tenant);
    const third = await seedWorkspace(t.tenant);

    const opened = await api.post<DataWithMessage<EcfContingency>>("/ecf/contingency", { scope: "branches", workspace_ids: [main], reason: "Sin internet" });
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.data).toEqual({
      id: expect.any(Number),
      scope: "branches",
      workspace_ids: [main],
      reason: "Sin internet",
      open: true,
      opened_at: expect.stringMatching(apiTime),
      opened_by: t.tenant.admin.id,
      closed_at: null,
      closed_by: null,
      closed_how: null,
    });
    const first = opened.body.data.id;

    // The same branch again, with another, or a total one: 409, naming the open one.
    const again = await api.post("/ecf/contingency", { scope: "branches", workspace_ids: [other, main], reason: "Otra" });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("contingency_overlap");
    expect(again.body.message).toContain(`Contingency #${first}`);
    expect(again.body.message).toContain(`covers branch ${main}.`);
    const total = await api.post("/ecf/contingency", { scope: "total", reason: "DGII caído" });
    expect([total.status, total.body.code]).toEqual([409, "contingency_overlap"]);

    // Another branch is fine.
    const second = await api.post<DataWithMessage<EcfContingency>>("/ecf/contingency", { scope: "branches", workspace_ids: [other, other], reason: "Apagón" });
    expect(second.status, second.text).toBe(201);
    expect(second.body.data.workspace_ids).toEqual([other]);

    // Refused bodies: a branch scope without branches, a total one naming some, a workspace of no one.
    for (const [body, field] of [
      [{ scope: "branches", reason: "x" }, "workspace_ids"],
      [{ scope: "total", workspace_ids: [third], reason: "x" }, "workspace_ids"],
      [{ scope: "branches", workspace_ids: [2147483000], reason: "x" }, "workspace_ids"],
      [{ scope: "branches", workspace_ids: [third], reason: "  " }, "reason"],
    ] as const) {
      const res = await api.post("/ecf/contingency", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }

    // Closed by DELETE: who and how; a second close is 409; an unknown one 404.
    const closed = await api.delete<DataWithMessage<EcfContingency>>(`/ecf/contingency/${first}`);
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body.message).toBe("Contingency closed: 0 e-CF held are sent to DGII now.");
    expect(closed.body.data).toMatchObject({
      id: first,
      open: false,
      closed_by: t.tenant.admin.id,
      closed_how: "manual",
      closed_at: expect.stringMatching(apiTime),
    });
    expect((await api.delete(`/ecf/contingency/${first}`)).body.code).toBe("contingency_closed");
    expect((await api.delete("/ecf/contingency/2147483000")).status).toBe(404);

    // The branch may be in contingency again: a new period.
    expect((await api.post("/ecf/contingency", { scope: "branches", workspace_ids: [main], reason: "Otra vez" })).status).toBe(201);

    const list = await api.get<Data<EcfContingency[]>>("/ecf/contingency");
    expect(list.status).toBe(200);
    expect(list.body.data.map((c) => [c.reason, c.open, c.closed_how])).toEqual([
      ["Otra vez", true, null],
      ["Apagón", true, null],
      ["Sin internet", false, "manual"],
    ]);

    // Another tenant sees none of them and cannot close them; a member without ecf:manage cannot open one.
    const stranger = await seedTenant();
    expect((await stranger.api.get<Data<EcfContingency[]>>("/ecf/contingency")).body.data).toEqual([]);
    expect((await stranger.api.delete(`/ecf/contingency/${second.body.data.id}`)).status).toBe(404);
    const member = await seedUser(t.tenant, { role: "member", workspaceIds: [main] });
    expect((await member.api.post("/ecf/contingency", { scope: "total", reason: "x" })).status).toBe(403);
    expect((await member.api.get("/ecf/contingency")).status).toBe(403);
  });
});

describe("e-CF of a branch in contingency", () => {
  it("are issued and signed, held without spending an attempt, and sent once the contingency closes; another branch's are sent meanwhile", async () => {
    const t = await ecfTenant();
    const api = t.tenant.api;
    const other = await seedWorkspace(t.tenant);
    const opened = await api.post<DataWithMessage<EcfContingency>>("/ecf/contingency", {
      scope: "branches",
      workspace_ids: [t.tenant.workspaceId],
      reason: "Sin enlace",
    });
    const id = opened.body.data.id;

    const invoice = await issueE31(t);
    // Signed at once: the customer's printed representation has its security code and QR.
    const view = await ecfOf(t, `/invoices/${invoice.id}`);
    expect(view).toMatchObject({ encf: "E310000000001", status: "pending", security_code: expect.stringMatching(/^[0-9A-Za-z+/=]{6}$/) });
    expect(view.qr_url).toContain("E310000000001");
    // The queue's own first step finds it held.
    const held = await vi.waitFor(
      async () => {
        const row = await ecfRow(invoice.id);
        expect(row.last_error).toBe(`Paused: held by contingency #${id} until it closes.`);
        return row;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(held).toMatchObject({ status: "pending", attempts: 0 });
    // Looked at again hours later: still held, still no attempt, nothing sent, no backoff grown (an hour each time).
    // An outage clock started before the contingency (DGII unreachable for 30 hours) is cleared: after the close it starts again, not failed at once.
    await ownerRows(sql`UPDATE ecf_documents SET unreachable_since = now() - interval '30 hours' WHERE id = ${held.id}`);
    const ref = { tenant_id: t.tenant.tenantId, ecf_id: held.id };
    const later = new Date(Date.now() + 5 * 3_600_000);
    expect(await stepEcfDocument(env, ref, { now: later })).toEqual({ outcome: "paused", status: "pending", retryInSeconds: 3600 });
    expect(await ecfRow(invoice.id)).toMatchObject({ attempts: 0, unreachable_since: null, next_attempt_at: new Date(later.getTime() + 3_600_000) });

    // The other branch is not in contingency: its e-CF goes to DGII.
    const otherApi = api.as(t.tenant.admin.token, { headers: { "x-workspace-id": String(other) } });
    const issued = await otherApi.post("/invoices", {
      contact_id: (await createContact(otherApi)).id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    expect(issued.status, issued.text).toBe(201);
    const elsewhere = issued.body.data as { id: number; document_number: string };
    await waitForStatus(t, `/invoices/${elsewhere.id}`, "accepted", 20_000, otherApi);
    expect((await received(t.signer)).map((r) => r.encf)).toEqual([elsewhere.document_number]);

    // Closed: the held e-CF is due now and sent once, its one attempt.
    const closed = await api.delete<DataWithMessage<EcfContingency>>(`/ecf/contingency/${id}`);
    expect(closed.body.message).toBe("Contingency closed: 1 e-CF held are sent to DGII now.");
    const accepted = await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    expect(accepted.attempts).toBe(2);
    expect((await received(t.signer)).map((r) => r.encf).sort()).toEqual(["E310000000001", "E310000000002"]);
  });
});

/** What the fake DGII's libxml2 says of an XML against DGII's own schema (xsd-strict). */
async function schemaErrors(xml: string, xsd: string): Promise<string[]> {
  const res = await fetch(`${fakeDgii}/_control/verify`, { method: "POST", body: JSON.stringify({ xml, xsd }) });
  expect(res.status).toBe(200);
  const verdict = (await res.json()) as { signature: boolean; schemaErrors: string[] };
  expect(verdict.signature).toBe(true);
  return verdict.schemaErrors;
}

describe("paper B-series replaced by e-CF after a branch's contingency", () => {
  it("B01 and B02 of the branch's contingency ranges entered as E31 and E32: InformacionReferencia code 4, DGII's schema, stock moved once, each once in the 607", async () => {
    const t = await ecfTenant();
    const api = t.tenant.api;
    const branch = t.tenant.workspaceId;
    const other = await seedWorkspace(t.tenant);
    const product = await createProduct(api, { price: "500.00" });
    await initialStock(api, [{ product_id: product.id, quantity: "10" }]);
    const contingency = await api.post("/ecf/contingency", { scope: "branches", workspace_ids: [branch], reason: "Sistema caído" });
    expect(contingency.status).toBe(201);

    // The paper ranges kept for the branch's contingency.
    const paperRange = async (prefix: string, body: Record<string, unknown> = {}) =>
      api.post("/document-subtypes", {
        name: `${prefix} contingencia`,
        type: "invoice",
        prefix,
        // Above the demo ranges (1-5,000) the seed gives each type.
        start_number: 6001,
        end_number: 6050,
        valid_until: "2027-12-31",
        contingency_workspace_id: branch,
        ...body,
      });
    const b01 = await paperRange("B01");
    expect(b01.status, b01.text).toBe(201);
    expect(b01.body.data).toMatchObject({ prefix: "B01", contingency_workspace_id: branch, is_default: false, next_number: 6001 });
    expect((await paperRange("B02")).status).toBe(201);
    // Only paper sales types, never the default, of an existing branch.
    expect(Object.keys((await paperRange("E31")).body.errors)).toEqual(["contingency_workspace_id"]);
    expect(Object.keys((await paperRange("B16", { start_number: 100, end_number: 150, is_default: true })).body.errors)).toEqual(["is_default"]);
    expect(Object.keys((await paperRange("B15", { contingency_workspace_id: 2147483000 })).body.errors)).toEqual(["contingency_workspace_id"]);
    // Sucursal never numbers from a paper contingency range.
    const numbered = await api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: b01.body.data.id,
      issue_date: "2026-11-23",
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    expect(numbered.status).toBe(422);
    expect(numbered.body.errors.document_subtype_id[0]).toMatch(/^This is a paper contingency range/);

    // The paper sales were made yesterday; a replacement bears its paper's date (src/modules/ecf/dating.ts).
    const paperDay = daysFromToday(-1);
    const replacement = async (prefix: string, replaces: { ncf: string; issue_date?: string }, extra: Record<string, unknown> = {}, client = api) =>
      client.post("/invoices", {
        contact_id: t.contact.id,
        document_subtype_id: await t.subtype(prefix),
        issue_date: replaces.issue_date ?? paperDay,
        items: [{ product_id: product.id, quantity: "2", unit_price: "500", tax_ids: [t.ids.itbis18] }],
        replaces,
        ...extra,
      });
    const e31 = await replacement("E31", { ncf: "b0100006003", issue_date: paperDay });
    expect(e31.status, e31.text).toBe(201);
    expect(e31.body.data).toMatchObject({ document_number: "E310000000001", total_amount: "1180.00", issue_date: paperDay });
    expect((await api.get(`/invoices/${e31.body.data.id}`)).body.data.replaces).toEqual({ ncf: "B0100006003", issue_date: paperDay });
    const e32 = await replacement(
      "E32",
      { ncf: "B0200006007", issue_date: paperDay },
      {
        items: [{ product_id: product.id, quantity: "1", unit_price: "500", tax_ids: [t.ids.itbis18] }],
      },
    );
    expect(e32.status, e32.text).toBe(201);
    expect(e32.body.data).toMatchObject({ document_number: "E320000000001", total_amount: "590.00" });
    expect((await api.get(`/invoices/${e32.body.data.id}`)).body.data.replaces).toEqual({ ncf: "B0200006007", issue_date: paperDay });

    // The signed XML names the paper NCF, its date and code 4, and DGII's schema takes it.
    for (const [invoice, type, ncf, date] of [
      [e31.body.data, "31", "B0100006003", dmy(paperDay)],
      [e32.body.data, "32", "B0200006007", dmy(paperDay)],
    ] as const) {
      const xml = (await api.get(`/invoices/${invoice.id}/ecf.xml`)).text;
      expect(xml).toContain(
        `<InformacionReferencia><NCFModificado>${ncf}</NCFModificado><FechaNCFModificado>${date}</FechaNCFModificado><CodigoModificacion>4</CodigoModificacion></InformacionReferencia>`,
      );
      expect(await schemaErrors(xml, `e-CF-${type}.xsd`)).toEqual([]);
    }

    // Stock moved once: 2 + 1 sold of 10, by the replacements (the paper sales never reached Sucursal).
    expect(await levelOf(product.id, branch)).toBe("7.00");
    await expectStockInvariant(t.tenant.tenantId);

    // Refusals: a paper NCF replaced already, outside the range, of another type, of another branch, on a B subtype, dated tomorrow, as a draft.
    const again = await replacement("E31", { ncf: "B0100006003", issue_date: paperDay });
    expect([again.status, again.body.code, again.body.message]).toEqual([409, "contingency_ncf_used", "B0100006003 was replaced already, by E310000000001."]);
    const refusals: [string, { ncf: string; issue_date?: string }, Record<string, unknown>, string, string][] = [
      ["E31", { ncf: "B0100006051", issue_date: paperDay }, {}, "replaces.ncf", "B0100006051 is not in this branch's contingency range of B01."],
      [
        "E31",
        { ncf: "B0200006008", issue_date: paperDay },
        {},
        "replaces.ncf",
        "A B02 is replaced by an E32 (Formato e-CF v1.0: the replaced NCF's type is the equivalent of the e-CF's); this invoice's subtype is E31.",
      ],
      [
        "E31",
        { ncf: "B0100006004", issue_date: daysFromToday(1) },
        {},
        "replaces.issue_date",
        `The paper NCF's date cannot be in the future (today is ${today()} in the Dominican Republic).`,
      ],
      ["E31", { ncf: "B0100006004", issue_date: paperDay }, { draft: true }, "replaces", "A contingency replacement is issued at once, never a draft."],
      ["E31", { ncf: "B0100006004" }, {}, "replaces.issue_date", ""],
    ];
    for (const [prefix, replaces, extra, field, message] of refusals) {
      const res = await replacement(prefix, replaces, extra);
      expect(res.status, JSON.stringify(replaces)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([field]);
      if (message) expect(res.body.errors[field]).toEqual([message]);
    }
    const paperSubtype = await api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: b01.body.data.id,
      issue_date: paperDay,
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
      replaces: { ncf: "B0100006004", issue_date: paperDay },
    });
    expect(paperSubtype.status).toBe(422);
    // Another branch has no contingency range: its paper NCF are not this branch's.
    const otherApi = api.as(t.tenant.admin.token, { headers: { "x-workspace-id": String(other) } });
    const elsewhere = await otherApi.post("/invoices", {
      contact_id: (await createContact(otherApi)).id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: paperDay,
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
      replaces: { ncf: "B0100006004", issue_date: paperDay },
    });
    expect([elsewhere.status, elsewhere.body.errors["replaces.ncf"]]).toEqual([422, ["B0100006004 is not in this branch's contingency range of B01."]]);
    // Two entries of one paper NCF at once: one replacement, the other 409 as above.
    const racing = await Promise.all(
      [0, 1].map(() =>
        replacement(
          "E31",
          { ncf: "B0100006010", issue_date: paperDay },
          { items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }] },
        ),
      ),
    );
    expect(racing.map((res) => res.status).sort()).toEqual([201, 409]);
    expect(racing.find((res) => res.status === 409)!.body.code).toBe("contingency_ncf_used");
    // Nothing refused moved stock or took a number.
    expect(await levelOf(product.id, branch)).toBe("7.00");

    // The 607 (with e-CF): each E31 once, naming the paper NCF it replaced; the E32 once in the consumer summary; no paper NCF row.
    // In the period of the paper sales: a replacement bears their date.
    const report = await api.get<Report607>(`/reports/607?period=${paperDay.slice(0, 7).replace("-", "")}&format=json&include_ecf=true`);
    expect(report.status, report.text).toBe(200);
    expect(report.body.rows.map((row) => [row.ncf, row.modified_ncf, row.issue_date, row.amount, row.itbis_invoiced])).toEqual([
      ["E310000000001", "B0100006003", paperDay.replace(/-/g, ""), "1000.00", "180.00"],
      ["E310000000002", "B0100006010", paperDay.replace(/-/g, ""), "100.00", "18.00"],
    ]);
    expect(report.body.consumer_summary).toMatchObject({ count: "1", amount: "500.00", itbis_invoiced: "90.00" });

    // Paper notes written in contingency (issue 43): a B04 and a B03 on the paper B01 the E31
    // replaced, entered as the E34 and E33 that replace them, on that invoice.
    expect((await paperRange("B04", { type: "credit_note" })).status).toBe(201);
    expect((await paperRange("B03", { type: "debit_note" })).status).toBe(201);
    // A replacement bears its paper's date (src/modules/ecf/dating.ts): the B04 was written today, the B03 the day of the sales.
    const paperNote = (kind: "credit-notes" | "debit-notes", prefix: string, replaces: { ncf: string; issue_date: string }) => async () =>
      api.post(`/invoices/${e31.body.data.id}/${kind}`, {
        document_subtype_id: await t.subtype(prefix),
        issue_date: replaces.issue_date,
        modification_code: 3,
        reason: "Descuento acordado en contingencia",
        items: [{ description: "Descuento", amount: "100.00", tax_ids: [t.ids.itbis18] }],
        replaces,
      });
    const noteDay = today();
    const e34 = await paperNote("credit-notes", "E34", { ncf: "B0400006001", issue_date: noteDay })();
    expect(e34.status, e34.text).toBe(201);
    expect(e34.body.data).toMatchObject({
      document_number: "E340000000001",
      issue_date: noteDay,
      modified_ncf: "E310000000001",
      total_amount: "118.00",
      replaces: { ncf: "B0400006001", issue_date: noteDay },
    });
    const e33 = await paperNote("debit-notes", "E33", { ncf: "B0300006001", issue_date: paperDay })();
    expect(e33.status, e33.text).toBe(201);
    expect(e33.body.data).toMatchObject({ document_number: "E330000000001", replaces: { ncf: "B0300006001", issue_date: paperDay } });
    // The contingency closed, each e-CF goes: it names its paper note with code 4 and the reason; DGII's schema (here and at the fake DGII, which accepts them) takes it.
    expect((await api.delete(`/ecf/contingency/${contingency.body.data.id}`)).status).toBe(200);
    for (const [path, type, ncf, date] of [
      [`/credit-notes/${e34.body.data.id}`, "34", "B0400006001", noteDay],
      [`/debit-notes/${e33.body.data.id}`, "33", "B0300006001", paperDay],
    ] as const) {
      const xml = (await api.get(`${path}/ecf.xml`)).text;
      expect(xml).toContain(
        `<InformacionReferencia><NCFModificado>${ncf}</NCFModificado><FechaNCFModificado>${dmy(date)}</FechaNCFModificado><CodigoModificacion>4</CodigoModificacion><RazonModificacion>Descuento acordado en contingencia</RazonModificacion></InformacionReferencia>`,
      );
      expect(await schemaErrors(xml, `e-CF-${type}.xsd`)).toEqual([]);
      expect(await waitForStatus(t, path, "accepted")).toMatchObject({ dgii_messages: [] });
      const [signed] = (await api.get(`${path}/ecf`)).body.data.timeline;
      expect(signed.cause).toBe(`Issued by ${signed.by.name}, replacing the paper NCF ${ncf} of ${date}, written during a contingency.`);
    }
    // Each once, without errors. Released together when the contingency closes, they are sent by
    // queue steps that run side by side: the order they reach DGII in is not one we set.
    const notesAtDgii = (await received(t.signer)).filter((r) => r.encf.startsWith("E33") || r.encf.startsWith("E34"));
    expect(notesAtDgii.map((r) => [r.encf, r.errors]).sort()).toEqual([
      ["E330000000001", []],
      ["E340000000001", []],
    ]);
    // Refusals: a paper note replaced already, of the other kind, dated before the paper invoice, a paper invoice's NCF.
    const noteAgain = await paperNote("credit-notes", "E34", { ncf: "B0400006001", issue_date: noteDay })();
    expect([noteAgain.status, noteAgain.body.code, noteAgain.body.message]).toEqual([
      409,
      "contingency_ncf_used",
      "B0400006001 was replaced already, by E340000000001.",
    ]);
    for (const [replaces, field, message] of [
      [
        { ncf: "B0300006002", issue_date: noteDay },
        "replaces.ncf",
        "A B03 is replaced by an E33 (Formato e-CF v1.0: the replaced NCF's type is the equivalent of the e-CF's); this note's subtype is E34.",
      ],
      [{ ncf: "B0400006002", issue_date: daysFromToday(-2) }, "issue_date", `A note cannot precede the invoice it modifies (${paperDay}).`],
      [{ ncf: "B0100006020", issue_date: noteDay }, "replaces.ncf", "A paper note's NCF: B03 (debit) or B04 (credit) and 8 digits."],
    ] as const) {
      const res = await paperNote("credit-notes", "E34", replaces)();
      expect(res.status, JSON.stringify(replaces)).toBe(422);
      expect(res.body.errors).toEqual({ [field]: [message] });
    }
  });
});
