import { beforeAll, describe, expect, it } from "vitest";
import migration0029 from "../../drizzle/0029_reports_permission.sql?raw";
import { rowsOf } from "../../src/db/rows";
import { dominicanToday } from "../../src/lib/dates";
import { annulments608 } from "../../src/modules/reports/annulments608";
import { purchases606 } from "../../src/modules/reports/purchases606";
import { salesSummary } from "../../src/modules/reports/sales-summary";
import { sales607 } from "../../src/modules/reports/sales607";
import type { Report606, Report608, ReportQuery } from "../../src/modules/reports/schemas";
import { openReport, PAGE_ROWS, type ReportSource } from "../../src/modules/reports/service";
import { createPurchase, sequence } from "../purchases/helpers";
import { call } from "../support/api";
import { catalogIds, createContact, serviceInvoice } from "../support/sales";
import { asOwner, ownerRow, ownerRows, type SeededTenant, seedTenant, seedUser, seedWorkspace, sql } from "../support/seed";
import { createProduct } from "../support/stock";
import golden606 from "./golden/606-202610.txt?raw";
import golden608 from "./golden/608-202610.txt?raw";

/**
 * DGII's monthly reports (issue 20, docs/reports.md): a small October 2026 of a company with every
 * kind of 606 row (goods and services, several expense types, an informal supplier's B11, gastos
 * menores B13, pagos al exterior B17, withholdings within and after the month, a purchase in US
 * dollars, a legal tip, another branch) and of 608 row (a deleted and a cancelled invoice, a voided
 * B11), whose TXT equals the golden file under test/reports/golden/ byte for byte.
 */

async function pay(tenant: SeededTenant, purchaseId: number, amount: string, date: string, method: string) {
  const res = await tenant.api.post(`/purchases/${purchaseId}/payments`, { amount, payment_date: date, payment_method: method });
  expect(res.status, res.text).toBe(201);
}

async function supplier(tenant: SeededTenant, name: string, identification: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await tenant.api.post("/contacts", { name, contact_type: "supplier", ...identification }, { headers });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

async function issueInvoice(tenant: SeededTenant, subtypeId: number, contactId: number, productId: number, date: string) {
  const res = await tenant.api.post("/invoices", {
    contact_id: contactId,
    document_subtype_id: subtypeId,
    issue_date: date,
    items: [{ product_id: productId, quantity: "1", unit_price: "500.00" }],
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: number; document_number: string };
}

/** The month of the golden files: tenant, branch and the purchases that must stay out. */
async function october() {
  const tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const goods = await createProduct(tenant.api, { cost: "60.00" });
  const service = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
  const usd = ((await tenant.api.get("/currencies")).body.data as { id: number; code: string }[]).find((c) => c.code === "USD")!.id;
  const [b11, b13, b17] = [await sequence(tenant, "B11"), await sequence(tenant, "B13"), await sequence(tenant, "B17")];
  const distribuidora = await supplier(tenant, "Distribuidora A", { identification_type: "rnc", identification: "101000112" });
  const consultor = await supplier(tenant, "Consultor B", { identification_type: "cedula", identification: "00100000017" });
  const informal = await supplier(tenant, "Juan Pérez (chivero)", { identification_type: "cedula", identification: "00113918205" });
  const equipos = await supplier(tenant, "Equipos C", { identification_type: "rnc", identification: "101000228" });
  const cloud = await supplier(tenant, "Cloud Inc.", { identification_type: null, identification: null });
  const line = (description: string, unitCost: string, taxIds: number[]) => ({ description, quantity: "1", unit_cost: unitCost, tax_ids: taxIds });
  const purchase = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    createPurchase(tenant, { payment_method: "cash", ...body }, headers);
  /** A supplier's bill: who, its NCF, date, expense type and lines, and anything else of the body. */
  const bill = (supplierId: number, ncf: string, date: string, expenseType: string, items: unknown[], rest: Record<string, unknown> = {}) =>
    purchase({ supplier_id: supplierId, supplier_ncf: ncf, issue_date: date, expense_type: expenseType, items, ...rest });
  /** A document the company issues (B11, B13, B17) about a purchase. */
  const own = (subtypeId: number, supplierId: number | undefined, date: string, expenseType: string, items: unknown[], rest: Record<string, unknown> = {}) =>
    purchase({ supplier_id: supplierId, self_issued_subtype_id: subtypeId, issue_date: date, expense_type: expenseType, items, ...rest });

  // 01 goods (09) paid in cash within the month.
  const p1 = await bill(distribuidora, "B0100000101", "2026-10-05", "09", [
    { product_id: goods.id, quantity: "10", unit_cost: "100.00", tax_ids: [ids.itbis18] },
  ]);
  await pay(tenant, p1.id, "1180.00", "2026-10-10", "cash");
  // A persona física's services (02): all the ITBIS and 10 % ISR withheld, the rest by transfer.
  const p2 = await bill(consultor, "B0100000202", "2026-10-08", "02", [line("Asesoría contable", "5000.00", [ids.itbis18])], {
    itbis_withheld: "900.00",
    isr_withheld: "500.00",
    withholding_date: "2026-10-20",
  });
  await pay(tenant, p2.id, "4500.00", "2026-10-20", "bank_transfer");
  // An informal supplier's B11, not paid by the end of the month.
  const p3 = await own(b11, informal, "2026-10-12", "09", [{ product_id: goods.id, quantity: "2", unit_cost: "75.00", tax_ids: [ids.exento] }]);
  expect(p3.ncf).toBe("B1100000001");
  // In US dollars at 58.50: goods and a service, partly paid by card.
  const usdLines = [
    { product_id: goods.id, quantity: "1", unit_cost: "250.00", tax_ids: [ids.itbis18] },
    { product_id: service.id, quantity: "1", unit_cost: "100.00", tax_ids: [ids.itbis18] },
  ];
  const p4 = await bill(equipos, "B0100000303", "2026-10-15", "04", usdLines, { currency_id: usd, exchange_rate: "58.50" });
  await pay(tenant, p4.id, "200.00", "2026-10-30", "credit_card");
  // Gastos menores (B13) without a supplier: under the company's own RNC.
  const p5 = await own(b13, undefined, "2026-10-18", "02", [line("Pasaje", "800.00", [ids.exento])]);
  await pay(tenant, p5.id, "800.00", "2026-10-18", "cash");
  // A business lunch (05) with the 10 % legal tip, paid by check.
  const p6 = await bill(distribuidora, "B0100000104", "2026-10-22", "05", [line("Almuerzo de negocios", "2000.00", [ids.itbis18, ids.propina])]);
  await pay(tenant, p6.id, "2560.00", "2026-10-25", "check");
  // Pagos al exterior (B17): the company's RNC, and its ISR withholding stays out of the 606.
  const p12 = await own(b17, cloud, "2026-10-26", "02", [line("Licencia de software", "1000.00", [ids.exento])], {
    isr_withheld: "270.00",
    withholding_date: "2026-10-26",
  });
  await pay(tenant, p12.id, "730.00", "2026-10-26", "bank_transfer");
  // Withheld and paid in November: October's row has neither the withholding nor a payment date.
  const p11 = await bill(distribuidora, "B0100000106", "2026-10-29", "02", [line("Mantenimiento", "1000.00", [ids.itbis18])], {
    itbis_withheld: "180.00",
    withholding_date: "2026-11-05",
  });
  await pay(tenant, p11.id, "1000.00", "2026-11-05", "bank_transfer");

  // Goods with an ad valorem ISC (10 %, code 035: it enters the ITBIS base) and another tax (2 %, code 002), unpaid.
  const isc = (await tenant.api.post("/taxes", { name: "ISC alcoholes", type: "isc", rate: "10", dgii_code: "035" })).body.data.id as number;
  const cdt = (await tenant.api.post("/taxes", { name: "CDT", type: "other", rate: "2", dgii_code: "002" })).body.data.id as number;
  await bill(equipos, "B0100000505", "2026-10-27", "09", [{ product_id: goods.id, quantity: "1", unit_cost: "1000.00", tax_ids: [ids.itbis18, isc, cdt] }]);

  // Another branch's purchase: in the company's file, not in the main workspace's review.
  const branch = await seedWorkspace(tenant);
  const inBranch = { "X-Workspace-ID": String(branch) };
  const branchSupplier = await supplier(tenant, "Ferretería D", { identification_type: "rnc", identification: "101000333" }, inBranch);
  await purchase(
    {
      supplier_id: branchSupplier,
      supplier_ncf: "B0100000401",
      issue_date: "2026-10-28",
      expense_type: "09",
      items: [line("Materiales", "300.00", [ids.itbis18])],
    },
    inBranch,
  );

  // Out of the 606: a draft, a voided bill, September, a consumer invoice (B02).
  await bill(distribuidora, "B0100000901", "2026-10-10", "09", [line("Borrador", "10.00", [])], { status: "draft" });
  const voided = await bill(distribuidora, "B0100000902", "2026-10-11", "09", [line("Anulada", "10.00", [])]);
  expect((await tenant.api.delete(`/purchases/${voided.id}`, { body: { reason: "Duplicada" } })).status).toBe(200);
  await bill(distribuidora, "B0100000903", "2026-09-30", "09", [line("Septiembre", "10.00", [])]);
  await bill(distribuidora, "B0200000777", "2026-10-16", "02", [line("Consumo", "10.00", [ids.itbis18])]);

  // The 608: an invoice deleted (reason 03) and one cancelled (04 by default) in October, a B11
  // voided in October; an invoice deleted in November stays out. The annulment dates are moved to
  // October as the owner: the API records the day of the request.
  const customer = await createContact(tenant.api);
  const i1 = await issueInvoice(tenant, ids.b01, customer.id, service.id, "2026-10-03");
  expect((await tenant.api.delete(`/invoices/${i1.id}`, { body: { annulment_reason: "03" } })).status).toBe(200);
  const i2 = await issueInvoice(tenant, ids.b02, customer.id, service.id, "2026-10-09");
  expect((await tenant.api.post(`/invoices/${i2.id}/cancel`)).status).toBe(200);
  const i3 = await issueInvoice(tenant, ids.b02, customer.id, service.id, "2026-11-02");
  expect((await tenant.api.delete(`/invoices/${i3.id}`)).status).toBe(200);
  const p13 = await own(b11, informal, "2026-10-14", "09", [line("Yuca", "50.00", [])]);
  expect(p13.ncf).toBe("B1100000002");
  expect((await tenant.api.delete(`/purchases/${p13.id}`, { body: { reason: "Montos equivocados" } })).status).toBe(200);
  await asOwner(async (db) => {
    // An e-NCF annulled in October stays out: DGII has it through the ANECF message.
    await db.execute(sql`INSERT INTO ncf_annulments (tenant_id, workspace_id, invoice_id, ncf, annulled_on, reason_code, action, created_by)
      VALUES (${tenant.tenantId}, ${tenant.workspaceId}, ${i3.id}, 'E310000000001', '2026-10-05', '04', 'deleted', ${tenant.admin.id})`);
    await db.execute(sql`UPDATE ncf_annulments SET annulled_on = '2026-10-04' WHERE invoice_id = ${i1.id}`);
    await db.execute(sql`UPDATE ncf_annulments SET annulled_on = '2026-10-09' WHERE invoice_id = ${i2.id}`);
    await db.execute(sql`UPDATE purchases SET voided_at = '2026-10-14 15:00:00-04' WHERE id = ${p13.id}`);
  });
  // The reads go through an accountant: the admin's requests above are near its rate limit.
  const reader = await seedUser(tenant, { role: "accountant", workspaceIds: [tenant.workspaceId] });
  return { tenant, branch, reader };
}

const lines = (text: string) => text.split("\r\n").slice(0, -1);

describe("DGII reports: 606 and 608", () => {
  let month: Awaited<ReturnType<typeof october>>;
  beforeAll(async () => {
    month = await october();
  }, 120_000);

  it("the 606 of October is DGII's TXT, byte for byte the golden file, named as DGII's tool names it", async () => {
    const res = await month.reader.api.get("/reports/606?period=202610");
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="DGII_F_606_131246796_202610.TXT"');
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.text).toBe(golden606);
    const [header, ...rows] = lines(res.text);
    expect(header).toBe(`606|131246796|202610|${rows.length}`);
    for (const row of rows) expect(row.split("|")).toHaveLength(23);
  });

  it("the 608 of October is the golden file: B-series annulled in October, with their reason codes", async () => {
    const res = await month.reader.api.get("/reports/608?period=202610");
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="DGII_F_608_131246796_202610.TXT"');
    expect(res.text).toBe(golden608);
    const [header, ...rows] = lines(res.text);
    expect(header).toBe(`608|131246796|202610|${rows.length}`);
  });

  it("HEAD answers the GET's status and headers, without a body", async () => {
    const head = await call(month.tenant.subdomain, "/api/v1/reports/606?period=202610", { method: "HEAD", token: month.reader.token });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers.get("content-disposition")).toBe('attachment; filename="DGII_F_606_131246796_202610.TXT"');
    expect((await month.reader.api.get("/reports/606?period=202610")).text).toBe(golden606);
  });

  it("format=json gives the same rows, each value the TXT's text, in DGII's column order", async () => {
    for (const format of ["606", "608"] as const) {
      const txt = await month.reader.api.get(`/reports/${format}?period=202610`);
      const json = await month.tenant.api.get<Report606 | Report608>(`/reports/${format}?period=202610&format=json`);
      expect(json.status, json.text).toBe(200);
      expect(json.headers.get("content-type")).toBe("application/json");
      const [header, ...rows] = lines(txt.text);
      expect(json.body).toMatchObject({ format, rnc: "131246796", period: "202610", count: rows.length });
      expect(json.body.rows.map((row) => Object.values(row).join("|"))).toEqual(rows);
      expect(header).toBe(`${format}|131246796|202610|${json.body.count}`);
    }
    const json = await month.tenant.api.get<Report606>("/reports/606?period=202610&format=json");
    expect(json.body.rows[0]).toEqual({
      supplier_id: "101000112",
      supplier_id_type: "1",
      expense_type: "09",
      ncf: "B0100000101",
      modified_ncf: "",
      issue_date: "20261005",
      payment_date: "20261010",
      services_amount: "0.00",
      goods_amount: "1000.00",
      total_amount: "1000.00",
      itbis_invoiced: "180.00",
      itbis_withheld: "0.00",
      itbis_proportionality: "0.00",
      itbis_to_cost: "0.00",
      itbis_to_advance: "180.00",
      itbis_perceived: "",
      isr_withholding_type: "",
      isr_withheld: "0.00",
      isr_perceived: "",
      isc: "0.00",
      other_taxes: "0.00",
      legal_tip: "0.00",
      payment_form: "01",
    });
  });

  it("each row's amounts add up to its purchase's total in DOP, and the month's rows to the sum of its purchases", async () => {
    const rows = lines(golden606)
      .slice(1)
      .map((row) => row.split("|"));
    const amounts = (row: string[]) => [9, 10, 19, 20, 21].reduce((sum, i) => sum + Math.round(Number(row[i]) * 100), 0);
    const stored = await ownerRows<{ ncf: string; total: string }>(
      sql`SELECT coalesce(ncf, supplier_ncf) AS ncf, total_amount_dop::text AS total FROM purchases
        WHERE tenant_id = ${month.tenant.tenantId} AND status <> 'draft' AND status <> 'voided' AND issue_date BETWEEN '2026-10-01' AND '2026-10-31'
          AND supplier_ncf IS DISTINCT FROM 'B0200000777'`,
    );
    expect(stored).toHaveLength(rows.length);
    for (const { ncf, total } of stored) expect(amounts(rows.find((row) => row[3] === ncf)!), ncf).toBe(Math.round(Number(total) * 100));
  });

  it("workspace_id narrows to a branch for review; an id that is not the company's is 422", async () => {
    const { tenant, branch, reader } = month;
    const main = lines((await reader.api.get(`/reports/606?period=202610&workspace_id=${tenant.workspaceId}`)).text);
    const all = lines(golden606);
    expect(main[0]).toBe(`606|131246796|202610|${all.length - 2}`);
    expect(main.slice(1)).toEqual(all.slice(1).filter((row) => !row.includes("B0100000401")));
    const inBranch = lines((await reader.api.get(`/reports/606?period=202610&workspace_id=${branch}`)).text);
    expect(inBranch).toEqual(["606|131246796|202610|1", all.find((row) => row.includes("B0100000401"))]);
    expect(lines((await reader.api.get(`/reports/608?period=202610&workspace_id=${branch}`)).text)).toEqual(["608|131246796|202610|0"]);
    expect((await reader.api.get(`/reports/608?period=202610&workspace_id=${branch}&format=json`)).body).toEqual({
      format: "608",
      rnc: "131246796",
      period: "202610",
      count: 0,
      rows: [],
    });
    const other = await seedTenant();
    const foreign = await reader.api.get(`/reports/606?period=202610&workspace_id=${other.workspaceId}`);
    expect(foreign.status).toBe(422);
    expect(foreign.body).toMatchObject({ code: "validation_failed", errors: { workspace_id: ["Not a workspace of this company."] } });
  });

  it("admin and accountant may download the reports; viewer and member may not", async () => {
    const { tenant } = month;
    const accountant = await seedUser(tenant, { role: "accountant", workspaceIds: [tenant.workspaceId] });
    const res = await accountant.api.get("/reports/606?period=202610");
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(golden606);
    expect((await accountant.api.get("/reports/608?period=202610")).text).toBe(golden608);
    for (const role of ["viewer", "member"]) {
      const user = await seedUser(tenant, { role, workspaceIds: [tenant.workspaceId] });
      for (const format of ["606", "608"]) {
        const refused = await user.api.get(`/reports/${format}?period=202610`);
        expect(refused.status, `${role} ${format}`).toBe(403);
        expect(refused.body.code).toBe("forbidden");
      }
    }
  });

  it("another company's purchases and annulments never appear", async () => {
    const other = await seedTenant();
    const ids = await catalogIds(other.api);
    const otherSupplier = await supplier(other, "Suplidor ajeno", { identification_type: "rnc", identification: "101000449" });
    await createPurchase(other, {
      supplier_id: otherSupplier,
      supplier_ncf: "B0100009999",
      issue_date: "2026-10-07",
      expense_type: "09",
      items: [{ description: "Ajeno", quantity: "1", unit_cost: "10.00", tax_ids: [ids.itbis18] }],
    });
    expect((await month.reader.api.get("/reports/606?period=202610")).text).toBe(golden606);
    expect((await month.reader.api.get("/reports/608?period=202610")).text).toBe(golden608);
    const theirs = lines((await other.api.get("/reports/606?period=202610")).text);
    expect(theirs).toEqual([
      "606|131246796|202610|1",
      "101000449|1|09|B0100009999||20261007||10.00|0.00|10.00|1.80|0.00|0.00|0.00|1.80|||0.00||0.00|0.00|0.00|04",
    ]);
    expect(lines((await other.api.get("/reports/608?period=202610")).text)).toEqual(["608|131246796|202610|0"]);
  });
});

describe("DGII reports: the tenant filter of their queries", () => {
  /**
   * Row-level security hides other tenants from the application role, so an HTTP test cannot tell
   * a query that filters by tenant from one that does not. Run as the tables' owner (which RLS does
   * not bind), the report services must still read only the tenant they are given
   * (docs/security.md; test/node/report-tenant-filter.test.ts checks the SQL by text).
   */
  it("run as the table owner, past row-level security, the 606, 607, 608 and sales summary read only the tenant's rows", async () => {
    // Two companies with October purchases and annulments, and a third with a November consumer sale.
    const [first, second] = [await october(), await october()];
    await serviceInvoice("100.00");
    const whole = async <Row extends Record<string, string>, Query extends ReportQuery>(tenantId: number, source: ReportSource<Row, Query>, query: Query) =>
      asOwner(async (db) => {
        const report = await openReport(db, tenantId, source, query);
        const rows = [...report.first];
        for (let page = await report.next(); page.length; page = await report.next()) rows.push(...page);
        return { header: report.header, rows };
      });
    for (const { tenant, reader } of [first, second]) {
      const october606 = await whole(tenant.tenantId, purchases606, { period: "202610", format: "json" });
      const viaHttp606 = await reader.api.get("/reports/606?period=202610&format=json");
      expect(october606.header.count).toBe(lines(golden606).length - 1);
      expect(october606.rows).toEqual(viaHttp606.body.rows);
      const october608 = await whole(tenant.tenantId, annulments608, { period: "202610", format: "json" });
      expect(october608.header.count).toBe(lines(golden608).length - 1);
      // This company sold nothing in November; the third company's sale is not its own.
      const november607 = await whole(tenant.tenantId, sales607, { period: "202611", format: "json", include_ecf: true });
      expect(november607.rows).toEqual([]);
      expect(november607.header.consumer_summary).toMatchObject({ count: "0", amount: "0.00" });
      const summary = await asOwner((db) =>
        salesSummary(
          db,
          { tenantId: tenant.tenantId, userId: tenant.admin.id, workspaceId: tenant.workspaceId, viewAll: true },
          { from: "2026-11-01", to: "2026-11-30", group_by: "workspace" },
        ),
      );
      expect(summary.groups).toEqual([]);
      expect(summary.totals.total).toBe("0.00");
    }
  }, 240_000);
});

describe("DGII reports: validation", () => {
  it("the period is YYYYMM, from May 2018 (Norma General 07-2018) to the current month in Dominican time", async () => {
    const tenant = await seedTenant();
    for (const period of ["2026-10", "202613", "202600", "20261", ""]) {
      const res = await tenant.api.get(`/reports/606?period=${period}`);
      expect(res.status, period).toBe(422);
      expect(Object.keys(res.body.errors), period).toEqual(["period"]);
    }
    const today = dominicanToday();
    const current = today.slice(0, 7).replace("-", "");
    const next = String(Number(current.slice(4)) === 12 ? Number(current.slice(0, 4)) * 100 + 101 : Number(current) + 1);
    for (const period of [next, "209912", "201804"]) {
      const res = await tenant.api.get(`/reports/608?period=${period}`);
      expect(res.status, period).toBe(422);
      expect(Object.keys(res.body.errors), period).toEqual(["period"]);
    }
    for (const period of [current, "201805"]) {
      const res = await tenant.api.get(`/reports/606?period=${period}`);
      expect(res.status, period).toBe(200);
      expect(res.text).toBe(`606|131246796|${period}|0\r\n`);
    }
    expect((await tenant.api.get("/reports/606")).status).toBe(422);
    expect((await tenant.api.get("/reports/606?period=202610&format=xml")).status).toBe(422);
    expect((await tenant.api.get("/reports/606?period=202610&foo=1")).status).toBe(422);
  });

  it("a company without RNC gets 422 fiscal_profile_incomplete", async () => {
    const tenant = await seedTenant();
    await asOwner((db) => db.execute(sql`UPDATE company_profiles SET rnc = NULL WHERE tenant_id = ${tenant.tenantId}`));
    for (const format of ["606", "608"]) {
      const res = await tenant.api.get(`/reports/${format}?period=202610`);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: "fiscal_profile_incomplete", errors: { rnc: ["Required to file DGII's reports."] } });
    }
  });
});

describe("DGII reports: streaming", () => {
  it(`more rows than a page (${PAGE_ROWS}) come out whole, in order, with the header's count, as TXT and as JSON`, async () => {
    const tenant = await seedTenant();
    const ids = await catalogIds(tenant.api);
    const seller = await supplier(tenant, "Suplidor grande", { identification_type: "rnc", identification: "101000112" });
    const first = await createPurchase(tenant, {
      supplier_id: seller,
      supplier_ncf: "B0100000001",
      issue_date: "2026-10-01",
      expense_type: "02",
      payment_method: "cash",
      items: [{ description: "Servicio", quantity: "1", unit_cost: "100.00", tax_ids: [ids.itbis18] }],
    });
    const copies = PAGE_ROWS * 2 + 10;
    // Copies of the one purchase, numbered B0100000002…, as the owner: the API would take minutes.
    await asOwner((db) =>
      db.execute(sql`
        INSERT INTO purchases (tenant_id, workspace_id, supplier_id, supplier_ncf, issue_date, status, expense_type, payment_method, currency_id,
          exchange_rate, subtotal_amount, discount_amount, tax_amount, total_amount, total_amount_dop, tax_breakdown, created_by)
        SELECT tenant_id, workspace_id, supplier_id, 'B01' || lpad((n + 1)::text, 8, '0'), issue_date + (n % 30), status, expense_type, payment_method,
          currency_id, exchange_rate, subtotal_amount, discount_amount, tax_amount, total_amount, total_amount_dop, tax_breakdown, created_by
        FROM purchases, generate_series(1, ${copies}) AS n WHERE id = ${first.id}`),
    );
    const total = copies + 1;
    const txt = await tenant.api.get("/reports/606?period=202610");
    expect(txt.status).toBe(200);
    const [header, ...rows] = lines(txt.text);
    expect(header).toBe(`606|131246796|202610|${total}`);
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((row) => row.split("|")[3])).size).toBe(total);
    const dates = rows.map((row) => row.split("|")[5]!);
    expect(dates).toEqual([...dates].sort());
    const { count } = await ownerRow<{ count: number }>(sql`SELECT count(*)::int AS count FROM purchases WHERE tenant_id = ${tenant.tenantId}`);
    expect(count).toBe(total);
    const json = await tenant.api.get<Report606>("/reports/606?period=202610&format=json");
    expect(json.body.count).toBe(total);
    expect(json.body.rows.map((row) => Object.values(row).join("|"))).toEqual(rows);
  });
});

describe("DGII reports: tenants that predate them", () => {
  const rolesOf = (tenantId: number) =>
    asOwner(async (db) =>
      rowsOf<{ name: string; is_builtin: boolean; reports: boolean }>(
        await db.execute(sql`SELECT name, is_builtin, 'reports:view' = ANY(permissions) AS reports FROM roles WHERE tenant_id = ${tenantId} ORDER BY id`),
      ),
    );

  it("migration 0029 gives their admin reports:view and adds the accountant role, leaving a custom role of that name alone", async () => {
    const [before, withCustom] = [await seedTenant(), await seedTenant()];
    await asOwner(async (db) => {
      // As the tenants were before migration 0029: no accountant, an admin without reports:view.
      await db.execute(sql`DELETE FROM roles WHERE name = 'accountant' AND tenant_id IN (${before.tenantId}, ${withCustom.tenantId})`);
      await db.execute(
        sql`UPDATE roles SET permissions = array_remove(permissions, 'reports:view') WHERE tenant_id IN (${before.tenantId}, ${withCustom.tenantId})`,
      );
    });
    const custom = await withCustom.api.post("/roles", { name: "accountant", display_name: "Contable", permissions: ["invoices:view"] });
    expect(custom.status, custom.text).toBe(201);
    expect((await before.api.get("/reports/606?period=202610")).status).toBe(403);

    await asOwner(async (db) => {
      for (const statement of migration0029.split("--> statement-breakpoint")) await db.execute(sql.raw(statement));
    });
    expect(await rolesOf(before.tenantId)).toEqual([
      { name: "admin", is_builtin: true, reports: true },
      { name: "member", is_builtin: true, reports: false },
      { name: "viewer", is_builtin: true, reports: false },
      { name: "accountant", is_builtin: true, reports: true },
    ]);
    expect((await rolesOf(withCustom.tenantId)).find((r) => r.name === "accountant")).toEqual({ name: "accountant", is_builtin: false, reports: false });
    expect((await before.api.get("/reports/606?period=202610")).status).toBe(200);
    const accountant = await seedUser(before, { role: "accountant", workspaceIds: [before.workspaceId] });
    expect((await accountant.api.get("/reports/608?period=202610")).status).toBe(200);
  });
});
