import { beforeAll, describe, expect, it } from "vitest";
import type { Casilla, CasillaByColumn, It1 } from "../../src/modules/reports/it1";
import { createPurchase, createSupplier, sequence } from "../purchases/helpers";
import { fetchBytes, pdfText } from "../support/pdf";
import { catalogIds } from "../support/sales";
import { type SeededTenant, seedTenant } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * The IT-1's casillas that are neither the 607's rows nor the form's arithmetic (issue 47;
 * docs/reports.md, "IT-1"): exports split into goods (2) and services (3) by what each line is (the
 * e-CF's IndicadorBienoServicio), to the cent with a foreign currency; section A's RST (44-46, 53-55)
 * and non-profit (40) casillas from the suppliers' tax_regime; and what Sucursal cannot know — IT-1 8,
 * Anexo A IX 45 and 46 — null with its reason, blank in the PDF, never 0.00.
 */

const PERIOD = "202610";

let tenant: SeededTenant;
/** A persona física in the RST, and a non-profit entity: suppliers whose ITBIS was withheld in full. */
let rstSupplier: number;
let nonProfit: number;

beforeAll(async () => {
  tenant = await seedTenant();
  const api = tenant.api;
  const ids = await catalogIds(api);
  const goods = (await createProduct(api, { track_inventory: false })).id;
  const service = (await createProduct(api, { product_type: "service", track_inventory: false })).id;
  const usd = ((await api.get("/currencies")).body.data as { id: number; code: string }[]).find((c) => c.code === "USD")!.id;
  const b16 = await sequence(tenant, "B16");
  const foreigner = await api.post("/contacts", { name: "Importadora de Miami", identification_type: "passport", identification: "AB1234567" });
  expect(foreigner.status, foreigner.text).toBe(201);
  const exportSale = async (items: unknown[], rest: Record<string, unknown> = {}) => {
    const res = await api.post("/invoices", { contact_id: foreigner.body.data.id, document_subtype_id: b16, issue_date: "2026-10-14", items, ...rest });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { subtotal_amount: string; discount_amount: string };
  };
  // In pesos: goods 1,000.00; a service 400.00 less 10 % (360.00).
  await exportSale([
    { product_id: goods, quantity: "1", unit_price: "1000.00", tax_ids: [ids.exento] },
    { product_id: service, quantity: "1", unit_price: "400.00", discount: "10", tax_ids: [ids.exento] },
  ]);
  // In dollars at 58.50: goods US$100.00 (5,850.00) and a service US$33.33 (1,949.805 → 1,949.81).
  await exportSale(
    [
      { product_id: goods, quantity: "1", unit_price: "100.00", tax_ids: [ids.exento] },
      { product_id: service, quantity: "1", unit_price: "33.33", tax_ids: [ids.exento] },
    ],
    { currency_id: usd, exchange_rate: "58.50" },
  );

  // Purchases withheld in October: an RST persona física's 1,000.00 at 18 %, 500.00 at 16 % and
  // 200.00 exempt (ITBIS 180.00 + 80.00, all withheld); a non-profit's service, 3,000.00 + 18 % (540.00, all withheld).
  rstSupplier = (await createSupplier(tenant, { identification_type: "cedula", identification: "00113918205" })).id;
  nonProfit = (await createSupplier(tenant)).id;
  const bill = (supplier: number, items: unknown[], itbisWithheld: string) =>
    createPurchase(tenant, {
      supplier_id: supplier,
      supplier_ncf: `B01${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}`,
      issue_date: "2026-10-08",
      expense_type: "02",
      payment_method: "bank_transfer",
      items,
      itbis_withheld: itbisWithheld,
      withholding_date: "2026-10-22",
    });
  const line = (description: string, cost: string, tax: number) => ({ description, quantity: "1", unit_cost: cost, tax_ids: [tax] });
  await bill(rstSupplier, [line("Reparación", "1000.00", ids.itbis18), line("Yogur", "500.00", ids.itbis16), line("Pan", "200.00", ids.exento)], "260.00");
  await bill(nonProfit, [line("Capacitación", "3000.00", ids.itbis18)], "540.00");
});

const byCasilla = <T extends { casilla: string }>(list: T[]) => Object.fromEntries(list.map((c) => [c.casilla, c]));

describe("the IT-1's exports", () => {
  it("are goods in 2 and services in 3, line by line, and together Anexo A 8 to the cent", async () => {
    const res = await tenant.api.get<It1>(`/reports/it1?period=${PERIOD}`);
    expect(res.status, res.text).toBe(200);
    const anexo = byCasilla<Casilla>(res.body.anexo_a);
    const form = byCasilla<Casilla>(res.body.it1);
    // Anexo A 8: 1,360.00 + 133.33 × 58.50 = 1,360.00 + 7,799.81 (half-up).
    expect([anexo["8"]!.amount, anexo["8"]!.count]).toEqual(["9159.81", 2]);
    // 3: 360.00 + 1,949.81; 2: 1,000.00 + 5,850.00.
    expect(["2", "3", "4", "9"].map((c) => [c, form[c]!.amount, form[c]!.from])).toEqual([
      ["2", "6850.00", "books"],
      ["3", "2309.81", "books"],
      ["4", "0.00", "books"],
      ["9", "9159.81", "formula"],
    ]);
    // The 607's column 8 of the two exports is Anexo A 8: 2 + 3 ties out with the file.
    const rows = (await tenant.api.get(`/reports/607?period=${PERIOD}`)).text.split("\r\n").slice(1).filter(Boolean);
    const col8 = rows.filter((row) => row.split("|")[2]!.startsWith("B16")).reduce((sum, row) => sum + Math.round(Number(row.split("|")[7]) * 100), 0);
    expect((col8 / 100).toFixed(2)).toBe("9159.81");
  });
});

describe("what Sucursal cannot know", () => {
  it("is null with its reason, blank in the PDF: IT-1 8, Anexo A 45 and 46", async () => {
    const res = await tenant.api.get<It1>(`/reports/it1?period=${PERIOD}`);
    const form = byCasilla<Casilla>([...res.body.it1, ...res.body.section_a]);
    const ix = byCasilla<CasillaByColumn>(res.body.itbis_paid);
    expect(form["8"]).toMatchObject({ amount: null, from: "accountant" });
    expect(form["8"]!.reason).toMatch(/not under which provision of Art\. 343 CT: every exempt local sale is counted in 4/);
    for (const casilla of ["45", "46"]) {
      expect(ix[casilla], casilla).toMatchObject({ a: null, b: null, c: null, d: null, from: "accountant" });
      expect(ix[casilla]!.reason, casilla).toMatch(/counted in 47 \(606 column 14, llevado al costo\) or as deductible in 49-53/);
    }
    // 9 adds 8 as nothing (its sales are in 4); 48 adds 45 and 46 as nothing.
    expect([form["9"]!.amount, ix["48"]!.d]).toEqual(["9159.81", "0.00"]);
    expect(res.body.left_to_accountant).toEqual(["Anexo A 45", "Anexo A 46", "8"]);

    const pdf = await fetchBytes(tenant.subdomain, tenant.admin.token, `/reports/it1?period=${PERIOD}&format=pdf`);
    expect(pdf.status).toBe(200);
    const text = (await pdfText(pdf.bytes)).replace(/\s+/g, " ");
    const next = byCasilla<Casilla>(res.body.it1)["9"]!;
    expect(text).toContain(`C 8 ${form["8"]!.name} 9 ${next.name}`);
    // The RST and non-profit casillas are computed (section A below): no longer blank.
    expect(text).toContain(`40 ${form["40"]!.name} 0.00`);
    expect(text).toContain(`44 ${form["44"]!.name} 0.00`);
    expect(text).toContain(`C 45 ${ix["45"]!.name} C 46 ${ix["46"]!.name} 47 ${ix["47"]!.name}`);
    expect(text).toContain(`3 ${form["3"]!.name} 2,309.81`);
  });
});

describe("section A's RST and non-profit suppliers", () => {
  const sectionA = async () => {
    const res = await tenant.api.get<It1>(`/reports/it1?period=${PERIOD}`);
    expect(res.status, res.text).toBe(200);
    return { form: byCasilla<Casilla>(res.body.section_a), checks: res.body.checks };
  };
  const casillas = ["39", "40", "41", "42", "44", "45", "46", "50", "51", "53", "54", "55", "60"];
  const setRegime = async (id: number, tax_regime: string) => {
    const res = await tenant.api.patch(`/contacts/${id}`, { tax_regime });
    expect([res.status, res.body.data?.tax_regime], res.text).toEqual([200, tax_regime]);
  };

  it("come from the suppliers' tax_regime: an RST supplier's bases by rate in 44 and 45, a non-profit's in 40, to the cent", async () => {
    await setRegime(rstSupplier, "rst");
    await setRegime(nonProfit, "non_profit");
    const { form, checks } = await sectionA();
    // 44: 1,000.00 at 18 %; 45: 500.00 at 16 % (the exempt 200.00 is no base); 53 = 180.00, 54 = 80.00.
    // 40: 3,000.00, its ITBIS in 50 (18 % of 41). 60 = 540.00 + 260.00 = Σ 606 column 12.
    expect(casillas.map((c) => [c, form[c]!.amount, form[c]!.from])).toEqual([
      ["39", "0.00", "books"],
      ["40", "3000.00", "books"],
      ["41", "3000.00", "formula"],
      ["42", "0.00", "books"],
      ["44", "1000.00", "books"],
      ["45", "500.00", "books"],
      ["46", "1500.00", "formula"],
      ["50", "540.00", "formula"],
      ["51", "0.00", "formula"],
      ["53", "180.00", "formula"],
      ["54", "80.00", "formula"],
      ["55", "260.00", "formula"],
      ["60", "800.00", "formula"],
    ]);
    expect(checks[2]).toEqual({
      rule: "IT-1 60 - 59 = Σ 606 column 12 of the purchases withheld in the period",
      expected: "800.00",
      actual: "800.00",
      difference: "0.00",
    });
  });

  it("are ordinary suppliers' otherwise: by id type and the share withheld (the persona física in 39, the company withheld in full in 42)", async () => {
    await setRegime(rstSupplier, "ordinary");
    await setRegime(nonProfit, "ordinary");
    const { form } = await sectionA();
    // 39: the persona física's services taxed with ITBIS, 1,500.00: the exempt 200.00 of its bill is no
    // base (MONTHLY-CLOSE §3, section A), though the 606's column 8 holds it; 42: 3,000.00.
    expect(casillas.map((c) => [c, form[c]!.amount])).toEqual([
      ["39", "1500.00"],
      ["40", "0.00"],
      ["41", "1500.00"],
      ["42", "3000.00"],
      ["44", "0.00"],
      ["45", "0.00"],
      ["46", "0.00"],
      ["50", "270.00"],
      ["51", "540.00"],
      ["53", "0.00"],
      ["54", "0.00"],
      ["55", "0.00"],
      ["60", "810.00"],
    ]);
  });
});
