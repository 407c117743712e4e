import { beforeAll, describe, expect, it } from "vitest";
import type { Report607 } from "../../src/modules/reports/schemas";
import { PAGE_ROWS } from "../../src/modules/reports/service";
import { sequence } from "../purchases/helpers";
import { ANONYMOUS_BUYER, catalogIds, createContact } from "../support/sales";
import { asOwner, type SeededTenant, seedTenant, seedUser, seedWorkspace, sql } from "../support/seed";
import { createProduct } from "../support/stock";
import golden607 from "./golden/607-202610.txt?raw";

/**
 * DGII's Formato 607 (issue 20, docs/reports.md "607"): a small October 2026 with every kind of
 * sales row — B01 with RNC, B02 under (summarized, not a row) and over RD$250,000, B14, B15, an
 * export (B16) in US dollars, a credit note on a B01 and one on a consumer invoice, a debit note,
 * mixed payment forms and a credit sale, a legal tip, ISC and another tax, a cancelled and a
 * deleted invoice (608, absent), a draft, September, another branch, and an e-CF present only
 * with include_ecf=true — whose TXT equals test/reports/golden/607-202610.txt byte for byte.
 */

interface Issued {
  id: number;
  document_number: string;
}

/** A new company's one B01 sale of a service, to an RNC buyer, on `date`. */
async function oneSale(tenant: SeededTenant, date: string, unitPrice: string) {
  const ids = await catalogIds(tenant.api);
  const buyer = (await tenant.api.post("/contacts", { name: "Cliente", identification_type: "rnc", identification: "101000112" })).body.data.id;
  const product = await createProduct(tenant.api, { product_type: "service", track_inventory: false });
  const res = await tenant.api.post("/invoices", {
    contact_id: buyer,
    document_subtype_id: ids.b01,
    issue_date: date,
    items: [{ product_id: product.id, quantity: "1", unit_price: unitPrice, tax_ids: [ids.itbis18] }],
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as Issued;
}

const lines = (text: string) => text.split("\r\n").slice(0, -1);
const cents = (value: string) => Math.round(Number(value) * 100);

async function october() {
  const tenant = await seedTenant();
  const api = tenant.api;
  const ids = await catalogIds(api);
  const service = await createProduct(api, { product_type: "service", track_inventory: false });
  const usd = ((await api.get("/currencies")).body.data as { id: number; code: string }[]).find((c) => c.code === "USD")!.id;
  // The demo sequences have B14 and B15; an export sequence is added.
  const subtypes = (await api.get("/document-subtypes?per_page=100")).body.data as { id: number; prefix: string }[];
  const [b14, b15] = ["B14", "B15"].map((prefix) => subtypes.find((s) => s.prefix === prefix)!.id) as [number, number];
  const b16 = await sequence(tenant, "B16");
  const buyer = async (identification: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await api.post("/contacts", { name: `Cliente ${JSON.stringify(identification)}`, ...identification }, { headers });
    expect(res.status, res.text).toBe(201);
    return res.body.data.id as number;
  };
  const company = await buyer({ identification_type: "rnc", identification: "101000112" });
  const person = await buyer({ identification_type: "cedula", identification: "00100000017" });
  const zonaFranca = await buyer({ identification_type: "rnc", identification: "101000228" });
  const ministry = await buyer({ identification_type: "rnc", identification: "101000333" });
  const foreigner = await buyer({ identification_type: "passport", identification: "AB1234567" });
  const walkIn = (await createContact(api, ANONYMOUS_BUYER)).id;

  const issue = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await api.post("/invoices", body, { headers });
    expect(res.status, res.text).toBe(201);
    return res.body.data as Issued;
  };
  const item = (unitPrice: string, taxIds: number[], quantity = "1") => ({ product_id: service.id, quantity, unit_price: unitPrice, tax_ids: taxIds });
  const invoice = (subtypeId: number, contactId: number, date: string, items: unknown[], rest: Record<string, unknown> = {}) =>
    issue({ contact_id: contactId, document_subtype_id: subtypeId, issue_date: date, items, ...rest });
  const pay = async (invoiceId: number, amount: string, date: string, method: string) => {
    const res = await api.post(`/invoices/${invoiceId}/payments`, { amount, payment_date: date, payment_method: method });
    expect(res.status, res.text).toBe(201);
  };
  const note = async (kind: "credit" | "debit", invoiceId: number, date: string, amount: string, taxIds: number[]) => {
    const res = await api.post(`/invoices/${invoiceId}/${kind}-notes`, {
      modification_code: 3,
      reason: kind === "credit" ? "Descuento posterior" : "Cargo por flete",
      issue_date: date,
      items: [{ description: kind === "credit" ? "Descuento" : "Flete", amount, tax_ids: taxIds }],
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data as Issued;
  };

  // B01 with RNC: 1,180.00, paid 500.00 cash and 680.00 by card (mixed forms).
  const fiscal = await invoice(ids.b01, company, "2026-10-02", [item("1000.00", [ids.itbis18])]);
  await pay(fiscal.id, "500.00", "2026-10-02", "cash");
  await pay(fiscal.id, "680.00", "2026-10-03", "credit_card");
  // B02 under RD$250,000: in the consumer total, not a row.
  const consumer = await invoice(ids.b02, walkIn, "2026-10-03", [item("2000.00", [ids.itbis18])]);
  await pay(consumer.id, "2360.00", "2026-10-03", "cash");
  // Another one, 180.00 by debit card and 1,000.00 on credit.
  const consumer2 = await invoice(ids.b02, walkIn, "2026-10-04", [item("1000.00", [ids.itbis18])]);
  await pay(consumer2.id, "180.00", "2026-10-04", "debit_card");
  // B02 of exactly RD$250,000: itemized; 100,000.00 by transfer, the rest sold on credit.
  const large = await invoice(ids.b02, person, "2026-10-06", [item("250000.00", [ids.exento])]);
  await pay(large.id, "100000.00", "2026-10-07", "bank_transfer");
  // B14 (régimen especial, no ITBIS), paid only in November: all of it on credit in October.
  const special = await invoice(b14, zonaFranca, "2026-10-08", [item("5000.00", [ids.exento])]);
  await pay(special.id, "5000.00", "2026-11-03", "cash");
  // B15 (gubernamental) paid by check.
  const government = await invoice(b15, ministry, "2026-10-09", [item("10000.00", [ids.itbis18])]);
  await pay(government.id, "11800.00", "2026-10-15", "check");
  // B16 (export) in US dollars at 58.50: US$100.00 = 5,850.00; US$40.00 by transfer = 2,340.00.
  const exported = await invoice(b16, foreigner, "2026-10-12", [item("100.00", [ids.exento])], { currency_id: usd, exchange_rate: "58.50" });
  await pay(exported.id, "40.00", "2026-10-20", "bank_transfer");
  // Legal tip, ISC ad valorem (10 %, 035) and another tax (2 %, 002), paid by another form.
  const isc = (await api.post("/taxes", { name: "ISC alcoholes", type: "isc", rate: "10", dgii_code: "035" })).body.data.id as number;
  const cdt = (await api.post("/taxes", { name: "CDT", type: "other", rate: "2", dgii_code: "002" })).body.data.id as number;
  const dinner = await invoice(ids.b01, company, "2026-10-14", [item("2000.00", [ids.itbis18, ids.propina]), item("1000.00", [ids.itbis18, isc, cdt])]);
  const dinnerTotal = ((await api.get(`/invoices/${dinner.id}`)).body.data as { total_amount: string }).total_amount;
  await pay(dinner.id, dinnerTotal, "2026-10-14", "other");

  // Notes: a credit on the B01 (118.00), one on the consumer invoice (reported whatever its amount), a debit on the B14.
  const credit = await note("credit", fiscal.id, "2026-10-20", "100.00", [ids.itbis18]);
  const consumerCredit = await note("credit", consumer.id, "2026-10-21", "200.00", [ids.itbis18]);
  const debit = await note("debit", special.id, "2026-10-22", "200.00", []);

  // Another branch's sale: in the company's file, not in the main workspace's review.
  const branch = await seedWorkspace(tenant);
  const inBranch = { "X-Workspace-ID": String(branch) };
  const branchBuyer = await buyer({ identification_type: "rnc", identification: "101000449" }, inBranch);
  const branchSale = await issue(
    { contact_id: branchBuyer, document_subtype_id: ids.b01, issue_date: "2026-10-25", items: [item("300.00", [ids.itbis18])] },
    inBranch,
  );

  // Out of the 607: a cancelled and a deleted invoice (the 608's), a draft, September.
  const cancelled = await invoice(ids.b01, company, "2026-10-10", [item("50.00", [ids.itbis18])]);
  expect((await api.post(`/invoices/${cancelled.id}/cancel`)).status).toBe(200);
  const deleted = await invoice(ids.b01, company, "2026-10-11", [item("60.00", [ids.itbis18])]);
  expect((await api.delete(`/invoices/${deleted.id}`)).status).toBe(200);
  await invoice(ids.b01, company, "2026-10-12", [item("70.00", [ids.itbis18])], { draft: true });
  await invoice(ids.b01, company, "2026-09-30", [item("80.00", [ids.itbis18])]);

  // The buyer's withholdings (PUT /invoices/{id}/withholdings). A rent (income type 04) of
  // 10,000.00 + ITBIS 1,800.00: the company withheld 30 % of the ITBIS (540.00) and 10 % ISR
  // (1,000.00) on 10-28 and paid the rest, 10,260.00, by transfer: reported in October.
  const rent = await invoice(ids.b01, company, "2026-10-26", [item("10000.00", [ids.itbis18])], { income_type: "04" });
  const withheld = await api.put(`/invoices/${rent.id}/withholdings`, { itbis_withheld: "540.00", isr_withheld: "1000.00", withholding_date: "2026-10-28" });
  expect(withheld.status, withheld.text).toBe(200);
  await pay(rent.id, "10260.00", "2026-10-28", "bank_transfer");
  // Financial income (02) of 5,000.00 + 900.00, its ITBIS withheld whole in November: October's
  // row shows no withholding and all of it on credit (its October row is sent again once made).
  const interest = await invoice(ids.b01, company, "2026-10-27", [item("5000.00", [ids.itbis18])], { income_type: "02" });
  const late = await api.put(`/invoices/${interest.id}/withholdings`, { itbis_withheld: "900.00", isr_withheld: "0.00", withholding_date: "2026-11-05" });
  expect(late.status, late.text).toBe(200);

  // e-CF written as the owner, copies of issued invoices with an e-NCF of their own (issuing one
  // through the API would send it to DGII): an E31 copy of the B15, and a consumer e-CF (E32) under
  // RD$250,000, copy of the first B02 (in the consumer summary only with include_ecf).
  const copyAsEcf = (invoiceId: number, ncf: string, date: string) =>
    asOwner((db) =>
      db.execute(sql`
        INSERT INTO invoices (tenant_id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, status, subtotal_amount,
          discount_amount, tax_amount, total_amount, tax_breakdown, amount_paid, currency_id, snapshot, exchange_rate, subtotal_amount_dop,
          discount_amount_dop, tax_amount_dop, total_amount_dop, created_by)
        SELECT tenant_id, workspace_id, contact_id, document_subtype_id, ${ncf}, ${date}, 'pending_payment', subtotal_amount,
          discount_amount, tax_amount, total_amount, tax_breakdown, 0, currency_id, snapshot, exchange_rate, subtotal_amount_dop,
          discount_amount_dop, tax_amount_dop, total_amount_dop, created_by
        FROM invoices WHERE id = ${invoiceId}`),
    );
  await copyAsEcf(government.id, "E310000000001", "2026-10-16");
  await copyAsEcf(consumer.id, "E320000000001", "2026-10-17");

  const reader = await seedUser(tenant, { role: "accountant", workspaceIds: [tenant.workspaceId] });
  return {
    tenant,
    branch,
    reader,
    documents: { fiscal, large, special, government, exported, dinner, credit, consumerCredit, debit, branchSale, rent, interest },
    consumer,
    consumer2,
  };
}

describe("DGII reports: 607", () => {
  let month: Awaited<ReturnType<typeof october>>;
  beforeAll(async () => {
    month = await october();
  }, 120_000);

  it("the 607 of October is DGII's TXT, byte for byte the golden file, named as DGII's tool names it", async () => {
    const res = await month.reader.api.get("/reports/607?period=202610");
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="DGII_F_607_131246796_202610.TXT"');
    expect(res.text).toBe(golden607);
    const [header, ...rows] = lines(res.text);
    expect(header).toBe(`607|131246796|202610|${rows.length}`);
    expect(rows).toHaveLength(12);
    for (const row of rows) expect(row.split("|")).toHaveLength(23);
    // Left out: the consumer invoice under RD$250,000, the cancelled, deleted, draft and September invoices, the e-CF.
    const ncfs = rows.map((row) => row.split("|")[2]);
    expect(ncfs).not.toContain(month.consumer.document_number);
    expect(ncfs).not.toContain("E310000000001");
    // The consumer invoice is named only as the NCF its credit note modifies.
    expect(rows.filter((row) => row.includes(month.consumer.document_number))).toHaveLength(1);
  });

  it("format=json gives the same rows in DGII's column order; a credit note names the invoice it modifies", async () => {
    const txt = await month.reader.api.get("/reports/607?period=202610");
    const json = await month.reader.api.get<Report607>("/reports/607?period=202610&format=json");
    expect(json.status, json.text).toBe(200);
    expect(json.headers.get("content-type")).toBe("application/json");
    const [header, ...rows] = lines(txt.text);
    expect(json.body).toMatchObject({ format: "607", rnc: "131246796", period: "202610", count: rows.length });
    expect(json.body.rows.map((row) => Object.values(row).join("|"))).toEqual(rows);
    expect(header).toBe(`607|131246796|202610|${json.body.count}`);
    const { fiscal, credit } = month.documents;
    expect(json.body.rows.find((row) => row.ncf === credit.document_number)).toEqual({
      buyer_id: "101000112",
      buyer_id_type: "1",
      ncf: credit.document_number,
      modified_ncf: fiscal.document_number,
      income_type: "01",
      issue_date: "20261020",
      withholding_date: "",
      amount: "100.00",
      itbis_invoiced: "18.00",
      itbis_withheld: "0.00",
      itbis_perceived: "",
      isr_withheld: "0.00",
      isr_perceived: "",
      isc: "0.00",
      other_taxes: "0.00",
      legal_tip: "0.00",
      cash: "0.00",
      bank: "0.00",
      card: "0.00",
      on_credit: "0.00",
      gift_vouchers: "0.00",
      barter: "0.00",
      other_forms: "0.00",
    });
  });

  it("each row's amounts add up to its document's DOP total read through the API, and its payment forms too (credit notes: none)", async () => {
    const json = await month.reader.api.get<Report607>("/reports/607?period=202610&format=json");
    const { credit, consumerCredit, debit, ...invoices } = month.documents;
    const totals = new Map<string, { total: string; kind: string }>();
    for (const doc of Object.values(invoices)) {
      const headers = doc === invoices.branchSale ? { "X-Workspace-ID": String(month.branch) } : undefined;
      const res = await month.tenant.api.get(`/invoices/${doc.id}`, { headers });
      expect(res.status, res.text).toBe(200);
      totals.set(doc.document_number, { total: res.body.data.total_amount_dop, kind: "invoice" });
    }
    for (const [kind, doc] of [
      ["credit", credit],
      ["credit", consumerCredit],
      ["debit", debit],
    ] as const) {
      const res = await month.tenant.api.get(`/${kind}-notes/${doc.id}`);
      expect(res.status, res.text).toBe(200);
      totals.set(doc.document_number, { total: res.body.data.total_amount_dop, kind });
    }
    expect(json.body.rows.map((row) => row.ncf).sort()).toEqual([...totals.keys()].sort());
    let reported = 0;
    let stored = 0;
    for (const row of json.body.rows) {
      const { total, kind } = totals.get(row.ncf)!;
      const amounts = [row.amount, row.itbis_invoiced, row.isc, row.other_taxes, row.legal_tip].reduce((sum, value) => sum + cents(value), 0);
      expect(amounts, row.ncf).toBe(cents(total));
      // What was received by each form, sold on credit, and withheld by the buyer (paid to DGII) make the total.
      const forms = [row.cash, row.bank, row.card, row.on_credit, row.gift_vouchers, row.barter, row.other_forms, row.itbis_withheld, row.isr_withheld].reduce(
        (sum, value) => sum + cents(value),
        0,
      );
      expect(forms, row.ncf).toBe(kind === "credit" ? 0 : cents(total));
      reported += amounts;
      stored += cents(total);
    }
    expect(reported).toBe(stored);
  });

  it("consumer invoices under RD$250,000 are not rows: the JSON gives their number and DOP totals, by payment form", async () => {
    const json = await month.reader.api.get<Report607>("/reports/607?period=202610&format=json");
    // 2,360.00 in cash and 1,180.00 of which 180.00 by card: 3,000.00 + 540.00 ITBIS.
    expect(json.body.consumer_summary).toEqual({
      count: "2",
      amount: "3000.00",
      itbis_invoiced: "540.00",
      isc: "0.00",
      other_taxes: "0.00",
      legal_tip: "0.00",
      cash: "2360.00",
      bank: "0.00",
      card: "180.00",
      on_credit: "1000.00",
      gift_vouchers: "0.00",
      barter: "0.00",
      other_forms: "0.00",
    });
    const ncfs = json.body.rows.map((row) => row.ncf);
    expect(ncfs).not.toContain(month.consumer.document_number);
    expect(ncfs).not.toContain(month.consumer2.document_number);
    const withEcf = await month.reader.api.get<Report607>("/reports/607?period=202610&format=json&include_ecf=true");
    expect(withEcf.body.consumer_summary).toMatchObject({ count: "3", amount: "5000.00", itbis_invoiced: "900.00", cash: "2360.00", on_credit: "3360.00" });
    expect(withEcf.body.rows.map((row) => row.ncf)).not.toContain("E320000000001");
    const branch = await month.reader.api.get<Report607>(`/reports/607?period=202610&format=json&workspace_id=${month.branch}`);
    expect(branch.body.consumer_summary).toMatchObject({ count: "0", amount: "0.00", cash: "0.00", on_credit: "0.00" });
  });

  it("include_ecf=true adds the e-CF; false (the default) leaves it out", async () => {
    const off = await month.reader.api.get("/reports/607?period=202610&include_ecf=false");
    expect(off.text).toBe(golden607);
    const on = lines((await month.reader.api.get("/reports/607?period=202610&include_ecf=true")).text);
    const [, ...rows] = lines(golden607);
    const ecf = "101000333|1|E310000000001||01|20261016||10000.00|1800.00|0.00||0.00||0.00|0.00|0.00|0.00|0.00|0.00|11800.00|0.00|0.00|0.00";
    expect(on[0]).toBe(`607|131246796|202610|${rows.length + 1}`);
    expect(on.slice(1)).toEqual([...rows.filter((row) => row.split("|")[5]! <= "20261016"), ecf, ...rows.filter((row) => row.split("|")[5]! > "20261016")]);
    expect((await month.reader.api.get("/reports/607?period=202610&include_ecf=yes")).status).toBe(422);
    expect((await month.reader.api.get("/reports/606?period=202610&include_ecf=true")).status).toBe(422);
  });

  it("workspace_id narrows to a branch for review", async () => {
    const { tenant, branch, reader, documents } = month;
    const all = lines(golden607);
    const main = lines((await reader.api.get(`/reports/607?period=202610&workspace_id=${tenant.workspaceId}`)).text);
    expect(main).toEqual([`607|131246796|202610|${all.length - 2}`, ...all.slice(1).filter((row) => !row.includes(documents.branchSale.document_number))]);
    const inBranch = lines((await reader.api.get(`/reports/607?period=202610&workspace_id=${branch}`)).text);
    expect(inBranch).toEqual(["607|131246796|202610|1", all.find((row) => row.includes(documents.branchSale.document_number))]);
  });

  it("needs reports:view: viewer and member get 403", async () => {
    for (const role of ["viewer", "member"]) {
      const user = await seedUser(month.tenant, { role, workspaceIds: [month.tenant.workspaceId] });
      const refused = await user.api.get("/reports/607?period=202610");
      expect(refused.status, role).toBe(403);
      expect(refused.body.code).toBe("forbidden");
    }
  });

  it("another company's sales never appear", async () => {
    const other = await seedTenant();
    const theirs = await oneSale(other, "2026-10-07", "10.00");
    expect((await month.reader.api.get("/reports/607?period=202610")).text).toBe(golden607);
    expect(lines((await other.api.get("/reports/607?period=202610")).text)).toEqual([
      "607|131246796|202610|1",
      `101000112|1|${theirs.document_number}||01|20261007||10.00|1.80|0.00||0.00||0.00|0.00|0.00|0.00|0.00|0.00|11.80|0.00|0.00|0.00`,
    ]);
  });
});

describe("DGII reports: 607 streaming", () => {
  it(`more rows than a page (${PAGE_ROWS}) come out whole, in order, with the header's count, as TXT and as JSON`, async () => {
    const tenant = await seedTenant();
    const first = await oneSale(tenant, "2026-10-01", "100.00");
    const note = await tenant.api.post(`/invoices/${first.id}/credit-notes`, {
      modification_code: 3,
      reason: "Descuento",
      issue_date: "2026-10-01",
      items: [{ description: "Descuento", amount: "10.00", tax_ids: [] }],
    });
    expect(note.status, note.text).toBe(201);
    const copies = PAGE_ROWS * 2 + 10;
    // Copies of the one invoice, numbered B0100000002…, as the owner: the API would take minutes.
    await asOwner((db) =>
      db.execute(sql`
        INSERT INTO invoices (tenant_id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, status, subtotal_amount,
          discount_amount, tax_amount, total_amount, tax_breakdown, currency_id, snapshot, exchange_rate, subtotal_amount_dop,
          discount_amount_dop, tax_amount_dop, total_amount_dop, created_by)
        SELECT tenant_id, workspace_id, contact_id, document_subtype_id, 'B01' || lpad((n + 1)::text, 8, '0'), issue_date + (n % 30), status,
          subtotal_amount, discount_amount, tax_amount, total_amount, tax_breakdown, currency_id, snapshot, exchange_rate, subtotal_amount_dop,
          discount_amount_dop, tax_amount_dop, total_amount_dop, created_by
        FROM invoices, generate_series(1, ${copies}) AS n WHERE id = ${first.id}`),
    );
    const total = copies + 2;
    const txt = await tenant.api.get("/reports/607?period=202610");
    expect(txt.status).toBe(200);
    const [header, ...rows] = lines(txt.text);
    expect(header).toBe(`607|131246796|202610|${total}`);
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((row) => row.split("|")[2])).size).toBe(total);
    const dates = rows.map((row) => row.split("|")[5]!);
    expect(dates).toEqual([...dates].sort());
    // On a day, the invoices come before the notes: the note is the last row of October 1st.
    const firstDay = rows.filter((row) => row.split("|")[5] === "20261001").map((row) => row.split("|").slice(2, 4));
    expect(firstDay[0]).toEqual([first.document_number, ""]);
    expect(firstDay.at(-1)).toEqual([note.body.data.document_number, first.document_number]);
    expect(firstDay.slice(0, -1).every(([, modified]) => modified === "")).toBe(true);
    const json = await tenant.api.get<Report607>("/reports/607?period=202610&format=json");
    expect(json.body.count).toBe(total);
    expect(json.body.rows.map((row) => Object.values(row).join("|"))).toEqual(rows);
  });
});
