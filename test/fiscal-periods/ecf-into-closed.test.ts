import { describe, expect, it } from "vitest";
import { addDays, dominicanToday } from "../../src/lib/dates";
import { type EcfTenant, ecfTenant } from "../ecf/helpers";
import type { ApiResponse } from "../support/api";
import { atInstant } from "../support/dates";
import { ownerRow, sql } from "../support/seed";

/**
 * The e-CF that carry an earlier date than the day Sucursal receives them — a sale a branch device
 * made offline (deferred sending, docs/ecf.md "Deferred sending") and the e-CF replacing a paper NCF
 * written during a contingency (docs/ecf.md "Paper ranges and replacements") — are dated in their
 * own month; when that month is closed they are refused 409 period_closed naming it, as every write
 * into it (docs/reports.md, "Closing the month": "contingency replacements and deferred e-CF, which
 * carry an earlier date, included"), and nothing is taken: no number, no e-CF, no paper NCF used.
 */

function expectClosed(res: ApiResponse, period: string, what: string) {
  expect([res.status, res.body.code, res.body.errors], `${what}: ${res.text}`).toEqual([409, "period_closed", { period: [period] }]);
  expect(res.body.message, what).toContain(period);
}

/** What the tenant has issued: invoices, notes and e-CF rows, and the next number of each of its E-series subtypes. */
async function issued(t: EcfTenant) {
  return ownerRow<{ invoices: number; notes: number; ecf: number; next: string }>(sql`SELECT
    (SELECT count(*)::int FROM invoices WHERE tenant_id = ${t.tenant.tenantId}) AS invoices,
    (SELECT count(*)::int FROM invoice_notes WHERE tenant_id = ${t.tenant.tenantId}) AS notes,
    (SELECT count(*)::int FROM ecf_documents WHERE tenant_id = ${t.tenant.tenantId}) AS ecf,
    (SELECT string_agg(prefix || ':' || next_number, ',' ORDER BY prefix) FROM document_subtypes
      WHERE tenant_id = ${t.tenant.tenantId} AND prefix LIKE 'E%') AS next`);
}

describe("an e-CF dated into a closed month", () => {
  it("a deferred e-CF of the month's last evening, reaching Sucursal after the month was closed, is refused 409 period_closed", async () => {
    const t = await ecfTenant();
    const api = t.tenant.api;
    expect((await api.put("/ecf/settings", { deferred_sending_authorization: "DGII-ED-2026-000147" })).status).toBe(200);
    const e31 = await t.subtype("E31");
    // This month's last day, and the first of the next: 01:30 in Santo Domingo (UTC-4).
    const today = dominicanToday();
    const lastDay = addDays(`${addDays(`${today.slice(0, 7)}-01`, 40).slice(0, 7)}-01`, -1);
    const period = lastDay.slice(0, 7).replace("-", "");
    const nextDay = addDays(lastDay, 1);
    await atInstant(Date.parse(`${nextDay}T05:30:00Z`), async () => {
      const closed = await api.post(`/fiscal-periods/${period}/close`);
      expect(closed.status, closed.text).toBe(200);
      const before = await issued(t);
      // The device sold at 23:10 of the last day, offline; DGII allows 24 hours to receive it.
      const sale = {
        contact_id: t.contact.id,
        document_subtype_id: e31,
        issue_date: lastDay,
        offline_issued_at: `${lastDay}T23:10:00-04:00`,
        items: [{ product_id: t.service.id, quantity: "1", unit_price: "1000.00", tax_ids: [t.ids.itbis18] }],
      };
      expectClosed(await api.post("/invoices", sale), period, "a deferred e-CF dated in the closed month");
      expect(await issued(t)).toEqual(before);
      // The same sale dated on its real day is what the offline rules require: dated the next day, refused 422.
      const otherDay = await api.post("/invoices", { ...sale, issue_date: nextDay });
      expect([otherDay.status, Object.keys(otherDay.body.errors)]).toEqual([422, ["issue_date"]]);
    });
  });

  it("a contingency replacement (an E31 for a paper B01, an E34 for a paper B04) dated in a closed month is refused 409 period_closed; in an open month it is issued", async () => {
    const t = await ecfTenant();
    const api = t.tenant.api;
    const branch = t.tenant.workspaceId;
    const paperRange = async (prefix: string, type: string) => {
      const res = await api.post("/document-subtypes", {
        name: `${prefix} contingencia`,
        type,
        prefix,
        start_number: 6001,
        end_number: 6050,
        valid_until: "2027-12-31",
        contingency_workspace_id: branch,
      });
      expect(res.status, res.text).toBe(201);
    };
    await paperRange("B01", "invoice");
    await paperRange("B04", "credit_note");
    // Last month, closed, with a paper-era sale of its own (a B01 of the 5th) that a paper B04 credited.
    const today = dominicanToday();
    const lastDay = addDays(`${today.slice(0, 7)}-01`, -1);
    const period = lastDay.slice(0, 7).replace("-", "");
    const paperDay = `${lastDay.slice(0, 7)}-20`;
    const line = { product_id: t.service.id, quantity: "1", unit_price: "500.00", tax_ids: [t.ids.itbis18] };
    const sold = await api.post("/invoices", {
      contact_id: t.contact.id,
      document_subtype_id: t.ids.b01,
      issue_date: `${lastDay.slice(0, 7)}-05`,
      items: [line],
    });
    expect(sold.status, sold.text).toBe(201);
    const e31 = await t.subtype("E31");
    const e34 = await t.subtype("E34");
    const closed = await api.post(`/fiscal-periods/${period}/close`);
    expect(closed.status, closed.text).toBe(200);
    const before = await issued(t);

    const replace = (issueDate: string) =>
      api.post("/invoices", {
        contact_id: t.contact.id,
        document_subtype_id: e31,
        issue_date: issueDate,
        items: [line],
        replaces: { ncf: "B0100006003", issue_date: issueDate },
      });
    expectClosed(await replace(paperDay), period, "an E31 replacing a paper B01 of the closed month");
    const paperNote = await api.post(`/invoices/${sold.body.data.id}/credit-notes`, {
      document_subtype_id: e34,
      modification_code: 3,
      reason: "Descuento en papel",
      issue_date: paperDay,
      items: [{ description: "Descuento", amount: "50.00", tax_ids: [t.ids.itbis18] }],
      replaces: { ncf: "B0400006001", issue_date: paperDay },
    });
    expectClosed(paperNote, period, "an E34 replacing a paper B04 of the closed month");
    // Nothing was taken: no invoice, note, e-CF or number.
    expect(await issued(t)).toEqual(before);

    // The same paper B01, had it been written today (an open month): replaced, with the first E31 number.
    const open = await replace(today);
    expect(open.status, open.text).toBe(201);
    expect(open.body.data).toMatchObject({ document_number: "E310000000001", issue_date: today });
  });
});
