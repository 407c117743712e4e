import { beforeAll, describe, expect, it } from "vitest";
import { addDays, dominicanToday } from "../../src/lib/dates";
import type { Ir17, Ir17Concept } from "../../src/modules/reports/ir17";
import type { Casilla, CasillaByColumn, It1 } from "../../src/modules/reports/it1";
import type { Report607 } from "../../src/modules/reports/schemas";
import { type EcfTenant, ecfTenant, waitForStatus } from "../ecf/helpers";
import { createPurchase, createSupplier } from "../purchases/helpers";
import { atInstant } from "../support/dates";
import { fetchBytes, pdfText } from "../support/pdf";
import { createContact } from "../support/sales";
import { ownerRows, sql } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * A worked month (issue 47): sales on B01 (one exempt line, one rent withheld by its buyer), B02 at
 * 16 %, E31 and E32, a B04 credit note, card, cash and credit sales; purchases of goods, a
 * professional fee of a persona física (all its ITBIS and ISR withheld) and a company's rent (30 %
 * of its ITBIS and ISR withheld). Its IT-1 and IR-17, casilla by casilla, against the figures worked
 * out here by hand and against the sums of the month's 607 and 606 TXT columns; then the month is
 * closed (from the first days of the next one, the clock driven) and its reports do not move when
 * the next month changes.
 */

let t: EcfTenant;
let today: string;
let period: string;
/** The month's E31 and E32 invoices. */
let ecfInvoices: number[];

const txtRows = (txt: string) =>
  txt
    .split("\r\n")
    .slice(1)
    .filter((line) => line !== "")
    .map((line) => line.split("|"));
/** Σ of a 1-based column of the rows that pass `keep`, in cents (no floats). */
const sumColumn = (rows: string[][], column: number, keep: (row: string[]) => boolean = () => true) =>
  rows.filter(keep).reduce((total, row) => total + Math.round(Number(row[column - 1]) * 100), 0);
const pesos = (cents: number) => (cents / 100).toFixed(2);
const ofType =
  (...types: string[]) =>
  (row: string[]) =>
    types.includes(row[2]!.slice(1, 3));
const byCasilla = <T extends { casilla: string }>(list: T[]) => Object.fromEntries(list.map((c) => [c.casilla, c]));
/** Anexo A VI and VII (constructors, commissions): each casilla's total facturado (null where the form has none), monto and source. */
const twoColumns = (anexo: Record<string, Casilla>) =>
  ["34", "35", "36", "37", "38", "39", "40", "41", "42"].map((c) => [c, anexo[c]!.total_invoiced ?? null, anexo[c]!.amount, anexo[c]!.from]);

beforeAll(async () => {
  t = await ecfTenant();
  today = dominicanToday();
  period = today.slice(0, 7).replace("-", "");
  const api = t.tenant.api;
  const ids = t.ids;
  const service = t.service.id;
  const exemptService = (await createProduct(api, { product_type: "service", track_inventory: false })).id;
  const sale = async (subtype: number, items: unknown[], rest: Record<string, unknown> = {}) => {
    const res = await api.post("/invoices", { contact_id: t.contact.id, document_subtype_id: subtype, issue_date: today, items, ...rest });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: number; total_amount: string };
  };
  const pay = async (id: number, amount: string, method: string) => {
    const res = await api.post(`/invoices/${id}/payments`, { amount, payment_date: today, payment_method: method });
    expect(res.status, res.text).toBe(201);
  };
  const line = (product: number, price: string, tax: number) => ({ product_id: product, quantity: "1", unit_price: price, tax_ids: [tax] });

  // S1 B01: 1,000.00 at 18 % and 500.00 exempt, paid by card; then a B04 crediting 100.00 + 18 %.
  const s1 = await sale(ids.b01, [line(service, "1000.00", ids.itbis18), line(exemptService, "500.00", ids.exento)]);
  expect(s1.total_amount).toBe("1680.00");
  await pay(s1.id, "1680.00", "credit_card");
  const note = await api.post(`/invoices/${s1.id}/credit-notes`, {
    modification_code: 3,
    reason: "Descuento",
    issue_date: today,
    items: [{ description: "Descuento", amount: "100.00", tax_ids: [ids.itbis18] }],
  });
  expect(note.status, note.text).toBe(201);
  // S2 B01, a rent (income type 04): 2,000.00 + 18 %, its buyer withheld 30 % of the ITBIS; the rest on credit.
  const s2 = await sale(ids.b01, [line(service, "2000.00", ids.itbis18)], { income_type: "04" });
  const withheld = await api.put(`/invoices/${s2.id}/withholdings`, { itbis_withheld: "108.00", isr_withheld: "0.00", withholding_date: today });
  expect(withheld.status, withheld.text).toBe(200);
  // S3 B02 to a consumer, 300.00 at 16 %, cash: under RD$250,000, in the 607's consumer summary.
  const consumer = (await createContact(api, { identification_type: null, identification: null })).id;
  const s3 = await sale(ids.b02, [line(service, "300.00", ids.itbis16)], { contact_id: consumer });
  await pay(s3.id, "348.00", "cash");
  // S4 E31 1,000.00 + 18 % on credit; S5 E32 500.00 + 18 % cash.
  const s4 = await sale(await t.subtype("E31"), [line(service, "1000.00", ids.itbis18)]);
  const s5 = await sale(await t.subtype("E32"), [line(service, "500.00", ids.itbis18)], { contact_id: consumer });
  await pay(s5.id, "590.00", "cash");
  ecfInvoices = [s4.id, s5.id];

  // Purchases: goods; a persona física's professional fee (ITBIS 100 %, ISR 15 % from July 2026,
  // Ley 30-26); a company's rent (ITBIS 30 %, ISR 15 %).
  const goods = (await createProduct(api, { cost: "60.00" })).id;
  const distribuidora = (await createSupplier(t.tenant)).id;
  const consultor = (await createSupplier(t.tenant, { identification_type: "cedula", identification: "00100000017" })).id;
  const arrendador = (await createSupplier(t.tenant)).id;
  const bill = (supplier: number, expense: string, items: unknown[], rest: Record<string, unknown> = {}) =>
    createPurchase(t.tenant, {
      supplier_id: supplier,
      supplier_ncf: `B01${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`,
      issue_date: today,
      expense_type: expense,
      payment_method: "bank_transfer",
      items,
      ...rest,
    });
  await bill(distribuidora, "09", [{ product_id: goods, quantity: "10", unit_cost: "100.00", tax_ids: [ids.itbis18] }]);
  await bill(consultor, "02", [{ description: "Honorarios contables", quantity: "1", unit_cost: "5000.00", tax_ids: [ids.itbis18] }], {
    itbis_withheld: "900.00",
    isr_withheld: "750.00",
    withholding_date: today,
  });
  await bill(arrendador, "03", [{ description: "Alquiler del local", quantity: "1", unit_cost: "20000.00", tax_ids: [ids.itbis18] }], {
    itbis_withheld: "1080.00",
    isr_withheld: "3000.00",
    withholding_date: today,
  });
});

describe("the IT-1 of a worked month", () => {
  it("gives each casilla the figure worked out by hand, and ties out with the 607 and 606 TXT to the cent", async () => {
    const api = t.tenant.api;
    const res = await api.get<It1>(`/reports/it1?period=${period}&it1_29=150.00`);
    expect(res.status, res.text).toBe(200);
    const it1 = res.body;
    const legalName = (await api.get("/company")).body.data.legal_name as string;
    expect(it1).toMatchObject({ form: "IT-1", rnc: t.rnc, legal_name: legalName, period });
    expect(it1.edition).toContain("2020");
    const anexo = byCasilla<Casilla>(it1.anexo_a);
    const form = byCasilla<Casilla>([...it1.it1, ...it1.section_a]);
    const ix = byCasilla<CasillaByColumn>(it1.itbis_paid);
    const amounts = (list: Record<string, Casilla>, casillas: string[]) => casillas.map((c) => [c, list[c]!.amount, list[c]!.count]);

    // By hand: S1 1,500 + S2 2,000 + S4 1,000 on 01/31; S3 300 + S5 500 consumo; the note 100.
    expect(amounts(anexo, ["1", "2", "3", "4", "11"])).toEqual([
      ["1", "4500.00", 3],
      ["2", "800.00", 2],
      ["3", "0.00", 0],
      ["4", "100.00", 1],
      ["11", "5200.00", 4],
    ]);
    // Paid: cash 348 + 590; card 1,680; credit S2 2,360 − 108 withheld + S4 1,180.
    expect(amounts(anexo, ["12", "13", "14", "15", "19"]).map(([c, a]) => [c, a])).toEqual([
      ["12", "938.00"],
      ["13", "0.00"],
      ["14", "1680.00"],
      ["15", "3432.00"],
      ["19", "6050.00"],
    ]);
    expect([anexo["20"]!.amount, anexo["23"]!.amount, anexo["26"]!.amount]).toEqual(["3200.00", "2000.00", "5200.00"]);
    expect([anexo["29"]!.amount, anexo["31"]!.amount, anexo["33"]!.amount]).toEqual(["108.00", "0.00", "108.00"]);
    // IT-1: exempt 500; at 18 %: 1,000 + 2,000 + 1,000 + 500 − 100; at 16 %: 300.
    expect(["1", "4", "9", "10", "11", "12", "16", "17", "21", "22", "23", "25", "26", "27", "29", "30", "33", "34"].map((c) => [c, form[c]!.amount])).toEqual([
      ["1", "5200.00"],
      ["4", "500.00"],
      ["9", "500.00"],
      ["10", "4700.00"],
      ["11", "4400.00"],
      ["12", "300.00"],
      ["16", "792.00"],
      ["17", "48.00"],
      ["21", "840.00"],
      ["22", "180.00"],
      ["23", "4500.00"],
      ["25", "4680.00"],
      ["26", "0.00"],
      ["27", "3840.00"],
      ["29", "150.00"],
      ["30", "108.00"],
      ["33", "0.00"],
      ["34", "4098.00"],
    ]);
    expect(form["29"]!.from).toBe("input");
    expect([ix["50"]!.a, ix["50"]!.b, ix["56"]!.d]).toEqual(["180.00", "4500.00", "4680.00"]);
    // Section A: the persona física's 5,000 (100 %), the company's 20,000 (30 %).
    expect(["39", "43", "50", "52", "60", "68"].map((c) => [c, form[c]!.amount])).toEqual([
      ["39", "5000.00"],
      ["43", "20000.00"],
      ["50", "900.00"],
      ["52", "1080.00"],
      ["60", "1980.00"],
      ["68", "1980.00"],
    ]);
    expect(it1.checks.map((c) => c.difference)).toEqual(["0.00", "0.00", "0.00"]);
    // No supplier of the month is in the RST nor non-profit (contacts.tax_regime): 0.00, computed.
    expect(["40", "44", "45", "46", "53", "54", "55"].map((c) => [c, form[c]!.amount])).toEqual(
      ["40", "44", "45", "46", "53", "54", "55"].map((c) => [c, "0.00"]),
    );
    // Without inputs, constructors and commissions are 0.00 in both of their columns.
    expect(twoColumns(anexo)).toEqual([
      ["34", "0.00", "0.00", "input"],
      ["35", "0.00", "0.00", "input"],
      ["36", null, "0.00", "input"],
      ["37", "0.00", "0.00", "formula"],
      ["38", null, "0.00", "formula"],
      ["39", "0.00", "0.00", "input"],
      ["40", "0.00", "0.00", "input"],
      ["41", "0.00", "0.00", "formula"],
      ["42", null, "0.00", "formula"],
    ]);
    expect(it1.left_to_accountant).toEqual(["Anexo A 45", "Anexo A 46", "8"]);

    // The TXT files of the month, summed column by column: the same figures.
    const rows607 = txtRows((await api.get(`/reports/607?period=${period}&include_ecf=true`)).text);
    const summary = (await api.get<Report607>(`/reports/607?period=${period}&include_ecf=true&format=json`)).body.consumer_summary;
    const cents = (amount: string) => Math.round(Number(amount) * 100);
    expect(pesos(sumColumn(rows607, 8, ofType("01", "31")))).toBe(anexo["1"]!.amount);
    expect(pesos(sumColumn(rows607, 8, ofType("04", "34")))).toBe(anexo["4"]!.amount);
    expect(pesos(cents(summary.amount))).toBe(anexo["2"]!.amount);
    expect(pesos(sumColumn(rows607, 17) + cents(summary.cash))).toBe(anexo["12"]!.amount);
    expect(pesos(sumColumn(rows607, 19) + cents(summary.card))).toBe(anexo["14"]!.amount);
    expect(pesos(sumColumn(rows607, 20) + cents(summary.on_credit))).toBe(anexo["15"]!.amount);
    expect(pesos(sumColumn(rows607, 10))).toBe(anexo["29"]!.amount);
    const itbis607 = sumColumn(rows607, 9) - 2 * sumColumn(rows607, 9, ofType("04", "34")) + cents(summary.itbis_invoiced);
    expect(pesos(itbis607)).toBe(form["21"]!.amount);
    const rows606 = txtRows((await api.get(`/reports/606?period=${period}`)).text);
    expect(rows606).toHaveLength(3);
    expect(pesos(sumColumn(rows606, 11) - sumColumn(rows606, 13) - sumColumn(rows606, 14))).toBe(form["25"]!.amount);
    expect(pesos(sumColumn(rows606, 12))).toBe(form["60"]!.amount);
  });
});

describe("the IT-1's constructors and commissions (Anexo A VI and VII)", () => {
  it("takes both columns of 34-36 and 39-40 as inputs and carries 37-38 and 41-42 into IT-1 6, 7, 9 and 10, to the cent", async () => {
    const api = t.tenant.api;
    const query = [
      "anexo_a_34_invoiced=1000.00",
      "anexo_a_34_taxable=100.00",
      "anexo_a_35_invoiced=2000.00",
      "anexo_a_35_taxable=0.05",
      "anexo_a_36_taxable=150.00",
      "anexo_a_39_invoiced=800.00",
      "anexo_a_39_taxable=80.00",
      "anexo_a_40_invoiced=300.00",
      "anexo_a_40_taxable=45.50",
    ].join("&");
    const res = await api.get<It1>(`/reports/it1?period=${period}&${query}`);
    expect(res.status, res.text).toBe(200);
    const anexo = byCasilla<Casilla>(res.body.anexo_a);
    const form = byCasilla<Casilla>(res.body.it1);
    // By hand: 37 total 1,000 + 2,000, monto 100 + 0.05 + 150; 38 = 3,000 − 250.05. 41: 1,100 and
    // 125.50; 42 = 974.50.
    expect(twoColumns(anexo)).toEqual([
      ["34", "1000.00", "100.00", "input"],
      ["35", "2000.00", "0.05", "input"],
      ["36", null, "150.00", "input"],
      ["37", "3000.00", "250.05", "formula"],
      ["38", null, "2749.95", "formula"],
      ["39", "800.00", "80.00", "input"],
      ["40", "300.00", "45.50", "input"],
      ["41", "1100.00", "125.50", "formula"],
      ["42", null, "974.50", "formula"],
    ]);
    // IT-1: 6 and 7 from 38 and 42; 9 = 500 exempt + 2,749.95 + 974.50; 10 = 5,200 − 4,224.45.
    expect(["1", "4", "6", "7", "9", "10"].map((c) => [c, form[c]!.amount])).toEqual([
      ["1", "5200.00"],
      ["4", "500.00"],
      ["6", "2749.95"],
      ["7", "974.50"],
      ["9", "4224.45"],
      ["10", "975.55"],
    ]);
    // The taxed bases by rate come from the documents, which do not know these operations: the
    // difference with 10 is shown (4,700 − 975.55), never forced.
    expect(res.body.checks[1]).toEqual({ rule: "IT-1 11+12+13+14+15 = IT-1 10", expected: "975.55", actual: "4700.00", difference: "3724.45" });
    // Anexo A 54: (IT-1 2 + 5 + 10) / IT-1 1 × 100 = 975.55 / 5,200 × 100 = 18.760…, to two decimals.
    expect(byCasilla<CasillaByColumn>(res.body.itbis_paid)["54"]!.d).toBe("18.76");
    expect(res.body.left_to_accountant).not.toContain("38");

    // What is subject to ITBIS is part of what was invoiced.
    const over = await api.get(`/reports/it1?period=${period}&anexo_a_34_invoiced=100.00&anexo_a_34_taxable=100.01`);
    expect([over.status, over.body.errors]).toEqual([422, { anexo_a_34_taxable: ["Must not exceed anexo_a_34_invoiced."] }]);
    const fees = await api.get(`/reports/it1?period=${period}&anexo_a_35_invoiced=1000.00&anexo_a_35_taxable=900.00&anexo_a_36_taxable=100.01`);
    expect([fees.status, Object.keys(fees.body.errors)]).toEqual([422, ["anexo_a_36_taxable"]]);
    const commission = await api.get(`/reports/it1?period=${period}&anexo_a_40_taxable=1.00`);
    expect([commission.status, commission.body.errors]).toEqual([422, { anexo_a_40_taxable: ["Must not exceed anexo_a_40_invoiced."] }]);

    // The PDF: both columns of VI and VII, their heads.
    const pdf = await fetchBytes(t.tenant.subdomain, t.tenant.admin.token, `/reports/it1?period=${period}&${query}&format=pdf`);
    expect(pdf.status).toBe(200);
    const text = (await pdfText(pdf.bytes)).replace(/\s+/g, " ");
    expect(text).toContain("Total facturado Monto sujeto a ITBIS");
    expect(text).toContain(`D 34 ${anexo["34"]!.name} 1,000.00 100.00`);
    expect(text).toContain(`D 36 ${anexo["36"]!.name} 150.00`);
    expect(text).toContain(`37 ${anexo["37"]!.name} 3,000.00 250.05`);
    expect(text).toContain(`38 ${anexo["38"]!.name} 2,749.95`);
    expect(text).toContain(`41 ${anexo["41"]!.name} 1,100.00 125.50`);
  });
});

describe("the IT-1 as a PDF", () => {
  it("lays out the header and every casilla with the JSON's amount, grouped and with two decimals", async () => {
    const api = t.tenant.api;
    const json = (await api.get<It1>(`/reports/it1?period=${period}&it1_29=150.00`)).body;
    const res = await fetchBytes(t.tenant.subdomain, t.tenant.admin.token, `/reports/it1?period=${period}&it1_29=150.00&format=pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="IT-1_${t.rnc}_${period}.pdf"`);
    const text = (await pdfText(res.bytes)).replace(/\s+/g, " ");
    const legalName = (await api.get("/company")).body.data.legal_name as string;
    expect(text).toContain(`RNC: ${t.rnc}`);
    expect(text).toContain(`Razón social: ${legalName}`);
    expect(text).toContain(`Período: ${period.slice(4)}/${period.slice(0, 4)}`);
    expect(text).toContain("Formulario IT-1");
    expect(text).toContain("Anexo A del IT-1");
    // Each casilla's row reads "<number> <DGII's name> <amount>" (a count before the amount where
    // the form counts), the amount the JSON's with its thousands grouped.
    const form = byCasilla<Casilla>([...json.it1, ...json.section_a]);
    const anexo = byCasilla<Casilla>(json.anexo_a);
    const grouped = (amount: string) => amount.replace(/\B(?=(\d{3})+(?!\d)\.)/g, ",");
    const row = (c: Casilla) => `${c.casilla} ${c.name}${c.count === undefined ? "" : ` ${c.count}`} ${grouped(c.amount ?? "")}`;
    expect(grouped("20000.00")).toBe("20,000.00");
    for (const casilla of ["1", "10", "16", "21", "25", "27", "29", "34", "43", "52", "60", "68"]) expect(text).toContain(row(form[casilla]!));
    for (const casilla of ["1", "2", "4", "11", "14", "15", "19", "29", "33"]) expect(text).toContain(row(anexo[casilla]!));
    expect([form["43"]!.amount, anexo["1"]!.amount]).toEqual(["20000.00", "4500.00"]);
    // Marked: C for the accountant's casillas, D for the one given in the request.
    expect(text).toContain(`C 8 ${form["8"]!.name} 9 `);
    expect(text).toContain(`D ${row(form["29"]!)}`);
    // Renglón IX: its four columns A, B, C, D.
    const ix = byCasilla<CasillaByColumn>(json.itbis_paid)["56"]!;
    expect(text).toContain(`56 ${ix.name} ${[ix.a, ix.b, ix.c, ix.d].map((value) => grouped(value ?? "")).join(" ")}`);
  });
});

describe("the IR-17 of a worked month", () => {
  it("gives the ISR withheld by concept at the rates in force, equal to the 606's column 18", async () => {
    const api = t.tenant.api;
    const res = await api.get<Ir17>(`/reports/ir17?period=${period}`);
    expect(res.status, res.text).toBe(200);
    const ir17 = res.body;
    const concepts = byCasilla<Ir17Concept>(ir17.concepts);
    const rate = period >= "202607" ? "15.00" : "10.00";
    expect([concepts["1"], concepts["2"]]).toEqual([
      { casilla: "1", name: "Alquileres", rate, base: "20000.00", amount: "3000.00", withheld: "3000.00", count: 1, from: "books" },
      { casilla: "2", name: "Honorarios por servicios independientes", rate, base: "5000.00", amount: "750.00", withheld: "750.00", count: 1, from: "books" },
    ]);
    const others = ir17.concepts.filter((c) => !["1", "2"].includes(c.casilla));
    expect(others.every((c) => c.amount === "0.00")).toBe(true);
    const total = ir17.liquidation[0]!;
    expect(total.amount).toBe("3750.00");
    expect(ir17.liquidation.at(-1)!.amount).toBe("3750.00");
    expect(ir17.out_of_scope).toContain("Payroll");
    const rows606 = txtRows((await api.get(`/reports/606?period=${period}`)).text);
    expect(pesos(sumColumn(rows606, 18))).toBe(total.amount);
    expect(pesos(sumColumn(rows606, 18, (row) => row[16] === "01"))).toBe(concepts["1"]!.amount);
    expect(pesos(sumColumn(rows606, 18, (row) => row[16] === "02"))).toBe(concepts["2"]!.amount);
  });
});

describe("the worked month, closed", () => {
  it("keeps its IT-1, IR-17, 606 and 607 byte for byte while the next month changes; a write into it is 409", async () => {
    const api = t.tenant.api;
    const paths = [
      `/reports/it1?period=${period}`,
      `/reports/ir17?period=${period}`,
      `/reports/606?period=${period}`,
      `/reports/607?period=${period}&include_ecf=true`,
    ];
    const read = async () => Promise.all(paths.map(async (path) => (await api.get(path)).text));
    const readPdf = () => fetchBytes(t.tenant.subdomain, t.tenant.admin.token, `/reports/it1?period=${period}&format=pdf`);
    const before = await read();
    const pdfBefore = (await readPdf()).bytes;
    // DGII answers the month's e-CF first: one it has not answered could still be rejected.
    for (const id of ecfInvoices) await waitForStatus(t, `/invoices/${id}`, "accepted");
    const setStatus = (status: string) =>
      ownerRows(sql`UPDATE ecf_documents SET status = ${status} WHERE tenant_id = ${t.tenant.tenantId} AND invoice_id = ${ecfInvoices[0]} RETURNING id`);
    // The first day after the month, in Santo Domingo: the month has ended and may be closed.
    const lastDay = (() => {
      const [y, m] = [Number(period.slice(0, 4)), Number(period.slice(4))];
      return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
    })();
    const nextDay = addDays(lastDay, 1);
    await atInstant(Date.parse(`${nextDay}T16:00:00Z`), async () => {
      expect(await setStatus("failed")).toHaveLength(1);
      const waiting = await api.post(`/fiscal-periods/${period}/close`);
      expect([waiting.status, waiting.body.code], waiting.text).toEqual([409, "conflict"]);
      expect(waiting.body.message).toContain("1 e-CF");
      await setStatus("accepted");
      const closed = await api.post(`/fiscal-periods/${period}/close`);
      expect(closed.status, closed.text).toBe(200);
      const kept = closed.body.data.closes[0].snapshots.map((s: { report: string; format: string }) => `${s.report}.${s.format}`);
      expect(kept).toEqual(expect.arrayContaining(["it1.json", "ir17.json"]));
      expect(await read()).toEqual(before);
      // The next month: a sale and a withheld purchase.
      const next = await api.post("/invoices", {
        contact_id: t.contact.id,
        document_subtype_id: t.ids.b01,
        issue_date: nextDay,
        items: [{ product_id: t.service.id, quantity: "1", unit_price: "700.00", tax_ids: [t.ids.itbis18] }],
      });
      expect(next.status, next.text).toBe(201);
      const into = await api.post("/invoices", {
        contact_id: t.contact.id,
        document_subtype_id: t.ids.b01,
        issue_date: lastDay,
        items: [{ product_id: t.service.id, quantity: "1", unit_price: "700.00", tax_ids: [t.ids.itbis18] }],
      });
      expect([into.status, into.body.code, into.body.errors]).toEqual([409, "period_closed", { period: [period] }]);
      // The company changes its razón social: the closed month's IT-1 keeps the one it was closed with.
      const oldName = (await api.get("/company")).body.data.legal_name as string;
      const newName = `${oldName} Renombrada`;
      const renamed = await api.patch("/company", { legal_name: newName });
      expect(renamed.status, renamed.text).toBe(200);
      expect(await read()).toEqual(before);
      expect((JSON.parse(before[0]!) as It1).legal_name).toBe(oldName);
      const nextPeriod = nextDay.slice(0, 7).replace("-", "");
      expect((await api.get<It1>(`/reports/it1?period=${nextPeriod}`)).body.legal_name).toBe(newName);
      // The PDF is drawn from the kept JSON, its razón social included: the same bytes as before the close.
      const pdfAfter = await readPdf();
      expect([pdfAfter.status, pdfAfter.headers.get("x-fiscal-period-version")]).toEqual([200, "1"]);
      expect(Buffer.from(pdfAfter.bytes).equals(Buffer.from(pdfBefore))).toBe(true);
      const pdfAfterText = (await pdfText(pdfAfter.bytes)).replace(/\s+/g, " ");
      expect(pdfAfterText).toContain(`Razón social: ${oldName} `);
      expect(pdfAfterText).not.toContain(newName);
      // With inputs, the closed month is computed again from its locked documents: the name kept too.
      const withInputs = await api.get<It1>(`/reports/it1?period=${period}&it1_29=150.00`);
      expect([withInputs.body.legal_name, withInputs.body.rnc]).toEqual([oldName, t.rnc]);
      const withInputsPdf = await fetchBytes(t.tenant.subdomain, t.tenant.admin.token, `/reports/it1?period=${period}&it1_29=150.00&format=pdf`);
      expect((await pdfText(withInputsPdf.bytes)).replace(/\s+/g, " ")).toContain(`Razón social: ${oldName} `);
      // An IT-1 kept by a close made before the razón social and the readings were kept (its JSON
      // without legal_name and readings) prints that the name was not kept, never today's, and
      // that its figures follow the default readings (the only ones then).
      const stripped = await ownerRows<{ id: number }>(sql`UPDATE fiscal_period_snapshots SET body = (body::jsonb - 'legal_name' - 'readings')::text
        WHERE tenant_id = ${t.tenant.tenantId} AND report = 'it1' RETURNING id`);
      expect(stripped).toHaveLength(1);
      const older = (await pdfText((await readPdf()).bytes)).replace(/\s+/g, " ");
      expect(older).toContain("Razón social: (no guardada en el cierre de este período)");
      expect(older).toContain("Lecturas no confirmadas por la DGII: las predeterminadas (cierre guardado antes de que se registraran).");
      expect(older).not.toContain(newName);
    });
  });
});
