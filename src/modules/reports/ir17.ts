import type { AnyDb } from "../../db/client";
import { Big } from "../../lib/decimal";
import { getProfile } from "../company/service";
import { cents } from "../sales/money";
import { withheld606 } from "./purchases606";
import { type Ir17Query, Ir17Readings, type Row606 } from "./schemas";
import { periodOf, readWhole } from "./service";

/**
 * DGII's IR-17 (Declaración y/o Pago de Otras Retenciones y Retribuciones Complementarias): the ISR
 * the company withheld from its suppliers, by concept, from the purchases withheld in the period,
 * each as its 606 row reports it (column 17, Tipo de Retención en ISR, and 18, the amount; by the
 * withholding's date: the 606's "Fecha Pago"). Payroll withholdings (IR-3) are not Sucursal's, and
 * the ITBIS withheld from suppliers is declared in the IT-1's section A, not here (the forms say
 * so: ../shared/MONTHLY-CLOSE.md §5; docs/reports.md, "IR-17").
 *
 * The layout follows the period: casillas 1-37 for withholdings paid from July 2026 (Ley 30-26),
 * 1-34 before it (the 2025 layout, with Norma 04-25's cattle line), 1-31 for periods before 2025.
 * Rates are a function of the payment date: Ley 30-26 (promulgated 2026-06-18) raised Art. 309's
 * 10 % to 15 % and the presumed-income 2 % to 3 % for payments from 2026-07-01.
 */

const LEY_30_26_FROM = "202607";
const LAYOUT_2025_FROM = "202501";

interface Concept {
  casilla: string;
  name: string;
  /** The 606's column 17 codes that feed it. */
  codes: string[];
  rate: (period: string) => string;
}

const art309 = (period: string) => (period >= LEY_30_26_FROM ? "15" : "10");
const presumed = (period: string) => (period >= LEY_30_26_FROM ? "3" : "2");
const fixed = (rate: string) => () => rate;

const CONCEPTS: Concept[] = [
  { casilla: "1", name: "Alquileres", codes: ["01"], rate: art309 },
  { casilla: "2", name: "Honorarios por servicios independientes", codes: ["02"], rate: art309 },
  { casilla: "3", name: "Premios (Ley 253-12)", codes: [], rate: fixed("25") },
  { casilla: "4", name: "Transferencia de título y propiedades", codes: [], rate: fixed("2") },
  { casilla: "5", name: "Dividendos (Ley 253-12)", codes: [], rate: fixed("10") },
  { casilla: "6", name: "Intereses pagados a personas jurídicas no residentes (Ley 253-12)", codes: [], rate: fixed("10") },
  { casilla: "7", name: "Intereses pagados a personas jurídicas no residentes (Ley 57-07)", codes: [], rate: fixed("5") },
  { casilla: "8", name: "Intereses pagados a personas físicas no residentes (Ley 253-12)", codes: [], rate: fixed("10") },
  { casilla: "9", name: "Intereses pagados a personas físicas no residentes (Leyes 57-07 y 253-12)", codes: [], rate: fixed("5") },
  { casilla: "10", name: "Remesas al exterior (Ley 253-12)", codes: [], rate: fixed("27") },
  // Casilla 11's rate is a reading (casilla_11_rate): see `placed`.
  { casilla: "11", name: "Intereses pagados por entidades no financieras a personas físicas residentes", codes: ["06"], rate: fixed("10") },
  { casilla: "12", name: "Pagos a proveedores del Estado (Ley 253-12)", codes: ["07"], rate: fixed("5") },
  { casilla: "13", name: "Juegos telefónicos (Norma 08-2011)", codes: ["08"], rate: fixed("5") },
  { casilla: "14", name: "Ganancia de capital (Norma 07-2011)", codes: [], rate: fixed("1") },
  { casilla: "15", name: "Juegos vía internet (Ley 139-11)", codes: [], rate: fixed("10") },
  // Code 03 goes to 16 or 17 by a reading (code_03_casilla): see `placed`.
  { casilla: "16", name: "Otras rentas (Ley 11-92, Art. 309)", codes: [], rate: art309 },
  { casilla: "17", name: "Otras rentas (Decreto 139-98, Art. 70 a y b)", codes: ["04"], rate: presumed },
  { casilla: "18", name: "Otras retenciones (Norma 07-2007)", codes: [], rate: presumed },
  { casilla: "19", name: "Intereses pagados por entidades financieras a personas jurídicas residentes (Norma 13-2011)", codes: ["05"], rate: fixed("1") },
  { casilla: "20", name: "Intereses pagados por entidades financieras a personas físicas residentes (Ley 253-12)", codes: [], rate: fixed("10") },
  { casilla: "21", name: "Bienes de personas físicas de ganadería de carne bovina (Norma 04-25)", codes: ["09"], rate: fixed("1") },
  { casilla: "22", name: "Regalías a no residentes (Art. 305-1)", codes: [], rate: fixed("15") },
  { casilla: "23", name: "Software, publicidad en línea y datos a no residentes (Art. 305-2)", codes: [], rate: fixed("15") },
  { casilla: "24", name: "Remesas de más de 1,000 millones", codes: [], rate: fixed("30") },
];

/**
 * A concept as the accountant's readings place it. Two readings could not be confirmed
 * (../shared/MONTHLY-CLOSE.md §5, §7), so they are the request's: casilla 11's rate, 10 % [S8] or
 * 5 % [S10]; and where 606 code 03 goes, casilla 16 (Art. 309, at its rate: [S8]) or 17 (Decreto
 * 139-98 Art. 70, at 17's rate in force: an older implementation, [S4]).
 */
function placed(concept: Concept, readings: Ir17Readings): Concept {
  const rate = concept.casilla === "11" ? fixed(readings.casilla_11_rate) : concept.rate;
  const codes = concept.casilla === readings.code_03_casilla ? [...concept.codes, "03"] : concept.codes;
  return { ...concept, rate, codes };
}

/** The liquidation's casillas by layout: what the request gives, and the form's arithmetic. */
const LIQUIDATION = {
  "2026-07": {
    concepts: 24,
    total: "25",
    treaty: "26",
    totalAfterTreaty: "27",
    fringe: "28",
    due: "29",
    compensable: "30",
    onAccount: "31",
    previous: "32",
    difference: "33",
    newBalance: "34",
    surcharges: "35",
    interest: "36",
    toPay: "37",
  },
  "2025": {
    concepts: 21,
    total: "22",
    treaty: "23",
    totalAfterTreaty: "24",
    fringe: "25",
    due: "26",
    compensable: "27",
    onAccount: "28",
    previous: "29",
    difference: "30",
    newBalance: "31",
    surcharges: "32",
    interest: "33",
    toPay: "34",
  },
  "2022": {
    concepts: 20,
    total: "21",
    treaty: null,
    totalAfterTreaty: null,
    fringe: "22",
    due: "23",
    compensable: "24",
    onAccount: "25",
    previous: "26",
    difference: "27",
    newBalance: "28",
    surcharges: "29",
    interest: "30",
    toPay: "31",
  },
} as const;
type Layout = keyof typeof LIQUIDATION;

const layoutOf = (period: string): Layout => (period >= LEY_30_26_FROM ? "2026-07" : period >= LAYOUT_2025_FROM ? "2025" : "2022");

export interface Ir17Concept {
  casilla: string;
  name: string;
  rate: string;
  base: string;
  /** The form's figure: base × rate, half-up to the cent (the form applies the rate: MONTHLY-CLOSE §5, §1 "Amounts"). */
  amount: string;
  /** What was withheld, Σ 606 column 18; absent from an IR-17 kept by a close made before it was kept. */
  withheld?: string;
  count: number;
  from: "books" | "accountant";
}

export interface Ir17 {
  form: "IR-17";
  layout: string;
  rnc: string;
  /**
   * The razón social beside the RNC, as the profile had it when computed (a closed period's: at its
   * close, like the IT-1's renglón I); absent from an IR-17 a close kept before it was kept.
   */
  legal_name?: string | null;
  period: string;
  /** The readings it was computed with (MONTHLY-CLOSE §5, §7); absent from an IR-17 kept by a close made before they were kept. */
  readings?: Ir17Readings;
  concepts: Ir17Concept[];
  liquidation: { casilla: string; name: string; amount: string; from: "books" | "input" | "formula" }[];
  checks: { rule: string; expected: string; actual: string; difference: string }[];
  out_of_scope: string;
}

const ZERO = new Big(0);
const money = (value: Big) => value.toFixed(2);
const positive = (value: Big) => (value.gt(0) ? value : ZERO);

export async function ir17Report(db: AnyDb, tenantId: number, query: Ir17Query): Promise<Ir17> {
  const period = periodOf(query.period);
  const { header, rows } = await readWhole(db, tenantId, withheld606, { period: period.text, format: "json", workspace_id: undefined });
  const legalName = (await getProfile(db, tenantId))?.legalName ?? null;
  return computeIr17(header.rnc, legalName, period.text, rows, query);
}

function computeIr17(rnc: string, legalName: string | null, period: string, rows: Row606[], query: Ir17Query): Ir17 {
  const layout = layoutOf(period);
  const liq = LIQUIDATION[layout];
  const withheld = rows.filter((row) => new Big(row.isr_withheld || "0").gt(0));
  // The query's readings, its other parameters left out (zod's object strips unknown keys).
  const readings = Ir17Readings.parse(query);
  const concepts: Ir17Concept[] = CONCEPTS.slice(0, liq.concepts)
    .map((concept) => placed(concept, readings))
    // The 2022 layout has no casilla 11 of its own (it was remesas por acuerdos especiales) nor 21.
    .filter((concept) => !(layout === "2022" && ["11", "21"].includes(concept.casilla)))
    .map((concept) => {
      const mine = withheld.filter((row) => concept.codes.includes(row.isr_withholding_type));
      // The taxable amount: the services billed (the 606's ISR is services × rate), the goods for a goods line.
      const base = mine.reduce((total, row) => {
        const services = new Big(row.services_amount);
        return total.plus(services.gt(0) ? services : new Big(row.goods_amount));
      }, ZERO);
      const withheldAmount = mine.reduce((total, row) => total.plus(row.isr_withheld), ZERO);
      // The IR-17 takes a taxable amount per casilla and applies the rate in force itself
      // (../shared/MONTHLY-CLOSE.md §5; §1 "Amounts": each product half-up to the cent): what is
      // declared is base × rate, whatever was withheld, which the checks show beside it.
      const rate = new Big(concept.rate(period));
      return {
        casilla: concept.casilla,
        name: concept.name,
        rate: rate.toFixed(2),
        base: money(base),
        amount: money(cents(base.times(rate).div(100))),
        withheld: money(withheldAmount),
        count: mine.length,
        from: concept.codes.length ? "books" : "accountant",
      };
    });
  const input = (value: string | undefined) => new Big(value ?? "0");
  const total = concepts.reduce((sum, concept) => sum.plus(concept.amount), ZERO);
  const liquidation: Ir17["liquidation"] = [];
  const put = (casilla: string | null, name: string, amount: Big, from: "books" | "input" | "formula") => {
    if (casilla) liquidation.push({ casilla, name, amount: money(amount), from });
  };
  const treaty = input(query.treaty_withholdings);
  put(liq.total, "Total retenciones por conceptos", total, "books");
  put(liq.treaty, "Retenciones por convenios para evitar la doble tributación (anexo R9C)", treaty, "input");
  const afterTreaty = liq.treaty ? total.plus(treaty) : total;
  put(liq.totalAfterTreaty, "Total", afterTreaty, "formula");
  const fringe = input(query.fringe_benefits);
  put(liq.fringe, "Retribuciones complementarias (27 %)", fringe, "input");
  const due = afterTreaty.plus(fringe);
  put(liq.due, "Impuesto a pagar", due, "formula");
  const [compensable, onAccount, previous] = [query.compensable_balances, query.payments_on_account, query.previous_balance].map(input) as [Big, Big, Big];
  put(liq.compensable, "Saldos compensables autorizados (otros impuestos) y/o reembolsos", compensable, "input");
  put(liq.onAccount, "Pagos computables a cuenta", onAccount, "input");
  put(liq.previous, "Saldo a favor anterior", previous, "input");
  const balance = due.minus(compensable).minus(onAccount).minus(previous);
  put(liq.difference, "Diferencia a pagar", positive(balance), "formula");
  put(liq.newBalance, "Nuevo saldo a favor", positive(balance.times(-1)), "formula");
  put(liq.surcharges, "Recargos", input(query.surcharges), "input");
  put(liq.interest, "Interés indemnizatorio", input(query.interest), "input");
  put(liq.toPay, "Total a pagar", positive(balance).plus(input(query.surcharges)).plus(input(query.interest)), "formula");

  const ratedDifference = concepts.reduce((sum, concept) => sum.plus(new Big(concept.withheld ?? "0").minus(concept.amount)), ZERO);
  return {
    form: "IR-17",
    layout:
      layout === "2026-07"
        ? "IR-17 of July 2026 (casillas 1-37, Ley 30-26 rates)"
        : layout === "2025"
          ? "IR-17 of 2025 (casillas 1-34)"
          : "IR-17 before 2025 (casillas 1-31)",
    rnc,
    legal_name: legalName,
    period,
    readings,
    concepts,
    liquidation,
    checks: [
      {
        rule: "Total retenciones (Σ base × rate) = Σ 606 column 18 of the purchases withheld in the period",
        expected: money(rows.reduce((sum, row) => sum.plus(row.isr_withheld || "0"), ZERO)),
        actual: money(total),
        difference: money(total.minus(rows.reduce((sum, row) => sum.plus(row.isr_withheld || "0"), ZERO))),
      },
      { rule: "Σ (withheld − base × the rate in force), by concept", expected: "0.00", actual: money(ratedDifference), difference: money(ratedDifference) },
    ],
    out_of_scope:
      "Payroll withholdings (IR-3) and the ITBIS withheld from suppliers (declared in the IT-1, section A) are not in the IR-17 Sucursal prepares; nor are the concepts the 606 does not carry (premios, dividendos, remesas, …): the accountant adds them.",
  };
}
