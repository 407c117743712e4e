import { beforeAll, describe, expect, it } from "vitest";
import { addDays, dominicanToday } from "../../src/lib/dates";
import { atInstant, dmy } from "../support/dates";
import { type EcfTenant, ecfTenant } from "./helpers";

/**
 * The date an e-CF bears (issue 41; docs/fiscal.md, "The date of an e-CF";
 * src/modules/ecf/dating.ts): the Dominican day it is signed, except a deferred sale (its own day,
 * within DGII's 24 hours) and a contingency replacement (the paper's day); never before DGII
 * authorized the numbers. Each rule at its edges, through HTTP, the clock driven (frozen at an
 * instant of the test's choosing, in the test and the Worker: one isolate), never slept.
 */

const HOUR = 3_600_000;
const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? null;

let t: EcfTenant;
/** Today in Santo Domingo when the file starts; its midnight (00:00 at UTC−4) and the day before. */
let today: string;
let yesterday: string;
let midnight: number;

beforeAll(async () => {
  t = await ecfTenant();
  today = dominicanToday();
  yesterday = addDays(today, -1);
  // 00:00 in Santo Domingo is 04:00 UTC: always in the past, and after the certificate's notBefore (a day back).
  midnight = Date.parse(`${today}T04:00:00Z`);
});

/** A POST /invoices body of one taxed service line to the tenant's buyer. */
const sale = (subtypeId: number, issueDate: string, extra: Record<string, unknown> = {}) => ({
  contact_id: t.contact.id,
  document_subtype_id: subtypeId,
  issue_date: issueDate,
  items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
  ...extra,
});

const refusedOn = (res: { status: number; body: { errors?: Record<string, string[]> } }) => [res.status, Object.keys(res.body.errors ?? {})];

describe("an e-CF issued now bears the day it is signed, in Santo Domingo", () => {
  it("at 23:59:59 only that day is taken, at 00:00:00 only the next: yesterday and tomorrow are 422 on issue_date, no number spent", async () => {
    const e31 = await t.subtype("E31");
    const lastSecond = await atInstant(midnight - 1000, async () => {
      const tomorrow = await t.tenant.api.post("/invoices", sale(e31, today));
      expect(tomorrow.status, tomorrow.text).toBe(422);
      expect(tomorrow.body.errors).toEqual({
        issue_date: [
          `An e-CF is dated the day it is issued and signed: ${yesterday} in the Dominican Republic (Formato e-CF v1.0, FechaEmision), not ${today}.`,
        ],
      });
      expect(refusedOn(await t.tenant.api.post("/invoices", sale(e31, addDays(yesterday, -1))))).toEqual([422, ["issue_date"]]);
      // 45 days back and 5 ahead (issue 41's findings): the same refusal.
      expect(refusedOn(await t.tenant.api.post("/invoices", sale(e31, addDays(yesterday, -45))))).toEqual([422, ["issue_date"]]);
      expect(refusedOn(await t.tenant.api.post("/invoices", sale(e31, addDays(yesterday, 5))))).toEqual([422, ["issue_date"]]);
      const res = await t.tenant.api.post("/invoices", sale(e31, yesterday));
      expect(res.status, res.text).toBe(201);
      return res.body.data as { id: number; document_number: string; issue_date: string };
    });
    // The refused took no number.
    expect(lastSecond).toMatchObject({ document_number: "E310000000001", issue_date: yesterday });
    const xml = (await t.tenant.api.get(`/invoices/${lastSecond.id}/ecf.xml`)).text;
    expect(tag(xml, "FechaEmision")).toBe(dmy(yesterday));
    expect(tag(xml, "FechaHoraFirma")).toBe(`${dmy(yesterday)} 23:59:59`);

    const firstSecond = await atInstant(midnight, async () => {
      expect(refusedOn(await t.tenant.api.post("/invoices", sale(e31, yesterday)))).toEqual([422, ["issue_date"]]);
      expect(refusedOn(await t.tenant.api.post("/invoices", sale(e31, addDays(today, 1))))).toEqual([422, ["issue_date"]]);
      const res = await t.tenant.api.post("/invoices", sale(e31, today));
      expect(res.status, res.text).toBe(201);
      return res.body.data as { id: number; document_number: string; issue_date: string };
    });
    expect(firstSecond).toMatchObject({ document_number: "E310000000002", issue_date: today });
    expect(tag((await t.tenant.api.get(`/invoices/${firstSecond.id}/ecf.xml`)).text, "FechaHoraFirma")).toBe(`${dmy(today)} 00:00:00`);
  });

  it("never before DGII authorized the sequence: the day before its authorized_at is 422, the day itself is issued", async () => {
    const e32 = await t.subtype("E32", { authorized_at: today });
    const before = await atInstant(midnight - 1000, () => t.tenant.api.post("/invoices", sale(e32, yesterday)));
    expect(before.status, before.text).toBe(422);
    expect(before.body.errors).toEqual({
      issue_date: [`This e-NCF sequence was authorized by DGII on ${today}: a document of it cannot be dated ${yesterday}, before that.`],
    });
    const onTheDay = await atInstant(midnight, () => t.tenant.api.post("/invoices", sale(e32, today)));
    expect(onTheDay.status, onTheDay.text).toBe(201);
    expect(onTheDay.body.data).toMatchObject({ document_number: "E320000000001", issue_date: today });
  });

  it("a draft is issued today whatever its own date; a note (E33, E34) is dated today", async () => {
    const e31 = await t.subtype("E31");
    const draft = await t.tenant.api.post("/invoices", sale(e31, addDays(today, -10), { draft: true }));
    expect(draft.status, draft.text).toBe(201);
    expect(refusedOn(await t.tenant.api.post(`/invoices/${draft.body.data.id}/issue`, { issue_date: addDays(today, -10) }))).toEqual([422, ["issue_date"]]);
    expect(refusedOn(await t.tenant.api.post(`/invoices/${draft.body.data.id}/issue`, { issue_date: addDays(today, 1) }))).toEqual([422, ["issue_date"]]);
    const issued = await t.tenant.api.post(`/invoices/${draft.body.data.id}/issue`, {});
    expect(issued.status, issued.text).toBe(200);
    expect(issued.body.data.issue_date).toBe(today);

    // A note on an invoice of yesterday: dated yesterday, it would be an e-CF of another day.
    const invoice = await atInstant(midnight - 1000, () => t.tenant.api.post("/invoices", sale(e31, yesterday)));
    expect(invoice.status, invoice.text).toBe(201);
    const note = (kind: "credit" | "debit", body: Record<string, unknown>) =>
      t.tenant.api.post(`/invoices/${invoice.body.data.id}/${kind}-notes`, {
        modification_code: 3,
        reason: "Ajuste",
        items: [{ description: "Ajuste", amount: "10", tax_ids: [t.ids.itbis18] }],
        ...body,
      });
    const e34 = await t.subtype("E34");
    const e33 = await t.subtype("E33");
    expect(refusedOn(await note("credit", { document_subtype_id: e34, issue_date: yesterday }))).toEqual([422, ["issue_date"]]);
    expect(refusedOn(await note("debit", { document_subtype_id: e33, issue_date: addDays(today, 1) }))).toEqual([422, ["issue_date"]]);
    const credit = await note("credit", { document_subtype_id: e34 });
    expect(credit.status, credit.text).toBe(201);
    expect(credit.body.data).toMatchObject({ document_number: "E340000000001", issue_date: today, modified_ncf: invoice.body.data.document_number });
    const debit = await note("debit", { document_subtype_id: e33, issue_date: today });
    expect(debit.status, debit.text).toBe(201);
    expect(debit.body.data).toMatchObject({ document_number: "E330000000001", issue_date: today });
  });

  it("a purchase's own e-CF (E43) is dated today; its draft entered later takes today's date", async () => {
    const e43 = await t.subtype("E43");
    const body = (issueDate: string, extra: Record<string, unknown> = {}) => ({
      self_issued_subtype_id: e43,
      issue_date: issueDate,
      expense_type: "02",
      items: [{ description: "Peaje", quantity: "2", unit_cost: "100", tax_ids: [t.ids.exento] }],
      ...extra,
    });
    expect(refusedOn(await t.tenant.api.post("/purchases", body(yesterday)))).toEqual([422, ["issue_date"]]);
    expect(refusedOn(await t.tenant.api.post("/purchases", body(addDays(today, 1))))).toEqual([422, ["issue_date"]]);
    const draft = await t.tenant.api.post("/purchases", body(addDays(today, -7), { status: "draft" }));
    expect(draft.status, draft.text).toBe(201);
    const entered = await t.tenant.api.post(`/purchases/${draft.body.data.id}/enter`);
    expect(entered.status, entered.text).toBe(200);
    expect(entered.body.data).toMatchObject({ ncf: "E430000000001", issue_date: today, total_amount: "200.00" });
    expect(tag((await t.tenant.api.get(`/purchases/${draft.body.data.id}/ecf.xml`)).text, "FechaEmision")).toBe(dmy(today));
    const now = await t.tenant.api.post("/purchases", body(today));
    expect(now.status, now.text).toBe(201);
    expect(now.body.data).toMatchObject({ ncf: "E430000000002", issue_date: today });
  });
});

describe("the exceptions DGII names", () => {
  it("deferred sending: a sale of 24 hours ago is taken, a second more is past DGII's window; the sale's day is before the sequence's authorization: 422", async () => {
    expect((await t.tenant.api.put("/ecf/settings", { deferred_sending_authorization: "DGII-ED-2026-000411" })).status).toBe(200);
    const e31 = await t.subtype("E31");
    const now = Math.floor(Date.now() / 1000) * 1000;
    const offline = (at: number) => new Date(at).toISOString();
    await atInstant(now, async () => {
      const late = await t.tenant.api.post(
        "/invoices",
        sale(e31, dominicanToday(new Date(now - 24 * HOUR - 1000)), { offline_issued_at: offline(now - 24 * HOUR - 1000) }),
      );
      expect(late.status, late.text).toBe(422);
      expect(late.body.errors).toEqual({
        offline_issued_at: [
          `DGII must receive a deferred e-CF within 24 hours of the sale (CA5197): a sale made before ${offline(now - 24 * HOUR)} is past its window.`,
        ],
      });
      const edge = await t.tenant.api.post("/invoices", sale(e31, dominicanToday(new Date(now - 24 * HOUR)), { offline_issued_at: offline(now - 24 * HOUR) }));
      expect(edge.status, edge.text).toBe(201);
      expect(edge.body.data.issue_date).toBe(dominicanToday(new Date(now - 24 * HOUR)));
    });
    // The E32 sequence was authorized today: a sale at 23:59:59 yesterday cannot bear its numbers; one at 00:00:00 can.
    const e32 = await t.subtype("E32", { authorized_at: today });
    await atInstant(midnight + 1000, async () => {
      const before = await t.tenant.api.post("/invoices", sale(e32, yesterday, { offline_issued_at: offline(midnight - 1000) }));
      expect(before.status, before.text).toBe(422);
      expect(Object.keys(before.body.errors)).toEqual(["issue_date"]);
      expect(before.body.errors.issue_date[0]).toContain(`authorized by DGII on ${today}`);
      const onTheDay = await t.tenant.api.post("/invoices", sale(e32, today, { offline_issued_at: offline(midnight) }));
      expect(onTheDay.status, onTheDay.text).toBe(201);
      expect(onTheDay.body.data.issue_date).toBe(today);
    });
    expect((await t.tenant.api.put("/ecf/settings", { deferred_sending_authorization: null })).status).toBe(200);
  });

  it("a contingency replacement bears its paper's date: on or after the paper range's authorization, not after today; issue_date must repeat it", async () => {
    const authorized = addDays(today, -3);
    const range = await t.tenant.api.post("/document-subtypes", {
      name: "B01 contingencia fechas",
      type: "invoice",
      prefix: "B01",
      start_number: 7001,
      end_number: 7050,
      valid_until: "2027-12-31",
      authorized_at: authorized,
      contingency_workspace_id: t.tenant.workspaceId,
    });
    expect(range.status, range.text).toBe(201);
    const e31 = await t.subtype("E31");
    const replace = (ncf: string, paperDate: string, issueDate = paperDate) =>
      t.tenant.api.post("/invoices", sale(e31, issueDate, { replaces: { ncf, issue_date: paperDate } }));

    const before = await replace("B0100007001", addDays(authorized, -1));
    expect(before.status, before.text).toBe(422);
    expect(before.body.errors).toEqual({
      "replaces.issue_date": [
        `The paper contingency range was authorized by DGII on ${authorized}: a document of it cannot be dated ${addDays(authorized, -1)}, before that.`,
      ],
    });
    // Issue 41's finding: a paper dated 1900-01-01.
    expect(refusedOn(await replace("B0100007001", "1900-01-01"))).toEqual([422, ["replaces.issue_date"]]);
    const moved = await replace("B0100007001", authorized, today);
    expect(moved.status, moved.text).toBe(422);
    expect(moved.body.errors).toEqual({
      issue_date: [`A contingency replacement bears the paper NCF's date, the day of the sale: ${authorized} (replaces.issue_date), not ${today}.`],
    });
    const onTheDay = await replace("B0100007001", authorized);
    expect(onTheDay.status, onTheDay.text).toBe(201);
    expect(onTheDay.body.data.issue_date).toBe(authorized);
    expect((await t.tenant.api.get(`/invoices/${onTheDay.body.data.id}`)).body.data.replaces).toEqual({ ncf: "B0100007001", issue_date: authorized });
    // The list (its page built by Postgres) shows the same.
    const listed = await t.tenant.api.get(`/invoices?filter[issue_date]=${authorized}`);
    expect(listed.body.data.find((i: { id: number }) => i.id === onTheDay.body.data.id)?.replaces).toEqual({ ncf: "B0100007001", issue_date: authorized });
    const xml = (await t.tenant.api.get(`/invoices/${onTheDay.body.data.id}/ecf.xml`)).text;
    expect(tag(xml, "FechaEmision")).toBe(dmy(authorized));
    expect(tag(xml, "FechaNCFModificado")).toBe(dmy(authorized));

    // Not after today, around midnight: at 23:59:59 today's paper is tomorrow's; at 00:00:00 it is taken.
    await atInstant(midnight - 1000, async () => {
      const tomorrow = await replace("B0100007002", today);
      expect(tomorrow.status, tomorrow.text).toBe(422);
      expect(tomorrow.body.errors).toEqual({
        "replaces.issue_date": [`The paper NCF's date cannot be in the future (today is ${yesterday} in the Dominican Republic).`],
      });
      expect((await replace("B0100007002", yesterday)).status).toBe(201);
    });
    await atInstant(midnight, async () => {
      expect((await replace("B0100007003", today)).status).toBe(201);
    });
  });
});
