import { sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError, fieldError } from "../../lib/errors";
import { formatDocumentNumber, isElectronicPrefix, isNcfPrefix, parseDocumentNumber } from "../../lib/ncf";
import { numberingRefusal, numberingState, numberingUnavailable, takeNumberStatement } from "../document-subtypes/numbering";
import { assertIssuedToday } from "../ecf/dating";
import type { SignedEcf } from "../ecf/issue";
import { activeRecords } from "../rnc/queries";
import { documentAmounts, EXCLUSIVE_TAX_TYPES, type LineAmounts, type LineTax, lineAmounts, type TaxBreakdown, taxBreakdown } from "../sales/lines";
import { exchangeRateFor } from "../sales/money";
import {
  ecfSettingsColumn,
  issuerAndBranchColumns,
  type LoadedBranch,
  type LoadedEcfSettings,
  type LoadedIssuer,
  type LoadedProduct,
} from "../sales/references";
import { type DocumentWarning, dopAmounts, registryWarnings } from "../sales/snapshots";
import { signPurchaseEcf } from "./ecf";
import type { CreatePurchaseInput } from "./schemas";

/*
 * What a purchase is made of (docs/purchases.md): everything it names read and checked in one
 * statement, its document rules, withholdings and rate, its amounts computed before its one write.
 */

export const pur = schema.purchases;

export type PurchaseRow = typeof pur.$inferSelect;

/**
 * Prefixes of the documents a buyer issues about its own purchases (FISCAL.md, "Numbers"; Norma
 * General 06-2018): 11/41 compras to informal suppliers, 13/43 gastos menores, 17/47 pagos al
 * exterior. A supplier's document never carries them (nor 12, registro único de ingresos).
 */
const SELF_ISSUED_PREFIXES = ["B11", "B13", "B17", "E41", "E43", "E47"];

const NOT_FROM_SUPPLIERS = new Set(["11", "12", "13", "17", "41", "43", "47"]);

/** The body of create, or of a draft merged with a PATCH: what a purchase is made of. */
export type PurchaseInput = Omit<CreatePurchaseInput, "status">;

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
export interface Prepared {
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
export async function preparePurchase(
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
  const loaded = oneRow(rowsOf<Loaded>(result));
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
  const totals = documentAmounts(amounts, "unit_cost");
  const breakdown = taxBreakdown(amounts);
  assertWithholdings(input, totals.totalAmount, breakdown);
  const exchangeRate = exchangeRateFor(
    loaded.currency && { isDefault: loaded.currency.is_default, rate: loaded.currency.exchange_rate },
    input.exchange_rate,
    "A purchase",
  );
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
export function retarget(error: AppError, field: string): AppError {
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
