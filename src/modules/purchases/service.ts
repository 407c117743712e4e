import { and, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import { findRow, orderBy, pageOf } from "../../db/queries";
import { rowFromJson, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { decimal2, exchangeRateText, timestamp, unitPriceText } from "../../lib/format";
import { documentTypeName, formatDocumentNumber, isElectronicNumber, isElectronicPrefix, isNcfPrefix, parseDocumentNumber } from "../../lib/ncf";
import { assertActiveBankAccount } from "../bank-accounts/service";
import { numberCtes, numberingRefusal, numberingState, numberingUnavailable, refusalAfterTaking, takeNumberStatement } from "../document-subtypes/numbering";
import { assertIssuedToday } from "../ecf/dating";
import { insertEcfStatement, type SignedEcf } from "../ecf/issue";
import { type EcfSubject, recordEcfTransitionEvent } from "../ecf/transitions";
import { checkStockResult, type StockChange, type StockResult, stockCtes, stockResultColumns } from "../inventory/stock";
import { activeRecords } from "../rnc/queries";
import { pdfLines, printedTotals } from "../sales/items";
import {
  type AppliedTax,
  documentAmounts,
  EXCLUSIVE_TAX_TYPES,
  type LineAmounts,
  type LineTax,
  lineAmounts,
  type TaxBreakdown,
  taxBreakdown,
} from "../sales/lines";
import type { PdfDocumentData } from "../sales/pdf";
import {
  ecfSettingsColumn,
  issuerAndBranchColumns,
  type LoadedBranch,
  type LoadedEcfSettings,
  type LoadedIssuer,
  type LoadedProduct,
} from "../sales/references";
import type { CreatePaymentInput } from "../sales/schemas";
import { type DocumentWarning, dopAmounts, registryWarnings } from "../sales/snapshots";
import { signPurchaseEcf } from "./ecf";
import type { CreatePurchaseInput, PurchaseDetail, PurchaseSummary, UpdatePurchaseInput } from "./schemas";

/*
 * Supplier bills and the documents the buyer issues about its own purchases (issue 19;
 * docs/purchases.md). A purchase is entered (pending_payment) at once or kept as a draft; entering
 * it adds its products' stock to the request's workspace and moves their cost by weighted average,
 * in the statement that writes it.
 */

const pur = schema.purchases;
type PurchaseRow = typeof pur.$inferSelect;

/**
 * Prefixes of the documents a buyer issues about its own purchases (FISCAL.md, "Numbers"; Norma
 * General 06-2018): 11/41 compras to informal suppliers, 13/43 gastos menores, 17/47 pagos al
 * exterior. A supplier's document never carries them (nor 12, registro único de ingresos).
 */
const SELF_ISSUED_PREFIXES = ["B11", "B13", "B17", "E41", "E43", "E47"];
const NOT_FROM_SUPPLIERS = new Set(["11", "12", "13", "17", "41", "43", "47"]);

/** The body of create, or of a draft merged with a PATCH: what a purchase is made of. */
type PurchaseInput = Omit<CreatePurchaseInput, "status">;

interface Loaded {
  supplier: {
    id: number;
    name: string;
    workspace_id: number | null;
    contact_type: string;
    identification_type: string | null;
    identification: string | null;
    address: string | null;
    email: string | null;
    registry_status: string | null;
    registry_checked: boolean;
  } | null;
  subtype: {
    id: number;
    type: string;
    prefix: string;
    name: string;
    is_active: boolean;
    next_number: number;
    end_number: number;
    valid_until: string | null;
    authorization_number: string | null;
    authorized_at: string | null;
  } | null;
  products: LoadedProduct[];
  taxes: { id: number; name: string; type: string; rate: string; is_active: boolean; dgii_code: string | null; amount_per_unit: string | null }[];
  currency: { id: number; code: string; is_default: boolean; exchange_rate: string } | null;
  /** An E41/E43/E47 being entered: the e-NCF the read took, and what signing its e-CF needs. */
  taken: { prefix: string; number: number } | null;
  issuer: LoadedIssuer | null;
  branch: LoadedBranch;
  ecf: LoadedEcfSettings | null;
}

/** A purchase's values computed from its input, before its one write statement. */
interface Prepared {
  input: PurchaseInput;
  supplierId: number | null;
  subtypeId: number | null;
  prefix: string | null;
  currencyId: number | null;
  exchangeRate: string;
  lines: { productId: number | null; description: string; trackInventory: boolean; quantity: string; unitCost: string; discount: string; taxes: LineTax[] }[];
  amounts: LineAmounts[];
  totals: ReturnType<typeof documentAmounts>;
  totalDop: string;
  breakdown: TaxBreakdown;
  warnings: DocumentWarning[];
  /** An E41/E43/E47 entered: its e-CF, signed with the e-NCF the read took (written with the purchase). */
  ecf: SignedEcf | null;
}

const intArray = (ids: number[]) => `{${ids.map((id) => Math.trunc(id)).join(",")}}`;

/**
 * Everything a purchase names, read and checked in ONE statement: supplier (with its status in
 * DGII's registry), self-issued sequence, products, taxes, currency. When the purchase is being
 * entered, its products are locked (FOR UPDATE, in id order) so that the write statement, which
 * reads their tenant-wide stock for the weighted average cost, sees every earlier purchase of
 * them committed.
 */
async function preparePurchase(
  db: AnyDb,
  scope: RequestScope,
  input: PurchaseInput,
  options: { entering: boolean; today: string; encryptionKey?: string },
): Promise<Prepared> {
  const t = scope.tenantId;
  // Entering an E41/E43/E47: its e-NCF is taken here, under the sequence's row lock, because the
  // e-CF is signed, number included, before the write (docs/ecf.md, "Issuing"); other numbers are
  // taken by the write statement itself.
  const takeElectronic = options.entering && input.self_issued_subtype_id != null;
  const taken = takeElectronic
    ? takeNumberStatement(t, input.self_issued_subtype_id!, input.issue_date, "invoice", { electronicOnly: true })
    : sql`SELECT NULL::text AS prefix, NULL::bigint AS number WHERE false`;
  const productIds = [...new Set(input.items.flatMap((i) => (i.product_id == null ? [] : [i.product_id])))];
  const taxIds = [...new Set(input.items.flatMap((i) => i.tax_ids ?? []))];
  const productRows = sql`SELECT id, name, workspace_id, is_active, track_inventory, product_type, default_tax_ids FROM products
    WHERE tenant_id = ${t} AND id = ANY(${intArray(productIds)}::int[]) ORDER BY id${options.entering ? sql` FOR UPDATE` : sql``}`;
  const result = await db.execute(sql`
    WITH taken AS (${taken})
    SELECT
      (SELECT row_to_json(taken) FROM taken) AS taken,
      ${issuerAndBranchColumns(t, scope.workspaceId)},
      ${ecfSettingsColumn(t, sql`EXISTS (SELECT 1 FROM taken)`)},
      (SELECT json_build_object('id', c.id, 'name', c.name, 'workspace_id', c.workspace_id, 'contact_type', c.contact_type,
         'identification_type', c.identification_type, 'identification', c.identification, 'address', c.address, 'email', c.email,
         'registry_checked', c.identification_type IN ('rnc', 'cedula') AND EXISTS (SELECT 1 FROM rnc_sync_runs WHERE status = 'completed'),
         'registry_status', CASE WHEN c.identification_type IN ('rnc', 'cedula')
           THEN (SELECT r.status FROM (${activeRecords(sql`identification = c.identification`)}) r) END)
       FROM contacts c WHERE c.tenant_id = ${t} AND c.id = ${input.supplier_id ?? null}::int) AS supplier,
      (SELECT json_build_object('id', id, 'type', type, 'prefix', prefix, 'name', name, 'is_active', is_active, 'next_number', next_number,
         'end_number', end_number, 'valid_until', valid_until, 'authorization_number', authorization_number, 'authorized_at', authorized_at)
       FROM document_subtypes WHERE tenant_id = ${t} AND id = ${input.self_issued_subtype_id ?? null}::int) AS subtype,
      (SELECT coalesce(json_agg(p), '[]') FROM (${productRows}) p) AS products,
      (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'type', type, 'rate', rate, 'is_active', is_active,
         'dgii_code', dgii_code, 'amount_per_unit', amount_per_unit::text)), '[]')
       FROM taxes WHERE tenant_id = ${t} AND (id = ANY(${intArray(taxIds)}::int[])
         OR id IN (SELECT unnest(default_tax_ids) FROM products WHERE tenant_id = ${t} AND id = ANY(${intArray(productIds)}::int[])))) AS taxes,
      (SELECT json_build_object('id', id, 'code', code, 'is_default', is_default, 'exchange_rate', CASE WHEN is_default THEN '1' ELSE exchange_rate::text END)
       FROM currencies WHERE tenant_id = ${t} AND ${input.currency_id == null ? sql`is_default` : sql`id = ${input.currency_id}`} LIMIT 1) AS currency`);
  const loaded = rowsOf<Loaded>(result)[0]!;
  const inWorkspace = (workspaceId: number | null) => workspaceId === null || workspaceId === scope.workspaceId;

  const subtype = input.self_issued_subtype_id == null ? null : loaded.subtype;
  if (input.self_issued_subtype_id != null) {
    if (subtype?.type !== "invoice" || !SELF_ISSUED_PREFIXES.includes(subtype.prefix)) {
      throw fieldError("self_issued_subtype_id", `No such document subtype of type ${SELF_ISSUED_PREFIXES.join(", ")}.`);
    }
    if (options.entering) {
      const refusal = numberingRefusal(numberingState(subtype), input.issue_date);
      if (refusal) throw retarget(refusal, "self_issued_subtype_id");
      // An E41/E43/E47 we issue bears the day it is signed (ecf/dating.ts; docs/fiscal.md, "The date of an e-CF").
      if (isElectronicPrefix(subtype.prefix)) assertIssuedToday(input.issue_date, subtype.authorized_at, options.today);
    }
  }
  const supplier = input.supplier_id == null ? null : loaded.supplier;
  if (input.supplier_id != null) {
    if (!supplier || !inWorkspace(supplier.workspace_id)) throw fieldError("supplier_id", "No such contact in this workspace.");
    if (supplier.contact_type !== "supplier" && supplier.contact_type !== "both") {
      throw fieldError("supplier_id", "The contact is not a supplier: set its contact_type to supplier or both.");
    }
  }
  assertDocumentRules(input, subtype?.prefix ?? null, supplier);
  if (input.currency_id != null && loaded.currency === null) throw fieldError("currency_id", "No such currency.");

  const products = new Map(loaded.products.map((p) => [p.id, p]));
  const taxes = new Map(loaded.taxes.map((tax) => [tax.id, tax]));
  const lines = input.items.map((item, i) => {
    const product = item.product_id == null ? null : products.get(item.product_id);
    if (item.product_id != null) {
      if (!product || !inWorkspace(product.workspace_id)) throw fieldError(`items.${i}.product_id`, "No such product in this workspace.");
      if (!product.is_active) throw fieldError(`items.${i}.product_id`, "This product is inactive.");
    }
    const description = item.description?.trim() || product?.name;
    if (!description) throw fieldError(`items.${i}.description`, "A line without a product needs a description.");
    // No tax_ids: the product's default taxes (none for an expense line); an empty list: no taxes.
    const ids = item.tax_ids ?? product?.default_tax_ids ?? [];
    if (new Set(ids).size !== ids.length) throw fieldError(`items.${i}.tax_ids`, "A tax is listed twice.");
    const lineTaxes = ids.map((id, k): LineTax => {
      const tax = taxes.get(id);
      if (!tax || (item.tax_ids && !tax.is_active)) throw fieldError(`items.${i}.tax_ids.${k}`, "No such active tax.");
      return { id: tax.id, name: tax.name, type: tax.type, rate: String(tax.rate), dgii_code: tax.dgii_code, amount_per_unit: tax.amount_per_unit };
    });
    if (lineTaxes.filter((tax) => EXCLUSIVE_TAX_TYPES.has(tax.type)).length > 1) {
      throw fieldError(`items.${i}.tax_ids`, "A line holds at most one of ITBIS, exento and no facturable (ISC and other additional taxes come on top).");
    }
    return {
      productId: product?.id ?? null,
      description,
      trackInventory: product?.track_inventory ?? false,
      // An expense line (no product) is a service; a product line is what the product is.
      isService: product ? product.product_type === "service" : true,
      quantity: item.quantity,
      unitCost: item.unit_cost,
      discount: item.discount,
      taxes: lineTaxes,
    };
  });
  // The sales line math (sales/lines.ts), so a purchase's lines round as an invoice's do.
  const amounts = lines.map((line) => lineAmounts({ quantity: line.quantity, unitPrice: line.unitCost, discount: line.discount, taxes: line.taxes }));
  const totals = documentAmounts(amounts);
  const breakdown = taxBreakdown(amounts);
  assertWithholdings(input, totals.totalAmount, breakdown);
  const exchangeRate = exchangeRateFor(loaded.currency, input.exchange_rate);
  let ecf: SignedEcf | null = null;
  if (takeElectronic && subtype && isElectronicPrefix(subtype.prefix)) {
    if (!loaded.taken) throw retarget(numberingRefusal(numberingState(subtype), input.issue_date) ?? numberingUnavailable(), "self_issued_subtype_id");
    try {
      ecf = await signPurchaseEcf(
        {
          tenantId: t,
          prefix: subtype.prefix,
          encf: formatDocumentNumber(loaded.taken.prefix, Number(loaded.taken.number)),
          issueDate: input.issue_date,
          dueDate: input.due_date ?? null,
          settings: loaded.ecf,
          issuer: loaded.issuer,
          branch: loaded.branch,
          subtype,
          supplier: supplier && { ...supplier },
          currency: {
            id: loaded.currency?.id ?? null,
            code: loaded.currency?.code ?? null,
            exchangeRate,
            isDefault: loaded.currency?.is_default ?? true,
          },
          lines,
          amounts,
          breakdown,
          total: totals.totalAmount,
          itbisWithheld: input.itbis_withheld,
          isrWithheld: input.isr_withheld,
        },
        options.encryptionKey,
      );
    } catch (error) {
      throw error instanceof AppError && error.errors?.document_subtype_id ? retarget(error, "self_issued_subtype_id") : error;
    }
  }
  return {
    ecf,
    input,
    supplierId: supplier?.id ?? null,
    subtypeId: subtype?.id ?? null,
    prefix: subtype?.prefix ?? null,
    currencyId: loaded.currency?.id ?? null,
    exchangeRate,
    lines,
    amounts,
    totals,
    totalDop: dopAmounts({ total: totals.totalAmount }, exchangeRate).total,
    breakdown,
    warnings: supplier
      ? registryWarnings(
          {
            registryChecked: supplier.registry_checked,
            registryStatus: supplier.registry_status,
            identificationType: supplier.identification_type,
            identification: supplier.identification,
          },
          { role: "supplier", field: "supplier_id" },
        )
      : [],
  };
}

/** A numbering refusal (named on document_subtype_id by numbering.ts) named on this body's field. */
function retarget(error: AppError, field: string): AppError {
  const messages = error.errors ? Object.values(error.errors).flat() : [error.message];
  return new AppError(error.code, error.message, { [field]: messages });
}

/**
 * Who the document is from. A supplier's bill carries the supplier's NCF or e-NCF (Norma General
 * 06-2018; FISCAL.md "Numbers": B + 2 + 8 digits, E + 2 + 10). A document the buyer issues itself
 * carries none, and its type says who the supplier is (Norma General 06-2018, art. 4; Formato e-CF
 * v1.0, Comprador of types 41, 43, 47): 11/41 compras — a person without RNC, identified by
 * cédula; 13/43 gastos menores — any supplier or none; 17/47 pagos al exterior — a foreign
 * supplier, with no Dominican RNC or cédula.
 */
function assertDocumentRules(input: PurchaseInput, prefix: string | null, supplier: Loaded["supplier"]) {
  if (prefix === null) {
    if (!supplier) throw fieldError("supplier_id", "A supplier's bill needs its supplier.");
    if (!input.supplier_ncf)
      throw fieldError("supplier_ncf", "A supplier's bill needs the NCF printed on it (or self_issued_subtype_id for a document you issue).");
    const ncf = input.supplier_ncf;
    const typePrefix = ncf.slice(0, 3);
    if (!isNcfPrefix(typePrefix) || parseDocumentNumber(typePrefix, ncf) === null) {
      throw fieldError("supplier_ncf", "Not an NCF: B, the type's 2 digits and 8 digits (11 characters), or an e-NCF: E, 2 and 10 digits (13).");
    }
    if (NOT_FROM_SUPPLIERS.has(typePrefix.slice(1))) {
      throw fieldError(
        "supplier_ncf",
        `${typePrefix} is issued by the buyer, not by a supplier: use self_issued_subtype_id with your own ${typePrefix} sequence.`,
      );
    }
    return;
  }
  if (input.supplier_ncf) throw fieldError("supplier_ncf", `A ${prefix} is numbered from your own sequence: leave supplier_ncf out.`);
  const type = prefix.slice(1);
  if (type === "11" || type === "41") {
    if (supplier?.identification_type !== "cedula") {
      throw fieldError("supplier_id", `A ${prefix} (compras) is for an informal supplier identified by cédula.`);
    }
  } else if (type === "17" || type === "47") {
    if (!supplier) throw fieldError("supplier_id", `A ${prefix} (pagos al exterior) needs its foreign supplier.`);
    if (supplier.identification_type === "rnc" || supplier.identification_type === "cedula") {
      throw fieldError("supplier_id", `A ${prefix} (pagos al exterior) is for a foreign supplier, without a Dominican RNC or cédula.`);
    }
  }
}

/**
 * Withholdings (Formato 606: ITBIS retenido, retención de renta, fecha de retención): the ITBIS
 * withheld is part of the bill's ITBIS, the two together at most its total, and a withholding
 * has its date.
 */
function assertWithholdings(input: Pick<PurchaseInput, "itbis_withheld" | "isr_withheld" | "withholding_date">, total: string, breakdown: TaxBreakdown) {
  const itbis = breakdown.itbis.reduce((sum, entry) => sum.plus(entry.amount), new Big(0));
  if (new Big(input.itbis_withheld).gt(itbis)) throw fieldError("itbis_withheld", `The ITBIS withheld exceeds the bill's ITBIS (${itbis.toFixed(2)}).`);
  if (new Big(input.itbis_withheld).plus(input.isr_withheld).gt(total)) {
    throw fieldError("isr_withheld", `The withholdings exceed the bill's total (${total}).`);
  }
  const withheld = new Big(input.itbis_withheld).gt(0) || new Big(input.isr_withheld).gt(0);
  if (withheld && !input.withholding_date) throw fieldError("withholding_date", "Required when something is withheld.");
}

/** The rate of the purchase's currency on its date: the one given, else the currency's; 1 in DOP. */
function exchangeRateFor(currency: Loaded["currency"], given: string | null | undefined): string {
  if (!currency || currency.is_default) {
    if (given != null && !new Big(given).eq(1)) throw fieldError("exchange_rate", "A purchase in the default currency (DOP) has an exchange rate of 1.");
    return "1";
  }
  return exchangeRateText(given ?? currency.exchange_rate);
}

/** What is left to pay the supplier: total − withholdings (paid to DGII instead) − payments. */
function amountDue(row: Pick<PurchaseRow, "totalAmount" | "itbisWithheld" | "isrWithheld" | "amountPaid">): Big {
  return new Big(row.totalAmount).minus(row.itbisWithheld).minus(row.isrWithheld).minus(row.amountPaid);
}

function paymentStatus(row: Pick<PurchaseRow, "totalAmount" | "itbisWithheld" | "isrWithheld" | "amountPaid">): "pending_payment" | "partially_paid" | "paid" {
  if (new Big(row.amountPaid).lte(0)) return "pending_payment";
  return amountDue(row).lte(0) ? "paid" : "partially_paid";
}

export function serializePurchase(row: PurchaseRow): PurchaseSummary {
  const due = amountDue(row);
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    supplier_id: row.supplierId,
    supplier_ncf: row.supplierNcf,
    self_issued_subtype_id: row.selfIssuedSubtypeId,
    ncf: row.ncf,
    issue_date: row.issueDate,
    due_date: row.dueDate,
    status: row.status as PurchaseSummary["status"],
    expense_type: row.expenseType,
    payment_method: row.paymentMethod,
    currency_id: row.currencyId,
    exchange_rate: exchangeRateText(row.exchangeRate),
    subtotal_amount: decimal2(row.subtotalAmount)!,
    discount_amount: decimal2(row.discountAmount)!,
    tax_amount: decimal2(row.taxAmount)!,
    total_amount: decimal2(row.totalAmount)!,
    total_amount_dop: decimal2(row.totalAmountDop)!,
    itbis_withheld: decimal2(row.itbisWithheld)!,
    isr_withheld: decimal2(row.isrWithheld)!,
    withholding_date: row.withholdingDate,
    amount_paid: decimal2(row.amountPaid)!,
    amount_due: (due.gt(0) && row.status !== "voided" ? due : new Big(0)).toFixed(2),
    notes: row.notes,
    void_reason: row.voidReason,
    created_at: timestamp(row.createdAt)!,
    updated_at: timestamp(row.updatedAt)!,
  };
}

/** The purchase's columns from its prepared values (the head the insert and the updates write). */
function headColumns(p: Prepared): [string, SQL][] {
  const i = p.input;
  return [
    ["supplier_id", sql`${p.supplierId}::int`],
    ["supplier_ncf", sql`${i.supplier_ncf ?? null}::text`],
    ["self_issued_subtype_id", sql`${p.subtypeId}::int`],
    ["issue_date", sql`${i.issue_date}::date`],
    ["due_date", sql`${i.due_date ?? null}::date`],
    ["expense_type", sql`${i.expense_type}`],
    ["payment_method", sql`${i.payment_method ?? null}::text`],
    ["currency_id", sql`${p.currencyId}::int`],
    ["exchange_rate", sql`${p.exchangeRate}::numeric`],
    ["subtotal_amount", sql`${p.totals.subtotalAmount}::numeric`],
    ["discount_amount", sql`${p.totals.discountAmount}::numeric`],
    ["tax_amount", sql`${p.totals.taxAmount}::numeric`],
    ["total_amount", sql`${p.totals.totalAmount}::numeric`],
    ["total_amount_dop", sql`${p.totalDop}::numeric`],
    ["tax_breakdown", sql`${JSON.stringify(p.breakdown)}::jsonb`],
    ["itbis_withheld", sql`${i.itbis_withheld}::numeric`],
    ["isr_withheld", sql`${i.isr_withheld}::numeric`],
    ["withholding_date", sql`${i.withholding_date ?? null}::date`],
    ["notes", sql`${i.notes ?? null}::text`],
  ];
}

/** The CTE `items` inserting the purchase's lines (one JSON parameter) for the purchase `purchaseId`. */
function insertItems(tenantId: number, purchaseId: SQL, p: Prepared): SQL {
  const json = p.lines.map((line, position) => ({
    position,
    product_id: line.productId,
    description: line.description,
    quantity: line.quantity,
    unit_cost: line.unitCost,
    discount: line.discount,
    discount_amount: p.amounts[position]!.discountAmount,
    subtotal: p.amounts[position]!.subtotal,
    tax_amount: p.amounts[position]!.taxAmount,
    total: p.amounts[position]!.total,
    taxes: p.amounts[position]!.taxes,
  }));
  return sql`items AS (
      INSERT INTO purchase_items (tenant_id, purchase_id, position, product_id, description, quantity, unit_cost, discount, discount_amount,
        subtotal, tax_amount, total, taxes)
      SELECT ${tenantId}, ${purchaseId}, x.position, x.product_id, x.description, x.quantity, x.unit_cost, x.discount, x.discount_amount,
        x.subtotal, x.tax_amount, x.total, x.taxes
      FROM jsonb_to_recordset(${JSON.stringify(json)}::jsonb) AS x(position int, product_id int, description text, quantity numeric,
        unit_cost numeric, discount numeric, discount_amount numeric, subtotal numeric, tax_amount numeric, total numeric, taxes jsonb)
      WHERE ${purchaseId} IS NOT NULL
    )`;
}

/**
 * What entering the purchase does to its products, per product that tracks inventory: the
 * quantity bought and its value in DOP — the lines' amount after discount, before taxes (ITBIS
 * paid on a purchase is credited against ITBIS charged, not a cost: docs/purchases.md), at the
 * purchase's rate, half-up to the cent.
 */
function stockEntries(p: Prepared): { productId: number; quantity: Big; value: Big; field: string }[] {
  const byProduct = new Map<number, { productId: number; quantity: Big; value: Big; field: string }>();
  p.lines.forEach((line, i) => {
    if (!line.trackInventory || line.productId === null) return;
    const amounts = p.amounts[i]!;
    const value = new Big(amounts.subtotal).minus(amounts.discountAmount).times(p.exchangeRate).round(2, Big.roundHalfUp);
    const entry = byProduct.get(line.productId) ?? { productId: line.productId, quantity: new Big(0), value: new Big(0), field: `items.${i}.quantity` };
    entry.quantity = entry.quantity.plus(line.quantity);
    entry.value = entry.value.plus(value);
    byProduct.set(line.productId, entry);
  });
  return [...byProduct.values()].sort((a, b) => a.productId - b.productId);
}

/**
 * The CTE `costs` moving each product's cost by weighted average (docs/purchases.md): with the
 * tenant's on-hand quantity before this statement (its snapshot: stock_done's change is not seen)
 * `h`, the cost `c`, and this change's quantity `q` and DOP value `v`, the new cost is
 * (h × c + v) / (h + q) half-up to the cent; when h ≤ 0 (or no cost yet) it is v / q. A reversal
 * (q < 0, voiding) takes the purchase back out: (h × c + v) / (h + q) while h + q > 0, else the
 * cost stays.
 */
function costCtes(entries: { productId: number; quantity: Big; value: Big }[], sign: 1 | -1, when: SQL): SQL {
  const json = entries.map((e) => ({ product_id: e.productId, quantity: e.quantity.times(sign).toFixed(2), value: e.value.times(sign).toFixed(2) }));
  const newCost =
    sign === 1
      ? sql`CASE WHEN h.on_hand <= 0 OR p.cost IS NULL THEN round(ci.value / ci.quantity, 2)
          ELSE round((h.on_hand * p.cost + ci.value) / (h.on_hand + ci.quantity), 2) END`
      : sql`CASE WHEN h.on_hand + ci.quantity > 0 AND p.cost IS NOT NULL
          THEN greatest(round((h.on_hand * p.cost + ci.value) / (h.on_hand + ci.quantity), 2), 0) ELSE p.cost END`;
  return sql`cost_input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(json)}::jsonb) AS x(product_id int, quantity numeric, value numeric)
    ), costs AS (
      UPDATE products p SET cost = ${newCost}, updated_at = now()
      FROM cost_input ci, LATERAL (SELECT coalesce(sum(s.quantity), 0) AS on_hand FROM stock_levels s WHERE s.product_id = ci.product_id) h
      WHERE p.id = ci.product_id AND ${when}
      RETURNING p.id
    )`;
}

/**
 * ONE statement enters a purchase: takes the self-issued number (when there is one: the
 * subtype's row lock is held until COMMIT, numbering.ts), writes the purchase (`write`: an INSERT,
 * or the UPDATE of a draft) with its lines, adds the stock (`purchase` movements with their unit
 * cost in DOP) and moves the products' cost. A supplier NCF booked already for the supplier is a
 * 409 (the unique index decides, so two concurrent requests cannot both book it).
 */
async function runEnter(
  db: AnyDb,
  scope: RequestScope,
  p: Prepared,
  write: (num: SQL) => SQL,
  extra: SQL,
): Promise<{ row: PurchaseRow; ecfId: number | null }> {
  const t = scope.tenantId;
  const purchaseId = sql`(SELECT id FROM pur)`;
  // An E41/E43/E47's e-NCF was taken by the read and is in its signed e-CF, stored here with the
  // purchase (sent to DGII after COMMIT, as an invoice's); another number is taken now.
  const numbering =
    p.subtypeId === null
      ? sql`num AS (SELECT NULL::text AS document_number)`
      : sql`${numberCtes(t, p.subtypeId, p.input.issue_date, "invoice", p.ecf?.encf ?? null)}`;
  const ecfInsert = p.ecf ? sql`, ecf_doc AS (${insertEcfStatement(t, scope.workspaceId, "purchase", purchaseId, p.ecf, scope.userId)})` : sql``;
  const entries = stockEntries(p);
  const changes: StockChange[] = entries.map((e) => ({
    productId: e.productId,
    workspaceId: scope.workspaceId,
    quantity: e.quantity.toFixed(2),
    type: "purchase",
    unitCost: e.value.div(e.quantity).round(2, Big.roundHalfUp).toFixed(2),
    field: e.field,
  }));
  const reference = sql`(SELECT coalesce(ncf, supplier_ncf) FROM pur)`;
  try {
    const result = await db.execute(sql`
      WITH ${numbering}, pur AS (${write(sql`num`)}
      ), ${extra}${insertItems(t, purchaseId, p)}, ${costCtes(entries, 1, sql`${purchaseId} IS NOT NULL`)}, ${stockCtes(scope, changes, sql`NULL::int`, reference, purchaseId)}${ecfInsert}
      SELECT (SELECT row_to_json(pur) FROM pur) AS purchase, (SELECT count(*) FROM costs)::int AS costed${p.ecf ? sql`, (SELECT id FROM ecf_doc) AS ecf_id` : sql``}`);
    const row = rowsOf<{ purchase: Record<string, unknown> | null; ecf_id?: number | null }>(result)[0]!;
    if (!row.purchase) throw await refusalAfterTaking(db, t, p.subtypeId!, p.input.issue_date).then((error) => retarget(error, "self_issued_subtype_id"));
    return { row: rowFromJson(pur, row.purchase), ecfId: row.ecf_id ?? null };
  } catch (error) {
    throw duplicateNcf(error, p);
  }
}

function duplicateNcf(error: unknown, p: Prepared): unknown {
  if (!isUniqueViolation(error, "purchases_supplier_ncf_key")) return error;
  return new AppError("duplicate_supplier_ncf", `The supplier's NCF ${p.input.supplier_ncf} is already booked for this supplier.`, {
    supplier_ncf: ["Already booked for this supplier."],
  });
}

export interface WrittenPurchase {
  purchase: PurchaseSummary;
  warnings: DocumentWarning[];
  /** The e-CF an E41/E43/E47 entered now signed: its id goes on ECF_QUEUE after COMMIT (c.var.ecf). */
  ecfId: number | null;
}

/** A draft's write statement's answer (its row as `purchase`) as the API gives it: no number, no e-CF. */
function draftWritten(result: Parameters<typeof rowsOf>[0], p: Prepared): WrittenPurchase {
  const row = rowsOf<{ purchase: Record<string, unknown> }>(result)[0]!;
  return { purchase: serializePurchase(rowFromJson(pur, row.purchase)), warnings: p.warnings, ecfId: null };
}

/** What entering may need beyond the body: the key that opens the e-CF certificate. */
export interface EnterOptions {
  encryptionKey?: string;
  /** Records an e-CF signed now as its ecf.signed event with the request's COMMIT (a request's InvoiceContext.ecfSigned). */
  ecfSigned?: (subject: EcfSubject) => Promise<void>;
}

/** The ecf.signed event of the e-CF a purchase signed, in its transaction (ecf/transitions.ts). */
async function signedEvent(db: AnyDb, scope: RequestScope, ecfId: number | null, purchaseId: number, options: EnterOptions): Promise<void> {
  if (ecfId === null) return;
  const subject: EcfSubject = { id: ecfId, workspaceId: scope.workspaceId, kind: "purchase", documentId: purchaseId };
  if (options.ecfSigned) await options.ecfSigned(subject);
  else await recordEcfTransitionEvent(db, scope.tenantId, subject, "signed");
}

/**
 * POST /purchases: entered at once (status pending_payment: number, stock, cost) in two
 * statements, one read and one write; or a draft (no number, no stock), also two.
 */
export async function createPurchase(
  db: AnyDb,
  scope: RequestScope,
  input: CreatePurchaseInput,
  today: string,
  options: EnterOptions = {},
): Promise<WrittenPurchase> {
  const { status, ...fields } = input;
  const entering = status !== "draft";
  const p = await preparePurchase(db, scope, fields, { entering, today, encryptionKey: options.encryptionKey });
  const head = headColumns(p);
  const names = sql.raw(head.map(([name]) => name).join(", "));
  const values = sql.join(
    head.map(([, value]) => value),
    sql`, `,
  );
  const t = scope.tenantId;
  if (!entering) {
    try {
      const result = await db.execute(sql`
        WITH pur AS (
          INSERT INTO purchases (tenant_id, workspace_id, status, created_by, ${names})
          VALUES (${t}, ${scope.workspaceId}, 'draft', ${scope.userId}, ${values}) RETURNING *
        ), ${insertItems(t, sql`(SELECT id FROM pur)`, p)}
        SELECT row_to_json(pur) AS purchase FROM pur`);
      return draftWritten(result, p);
    } catch (error) {
      throw duplicateNcf(error, p);
    }
  }
  const { row, ecfId } = await runEnter(
    db,
    scope,
    p,
    (num) => sql`
      INSERT INTO purchases (tenant_id, workspace_id, status, ncf, created_by, ${names})
      SELECT ${t}, ${scope.workspaceId}, 'pending_payment', ${num}.document_number, ${scope.userId}, ${values} FROM ${num}
      RETURNING *`,
    sql``,
  );
  await signedEvent(db, scope, ecfId, row.id, options);
  return { purchase: serializePurchase(row), warnings: p.warnings, ecfId };
}

const visible = (scope: RequestScope, id: number) => and(eq(pur.tenantId, scope.tenantId), eq(pur.workspaceId, scope.workspaceId), eq(pur.id, id));

/** The purchase row of the request's workspace, locked for the rest of the transaction. */
function lockPurchase(db: AnyDb, scope: RequestScope, id: number): Promise<PurchaseRow> {
  return findRow(db, pur, visible(scope, id), "Purchase", true);
}

/** A draft's stored values and lines as a body, with a PATCH's fields over them. */
async function draftInput(db: AnyDb, draft: PurchaseRow, patch: UpdatePurchaseInput = {}): Promise<PurchaseInput> {
  const items =
    patch.items ??
    (await db.select().from(schema.purchaseItems).where(eq(schema.purchaseItems.purchaseId, draft.id)).orderBy(schema.purchaseItems.position)).map((line) => ({
      product_id: line.productId,
      description: line.description,
      quantity: line.quantity,
      unit_cost: line.unitCost,
      discount: line.discount,
      tax_ids: (line.taxes as { id: number }[]).map((tax) => tax.id),
    }));
  const pick = <K extends keyof UpdatePurchaseInput>(key: K, stored: UpdatePurchaseInput[K]) => (patch[key] === undefined ? stored : patch[key]);
  return {
    supplier_id: pick("supplier_id", draft.supplierId),
    supplier_ncf: pick("supplier_ncf", draft.supplierNcf),
    self_issued_subtype_id: pick("self_issued_subtype_id", draft.selfIssuedSubtypeId),
    issue_date: pick("issue_date", draft.issueDate)!,
    due_date: pick("due_date", draft.dueDate),
    currency_id: pick("currency_id", draft.currencyId),
    exchange_rate: patch.exchange_rate === undefined && patch.currency_id === undefined ? draft.exchangeRate : patch.exchange_rate,
    expense_type: pick("expense_type", draft.expenseType as PurchaseInput["expense_type"])!,
    items,
    itbis_withheld: pick("itbis_withheld", draft.itbisWithheld)!,
    isr_withheld: pick("isr_withheld", draft.isrWithheld)!,
    withholding_date: pick("withholding_date", draft.withholdingDate),
    payment_method: pick("payment_method", draft.paymentMethod as PurchaseInput["payment_method"]),
    notes: pick("notes", draft.notes),
  };
}

function assertDraft(row: PurchaseRow, what: string) {
  if (row.status !== "draft") throw new AppError("purchase_not_draft", `Only a draft can be ${what}; this purchase is ${row.status}.`);
}

/** PATCH /purchases/{id}: a draft only (an entered purchase is voided and entered again). */
export async function updatePurchase(db: AnyDb, scope: RequestScope, id: number, patch: UpdatePurchaseInput, today: string): Promise<WrittenPurchase> {
  const draft = await lockPurchase(db, scope, id);
  assertDraft(draft, "changed");
  const p = await preparePurchase(db, scope, await draftInput(db, draft, patch), { entering: false, today });
  const set = sql.join(
    headColumns(p).map(([name, value]) => sql`${sql.raw(name)} = ${value}`),
    sql`, `,
  );
  try {
    const result = await db.execute(sql`
      WITH pur AS (UPDATE purchases SET ${set}, updated_at = now() WHERE id = ${id} RETURNING *),
      gone AS (DELETE FROM purchase_items WHERE purchase_id = ${id}), ${insertItems(scope.tenantId, sql`${id}::int`, p)}
      SELECT row_to_json(pur) AS purchase FROM pur`);
    return draftWritten(result, p);
  } catch (error) {
    throw duplicateNcf(error, p);
  }
}

/** Whether the self-issued sequence of a purchase (if any) is an E-series one: its entering signs an e-CF. */
async function selfIssuesEcf(db: AnyDb, scope: RequestScope, subtypeId: number | null): Promise<boolean> {
  if (subtypeId === null) return false;
  const [row] = await db
    .select({ prefix: schema.documentSubtypes.prefix })
    .from(schema.documentSubtypes)
    .where(and(eq(schema.documentSubtypes.tenantId, scope.tenantId), eq(schema.documentSubtypes.id, subtypeId)));
  return row !== undefined && isElectronicPrefix(row.prefix);
}

/** POST /purchases/{id}/enter: a draft is entered with the checks, number, stock and cost of POST /purchases. */
export async function enterDraft(db: AnyDb, scope: RequestScope, id: number, today: string, options: EnterOptions = {}): Promise<WrittenPurchase> {
  const draft = await lockPurchase(db, scope, id);
  assertDraft(draft, "entered");
  const input = await draftInput(db, draft);
  // A self-issued E41/E43/E47 is dated the day it is entered and signed, not the draft's day, as an
  // invoice draft is on its issue (ecf/dating.ts).
  if (await selfIssuesEcf(db, scope, draft.selfIssuedSubtypeId)) input.issue_date = today;
  const p = await preparePurchase(db, scope, input, { entering: true, today, encryptionKey: options.encryptionKey });
  const set = sql.join(
    headColumns(p).map(([name, value]) => sql`${sql.raw(name)} = ${value}`),
    sql`, `,
  );
  const { row, ecfId } = await runEnter(
    db,
    scope,
    p,
    (num) => sql`
      UPDATE purchases SET ${set}, status = 'pending_payment', ncf = ${num}.document_number, updated_at = now()
      FROM ${num} WHERE purchases.id = ${id} RETURNING purchases.*`,
    sql`gone AS (DELETE FROM purchase_items WHERE purchase_id = ${id}), `,
  );
  await signedEvent(db, scope, ecfId, row.id, options);
  return { purchase: serializePurchase(row), warnings: p.warnings, ecfId };
}

/**
 * DELETE /purchases/{id}. A draft is removed. An entered purchase is voided with a reason: its
 * stock leaves the workspace again (`purchase` movements of the opposite sign; 422
 * insufficient_stock when the goods are gone and the product does not allow negative stock) and
 * the products' cost is taken back out of the average (docs/purchases.md). One with payments is
 * refused (409 purchase_has_payments) until they are removed: what was paid to the supplier must
 * be settled first.
 */
export async function deletePurchase(db: AnyDb, scope: RequestScope, id: number, reason: string | undefined): Promise<"deleted" | "voided"> {
  const row = await lockPurchase(db, scope, id);
  if (row.status === "draft") {
    await db.delete(pur).where(eq(pur.id, id));
    return "deleted";
  }
  if (row.status === "voided") throw new AppError("purchase_not_voidable", "This purchase is voided already.");
  // An issued e-CF is never voided (FISCAL.md: one sent to DGII is reversed only by a credit note naming it).
  if (isElectronicNumber(row.ncf)) {
    throw new AppError(
      "ecf_already_sent",
      `This purchase's e-CF ${row.ncf} is signed and sent to DGII: it cannot be voided; DGII reverses it only with a credit note (E34) naming it.`,
    );
  }
  if (new Big(row.amountPaid).gt(0)) {
    throw new AppError("purchase_has_payments", "This purchase has payments: remove them (DELETE …/payments/{payment_id}) before voiding it.");
  }
  if (!reason) throw fieldError("reason", "Voiding an entered purchase needs a reason.");
  // What the purchase put in stock (its movements) and what it was worth (its lines, in DOP).
  const result = await db.execute(sql`
    SELECT m.product_id, m.workspace_id, sum(m.quantity)::text AS quantity,
      (SELECT coalesce(sum(round((i.subtotal - i.discount_amount) * ${row.exchangeRate}::numeric, 2)), 0)::text
       FROM purchase_items i WHERE i.purchase_id = ${id} AND i.product_id = m.product_id) AS value
    FROM stock_movements m WHERE m.purchase_id = ${id} GROUP BY m.product_id, m.workspace_id ORDER BY m.product_id`);
  const held = rowsOf<{ product_id: number; workspace_id: number; quantity: string; value: string }>(result).filter((r) => !new Big(r.quantity).eq(0));
  const changes: StockChange[] = held.map((r) => ({
    productId: r.product_id,
    workspaceId: r.workspace_id,
    quantity: new Big(r.quantity).neg().toFixed(2),
    type: "purchase",
    reference: row.ncf ?? row.supplierNcf,
    notes: "purchase voided",
    reason,
    field: "reason",
  }));
  const entries = held.map((r) => ({ productId: r.product_id, quantity: new Big(r.quantity), value: new Big(r.value) }));
  const written = await db.execute(sql`
    WITH pur AS (
      UPDATE purchases SET status = 'voided', void_reason = ${reason}, voided_at = now(), updated_at = now() WHERE id = ${id} RETURNING id
    ), ${costCtes(entries, -1, sql`true`)}, ${stockCtes(scope, changes, sql`NULL::int`, sql`NULL::text`, sql`${id}::int`)}
    SELECT ${stockResultColumns}`);
  await checkStockResult(db, changes, rowsOf<StockResult>(written)[0]!);
  return "voided";
}

/** POST /purchases/{id}/payments: as on invoices, under the purchase's row lock, so concurrent payments never pay more than is due. */
export async function addPurchasePayment(db: AnyDb, scope: RequestScope, id: number, input: CreatePaymentInput) {
  const row = await lockPurchase(db, scope, id);
  if (row.status !== "pending_payment" && row.status !== "partially_paid") {
    throw new AppError("purchase_not_payable", `Payments apply only to purchases pending payment or partially paid; this one is ${row.status}.`);
  }
  const due = amountDue(row);
  if (new Big(input.amount).gt(due)) throw fieldError("amount", `The amount exceeds what is due (${due.toFixed(2)}).`);
  await assertActiveBankAccount(db, scope.tenantId, input.bank_account_id);
  const [payment] = await db
    .insert(schema.purchasePayments)
    .values({
      tenantId: scope.tenantId,
      purchaseId: id,
      amount: input.amount,
      paymentDate: input.payment_date,
      paymentMethod: input.payment_method,
      bankAccountId: input.bank_account_id ?? null,
      createdBy: scope.userId,
    })
    .returning();
  const paid = new Big(row.amountPaid).plus(input.amount).toFixed(2);
  const [updated] = await db
    .update(pur)
    .set({ amountPaid: paid, status: paymentStatus({ ...row, amountPaid: paid }), updatedAt: new Date() })
    .where(eq(pur.id, id))
    .returning();
  return { payment: serializePayment(payment!), purchase: serializePurchase(updated!) };
}

export async function deletePurchasePayment(db: AnyDb, scope: RequestScope, id: number, paymentId: number): Promise<PurchaseSummary> {
  const row = await lockPurchase(db, scope, id);
  if (row.status === "voided" || row.status === "draft") throw new AppError("purchase_not_payable", `The purchase is ${row.status}.`);
  const [payment] = await db
    .delete(schema.purchasePayments)
    .where(and(eq(schema.purchasePayments.purchaseId, id), eq(schema.purchasePayments.id, paymentId)))
    .returning();
  if (!payment) throw notFound("Payment");
  const paid = new Big(row.amountPaid).minus(payment.amount).toFixed(2);
  const [updated] = await db
    .update(pur)
    .set({ amountPaid: paid, status: paymentStatus({ ...row, amountPaid: paid }), updatedAt: new Date() })
    .where(eq(pur.id, id))
    .returning();
  return serializePurchase(updated!);
}

function serializePayment(p: typeof schema.purchasePayments.$inferSelect) {
  return { id: p.id, amount: decimal2(p.amount)!, payment_date: p.paymentDate, payment_method: p.paymentMethod, bank_account_id: p.bankAccountId };
}

const LIST_SORT = { issue_date: pur.issueDate, total_amount: pur.totalAmount, created_at: pur.createdAt, updated_at: pur.updatedAt } as const;

export async function listPurchases(
  db: AnyDb,
  scope: RequestScope,
  query: ListQuery<"supplier_id" | "status" | "expense_type" | "issue_date_from" | "issue_date_to", keyof typeof LIST_SORT>,
): Promise<{ data: PurchaseSummary[]; total: number }> {
  const f = query.filters;
  const where = and(
    eq(pur.tenantId, scope.tenantId),
    eq(pur.workspaceId, scope.workspaceId),
    f.supplier_id ? eq(pur.supplierId, Number(f.supplier_id)) : undefined,
    f.status ? eq(pur.status, f.status) : undefined,
    f.expense_type ? eq(pur.expenseType, f.expense_type) : undefined,
    f.issue_date_from ? gte(pur.issueDate, f.issue_date_from) : undefined,
    f.issue_date_to ? lte(pur.issueDate, f.issue_date_to) : undefined,
  );
  const page = await pageOf(db, pur, where, orderBy(LIST_SORT[query.sort.field], pur.id, query.sort.descending), query);
  return { data: page.rows.map(serializePurchase), total: page.total };
}

/** GET /purchases/{id}: the purchase with its supplier, lines and payments, in one statement. */
export async function getPurchase(db: AnyDb, scope: RequestScope, id: number): Promise<PurchaseDetail> {
  const result = await db.execute(sql`
    SELECT row_to_json(p) AS purchase,
      (SELECT json_build_object('id', c.id, 'name', c.name, 'identification_type', c.identification_type, 'identification', c.identification)
       FROM contacts c WHERE c.id = p.supplier_id) AS supplier,
      (SELECT coalesce(json_agg(json_build_object('id', i.id, 'product_id', i.product_id, 'description', i.description, 'quantity', i.quantity,
          'unit_cost', i.unit_cost, 'discount', i.discount, 'discount_amount', i.discount_amount, 'subtotal', i.subtotal,
          'tax_amount', i.tax_amount, 'total', i.total, 'taxes', i.taxes) ORDER BY i.position), '[]')
       FROM purchase_items i WHERE i.purchase_id = p.id) AS items,
      (SELECT coalesce(json_agg(json_build_object('id', pm.id, 'amount', pm.amount, 'payment_date', pm.payment_date,
          'payment_method', pm.payment_method, 'bank_account_id', pm.bank_account_id) ORDER BY pm.id), '[]')
       FROM purchase_payments pm WHERE pm.purchase_id = p.id) AS payments
    FROM purchases p WHERE p.tenant_id = ${scope.tenantId} AND p.workspace_id = ${scope.workspaceId} AND p.id = ${id}`);
  const row = rowsOf<{
    purchase: Record<string, unknown>;
    supplier: PurchaseDetail["supplier"];
    items: PurchaseDetail["items"];
    payments: PurchaseDetail["payments"];
  }>(result)[0];
  if (!row) throw notFound("Purchase");
  const purchase = rowFromJson(pur, row.purchase);
  return {
    ...serializePurchase(purchase),
    supplier: row.supplier,
    items: row.items.map((it) => ({
      ...it,
      quantity: decimal2(it.quantity)!,
      unit_cost: unitPriceText(it.unit_cost),
      discount: decimal2(it.discount)!,
      discount_amount: decimal2(it.discount_amount)!,
      subtotal: decimal2(it.subtotal)!,
      tax_amount: decimal2(it.tax_amount)!,
      total: decimal2(it.total)!,
    })),
    payments: row.payments.map((pm) => ({ ...pm, amount: decimal2(pm.amount)! })),
    tax_breakdown: purchase.taxBreakdown as TaxBreakdown,
  };
}

/**
 * GET /purchases/{id}/pdf: the receipt of a document the company issued about its purchase (B11
 * comprobante de compras, B13 gastos menores, B17 pagos al exterior), printed as Norma General
 * 06-2018 wants an NCF printed: the company as issuer, the document type's name, the NCF and its
 * sequence's expiry, the supplier, the lines and taxes. A supplier's bill is the supplier's
 * document, not ours to print (409); a draft has no number yet (409).
 */
export async function purchasePdfData(db: AnyDb, scope: RequestScope, id: number): Promise<{ purchase: PurchaseDetail; pdf: PdfDocumentData }> {
  const purchase = await getPurchase(db, scope, id);
  if (purchase.ncf === null || purchase.self_issued_subtype_id === null) {
    throw new AppError(
      "purchase_not_printable",
      purchase.status === "draft"
        ? "A draft has no number yet: enter it first."
        : "Only a document the company issued (B11, B13, B17) is printed; this is a supplier's bill.",
    );
  }
  const result = await db.execute(sql`
    SELECT json_build_object('rnc', cp.rnc, 'legal_name', coalesce(cp.legal_name, t.name), 'trade_name', cp.trade_name, 'address', cp.address,
        'phone', cp.phone, 'email', cp.email) AS issuer,
      json_build_object('name', w.name, 'address', w.address, 'phone', w.phone) AS branch,
      json_build_object('prefix', s.prefix, 'name', s.name, 'valid_until', s.valid_until) AS sequence,
      (SELECT code FROM currencies WHERE id = ${purchase.currency_id}::int) AS currency_code
    FROM tenants t LEFT JOIN company_profiles cp ON cp.tenant_id = t.id
      JOIN workspaces w ON w.id = ${purchase.workspace_id} JOIN document_subtypes s ON s.id = ${purchase.self_issued_subtype_id}
    WHERE t.id = ${scope.tenantId}`);
  const row = rowsOf<{
    issuer: { rnc: string | null; legal_name: string; trade_name: string | null; address: string | null; phone: string | null; email: string | null };
    branch: { name: string; address: string | null; phone: string | null };
    sequence: { prefix: string; name: string; valid_until: string | null };
    currency_code: string | null;
  }>(result)[0]!;
  const foreign = purchase.exchange_rate !== "1.00" && row.currency_code !== null;
  const supplier = purchase.supplier;
  const ecfType = isElectronicPrefix(row.sequence.prefix) ? row.sequence.prefix.slice(1) : null;
  const printedItems = purchase.items.map((item) => ({ ...item, unit_price: item.unit_cost, taxes: item.taxes as AppliedTax[] }));
  const withheld = [
    ...(purchase.itbis_withheld !== "0.00" ? [{ label: "ITBIS retenido", value: `-${purchase.itbis_withheld}` }] : []),
    ...(purchase.isr_withheld !== "0.00" ? [{ label: "ISR retenido", value: `-${purchase.isr_withheld}` }] : []),
  ];
  return {
    purchase,
    pdf: {
      title: documentTypeName(row.sequence.prefix) ?? "Comprobante de compras",
      issuer: {
        legalName: row.issuer.legal_name,
        tradeName: row.issuer.trade_name,
        rnc: row.issuer.rnc,
        address: row.issuer.address,
        phone: row.issuer.phone,
        email: row.issuer.email,
        branchName: row.branch.name,
        branchAddress: row.branch.address,
        branchPhone: row.branch.phone,
      },
      documentNumber: purchase.ncf,
      ecfType,
      numberLabel: ecfType ? "e-NCF" : undefined,
      subtypeName: row.sequence.name,
      validUntil: row.sequence.valid_until,
      issueDate: purchase.issue_date,
      dueDate: purchase.due_date,
      dueDateLabel: "Vence",
      currency: foreign ? { code: row.currency_code!, exchangeRate: purchase.exchange_rate } : null,
      customer: {
        name: supplier?.name ?? "Gastos menores (sin proveedor)",
        identification: supplier?.identification ?? null,
        identificationType: supplier?.identification_type ?? null,
      },
      customerLabel: "Proveedor",
      ...pdfLines(printedItems),
      totals: [
        ...printedTotals(
          printedItems,
          { subtotal: purchase.subtotal_amount, discount: purchase.discount_amount, total: purchase.total_amount },
          ecfType !== null,
        ),
        ...(foreign && purchase.total_amount_dop ? [{ label: "Total en DOP", value: purchase.total_amount_dop, dop: true }] : []),
        ...withheld,
        // What is paid is the company's bookkeeping, not part of an e-CF (DGII's models print none).
        ...(ecfType
          ? []
          : [
              { label: "Pagado", value: purchase.amount_paid },
              { label: "Pendiente", value: purchase.amount_due, bold: true },
            ]),
      ],
      notes: purchase.notes,
    },
  };
}
