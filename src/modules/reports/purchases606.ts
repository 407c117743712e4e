import { type SQL, sql } from "drizzle-orm";
import { Big } from "../../lib/decimal";
import type { TaxBreakdown } from "../sales/lines";
import { inDop } from "../sales/money";
import { Row606 } from "./schemas";
import type { Period, ReportContext, ReportSource } from "./service";

/**
 * Formato 606, "Formato de Envío de Compras de Bienes y Servicios" (Norma General 07-2018): one row
 * per purchase entered (not a draft, not voided) whose issue date falls in the period, bar consumer
 * invoices (B02, E32): DGII's 606 takes the documents that support costs or ITBIS credits. The columns,
 * their order and their rules are in docs/reports.md ("606"), with what each one is taken from and
 * which ones DGII's own material confirms.
 */

interface Raw606 {
  issue_date: string;
  expense_type: string;
  ncf: string;
  self_issued_prefix: string | null;
  identification_type: string | null;
  identification: string | null;
  exchange_rate: string;
  net_amount: string;
  goods_amount: string;
  tax_breakdown: TaxBreakdown;
  total_amount: string;
  itbis_withheld: string;
  isr_withheld: string;
  withholding_date: string | null;
  last_payment_date: string | null;
  paid: string;
  payment_methods: string | null;
}

/**
 * The documents the company issues itself that DGII wants under the company's own RNC: gastos
 * menores are issued "a nombre del mismo emisor", and for pagos al exterior "el campo RNC o Cédula
 * debe ser completado con el RNC del contribuyente que emite el comprobante y no se debe incluir la
 * retención del Impuesto Sobre la Renta" (DGII's answer on the 606, docs/reports.md, sources).
 */
const OWN_ID_PREFIXES = new Set(["B13", "E43", "B17", "E47"]);
const EXTERIOR_PREFIXES = new Set(["B17", "E47"]);

/**
 * Forma de Pago (606 column 23): 01 efectivo, 02 cheques/transferencias/depósito, 03 tarjeta de
 * crédito/débito, 04 compra a crédito, 05 permuta, 06 notas de crédito, 07 mixto. Our payment
 * methods map onto the first three; `other` names no instrument, and is reported as 07 (mixto),
 * the one code that claims none (docs/reports.md).
 */
const PAYMENT_FORMS: Record<string, string> = {
  cash: "01",
  check: "02",
  bank_transfer: "02",
  credit_card: "03",
  debit_card: "03",
  other: "07",
};
const ON_CREDIT = "04";
const MIXED = "07";

/** Tipo de Retención en ISR (606 column 17), derived (docs/reports.md): purchases do not record it. */
function isrWithholdingType(expenseType: string, supplierIsPerson: boolean): string {
  if (expenseType === "03") return "01"; // arrendamientos → alquileres
  if (expenseType === "07") return supplierIsPerson ? "06" : "05"; // intereses a personas físicas / jurídicas residentes
  return supplierIsPerson ? "02" : "03"; // honorarios por servicios independientes / otras rentas
}

const ZERO = "0.00";

/** An amount of the purchase's currency in DOP: × the purchase's rate, half-up to the cent (as total_amount_dop). */
const dop = inDop;

function idTypeOf(identificationType: string | null, identification: string): string {
  if (identificationType === "rnc") return "1";
  if (identificationType === "cedula") return "2";
  // The company's own id: an RNC has 9 digits, a cédula (persona física) 11.
  return identification.length === 11 ? "2" : "1";
}

function paymentForm(raw: Raw606): string {
  const forms = new Set((raw.payment_methods ? raw.payment_methods.split(",") : []).map((method) => PAYMENT_FORMS[method] ?? MIXED));
  const due = new Big(raw.total_amount).minus(raw.itbis_withheld).minus(raw.isr_withheld);
  // What was still unpaid when the period closed was bought on credit.
  if (new Big(raw.paid).lt(due)) forms.add(ON_CREDIT);
  return forms.size === 1 ? [...forms][0]! : MIXED;
}

export function row606(raw: Raw606, context: ReportContext): Row606 {
  const rate = raw.exchange_rate;
  const ownId = raw.self_issued_prefix !== null && OWN_ID_PREFIXES.has(raw.self_issued_prefix);
  const exterior = raw.self_issued_prefix !== null && EXTERIOR_PREFIXES.has(raw.self_issued_prefix);
  const supplierId = ownId ? context.rnc : (raw.identification ?? "");
  const supplierIdType = ownId ? idTypeOf(null, context.rnc) : raw.identification ? idTypeOf(raw.identification_type, raw.identification) : "";

  const goods = dop(raw.goods_amount, rate);
  const services = dop(new Big(raw.net_amount).minus(raw.goods_amount), rate);
  const breakdown = raw.tax_breakdown;
  const itbis = dop(
    breakdown.itbis.reduce((sum, entry) => sum.plus(entry.amount), new Big(0)),
    rate,
  );
  // Withholdings are declared when made: reported once the purchase's withholding date is within
  // the period or before it (the statement gives the date only then), and always with a payment date.
  const withheld = raw.withholding_date !== null;
  const itbisWithheld = withheld ? dop(raw.itbis_withheld, rate) : new Big(0);
  const isrWithheld = withheld && !exterior ? dop(raw.isr_withheld, rate) : new Big(0);
  const paymentDates = [raw.last_payment_date, withheld ? raw.withholding_date : null].filter((d): d is string => d !== null).sort();
  const itbisToCost = new Big(0);

  return {
    supplier_id: supplierId,
    supplier_id_type: supplierIdType,
    expense_type: raw.expense_type,
    ncf: raw.ncf,
    modified_ncf: "",
    issue_date: raw.issue_date,
    payment_date: paymentDates.at(-1) ?? "",
    services_amount: services.toFixed(2),
    goods_amount: goods.toFixed(2),
    total_amount: services.plus(goods).toFixed(2),
    itbis_invoiced: itbis.toFixed(2),
    itbis_withheld: itbisWithheld.toFixed(2),
    itbis_proportionality: ZERO,
    itbis_to_cost: itbisToCost.toFixed(2),
    // "Resulta al restar el valor del campo ITBIS Facturado menos el valor del campo ITBIS llevado al Costo".
    itbis_to_advance: itbis.minus(itbisToCost).toFixed(2),
    // Not enabled "hasta tanto no existan normativas que establezcan un régimen de percepción": empty.
    itbis_perceived: "",
    isr_withholding_type: isrWithheld.gt(0) ? isrWithholdingType(raw.expense_type, supplierIdType === "2") : "",
    isr_withheld: isrWithheld.toFixed(2),
    isr_perceived: "",
    isc: dop(new Big(breakdown.isc_specific).plus(breakdown.isc_ad_valorem), rate).toFixed(2),
    other_taxes: dop(breakdown.other_additional, rate).toFixed(2),
    legal_tip: dop(breakdown.propina, rate).toFixed(2),
    payment_form: paymentForm(raw),
  };
}

/**
 * The 606's rows of the purchases `which` selects (alias `p`), each as the 606 of `period` reports it:
 * withholdings made by the period's end, payments dated by it.
 */
function statement606(tenantId: number, period: Period, which: SQL) {
  return sql`
    SELECT to_char(p.issue_date, 'YYYYMMDD') AS issue_date, p.expense_type, coalesce(p.ncf, p.supplier_ncf) AS ncf,
      left(p.ncf, 3) AS self_issued_prefix, c.identification_type, c.identification,
      p.exchange_rate::text AS exchange_rate, (p.subtotal_amount - p.discount_amount)::text AS net_amount,
      coalesce(g.goods, 0)::text AS goods_amount, p.tax_breakdown, p.total_amount::text AS total_amount,
      p.itbis_withheld::text AS itbis_withheld, p.isr_withheld::text AS isr_withheld,
      CASE WHEN p.withholding_date <= ${period.to}::date THEN to_char(p.withholding_date, 'YYYYMMDD') END AS withholding_date,
      to_char(pay.last_date, 'YYYYMMDD') AS last_payment_date, coalesce(pay.paid, 0)::text AS paid, pay.methods AS payment_methods,
      count(*) OVER () AS total
    FROM purchases p
    LEFT JOIN contacts c ON c.id = p.supplier_id AND c.tenant_id = ${tenantId}
    -- Goods: lines of products that are not services; the rest (services, expense lines) are services.
    LEFT JOIN LATERAL (
      SELECT sum(i.subtotal - i.discount_amount) AS goods FROM purchase_items i JOIN products pr ON pr.id = i.product_id AND pr.tenant_id = ${tenantId}
      WHERE i.purchase_id = p.id AND i.tenant_id = ${tenantId} AND pr.product_type <> 'service'
    ) g ON true
    -- Payments made by the end of the period: the last one's date, the sum, the methods.
    LEFT JOIN LATERAL (
      SELECT max(pp.payment_date) AS last_date, sum(pp.amount) AS paid, string_agg(DISTINCT pp.payment_method, ',') AS methods
      FROM purchase_payments pp WHERE pp.purchase_id = p.id AND pp.tenant_id = ${tenantId} AND pp.payment_date <= ${period.to}::date
    ) pay ON true
    WHERE p.tenant_id = ${tenantId} AND p.status IN ('pending_payment', 'partially_paid', 'paid')
      -- A consumer invoice (B02, E32) supports neither a cost nor an ITBIS credit: not a 606 row.
      AND coalesce(p.ncf, p.supplier_ncf) !~ '^(B02|E32)'
      AND ${which}
    ORDER BY p.issue_date, p.id`;
}

export const purchases606: ReportSource<Row606> = {
  format: "606",
  columns: Object.keys(Row606) as (keyof Row606)[],
  statement: (tenantId, period, workspaceId) =>
    statement606(
      tenantId,
      period,
      sql`p.issue_date BETWEEN ${period.from}::date AND ${period.to}::date ${workspaceId === undefined ? sql`` : sql`AND p.workspace_id = ${workspaceId}`}`,
    ),
  row: (raw, context: ReportContext) => row606(raw as unknown as Raw606, context),
};

/**
 * The purchases withheld in the period (their withholding date in it, whatever month they were
 * issued in), each as its 606 row reports it once the withholding is made: what the IR-17 and the
 * IT-1's section A declare (the 606 has no other withholding date than its payment date, column 7).
 */
export const withheld606: ReportSource<Row606> = {
  ...purchases606,
  statement: (tenantId, period, workspaceId) =>
    statement606(
      tenantId,
      period,
      sql`p.withholding_date BETWEEN ${period.from}::date AND ${period.to}::date AND (p.itbis_withheld > 0 OR p.isr_withheld > 0)
        ${workspaceId === undefined ? sql`` : sql`AND p.workspace_id = ${workspaceId}`}`,
    ),
};
