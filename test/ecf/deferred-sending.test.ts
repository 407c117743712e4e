import { describe, expect, it } from "vitest";
import { addDays, dominicanToday } from "../../src/lib/dates";
import { today } from "../support/dates";
import { ownerRow, sql } from "../support/seed";
import { ecfTenant, received, waitForStatus } from "./helpers";

/**
 * Deferred sending (CERTIFICATION.md, "Deferred sending"; issue 33): a tenant DGII authorized
 * records the authorization's reference; a sale a branch device made offline is created with
 * `offline_issued_at`, its e-CF carries IndicadorEnvioDiferido 1 (Formato e-CF v1.0, field 6) and
 * must reach DGII within 24 hours of the sale, a deadline kept per document.
 */

/** An instant `hours` ago, to the second, as a device sends it. */
const hoursAgo = (hours: number) => new Date(Math.floor((Date.now() - hours * 3_600_000) / 1000) * 1000).toISOString().replace(".000Z", "Z");

/** A sale's body: dated the Dominican day of its offline_issued_at, when it has one (an e-CF issued now: today). */
const saleBody = (t: Awaited<ReturnType<typeof ecfTenant>>, subtypeId: number, extra: Record<string, unknown> = {}) => ({
  contact_id: t.contact.id,
  document_subtype_id: subtypeId,
  issue_date:
    typeof extra.offline_issued_at === "string" && !Number.isNaN(Date.parse(extra.offline_issued_at))
      ? dominicanToday(new Date(extra.offline_issued_at))
      : today(),
  items: [{ product_id: t.service.id, quantity: "2", unit_price: "250.25", tax_ids: [t.ids.itbis18] }],
  ...extra,
});

describe("deferred sending", () => {
  it("is refused until DGII's authorization is recorded, for a paper NCF, a draft and a sale in the future", async () => {
    const t = await ecfTenant();
    const e31 = await t.subtype("E31");
    const offline = hoursAgo(2);

    const settings = await t.tenant.api.get("/ecf/settings");
    expect(settings.body.data.deferred_sending_authorization).toBeNull();
    const refused = await t.tenant.api.post("/invoices", saleBody(t, e31, { offline_issued_at: offline }));
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.code).toBe("deferred_sending_not_authorized");
    expect(Object.keys(refused.body.errors)).toEqual(["offline_issued_at"]);
    // Nothing was taken: the next invoice gets the first number.
    expect((await ownerRow<{ n: number }>(sql`SELECT count(*)::int AS n FROM ecf_documents WHERE tenant_id = ${t.tenant.tenantId}`)).n).toBe(0);

    const put = await t.tenant.api.put("/ecf/settings", { deferred_sending_authorization: "DGII-ED-2026-000123" });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({ deferred_sending_authorization: "DGII-ED-2026-000123", enabled: true, environment: "testecf" });
    // Another setting leaves it as it is.
    expect((await t.tenant.api.put("/ecf/settings", { enabled: true })).body.data.deferred_sending_authorization).toBe("DGII-ED-2026-000123");

    const paper = await t.tenant.api.post("/invoices", saleBody(t, t.ids.b01, { offline_issued_at: offline }));
    expect(paper.status, paper.text).toBe(422);
    expect(paper.body.errors.offline_issued_at).toEqual(["Only an e-CF (E-series sequence) is sent deferred: a paper NCF has nothing to send to DGII."]);
    const draft = await t.tenant.api.post("/invoices", saleBody(t, e31, { offline_issued_at: offline, draft: true }));
    expect(draft.status, draft.text).toBe(422);
    expect(Object.keys(draft.body.errors)).toEqual(["offline_issued_at"]);
    const future = await t.tenant.api.post("/invoices", saleBody(t, e31, { offline_issued_at: new Date(Date.now() + 3_600_000).toISOString() }));
    expect(future.status, future.text).toBe(422);
    expect(future.body.errors.offline_issued_at).toEqual(["The offline sale's time is in the future."]);
    // Its day is the e-CF's FechaEmision: dated the day before, refused naming its day in Santo Domingo.
    const saleDay = dominicanToday(new Date(offline));
    const otherDay = await t.tenant.api.post("/invoices", { ...saleBody(t, e31, { offline_issued_at: offline }), issue_date: addDays(saleDay, -1) });
    expect(otherDay.status, otherDay.text).toBe(422);
    expect(otherDay.body.errors).toEqual({ issue_date: [`An offline sale is issued on its own day: ${saleDay} (offline_issued_at in Santo Domingo).`] });
    const local = await t.tenant.api.post("/invoices", saleBody(t, e31, { offline_issued_at: "2026-11-23T09:15:00" }));
    expect(local.status).toBe(422);
    expect(Object.keys(local.body.errors)).toEqual(["offline_issued_at"]);

    // Withdrawn (null): refused again.
    expect((await t.tenant.api.put("/ecf/settings", { deferred_sending_authorization: null })).body.data.deferred_sending_authorization).toBeNull();
    expect((await t.tenant.api.post("/invoices", saleBody(t, e31, { offline_issued_at: offline }))).body.code).toBe("deferred_sending_not_authorized");
  });

  it("an offline sale's e-CF carries IndicadorEnvioDiferido 1, valid against DGII's schema, with its 24-hour deadline; others carry none", async () => {
    const t = await ecfTenant();
    expect((await t.tenant.api.put("/ecf/settings", { deferred_sending_authorization: "DGII-ED-2026-000124" })).status).toBe(200);
    const e31 = await t.subtype("E31");

    const offline = hoursAgo(3);
    const res = await t.tenant.api.post("/invoices", saleBody(t, e31, { offline_issued_at: offline }));
    expect(res.status, res.text).toBe(201);
    const invoice = res.body.data;
    expect(invoice.document_number).toBe("E310000000001");
    // 2 × 250.25 = 500.50 + 18 % = 90.09 → 590.59.
    expect(invoice.total_amount).toBe("590.59");

    const xml = (await t.tenant.api.get(`/invoices/${invoice.id}/ecf.xml`)).text;
    // In IdDoc, after FechaVencimientoSecuencia and before TipoIngresos (Formato e-CF v1.0, fields 4-8).
    expect(xml).toContain(
      "<eNCF>E310000000001</eNCF><FechaVencimientoSecuencia>31-12-2027</FechaVencimientoSecuencia><IndicadorEnvioDiferido>1</IndicadorEnvioDiferido><IndicadorMontoGravado>0</IndicadorMontoGravado><TipoIngresos>01</TipoIngresos>",
    );

    const ecf = await t.tenant.api.get(`/invoices/${invoice.id}/ecf`);
    expect(ecf.status, ecf.text).toBe(200);
    // The deadline: the sale plus 24 hours.
    const deferred = { offline_issued_at: offline, deadline: new Date(Date.parse(offline) + 24 * 3_600_000).toISOString().replace(".000Z", "Z") };
    expect(ecf.body.data.deferred_sending).toEqual(deferred);
    const listed = await t.tenant.api.get("/ecf/submissions");
    expect(listed.body.data[0].deferred_sending).toEqual(deferred);

    const normal = await t.tenant.api.post("/invoices", saleBody(t, e31));
    expect(normal.status, normal.text).toBe(201);
    expect((await t.tenant.api.get(`/invoices/${normal.body.data.id}/ecf`)).body.data.deferred_sending).toBeNull();
    expect((await t.tenant.api.get(`/invoices/${normal.body.data.id}/ecf.xml`)).text).not.toContain("IndicadorEnvioDiferido");

    // DGII (the fake, validating against e-CF-31.xsd) takes it as it is.
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    const got = (await received(t.signer)).find((r) => r.encf === "E310000000001")!;
    expect(got).toMatchObject({ kind: "ecf", errors: [] });
    expect(got.xml).toContain("<IndicadorEnvioDiferido>1</IndicadorEnvioDiferido>");
  });
});
