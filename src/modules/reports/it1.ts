import { sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { Big } from "../../lib/decimal";
import { NOTE_PREFIXES } from "../../lib/ncf";
import { getProfile } from "../company/service";
import type { TaxBreakdown } from "../sales/lines";
import { cents, inDop } from "../sales/money";
import { purchases606, withheld606 } from "./purchases606";
import { prefixPattern, reportedInvoices, sales607 } from "./sales607";
import { type ConsumerSummary607, type It1Query, It1Readings, type Row606, type Row607 } from "./schemas";
import { type Period, periodOf, readWhole } from "./service";

/**
 * DGII's IT-1 (Declaración Jurada y/o Pago del ITBIS) with its Anexo A, as the 2020 edition of
 * DGII's "Instructivo Llenado IT-1" lays them out (in force from the period January 2020; nothing
 * later found: ../shared/MONTHLY-CLOSE.md §0; docs/reports.md, "IT-1"). Computed from the period's
 * 607 (e-CF included: the Anexo A covers "607, libro de ventas y factura electrónica") and 606, row
 * by row as the files say, so every count and amount ties out with their TXT to the cent; the
 * split by ITBIS rate, which the 607 has no column for, from the documents' tax breakdowns. What the
 * books cannot know is an input of the request, with its casilla, never guessed.
 */

export const IT1_EDITION = "IT-1 and Anexo A, 2020 edition (DGII, Instructivo Llenado IT-1 2020), in force from the period 202001";

type Source = "books" | "input" | "formula" | "accountant";

export interface Casilla {
  casilla: string;
  name: string;
  /** Anexo A VI and VII: the form's «total facturado» column; `amount` is then its «monto» (sujeto a ITBIS). */
  total_invoiced?: string;
  /** Null where Sucursal cannot compute the figure: `reason` says why, and the PDF leaves it blank. */
  amount: string | null;
  count?: number;
  from: Source;
  reason?: string;
}

export interface CasillaByColumn {
  casilla: string;
  name: string;
  /** Null where Sucursal cannot compute the figure (45, 46): `reason` says why, and the PDF leaves the row blank. */
  a: string | null;
  b: string | null;
  c: string | null;
  d: string | null;
  from: Source;
  reason?: string;
}

export interface Check {
  rule: string;
  expected: string;
  actual: string;
  difference: string;
}

const ZERO = new Big(0);
const money = (value: Big) => value.toFixed(2);
const positive = (value: Big) => (value.gt(0) ? value : ZERO);
const sum = (values: Big[]) => values.reduce((total, value) => total.plus(value), ZERO);

/** The NCF type of a document number (B01, E31 → "01", "31"). */
const typeOf = (ncf: string) => ncf.slice(1, 3);
const isType = (ncf: string, ...types: string[]) => types.includes(typeOf(ncf));

const EXPORTS = ["16", "46"];
const SPECIAL_REGIMES = ["14", "44"];

/** One sales document's ITBIS bases by rate and its exempt base, in DOP, signed (a credit note subtracts). */
interface SaleBases {
  ncf: string;
  income_type: string;
  sign: number;
  exchange_rate: string;
  tax_breakdown: TaxBreakdown | null;
  credit_note_indicator: number | null;
  amount_dop: string;
  /**
   * An invoice's service lines, net of their discounts, in DOP (half-up to the cent): the lines the
   * e-CF marks IndicadorBienoServicio 2 (Formato e-CF v1.0, Ítem field 7), from the product's type
   * as issuing sets it; "0" on a note.
   */
  services_dop: string;
}

/**
 * The documents of the 607 with e-CF (sales607's own predicates), consumer invoices under
 * RD$250,000 included, with their tax breakdowns: the IT-1's split by rate and exemption.
 */
async function saleBases(db: AnyDb, tenantId: number, period: Period): Promise<SaleBases[]> {
  const query = { period: period.text, format: "json" as const, workspace_id: undefined, include_ecf: true };
  return rowsOf<SaleBases>(
    await db.execute(sql`
      SELECT i.document_number AS ncf, i.income_type, 1 AS sign, coalesce(i.exchange_rate, 1)::text AS exchange_rate, i.tax_breakdown,
        NULL::integer AS credit_note_indicator, (i.subtotal_amount_dop - i.discount_amount_dop)::text AS amount_dop,
        coalesce((SELECT round(sum(ii.subtotal - ii.discount_amount) * coalesce(i.exchange_rate, 1), 2)
          FROM invoice_items ii JOIN products pr ON pr.id = ii.product_id AND pr.tenant_id = ${tenantId}
          WHERE ii.invoice_id = i.id AND ii.tenant_id = ${tenantId} AND pr.product_type = 'service'), 0)::text AS services_dop
      FROM invoices i WHERE i.tenant_id = ${tenantId} AND ${reportedInvoices(period, undefined, query)}
      UNION ALL
      SELECT n.document_number, (SELECT ni.income_type FROM invoices ni WHERE ni.id = n.invoice_id AND ni.tenant_id = ${tenantId}),
        CASE WHEN n.kind = 'credit' THEN -1 ELSE 1 END, n.exchange_rate::text, n.tax_breakdown, n.credit_note_indicator,
        (n.subtotal_amount_dop - n.discount_amount_dop)::text, '0'
      FROM invoice_notes n
      WHERE n.tenant_id = ${tenantId} AND n.status = 'issued' AND n.issue_date BETWEEN ${period.from}::date AND ${period.to}::date
        AND n.document_number ~ ${prefixPattern(NOTE_PREFIXES, true)}`),
  );
}

/**
 * The purchases whose ITBIS was withheld in the period, by their 606 row (the supplier's id and the
 * NCF, which a supplier books once): the supplier's regime (contacts.tax_regime: RST and non-profit
 * suppliers have casillas of their own), each purchase's ITBIS bases at 18 % and 16 % (the form's 44
 * and 45 are by rate), and its services and goods taxed with ITBIS, split as the 606's columns 8 and 9
 * split them (a line of a product that is not a service is goods, the rest services). All in DOP,
 * half-up to the cent. Section A's bases leave the exempt parts of a bill out, which the 606 cannot
 * show (../shared/MONTHLY-CLOSE.md §3, section A): hence the lines. The regime and a line's product
 * type are as they stand: a closed month's IT-1 without inputs is the one its close kept
 * (docs/reports.md, "IT-1").
 */
interface WithheldPurchase {
  tax_regime: "ordinary" | "rst" | "non_profit";
  base18: Big;
  base16: Big;
  taxedServices: Big;
  taxedGoods: Big;
  /** Of taxedGoods, the goods taxed at 16 % (a comprobante de compras' go to 48, the rest to 47). */
  taxedGoods16: Big;
}

async function withheldPurchases(db: AnyDb, tenantId: number, period: Period): Promise<Map<string, WithheldPurchase>> {
  const rows = rowsOf<{
    supplier_id: string;
    ncf: string;
    tax_regime: WithheldPurchase["tax_regime"];
    exchange_rate: string;
    tax_breakdown: TaxBreakdown;
    taxed_services: string;
    taxed_goods: string;
    taxed_goods16: string;
  }>(
    await db.execute(sql`
      SELECT coalesce(c.identification, '') AS supplier_id, coalesce(p.ncf, p.supplier_ncf) AS ncf, c.tax_regime, p.exchange_rate::text AS exchange_rate, p.tax_breakdown,
        coalesce(l.services, 0)::text AS taxed_services, coalesce(l.goods, 0)::text AS taxed_goods, coalesce(l.goods16, 0)::text AS taxed_goods16
      FROM purchases p JOIN contacts c ON c.id = p.supplier_id AND c.tenant_id = ${tenantId}
      LEFT JOIN LATERAL (
        SELECT sum(x.net) FILTER (WHERE NOT x.goods) AS services, sum(x.net) FILTER (WHERE x.goods) AS goods,
          sum(x.net) FILTER (WHERE x.goods AND x.rate = 16) AS goods16
        FROM (
          SELECT i.subtotal - i.discount_amount AS net, coalesce(pr.product_type <> 'service', false) AS goods,
            (SELECT max((t->>'rate')::numeric) FROM jsonb_array_elements(i.taxes) t WHERE t->>'type' = 'itbis') AS rate
          FROM purchase_items i LEFT JOIN products pr ON pr.id = i.product_id AND pr.tenant_id = ${tenantId}
          WHERE i.purchase_id = p.id AND i.tenant_id = ${tenantId}
        ) x
        WHERE x.rate > 0
      ) l ON true
      WHERE p.tenant_id = ${tenantId} AND p.status IN ('pending_payment', 'partially_paid', 'paid')
        AND p.withholding_date BETWEEN ${period.from}::date AND ${period.to}::date AND p.itbis_withheld > 0`),
  );
  const atRate = (row: (typeof rows)[number], percent: string) =>
    inDop(sum(row.tax_breakdown.itbis.filter((entry) => new Big(entry.rate).eq(percent)).map((entry) => new Big(entry.base))), row.exchange_rate);
  return new Map(
    rows.map((row) => [
      `${row.supplier_id}|${row.ncf}`,
      {
        tax_regime: row.tax_regime,
        base18: atRate(row, "18"),
        base16: atRate(row, "16"),
        taxedServices: inDop(row.taxed_services, row.exchange_rate),
        taxedGoods: inDop(row.taxed_goods, row.exchange_rate),
        taxedGoods16: inDop(row.taxed_goods16, row.exchange_rate),
      },
    ]),
  );
}

/** Renglón IX's columns: which line the deductible ITBIS goes on follows what the company sells (a setting of the request). */
const DEDUCTIBLE_LINE = { exports: "49", goods: "50", services: "51" } as const;

type Inputs = Record<It1InputName, Big>;

export interface It1 {
  form: "IT-1";
  edition: string;
  rnc: string;
  /**
   * Renglón I's razón social, as the profile had it when computed (a closed period's: at its close);
   * absent from an IT-1 a close kept before it was kept.
   */
  legal_name?: string | null;
  period: string;
  /** The unconfirmed readings it was computed with; absent from an IT-1 a close kept before they were parameters (the defaults). */
  readings?: It1Readings;
  anexo_a: Casilla[];
  itbis_paid: CasillaByColumn[];
  it1: Casilla[];
  section_a: Casilla[];
  checks: Check[];
  left_to_accountant: string[];
}

/** The figures the books cannot know, by query parameter: their casilla, and the default 0.00. */
export const IT1_INPUTS = {
  anexo_a_9: "Anexo A 9: otras operaciones (positivas)",
  anexo_a_10: "Anexo A 10: otras operaciones (negativas)",
  anexo_a_27: "Anexo A 27: pagos computables por retenciones (Norma 08-04), ITBIS withheld by card processors",
  anexo_a_28: "Anexo A 28: pagos computables por ventas de pasajes aéreos (BSP-IATA)",
  anexo_a_30: "Anexo A 30: pagos computables por ventas de paquetes de alojamiento",
  anexo_a_34_invoiced: "Anexo A 34: dirección técnica (Norma 07-07), total facturado",
  anexo_a_34_taxable: "Anexo A 34: dirección técnica, monto sujeto a ITBIS",
  anexo_a_35_invoiced: "Anexo A 35: contrato de administración (Norma 07-07), total facturado",
  anexo_a_35_taxable: "Anexo A 35: contrato de administración, monto sujeto a ITBIS",
  anexo_a_36_taxable: "Anexo A 36: asesorías / honorarios, monto sujeto a ITBIS",
  anexo_a_39_invoiced: "Anexo A 39: ventas de bienes por comisión, total facturado",
  anexo_a_39_taxable: "Anexo A 39: ventas de bienes por comisión, monto sujeto a ITBIS",
  anexo_a_40_invoiced: "Anexo A 40: ventas de servicios en nombre de terceros, total facturado",
  anexo_a_40_taxable: "Anexo A 40: ventas de servicios en nombre de terceros, monto sujeto a ITBIS",
  anexo_a_56c: "Anexo A 56 C: ITBIS deducible pagado en importaciones (from the customs' DUA)",
  it1_28: "IT-1 28: saldos compensables autorizados (otros impuestos) y/o reembolsos",
  it1_29: "IT-1 29: saldo a favor anterior (last month's casilla 34 as filed)",
  it1_31: "IT-1 31: otros pagos computables a cuenta",
  it1_32: "IT-1 32: compensaciones y/o reembolsos autorizados",
  it1_35: "IT-1 35: recargos",
  it1_36: "IT-1 36: interés indemnizatorio",
  it1_37: "IT-1 37: sanciones",
  it1_61: "IT-1 61: pagos computables a cuenta (ITBIS retenido)",
  it1_64: "IT-1 64: recargos (ITBIS retenido)",
  it1_65: "IT-1 65: interés indemnizatorio (ITBIS retenido)",
  it1_66: "IT-1 66: sanciones (ITBIS retenido)",
} as const;
export type It1InputName = keyof typeof IT1_INPUTS;

/** The figures of the IT-1: the request's (its readings filled with their defaults), whatever format it is answered in. */
export type It1Figures = Omit<It1Query, "format">;

export async function it1Report(db: AnyDb, tenantId: number, query: It1Figures): Promise<It1> {
  const period = periodOf(query.period);
  const base = { period: period.text, format: "json" as const, workspace_id: undefined };
  const sales = await readWhole(db, tenantId, sales607, { ...base, include_ecf: true });
  const purchases = await readWhole(db, tenantId, purchases606, base);
  const withheld = await readWhole(db, tenantId, withheld606, base);
  const bases = await saleBases(db, tenantId, period);
  const regimes = await withheldPurchases(db, tenantId, period);
  const legalName = (await getProfile(db, tenantId))?.legalName ?? null;
  const input = Object.fromEntries(Object.keys(IT1_INPUTS).map((name) => [name, new Big(query[name as It1InputName] ?? "0")])) as Inputs;
  return compute(
    sales.header.rnc,
    legalName,
    period.text,
    sales.rows,
    sales.header.consumer_summary as ConsumerSummary607,
    purchases.rows,
    withheld.rows,
    regimes,
    bases,
    input,
    query,
    // The query's readings, its other parameters left out (zod's object strips unknown keys).
    It1Readings.parse(query),
  );
}

function compute(
  rnc: string,
  legalName: string | null,
  period: string,
  rows607: Row607[],
  consumer: ConsumerSummary607,
  rows606: Row606[],
  withheld: Row606[],
  regimes: Map<string, WithheldPurchase>,
  bases: SaleBases[],
  input: Inputs,
  query: It1Figures,
  readings: It1Readings,
): It1 {
  const anexo: Casilla[] = [];
  const value: Record<string, Big> = {};
  const counts: Record<string, number> = {};
  const put = (list: Casilla[], prefix: string, casilla: string, name: string, amount: Big, from: Source, count?: number) => {
    value[`${prefix}${casilla}`] = amount;
    if (count !== undefined) counts[`${prefix}${casilla}`] = count;
    list.push({ casilla, name, amount: money(amount), ...(count === undefined ? {} : { count }), from });
  };
  const a = (casilla: string) => value[`a${casilla}`] ?? ZERO;
  const t = (casilla: string) => value[`t${casilla}`] ?? ZERO;
  const col = (row: Row607 | Row606, column: string) => new Big((row as unknown as Record<string, string>)[column] || "0");
  const typed = (...types: string[]) => rows607.filter((row) => isType(row.ncf, ...types));
  const amountOf = (rows: Row607[]) => sum(rows.map((row) => col(row, "amount")));

  // I. Operaciones by type of NCF / e-NCF: count and Σ monto facturado (607 column 8).
  const byType: [string, string, string[]][] = [
    ["1", "Comprobantes válido para crédito fiscal (01 y 31)", ["01", "31"]],
    ["2", "Comprobantes consumo (02 y 32)", ["02", "32"]],
    ["3", "Nota de débito (03 y 33)", ["03", "33"]],
    ["4", "Nota de crédito (04 y 34)", ["04", "34"]],
    ["5", "Registro único de ingresos (12)", ["12"]],
    ["6", "Regímenes especiales (14 y 44)", SPECIAL_REGIMES],
    ["7", "Gubernamentales (15 y 45)", ["15", "45"]],
    ["8", "Exportaciones (16 y 46)", EXPORTS],
  ];
  for (const [casilla, name, types] of byType) {
    const rows = typed(...types);
    // Consumer invoices under RD$250,000 are sales of the month without a row: the 607's summary.
    const extra = casilla === "2" ? { count: Number(consumer.count), amount: new Big(consumer.amount) } : { count: 0, amount: ZERO };
    put(anexo, "a", casilla, name, amountOf(rows).plus(extra.amount), "books", rows.length + extra.count);
  }
  put(anexo, "a", "9", "Otras operaciones (positivas)", input.anexo_a_9, "input");
  put(anexo, "a", "10", "Otras operaciones (negativas)", input.anexo_a_10, "input");
  const signed = (casilla: string) => (casilla === "4" ? -1 : 1);
  // 11's count: the notes subtract like the amount, or count as documents (MONTHLY-CLOSE §7
  // [S5][S4], unconfirmed: the request's credit_notes_in_count).
  const countSigned = (casilla: string) => (readings.credit_notes_in_count === "count" ? 1 : signed(casilla));
  const ops = ["1", "2", "3", "4", "5", "6", "7", "8"];
  put(
    anexo,
    "a",
    "11",
    "Total de operaciones (1+2+3-4+5+6+7+8+9-10)",
    sum(ops.map((c) => a(c).times(signed(c))))
      .plus(a("9"))
      .minus(a("10")),
    "formula",
    ops.reduce((total, c) => total + countSigned(c) * (counts[`a${c}`] ?? 0), 0),
  );

  // III. By how the sale was paid: the 607's payment columns (taxes included), with the summary's.
  const forms: [string, string, keyof ConsumerSummary607][] = [
    ["12", "Efectivo", "cash"],
    ["13", "Cheque/transferencia/depósito", "bank"],
    ["14", "Tarjeta débito/crédito", "card"],
    ["15", "Venta a crédito", "on_credit"],
    ["16", "Bonos o certificados de regalo", "gift_vouchers"],
    ["17", "Permuta", "barter"],
    ["18", "Otras formas de ventas", "other_forms"],
  ];
  for (const [casilla, name, column] of forms) {
    put(anexo, "a", casilla, name, sum(rows607.map((row) => col(row, column))).plus(consumer[column]), "books");
  }
  put(anexo, "a", "19", "Total por tipo de venta (12 a 18)", sum(forms.map(([c]) => a(c))), "formula");

  // IV. By type of income (607 column 5); consumer invoices are operations (01). Credit notes subtract
  // from their type, or are left out of IV (26 ≠ 11): MONTHLY-CLOSE §7 [S4][S5], unconfirmed, the
  // request's credit_notes_in_income_types.
  const isNote = (row: Row607) => isType(row.ncf, "04", "34");
  const incomes: [string, string][] = [
    ["20", "Ingresos por operaciones (no financieros)"],
    ["21", "Ingresos financieros"],
    ["22", "Ingresos extraordinarios"],
    ["23", "Ingresos por arrendamientos"],
    ["24", "Ingresos por venta de activos depreciables"],
    ["25", "Otros ingresos"],
  ];
  incomes.forEach(([casilla, name], index) => {
    const code = `0${index + 1}`;
    const rows = rows607.filter((row) => row.income_type === code && !(isNote(row) && readings.credit_notes_in_income_types === "leave_out"));
    const amount = sum(rows.map((row) => col(row, "amount").times(isNote(row) ? -1 : 1)));
    put(anexo, "a", casilla, name, code === "01" ? amount.plus(consumer.amount) : amount, "books");
  });
  put(anexo, "a", "26", "Total por tipo de ingreso (20 a 25)", sum(incomes.map(([c]) => a(c))), "formula");

  // V. Pagos computables: ITBIS withheld by our buyers (607 column 10). The State's (15/45) in 31,
  // or in 29 with the others: MONTHLY-CLOSE §2 (31) and §7, unconfirmed, the request's state_withholding_casilla.
  const stateApart = readings.state_withholding_casilla === "31";
  const withheldBy = (keep: (row: Row607) => boolean) => sum(rows607.filter(keep).map((row) => col(row, "itbis_withheld")));
  const byState = (row: Row607) => isType(row.ncf, "15", "45");
  put(anexo, "a", "27", "Pagos computables por retenciones (Norma 08-04)", input.anexo_a_27, "input");
  put(anexo, "a", "28", "Pagos computables por ventas de pasajes aéreos (Norma 02-05, BSP-IATA)", input.anexo_a_28, "input");
  put(
    anexo,
    "a",
    "29",
    "Pagos computables por otras retenciones (Norma 02-05)",
    withheldBy((row) => !stateApart || !byState(row)),
    "books",
  );
  put(anexo, "a", "30", "Pagos computables por ventas de paquetes de alojamiento y ocupación", input.anexo_a_30, "input");
  put(anexo, "a", "31", "Crédito por retención realizada por entidades del Estado", stateApart ? withheldBy(byState) : ZERO, "books");
  put(anexo, "a", "32", "Pagos computables por ITBIS percibido", ZERO, "books");
  put(anexo, "a", "33", "Total pagos computables (27 a 32)", sum(["27", "28", "29", "30", "31", "32"].map(a)), "formula");

  // VI-VII. Constructors (Norma 07-07) and commissions: the books do not say which sales are
  // construction services or sales for a third party, so both columns are inputs; the form's
  // «monto» (sujeto a ITBIS) is `amount`, its «total facturado» `total_invoiced`.
  const invoiced: Record<string, Big> = {};
  const twoColumns = (casilla: string, name: string, total: Big | null, amount: Big, from: Source) => {
    if (total) invoiced[casilla] = total;
    value[`a${casilla}`] = amount;
    anexo.push({ casilla, name, ...(total ? { total_invoiced: money(total) } : {}), amount: money(amount), from });
  };
  const billed = (casilla: string) => invoiced[casilla] ?? ZERO;
  twoColumns("34", "Dirección técnica (Art. 4 Norma 07-07)", input.anexo_a_34_invoiced, input.anexo_a_34_taxable, "input");
  twoColumns("35", "Contrato de administración (Art. 4 párrafo I Norma 07-07)", input.anexo_a_35_invoiced, input.anexo_a_35_taxable, "input");
  twoColumns("36", "Asesorías / honorarios", null, input.anexo_a_36_taxable, "input");
  // The form's own rule: 37's total facturado is 34+35, its monto 34+35+36.
  twoColumns(
    "37",
    "Total operaciones constructoras (total facturado 34+35; monto 34+35+36)",
    billed("34").plus(billed("35")),
    sum(["34", "35", "36"].map(a)),
    "formula",
  );
  put(anexo, "a", "38", "Operaciones no sujetas a ITBIS por servicios de construcción (37 total facturado - 37 monto)", billed("37").minus(a("37")), "formula");
  twoColumns("39", "Ventas de bienes por comisión", input.anexo_a_39_invoiced, input.anexo_a_39_taxable, "input");
  twoColumns("40", "Ventas de servicios en nombre de terceros", input.anexo_a_40_invoiced, input.anexo_a_40_taxable, "input");
  twoColumns("41", "Total operaciones comisionistas (39+40)", billed("39").plus(billed("40")), a("39").plus(a("40")), "formula");
  put(anexo, "a", "42", "Operaciones no sujetas a ITBIS por comisiones (41 total facturado - 41 monto)", billed("41").minus(a("41")), "formula");

  // VIII. Credit notes issued more than 30 days after their invoice (Art. 338 CT): informative.
  const late = bases.filter((doc) => doc.credit_note_indicator === 1);
  put(
    anexo,
    "a",
    "43",
    "Notas de crédito emitidas con más de treinta (30) días de facturación",
    sum(late.map((doc) => new Big(doc.amount_dop))),
    "books",
    late.length,
  );
  put(
    anexo,
    "a",
    "44",
    "Facturas en comprobantes para regímenes especiales (del 606)",
    sum(rows606.filter((row) => isType(row.ncf, ...SPECIAL_REGIMES)).map((row) => col(row, "total_amount"))),
    "books",
  );

  // IX. ITBIS pagado, by column: A compras locales (the goods' share of each 606 row), B servicios, C importaciones (input).
  const ix: Record<string, { a: Big; b: Big; c: Big }> = {};
  const add = (casilla: string, goodsShare: Big, servicesShare: Big) => {
    const cell = ix[casilla] ?? { a: ZERO, b: ZERO, c: ZERO };
    ix[casilla] = { a: cell.a.plus(goodsShare), b: cell.b.plus(servicesShare), c: cell.c };
  };
  const deductibleLine = DEDUCTIBLE_LINE[query.deductible_as];
  for (const row of rows606) {
    const goods = col(row, "goods_amount");
    const total = goods.plus(col(row, "services_amount"));
    const split = (amount: Big): [Big, Big] => {
      const share = total.eq(0) ? amount : cents(amount.times(goods).div(total));
      return [share, amount.minus(share)];
    };
    const toCost = col(row, "itbis_to_cost");
    const proportional = col(row, "itbis_proportionality");
    add("47", ...split(toCost));
    add("53", ...split(proportional));
    add(deductibleLine, ...split(col(row, "itbis_invoiced").minus(toCost).minus(proportional)));
  }
  const cell = (casilla: string) => ix[casilla] ?? { a: ZERO, b: ZERO, c: ZERO };
  const plus = (...casillas: string[]) => ({
    a: sum(casillas.map((c) => cell(c).a)),
    b: sum(casillas.map((c) => cell(c).b)),
    c: sum(casillas.map((c) => cell(c).c)),
  });
  ix["48"] = plus("45", "46", "47");
  ix["52"] = plus("49", "50", "51");
  // 54: the coefficient (IT-1 2 + 5 + 10) / IT-1 1 × 100 needs the IT-1's figures: set below.
  const itbisPaid: [string, string, Source][] = [
    ["45", "ITBIS no deducible en operaciones de productores de bienes o servicios exentos", "accountant"],
    ["46", "ITBIS no deducible a incluir en activos (categoría I)", "accountant"],
    ["47", "Otros ITBIS pagados no deducibles (llevado al costo)", "books"],
    ["48", "Total ITBIS pagado no deducible (45+46+47)", "formula"],
    ["49", "ITBIS deducible en bienes exportados", "books"],
    ["50", "ITBIS deducible en bienes gravados", "books"],
    ["51", "ITBIS deducible en servicios gravados", "books"],
    ["52", "ITBIS deducible no sujeto a proporcionalidad (49+50+51)", "formula"],
    ["53", "ITBIS sujeto a proporcionalidad", "books"],
    ["54", "Coeficiente de proporcionalidad (%)", "formula"],
    ["55", "ITBIS admitido por proporcionalidad (53 × 54)", "formula"],
    ["56", "Total ITBIS deducible (52+55)", "formula"],
  ];

  // IT-1 II: the operations, by what is taxed at which rate, from the documents' tax breakdowns.
  const it1: Casilla[] = [];
  const rateBases: Record<string, Big> = {};
  let exempt = ZERO;
  let depreciable = ZERO;
  for (const doc of bases) {
    if (isType(doc.ncf, ...EXPORTS, ...SPECIAL_REGIMES) || !doc.tax_breakdown) continue;
    const dop = (amount: string) => inDop(amount, doc.exchange_rate).times(doc.sign);
    exempt = exempt.plus(dop(doc.tax_breakdown.exempt_base));
    for (const entry of doc.tax_breakdown.itbis) {
      if (doc.income_type === "05") depreciable = depreciable.plus(dop(entry.base));
      else rateBases[new Big(entry.rate).toFixed(2)] = (rateBases[new Big(entry.rate).toFixed(2)] ?? ZERO).plus(dop(entry.base));
    }
  }
  put(it1, "t", "1", "Total de operaciones del período (Anexo A 11)", a("11"), "formula");
  // Exports (16/46, Anexo A 8) split by what each line is: the e-CF says it line by line
  // (IndicadorBienoServicio, 1 bien, 2 servicio: Formato e-CF v1.0), Sucursal from the product's
  // type. The service lines are exports of services (3, Art. 344 CT), the rest exports of goods (2),
  // so 2 + 3 = Anexo A 8 to the cent. A service exported on a 01/31 (to a foreign buyer) is an exempt
  // sale in 4: the books do not say it was used abroad (Reglamento 293-11 Art. 14 j).
  const exportedServices = sum(
    bases
      .filter((doc) => isType(doc.ncf, ...EXPORTS))
      .map((doc) => (new Big(doc.services_dop).gt(doc.amount_dop) ? new Big(doc.amount_dop) : new Big(doc.services_dop))),
  );
  put(it1, "t", "2", "Ingresos por exportaciones de bienes (Art. 342 CT)", a("8").minus(exportedServices), "books");
  put(it1, "t", "3", "Ingresos por exportaciones de servicios (Art. 344 CT)", exportedServices, "books");
  put(it1, "t", "4", "Ingresos por ventas locales de bienes o servicios exentos (Arts. 343 y 344 CT)", exempt, "books");
  put(it1, "t", "5", "Ingresos por ventas de bienes o servicios exentos por destino", a("6"), "books");
  put(it1, "t", "6", "No sujetas a ITBIS por servicios de construcción (Anexo A 38)", a("38"), "formula");
  put(it1, "t", "7", "No sujetas a ITBIS por comisiones (Anexo A 42)", a("42"), "formula");
  // Sucursal records that a line is exempt, not under which provision of Art. 343: every exempt local
  // sale is in 4 (and so in 9), and the accountant moves the goods of párrafos III and IV here.
  it1.push({
    casilla: "8",
    name: "Ingresos por ventas locales de bienes exentos (Art. 343 párr. III y IV)",
    amount: null,
    from: "accountant",
    reason:
      "Sucursal records that a line is exempt, not under which provision of Art. 343 CT: every exempt local sale is counted in 4 (and so in 9); the accountant moves the goods exempt under párrafos III and IV from 4 here",
  });
  put(it1, "t", "9", "Total ingresos por operaciones no gravadas (2 a 8)", sum(["2", "3", "4", "5", "6", "7", "8"].map(t)), "formula");
  put(it1, "t", "10", "Total ingresos por operaciones gravadas (1-9)", t("1").minus(t("9")), "formula");
  put(it1, "t", "11", "Operaciones gravadas al 18%", rateBases["18.00"] ?? ZERO, "books");
  put(it1, "t", "12", "Operaciones gravadas al 16%", rateBases["16.00"] ?? ZERO, "books");
  put(it1, "t", "13", "Operaciones gravadas al 9% (Ley 690-16)", rateBases["9.00"] ?? ZERO, "books");
  put(it1, "t", "14", "Operaciones gravadas al 8% (Ley 690-16)", rateBases["8.00"] ?? ZERO, "books");
  put(it1, "t", "15", "Operaciones gravadas por ventas de activos depreciables (categorías 2 y 3)", depreciable, "books");
  // The form multiplies the rates itself (casilla 16 = 18 % of 11, …), each product rounded to the cent.
  const rate = (casilla: string, percent: string) => cents(t(casilla).times(percent).div(100));
  put(it1, "t", "16", "ITBIS cobrado (18% de 11)", rate("11", "18"), "formula");
  put(it1, "t", "17", "ITBIS cobrado (16% de 12)", rate("12", "16"), "formula");
  put(it1, "t", "18", "ITBIS cobrado (9% de 13)", rate("13", "9"), "formula");
  put(it1, "t", "19", "ITBIS cobrado (8% de 14)", rate("14", "8"), "formula");
  put(it1, "t", "20", "ITBIS cobrado por ventas de activos depreciables (18% de 15)", rate("15", "18"), "formula");
  put(it1, "t", "21", "Total ITBIS cobrado (16 a 20)", sum(["16", "17", "18", "19", "20"].map(t)), "formula");

  // Proportionality: only what is subject to it (53) is admitted by the coefficient. Rounded half-up
  // to two decimals (a percentage) before 55 = 53 × 54, or not rounded (shown to ten decimals):
  // MONTHLY-CLOSE §2 (54) and §7, unconfirmed, the request's coefficient_rounding.
  const ratio = t("1").eq(0) ? ZERO : t("2").plus(t("5")).plus(t("10")).times(100).div(t("1"));
  const rounded = readings.coefficient_rounding === "two_decimals";
  const coefficient = rounded ? ratio.round(2, Big.roundHalfUp) : ratio;
  const shownCoefficient = coefficient.toFixed(rounded ? 2 : 10);
  const admitted = (x: Big) => cents(x.times(coefficient).div(100));
  ix["55"] = { a: admitted(cell("53").a), b: admitted(cell("53").b), c: ZERO };
  ix["56"] = { a: cell("52").a.plus(cell("55").a), b: cell("52").b.plus(cell("55").b), c: input.anexo_a_56c };
  // 45 and 46 are why a purchase's ITBIS is not deductible (an exempt producer's operations, a
  // category I asset): a choice per purchase Sucursal does not record. Every ITBIS not deductible
  // it knows (606 column 14, llevado al costo) is in 47; the rest is deductible in 49-53.
  const notDeductibleWhy: Record<string, string> = {
    "45": "Sucursal does not record which purchases serve the production of exempt goods or services: their ITBIS is counted in 47 (606 column 14, llevado al costo) or as deductible in 49-53; the accountant moves it here",
    "46": "Sucursal does not record which purchases are category I assets (buildings): their ITBIS is counted in 47 (606 column 14, llevado al costo) or as deductible in 49-53; the accountant moves it here",
  };
  const itbisPaidRows: CasillaByColumn[] = itbisPaid.map(([casilla, name, from]) => {
    const why = notDeductibleWhy[casilla];
    if (why) return { casilla, name, a: null, b: null, c: null, d: null, from, reason: why };
    if (casilla === "54") return { casilla, name, a: shownCoefficient, b: shownCoefficient, c: "0.00", d: shownCoefficient, from };
    const { a: ca, b: cb, c: cc } = cell(casilla);
    return { casilla, name, a: money(ca), b: money(cb), c: money(cc), d: money(ca.plus(cb).plus(cc)), from: casilla === "56" && cc.gt(0) ? "input" : from };
  });

  put(it1, "t", "22", "ITBIS pagado en compras locales (Anexo A 56 A)", cell("56").a, "formula");
  put(it1, "t", "23", "ITBIS pagado por servicios deducibles (Anexo A 56 B)", cell("56").b, "formula");
  put(it1, "t", "24", "ITBIS pagado en importaciones (Anexo A 56 C)", cell("56").c, input.anexo_a_56c.gt(0) ? "input" : "formula");
  put(it1, "t", "25", "Total ITBIS deducible (22+23+24)", t("22").plus(t("23")).plus(t("24")), "formula");
  put(it1, "t", "26", "Impuesto a pagar (21-25, si es positivo)", positive(t("21").minus(t("25"))), "formula");
  put(it1, "t", "27", "Saldo a favor (25-21, si es positivo)", positive(t("25").minus(t("21"))), "formula");
  put(it1, "t", "28", "Saldos compensables autorizados (otros impuestos) y/o reembolsos", input.it1_28, "input");
  put(it1, "t", "29", "Saldo a favor anterior", input.it1_29, "input");
  put(it1, "t", "30", "Total pagos computables por retenciones (Anexo A 33)", a("33"), "formula");
  put(it1, "t", "31", "Otros pagos computables a cuenta", input.it1_31, "input");
  put(it1, "t", "32", "Compensaciones y/o reembolsos autorizados", input.it1_32, "input");
  const credits = sum(["28", "29", "30", "31", "32"].map(t));
  const balance = t("26").minus(credits);
  put(it1, "t", "33", "Diferencia a pagar (26-28-29-30-31-32, si es positivo)", positive(balance), "formula");
  put(it1, "t", "34", "Nuevo saldo a favor", t("27").gt(0) ? t("27").plus(credits) : positive(balance.times(-1)), "formula");
  put(it1, "t", "35", "Recargos", input.it1_35, "input");
  put(it1, "t", "36", "Interés indemnizatorio", input.it1_36, "input");
  put(it1, "t", "37", "Sanciones", input.it1_37, "input");
  put(it1, "t", "38", "Total a pagar (33+35+36+37)", sum(["33", "35", "36", "37"].map(t)), "formula");

  // Section A: the ITBIS the company withheld from its suppliers, declared and paid with the IT-1
  // (not in the IR-17): the 606 rows of the purchases withheld in the period.
  const sectionA: Casilla[] = [];
  const baseOf = { "39": ZERO, "40": ZERO, "42": ZERO, "43": ZERO, "44": ZERO, "45": ZERO, "47": ZERO, "48": ZERO };
  for (const row of withheld) {
    if (col(row, "itbis_withheld").eq(0)) continue;
    const regime = regimes.get(`${row.supplier_id}|${row.ncf}`);
    // The bases leave the bill's exempt parts out (MONTHLY-CLOSE §3, section A): its services and
    // goods taxed with ITBIS, not the 606's columns 8 and 9, which hold them.
    const services = regime ? regime.taxedServices : col(row, "services_amount");
    const goods = regime ? regime.taxedGoods : col(row, "goods_amount");
    if (isType(row.ncf, "11", "41")) {
      // Comprobante de compras (Norma 05-19): the goods bought from an informal supplier by the rate
      // they were taxed at (the form's 47 at 18 %, 48 at 16 %: 56 and 57 are those rates of them), and any services.
      const goods16 = regime ? regime.taxedGoods16 : ZERO;
      baseOf["47"] = baseOf["47"].plus(goods.minus(goods16));
      baseOf["48"] = baseOf["48"].plus(goods16);
      baseOf["39"] = baseOf["39"].plus(services);
    } else if (regime?.tax_regime === "rst") {
      // An RST supplier's goods or services, whatever its id type, by the rate they were taxed at.
      baseOf["44"] = baseOf["44"].plus(regime.base18);
      baseOf["45"] = baseOf["45"].plus(regime.base16);
    } else if (regime?.tax_regime === "non_profit") {
      baseOf["40"] = baseOf["40"].plus(services).plus(goods);
    } else if (row.supplier_id_type === "2") {
      // A persona física's services (606 column 8): its goods are no base of 39, "Servicios sujetos a
      // retención personas físicas" (../shared/MONTHLY-CLOSE.md §3, section A, casilla 39).
      baseOf["39"] = baseOf["39"].plus(services);
    } else if (col(row, "itbis_withheld").gte(col(row, "itbis_invoiced"))) {
      baseOf["42"] = baseOf["42"].plus(services).plus(goods);
    } else {
      baseOf["43"] = baseOf["43"].plus(services).plus(goods);
    }
  }
  put(sectionA, "t", "39", "Servicios sujetos a retención personas físicas", baseOf["39"], "books");
  put(sectionA, "t", "40", "Servicios sujetos a retención entidades no lucrativas (Norma 01-11)", baseOf["40"], "books");
  put(sectionA, "t", "41", "Total servicios sujetos a retención a personas físicas y entidades no lucrativas (39+40)", t("39").plus(t("40")), "formula");
  put(sectionA, "t", "42", "Servicios sujetos a retención sociedades (Norma 07-09)", baseOf["42"], "books");
  put(sectionA, "t", "43", "Servicios sujetos a retención sociedades (Normas 02-05 y 07-07)", baseOf["43"], "books");
  // RST suppliers (contacts.tax_regime): their bases by rate; 53 and 54 the form's rates of them.
  put(sectionA, "t", "44", "Bienes o servicios sujetos a retención a contribuyentes del RST (operaciones gravadas al 18%)", baseOf["44"], "books");
  put(sectionA, "t", "45", "Bienes o servicios sujetos a retención a contribuyentes del RST (operaciones gravadas al 16%)", baseOf["45"], "books");
  put(sectionA, "t", "46", "Total bienes o servicios sujetos a retención a contribuyentes del RST (44+45)", t("44").plus(t("45")), "formula");
  put(sectionA, "t", "47", "Bienes sujetos a retención de comprobante de compras 18% (Normas 08-10 y 05-19)", baseOf["47"], "books");
  put(sectionA, "t", "48", "Bienes sujetos a retención de comprobante de compras 16%", baseOf["48"], "books");
  put(sectionA, "t", "49", "Total bienes sujetos a retención de comprobante de compras (47+48)", t("47").plus(t("48")), "formula");
  put(sectionA, "t", "50", "ITBIS por servicios sujetos a retención personas físicas y entidades no lucrativas (18% de 41)", rate("41", "18"), "formula");
  put(sectionA, "t", "51", "ITBIS por servicios sujetos a retención sociedades (18% de 42)", rate("42", "18"), "formula");
  put(sectionA, "t", "52", "ITBIS por servicios sujetos a retención sociedades (18% de 43 × 30%)", cents(t("43").times("0.18").times("0.30")), "formula");
  put(sectionA, "t", "53", "ITBIS retenido a contribuyentes del RST (18% de 44)", rate("44", "18"), "formula");
  put(sectionA, "t", "54", "ITBIS retenido a contribuyentes del RST (16% de 45)", rate("45", "16"), "formula");
  put(sectionA, "t", "55", "Total ITBIS retenido a contribuyentes del RST (53+54)", t("53").plus(t("54")), "formula");
  put(sectionA, "t", "56", "ITBIS por compras sujetas a retención de comprobante de compras (18% de 47)", rate("47", "18"), "formula");
  put(sectionA, "t", "57", "ITBIS por compras sujetas a retención de comprobante de compras (16% de 48)", rate("48", "16"), "formula");
  put(sectionA, "t", "58", "Total ITBIS por compras sujetas a retención de comprobante de compras (56+57)", t("56").plus(t("57")), "formula");
  put(sectionA, "t", "59", "Total ITBIS percibido en venta", ZERO, "books");
  put(sectionA, "t", "60", "Impuesto a pagar (50+51+52+55+58+59)", sum(["50", "51", "52", "55", "58", "59"].map(t)), "formula");
  put(sectionA, "t", "61", "Pagos computables a cuenta", input.it1_61, "input");
  put(sectionA, "t", "62", "Diferencia a pagar (60-61, si es positivo)", positive(t("60").minus(t("61"))), "formula");
  put(sectionA, "t", "63", "Nuevo saldo a favor (61-60, si es positivo)", positive(t("61").minus(t("60"))), "formula");
  put(sectionA, "t", "64", "Recargos", input.it1_64, "input");
  put(sectionA, "t", "65", "Interés indemnizatorio", input.it1_65, "input");
  put(sectionA, "t", "66", "Sanciones", input.it1_66, "input");
  put(sectionA, "t", "67", "Total a pagar (62+64+65+66)", sum(["62", "64", "65", "66"].map(t)), "formula");
  put(sectionA, "t", "68", "Total general (38+67)", t("38").plus(t("67")), "formula");

  // Where the form's own arithmetic and the files' sums may part by cents (ITBIS rounded per line,
  // bases that hold exempt parts): shown, never forced (MONTHLY-CLOSE §1, "Amounts").
  const itbis607 = sum(rows607.map((row) => col(row, "itbis_invoiced").times(isType(row.ncf, "04", "34") ? -1 : 1))).plus(consumer.itbis_invoiced);
  const check = (rule: string, expected: Big, actual: Big): Check => ({
    rule,
    expected: money(expected),
    actual: money(actual),
    difference: money(actual.minus(expected)),
  });
  const checks = [
    check("IT-1 21 = Σ 607 column 9 (credit notes subtracting) + consumer summary's ITBIS", itbis607, t("21")),
    check("IT-1 11+12+13+14+15 = IT-1 10", t("10"), sum(["11", "12", "13", "14", "15"].map(t))),
    check(
      "IT-1 60 - 59 = Σ 606 column 12 of the purchases withheld in the period",
      sum(withheld.map((row) => col(row, "itbis_withheld"))),
      t("60").minus(t("59")),
    ),
  ];

  return {
    form: "IT-1",
    edition: IT1_EDITION,
    rnc,
    legal_name: legalName,
    period,
    readings,
    anexo_a: anexo,
    itbis_paid: itbisPaidRows,
    it1,
    section_a: sectionA,
    checks,
    // The Anexo A's numbers repeat the IT-1's: named as such.
    left_to_accountant: [
      ...[...anexo, ...itbisPaidRows].filter((c) => c.from === "accountant").map((c) => `Anexo A ${c.casilla}`),
      ...[...it1, ...sectionA].filter((c) => c.from === "accountant").map((c) => c.casilla),
    ],
  };
}
