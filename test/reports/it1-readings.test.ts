import { beforeAll, describe, expect, it } from "vitest";
import type { It1 } from "../../src/modules/reports/it1";
import { fetchBytes, pdfText } from "../support/pdf";
import { catalogIds, createContact } from "../support/sales";
import { type SeededTenant, seedTenant } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * The IT-1's unconfirmed readings (../shared/MONTHLY-CLOSE.md §7: "We subtract in both; keep it
 * configurable"; docs/reports.md, "Our readings"), each a query parameter whose default is the
 * reading the code always had. A September 2026 with a credit note, an exempt sale and buyers'
 * withholdings (a State buyer's among them): for each parameter the alternative moves exactly the
 * casillas it should, to the cent, the default gives today's figures, a wrong value is 422 on the
 * parameter, and the closed month with an alternative is computed again, not answered from its close.
 */

const PERIOD = "202609";

let tenant: SeededTenant;

beforeAll(async () => {
  tenant = await seedTenant();
  const api = tenant.api;
  const ids = await catalogIds(api);
  const service = (await createProduct(api, { product_type: "service", track_inventory: false })).id;
  const buyer = (await createContact(api)).id;
  const subtypes = (await api.get("/document-subtypes?per_page=100")).body.data as { id: number; prefix: string }[];
  const b15 = subtypes.find((s) => s.prefix === "B15")!.id;
  const line = (price: string, tax: number) => ({ product_id: service, quantity: "1", unit_price: price, tax_ids: [tax] });
  const sale = async (subtype: number, date: string, items: unknown[], rest: Record<string, unknown> = {}) => {
    const res = await api.post("/invoices", { contact_id: buyer, document_subtype_id: subtype, issue_date: date, items, ...rest });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: number };
  };
  const withhold = async (id: number, itbis: string, date: string) => {
    const res = await api.put(`/invoices/${id}/withholdings`, { itbis_withheld: itbis, isr_withheld: "0.00", withholding_date: date });
    expect(res.status, res.text).toBe(200);
  };
  // B01 1,000.00 at 18 %, then a B04 crediting 100.00 + 18 %; B01 500.00 exempt; a B01 rent (04)
  // 1,000.00 + 18 %, its buyer withheld 54.00 (30 %); a B15 2,000.00 + 18 %, the State withheld 360.00.
  const first = await sale(ids.b01, "2026-09-05", [line("1000.00", ids.itbis18)]);
  await sale(ids.b01, "2026-09-06", [line("500.00", ids.exento)]);
  const rent = await sale(ids.b01, "2026-09-07", [line("1000.00", ids.itbis18)], { income_type: "04" });
  await withhold(rent.id, "54.00", "2026-09-20");
  const state = await sale(b15, "2026-09-08", [line("2000.00", ids.itbis18)]);
  await withhold(state.id, "360.00", "2026-09-21");
  const note = await api.post(`/invoices/${first.id}/credit-notes`, {
    modification_code: 3,
    reason: "Descuento",
    issue_date: "2026-09-25",
    items: [{ description: "Descuento", amount: "100.00", tax_ids: [ids.itbis18] }],
  });
  expect(note.status, note.text).toBe(201);
});

type Row = { casilla: string; name: string; amount?: string | null };
/** Every casilla of the IT-1, by its section and number. */
const casillas = (it1: It1) =>
  Object.fromEntries(
    (["anexo_a", "itbis_paid", "it1", "section_a"] as const).flatMap((section) => (it1[section] as Row[]).map((c) => [`${section} ${c.casilla}`, c])),
  );
/** The casillas of `other` that differ from `base`'s, as `other` has them. */
const moved = (base: It1, other: It1) => {
  const [a, b] = [casillas(base), casillas(other)];
  expect(Object.keys(b)).toEqual(Object.keys(a));
  return Object.fromEntries(Object.keys(b).flatMap((key) => (JSON.stringify(a[key]) === JSON.stringify(b[key]) ? [] : [[key, b[key]]])));
};
const it1 = async (query = "") => {
  const res = await tenant.api.get<It1>(`/reports/it1?period=${PERIOD}${query}`);
  expect(res.status, res.text).toBe(200);
  return res;
};
const DEFAULTS = {
  credit_notes_in_count: "subtract",
  credit_notes_in_income_types: "subtract",
  coefficient_rounding: "two_decimals",
  state_withholding_casilla: "31",
};

describe("the IT-1's readings", () => {
  it("by default are today's: 11 counts 3 − 1 + 1, IV subtracts the note, 54 to two decimals, the State's withholding in 31", async () => {
    const { body } = await it1();
    expect(body.readings).toEqual(DEFAULTS);
    const c = casillas(body);
    expect(["1", "4", "7", "11"].map((n) => [n, c[`anexo_a ${n}`]])).toEqual([
      ["1", expect.objectContaining({ amount: "2500.00", count: 3 })],
      ["4", expect.objectContaining({ amount: "100.00", count: 1 })],
      ["7", expect.objectContaining({ amount: "2000.00", count: 1 })],
      ["11", expect.objectContaining({ amount: "4400.00", count: 3 })],
    ]);
    // IV: 01 is 1,000.00 + 500.00 + 2,000.00 − 100.00; 04 the rent; 26 = 11.
    expect(["20", "23", "26"].map((n) => c[`anexo_a ${n}`]!.amount)).toEqual(["3400.00", "1000.00", "4400.00"]);
    expect(["29", "31", "33"].map((n) => c[`anexo_a ${n}`]!.amount)).toEqual(["54.00", "360.00", "414.00"]);
    // 54: (2 + 5 + 10) / 1 × 100 = 3,900 / 4,400 × 100 = 88.6363…, half-up to 88.64.
    expect(c["itbis_paid 54"]).toMatchObject({ a: "88.64", d: "88.64" });
    expect(["1", "4", "10", "16", "30"].map((n) => c[`it1 ${n}`]!.amount)).toEqual(["4400.00", "500.00", "3900.00", "702.00", "414.00"]);
    // Naming each default is the same IT-1, byte for byte.
    const named = await it1(`&${new URLSearchParams(DEFAULTS)}`);
    expect(named.text).toBe((await it1()).text);
  });

  it("credit_notes_in_count=count counts the note as a document in 11: 5, only that moves", async () => {
    const base = (await it1()).body;
    const other = (await it1("&credit_notes_in_count=count")).body;
    expect(other.readings).toEqual({ ...DEFAULTS, credit_notes_in_count: "count" });
    expect(moved(base, other)).toEqual({ "anexo_a 11": { ...casillas(base)["anexo_a 11"], count: 5 } });
  });

  it("credit_notes_in_income_types=leave_out leaves the note out of IV: 20 and 26 by 100.00, 26 ≠ 11", async () => {
    const base = (await it1()).body;
    const other = (await it1("&credit_notes_in_income_types=leave_out")).body;
    expect(other.readings).toEqual({ ...DEFAULTS, credit_notes_in_income_types: "leave_out" });
    const c = casillas(base);
    expect(moved(base, other)).toEqual({
      "anexo_a 20": { ...c["anexo_a 20"], amount: "3500.00" },
      "anexo_a 26": { ...c["anexo_a 26"], amount: "4500.00" },
    });
  });

  it("coefficient_rounding=unrounded: 54 to ten decimals; 55 from it (0.00 here: the 606 has no ITBIS sujeto a proporcionalidad)", async () => {
    const base = (await it1()).body;
    const other = (await it1("&coefficient_rounding=unrounded")).body;
    const c = casillas(base);
    expect(moved(base, other)).toEqual({
      "itbis_paid 54": { ...c["itbis_paid 54"], a: "88.6363636364", b: "88.6363636364", d: "88.6363636364" },
    });
    expect(casillas(other)["itbis_paid 55"]).toMatchObject({ a: "0.00", b: "0.00", d: "0.00" });
  });

  it("state_withholding_casilla=29 puts the State's 360.00 in 29 with the rent's 54.00: 29 = 414.00, 31 = 0.00, 33 as it was", async () => {
    const base = (await it1()).body;
    const other = (await it1("&state_withholding_casilla=29")).body;
    const c = casillas(base);
    expect(moved(base, other)).toEqual({
      "anexo_a 29": { ...c["anexo_a 29"], amount: "414.00" },
      "anexo_a 31": { ...c["anexo_a 31"], amount: "0.00" },
    });
  });

  it("refuses a value it does not know: 422 naming the parameter", async () => {
    for (const name of Object.keys(DEFAULTS)) {
      const res = await tenant.api.get(`/reports/it1?period=${PERIOD}&${name}=add`);
      expect([res.status, Object.keys(res.body.errors ?? {})], `${name}: ${res.text}`).toEqual([422, [name]]);
    }
  });

  it("on a closed month: the defaults are the kept JSON; a reading other than the default is computed again", async () => {
    const before = await it1();
    const closed = await tenant.api.post(`/fiscal-periods/${PERIOD}/close`);
    expect(closed.status, closed.text).toBe(200);
    const kept = await it1();
    expect([kept.text, kept.headers.get("x-fiscal-period-version")]).toEqual([before.text, "1"]);
    const named = await it1(`&${new URLSearchParams(DEFAULTS)}`);
    expect([named.text, named.headers.get("x-fiscal-period-version")]).toEqual([before.text, "1"]);
    for (const [query, casilla, figure] of [
      ["&credit_notes_in_count=count", "anexo_a 11", { count: 5 }],
      ["&credit_notes_in_income_types=leave_out", "anexo_a 26", { amount: "4500.00" }],
      ["&coefficient_rounding=unrounded", "itbis_paid 54", { d: "88.6363636364" }],
      ["&state_withholding_casilla=29", "anexo_a 29", { amount: "414.00" }],
    ] as const) {
      const again = await it1(query);
      expect(again.headers.get("x-fiscal-period-version"), query).toBeNull();
      expect(casillas(again.body)[casilla], query).toMatchObject(figure);
      expect(again.body.readings).toEqual({ ...DEFAULTS, [query.slice(1).split("=")[0]!]: query.split("=")[1] });
    }
    // The PDF with an alternative is drawn from the JSON computed again, not from the kept one.
    const pdf = await fetchBytes(tenant.subdomain, tenant.admin.token, `/reports/it1?period=${PERIOD}&state_withholding_casilla=29&format=pdf`);
    expect([pdf.status, pdf.headers.get("x-fiscal-period-version")]).toEqual([200, null]);
    const text = (await pdfText(pdf.bytes)).replace(/\s+/g, " ");
    const c = casillas(before.body);
    expect(text).toContain(`29 ${c["anexo_a 29"]!.name} 414.00`);
    // Its first page says which readings its figures follow, the one not the default marked.
    expect(text).toContain(
      "Lecturas no confirmadas por la DGII con que se calculó: cantidad del Anexo A 11: las notas de crédito restan; Anexo A IV (20-25): cada nota de crédito resta de su tipo de ingreso; coeficiente del Anexo A 54: a dos decimales; ITBIS retenido por entidades del Estado: en la casilla 29 (no la predeterminada).",
    );
    const keptPdf = await fetchBytes(tenant.subdomain, tenant.admin.token, `/reports/it1?period=${PERIOD}&format=pdf`);
    expect((await pdfText(keptPdf.bytes)).replace(/\s+/g, " ")).toContain(
      "coeficiente del Anexo A 54: a dos decimales; ITBIS retenido por entidades del Estado: en la casilla 31.",
    );
  });
});
