import type { z } from "@hono/zod-openapi";
import { asc, eq, type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import { Big, groupedDecimal } from "../../lib/decimal";
import { decimal2, unitPriceText } from "../../lib/format";
import { type AppliedTax, type LineAmounts, type TaxBreakdown, taxBreakdown } from "./lines";
import type { PdfDocumentData } from "./pdf";
import { type DocumentReferencesInput, itemsFromStoredLines, type ResolvedLine } from "./references";
import type { LineItemOutput } from "./schemas";

/**
 * The lines of invoices and quotations in SQL: the one home of `invoice_items`,
 * `invoice_item_taxes` and `quotation_items` statements. Both tables have the same line columns
 * (db/schema/sales.ts `lineColumns`), so one set of statements serves both, with the column names
 * and types taken from the drizzle tables.
 */

/** The line columns a line record fills, by their drizzle keys. */
const LINE_FIELDS = [
  "position",
  "productId",
  "description",
  "quantity",
  "unitPrice",
  "discount",
  "discountAmount",
  "subtotal",
  "taxAmount",
  "total",
  "taxes",
] as const;
type LineField = (typeof LINE_FIELDS)[number];

/** The line columns the API shows (`id` first), by their drizzle keys. */
const SHOWN_FIELDS = ["id", ...LINE_FIELDS.filter((field) => field !== "position")] as const;

type DocumentKind = "invoice" | "quotation";

const LINE_TABLES = {
  invoice: { items: schema.invoiceItems, documentId: schema.invoiceItems.invoiceId, itemTaxes: schema.invoiceItemTaxes },
  quotation: { items: schema.quotationItems, documentId: schema.quotationItems.quotationId, itemTaxes: null },
} as const;

/** A line as written: amounts computed, the taxes snapshotted. */
type LineRecord = Pick<typeof schema.invoiceItems.$inferInsert, Exclude<LineField, "taxes">> & { taxes: AppliedTax[] };

/** A line as the API shows it, with its product. */
export type ItemJson = z.output<typeof LineItemOutput>;

/** Line records for the insert statement: amounts computed, taxes snapshotted. */
export function lineRecords(lines: ResolvedLine[], amounts: LineAmounts[]): LineRecord[] {
  return lines.map((line, position) => {
    const { discountAmount, subtotal, taxAmount, total, taxes } = amounts[position]!;
    return {
      position,
      productId: line.productId,
      description: line.description,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      discount: line.discount,
      discountAmount,
      subtotal,
      taxAmount,
      total,
      taxes,
    };
  });
}

const columnList = (columns: PgColumn[], alias?: string): SQL =>
  sql.join(
    columns.map((column) => (alias ? sql`${sql.raw(alias)}.${sql.identifier(column.name)}` : sql.identifier(column.name))),
    sql`, `,
  );

/**
 * The CTE `items` inserting a document's lines for the document `documentId` (an expression: the
 * id of a row inserted earlier in the same statement, or a parameter), and for invoices the taxes
 * the lines use (`invoice_item_taxes`). The lines travel as one JSON parameter, read with
 * jsonb_to_recordset: one statement whatever the number of lines. Nothing is written when
 * `documentId` is NULL (the statement could not create the document).
 */
export function insertLines(kind: DocumentKind, tenantId: number, documentId: SQL, records: LineRecord[]): SQL {
  const { items, documentId: documentColumn, itemTaxes } = LINE_TABLES[kind];
  const columns = LINE_FIELDS.map((field) => items[field]);
  const json = records.map((record) => Object.fromEntries(LINE_FIELDS.map((field) => [items[field].name, record[field]])));
  const definition = sql.raw(columns.map((column) => `${column.name} ${column.getSQLType()}`).join(", "));
  const insert = sql`items AS (
      INSERT INTO ${items} (${columnList([items.tenantId, documentColumn, ...columns])})
      SELECT ${tenantId}, ${documentId}, ${columnList(columns, "x")}
      FROM jsonb_to_recordset(${JSON.stringify(json)}::jsonb) AS x(${definition})
      WHERE ${documentId} IS NOT NULL
      RETURNING ${columnList([items.id, items.position])}
    )`;
  if (!itemTaxes) return insert;
  const used = records.flatMap((record) => record.taxes.map((tax) => ({ position: record.position, tax_id: tax.id })));
  return sql`${insert}, item_taxes AS (
      INSERT INTO ${itemTaxes} (${columnList([itemTaxes.tenantId, itemTaxes.invoiceItemId, itemTaxes.taxId])})
      SELECT ${tenantId}, items.id, t.tax_id
      FROM items JOIN jsonb_to_recordset(${JSON.stringify(used)}::jsonb) AS t(position int, tax_id int) ON t.position = items.position
    )`;
}

/**
 * A subquery: the lines of the document whose id is `documentId` as a JSON array in their order,
 * each with its product (ItemJson before serializeItems formats the amounts).
 */
export function itemsJson(kind: DocumentKind, documentId: SQL): SQL {
  const { items, documentId: documentColumn } = LINE_TABLES[kind];
  const fields = sql.raw(SHOWN_FIELDS.map((field) => `'${items[field].name}', it.${items[field].name}`).join(", "));
  return sql`(SELECT coalesce(json_agg(json_build_object(${fields},
      'product', json_build_object('id', p.id, 'name', p.name, 'sku', p.sku)) ORDER BY it.position), '[]')
    FROM ${items} it JOIN products p ON p.id = it.product_id WHERE it.${sql.identifier(documentColumn.name)} = ${documentId})`;
}

/** The stored lines of a document as request items, in their order, to resolve them again unchanged. */
export async function storedLineItems(db: AnyDb, kind: DocumentKind, documentId: number): Promise<DocumentReferencesInput["items"]> {
  const lines =
    kind === "invoice"
      ? await db.select().from(schema.invoiceItems).where(eq(schema.invoiceItems.invoiceId, documentId)).orderBy(asc(schema.invoiceItems.position))
      : await db.select().from(schema.quotationItems).where(eq(schema.quotationItems.quotationId, documentId)).orderBy(asc(schema.quotationItems.position));
  return itemsFromStoredLines(lines);
}

/** One statement: the document's lines (and for invoices the taxes they use) replaced by `records`. */
export function replaceLines(kind: DocumentKind, tenantId: number, documentId: number, records: LineRecord[]): SQL {
  const { items, documentId: documentColumn } = LINE_TABLES[kind];
  return sql`WITH gone AS (DELETE FROM ${items} WHERE ${documentColumn} = ${documentId}),
    ${insertLines(kind, tenantId, sql`${documentId}::int`, records)}
    SELECT 1`;
}

/** A line's money as it is stored or read (numeric text). */
interface LineMoney {
  quantity: string;
  discount: string;
  discount_amount: string;
  subtotal: string;
  tax_amount: string;
  total: string;
}

/**
 * A line's money as the API writes it, for every document's lines (invoices, quotations, notes,
 * purchases): two decimals, the unit price (or a purchase's unit cost) with up to four
 * (unitPriceText), in the order the lines show them.
 */
export function lineMoneyText<K extends "unit_price" | "unit_cost">(line: LineMoney, unitKey: K, unit: string) {
  return {
    quantity: decimal2(line.quantity),
    ...({ [unitKey]: unitPriceText(unit) } as Record<K, string>),
    discount: decimal2(line.discount),
    discount_amount: decimal2(line.discount_amount),
    subtotal: decimal2(line.subtotal),
    tax_amount: decimal2(line.tax_amount),
    total: decimal2(line.total),
  };
}

/** Lines read by itemsJson, with amounts written as the API shows them. */
export function serializeItems(items: ItemJson[]): ItemJson[] {
  return items.map((it) => ({ ...it, ...lineMoneyText(it, "unit_price", it.unit_price) }));
}

type PrintedItem = Pick<ItemJson, "description" | "quantity" | "unit_price" | "discount" | "subtotal" | "discount_amount" | "tax_amount" | "total"> & {
  taxes: AppliedTax[];
};

/** The taxes by kind of a document's stored lines (what documents before migration 0021 did not store). */
export function itemsBreakdown(items: PrintedItem[]): TaxBreakdown {
  return taxBreakdown(
    items.map((item) => ({ subtotal: item.subtotal, discountAmount: item.discount_amount, taxAmount: item.tax_amount, total: item.total, taxes: item.taxes })),
  );
}

/** How the PDF names each kind of tax (Norma General 06-2018: ITBIS per rate and the other taxes apart). */
function taxLabels(breakdown: TaxBreakdown): PdfDocumentData["taxBreakdown"] {
  const rate = (value: string) => `${new Big(value).toFixed()}%`;
  return [
    ...breakdown.itbis.map((entry) => ({ label: `ITBIS ${rate(entry.rate)} (base ${groupedDecimal(entry.base)})`, amount: entry.amount })),
    ...(new Big(breakdown.exempt_base).gt(0) ? [{ label: "Monto exento", amount: breakdown.exempt_base }] : []),
    ...breakdown.additional.map((entry) => {
      const code = entry.code ? ` (código ${entry.code})` : "";
      const label = {
        isc_specific: `ISC específico${code}`,
        isc_ad_valorem: `ISC ad valorem ${rate(entry.rate)}${code}`,
        propina: `Propina legal ${rate(entry.rate)}`,
        other: `${entry.name} ${rate(entry.rate)}${code}`,
      }[entry.kind];
      return { label, amount: entry.amount };
    }),
  ];
}

/** The lines and the taxes by kind a document's PDF shows. */
export function pdfLines(items: PrintedItem[]): Pick<PdfDocumentData, "lines" | "taxBreakdown"> {
  return {
    lines: items.map((item) => ({
      description: item.description,
      quantity: item.quantity,
      unitPrice: item.unit_price,
      discount: item.discount,
      discountAmount: item.discount_amount,
      taxes: item.taxes.map((tax) => tax.name).join(", "),
      // The line's ITBIS and its MontoItem (price × quantity − discount, taxes apart): the columns of
      // DGII's printed models (representacion-impresa.pdf, 1.1: "ITBIS" and "Valor").
      itbis: item.taxes
        .filter((tax) => tax.type === "itbis")
        .reduce((sum, tax) => sum.plus(tax.amount), new Big(0))
        .toFixed(2),
      amount: new Big(item.subtotal).minus(item.discount_amount).toFixed(2),
      total: item.total,
    })),
    taxBreakdown: taxLabels(itemsBreakdown(items)),
  };
}

/** How the totals name each additional tax (Formato e-CF v1.0, Totales: ISC específico and ad valorem, other taxes; propina). */
const ADDITIONAL_TOTAL_LABELS: Record<TaxBreakdown["additional"][number]["kind"], string> = {
  isc_specific: "Total ISC",
  isc_ad_valorem: "Total ISC",
  propina: "Propina Legal",
  other: "Otros Impuestos",
};

/**
 * The tax and total rows of a printed document. An e-CF's are DGII's (representacion-impresa.pdf,
 * 1.1 and 1.4; Formato e-CF v1.0, Totales, fields printed "I"): "Subtotal Gravado" (MontoGravadoTotal),
 * "Monto Exento", "Total ITBIS", "Total ISC" and the other additional taxes, "Total". A B-series
 * document's (Norma General 06-2018: the ITBIS apart from the other taxes): subtotal, discount,
 * ITBIS, each additional tax, total. Only rows with an amount are printed, except ITBIS where
 * anything is taxed and the total.
 */
export function printedTotals(
  items: PrintedItem[],
  amounts: { subtotal: string; discount: string; total: string },
  electronic: boolean,
): PdfDocumentData["totals"] {
  const breakdown = itemsBreakdown(items);
  const itbis = breakdown.itbis.reduce((sum, entry) => sum.plus(entry.amount), new Big(0));
  const taxed = breakdown.itbis.reduce((sum, entry) => sum.plus(entry.base), new Big(0));
  const additional = new Map<string, Big>();
  for (const entry of breakdown.additional) {
    const label = ADDITIONAL_TOTAL_LABELS[entry.kind];
    additional.set(label, (additional.get(label) ?? new Big(0)).plus(entry.amount));
  }
  const additionalRows = [...additional].filter(([, amount]) => !amount.eq(0)).map(([label, amount]) => ({ label, value: amount.toFixed(2) }));
  const itbisRow = breakdown.itbis.length ? [{ label: electronic ? "Total ITBIS" : "ITBIS", value: itbis.toFixed(2) }] : [];
  if (electronic) {
    return [
      ...(breakdown.itbis.length ? [{ label: "Subtotal Gravado", value: taxed.toFixed(2) }] : []),
      ...(new Big(breakdown.exempt_base).gt(0) ? [{ label: "Monto Exento", value: breakdown.exempt_base }] : []),
      ...(new Big(breakdown.non_billable).gt(0) ? [{ label: "Monto No Facturable", value: breakdown.non_billable }] : []),
      ...itbisRow,
      ...additionalRows,
      { label: "Total", value: amounts.total, bold: true },
    ];
  }
  return [
    { label: "Subtotal", value: amounts.subtotal },
    ...(new Big(amounts.discount).gt(0) ? [{ label: "Descuento", value: `-${new Big(amounts.discount).toFixed(2)}` }] : []),
    ...itbisRow,
    ...additionalRows,
    { label: "Total", value: amounts.total, bold: true },
  ];
}
