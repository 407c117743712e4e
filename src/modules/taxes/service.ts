import { and, eq, ilike, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { inUseOnForeignKey } from "../../db/errors";
import { findRow, firstReference, likePattern, orderBy, type Page, pageOf, referencedBy } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import { Big } from "../../lib/decimal";
import { AppError, fieldError } from "../../lib/errors";
import { decimal2, timestamp } from "../../lib/format";
import type { CreateTaxInput, TAX_TYPES, UpdateTaxInput } from "./schemas";

const t = schema.taxes;
type TaxRow = typeof t.$inferSelect;

export function serializeTax(row: TaxRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type as (typeof TAX_TYPES)[number],
    rate: decimal2(row.rate),
    dgii_code: row.dgiiCode,
    amount_per_unit: decimal2(row.amountPerUnit),
    is_default: row.isDefault,
    is_active: row.isActive,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

type TaxFilter = "search" | "type" | "is_active" | "is_default";
type TaxSort = "id" | "name" | "rate" | "created_at";

export async function listTaxes(db: AnyDb, tenantId: number, query: ListQuery<TaxFilter, TaxSort>): Promise<Page<TaxRow>> {
  const f = query.filters;
  const where = and(
    eq(t.tenantId, tenantId),
    f.search ? ilike(t.name, likePattern(f.search)) : undefined,
    f.type ? eq(t.type, f.type) : undefined,
    f.is_active ? eq(t.isActive, f.is_active === "true") : undefined,
    f.is_default ? eq(t.isDefault, f.is_default === "true") : undefined,
  );
  const column = { id: t.id, name: t.name, rate: t.rate, created_at: t.createdAt, updated_at: t.updatedAt }[query.sort.field];
  return pageOf(db, t, where, orderBy(column, t.id, query.sort.descending), query);
}

export async function getTax(db: AnyDb, tenantId: number, id: number, lock = false): Promise<TaxRow> {
  return findRow(db, t, and(eq(t.tenantId, tenantId), eq(t.id, id)), "Tax", lock);
}

/** What a tax of each DGII kind may be (Formato e-CF v1.0: ITBIS tasas 1-3, Tabla I codes). */
interface TaxKind {
  type: string;
  rate: string;
  dgiiCode: string | null;
  amountPerUnit: string | null;
}

const ITBIS_RATES = ["18", "16", "0"];
const inRange = (code: string | null, from: string, to: string) => code !== null && code >= from && code <= to;

/**
 * The kind's rules, each a 422 naming the field (docs/fiscal.md "Taxes"): ITBIS at 18, 16 or 0 %
 * (tasas 1, 2, 3); exento and no facturable at 0; propina legal is code 001 at 10 %; ISC carries a
 * Tabla I code 006-039 — 006-022 (específico) an amount per unit and no rate, 023-039 (ad valorem)
 * a rate; other additional taxes a code 002-005. Returns the values to store (a missing code of
 * propina legal is 001).
 */
function checkKind(kind: TaxKind): TaxKind {
  const rate = new Big(kind.rate);
  const noCode = () => {
    if (kind.dgiiCode !== null) throw fieldError("dgii_code", `A tax of type ${kind.type} has no Tabla I code.`);
  };
  const noAmount = () => {
    if (kind.amountPerUnit !== null) throw fieldError("amount_per_unit", "Only an ISC específico (codes 006-022) has an amount per unit.");
  };
  switch (kind.type) {
    case "itbis":
      noCode();
      noAmount();
      if (!ITBIS_RATES.some((r) => rate.eq(r))) throw fieldError("rate", "ITBIS is 18 %, 16 % or 0 % (Ley 253-12; Formato e-CF v1.0, ITBIS tasas 1-3).");
      return kind;
    case "exento":
    case "no_facturable":
      noCode();
      noAmount();
      if (!rate.eq(0)) throw fieldError("rate", `A tax of type ${kind.type} has a rate of 0.`);
      return kind;
    case "propina_legal":
      noAmount();
      if (kind.dgiiCode !== null && kind.dgiiCode !== "001") throw fieldError("dgii_code", "Propina legal is Tabla I's code 001.");
      if (!rate.eq(10)) throw fieldError("rate", "Propina legal is 10 % (Ley 16-92, art. 228; Tabla I code 001).");
      return { ...kind, dgiiCode: "001" };
    case "isc":
      if (inRange(kind.dgiiCode, "006", "022")) {
        if (kind.amountPerUnit === null) throw fieldError("amount_per_unit", "An ISC específico (codes 006-022) has an amount per unit.");
        if (!rate.eq(0)) throw fieldError("rate", "An ISC específico is an amount per unit: its rate is 0.");
        return kind;
      }
      if (inRange(kind.dgiiCode, "023", "039")) {
        noAmount();
        if (rate.lte(0)) throw fieldError("rate", "An ISC ad valorem (codes 023-039) has a rate.");
        return kind;
      }
      throw fieldError("dgii_code", "An ISC has a Tabla I code: 006-022 (específico) or 023-039 (ad valorem).");
    default:
      noAmount();
      if (!inRange(kind.dgiiCode, "002", "005")) throw fieldError("dgii_code", "Another additional tax has a Tabla I code from 002 to 005.");
      return kind;
  }
}

/** A default tax is active (the default set is applied to new products). */
function checkDefault(isDefault: boolean, isActive: boolean) {
  if (isDefault && !isActive) throw fieldError("is_default", "An inactive tax cannot be a default tax.");
}

export async function createTax(db: AnyDb, tenantId: number, input: CreateTaxInput): Promise<TaxRow> {
  const kind = checkKind({ type: input.type, rate: input.rate, dgiiCode: input.dgii_code ?? null, amountPerUnit: input.amount_per_unit ?? null });
  checkDefault(input.is_default ?? false, input.is_active ?? true);
  const row = await db
    .insert(t)
    .values({
      tenantId,
      name: input.name,
      type: input.type,
      rate: input.rate,
      dgiiCode: kind.dgiiCode,
      amountPerUnit: kind.amountPerUnit,
      isDefault: input.is_default ?? false,
      isActive: input.is_active ?? true,
    })
    .returning()
    .then(oneRow);
  return row;
}

export async function updateTax(db: AnyDb, tenantId: number, id: number, input: UpdateTaxInput): Promise<TaxRow> {
  const current = await getTax(db, tenantId, id, true);
  // A tax made before its kind had rules (migration 0021) keeps working: renaming or deactivating
  // it checks nothing; changing what it computes checks the kind.
  const changesKind = [input.type, input.rate, input.dgii_code, input.amount_per_unit].some((value) => value !== undefined);
  const check = changesKind ? checkKind : (kind: TaxKind) => kind;
  const kind = check({
    type: input.type ?? current.type,
    rate: input.rate ?? current.rate,
    dgiiCode: input.dgii_code === undefined ? current.dgiiCode : input.dgii_code,
    amountPerUnit: input.amount_per_unit === undefined ? current.amountPerUnit : input.amount_per_unit,
  });
  checkDefault(input.is_default ?? current.isDefault, input.is_active ?? current.isActive);
  const row = await db
    .update(t)
    .set({
      name: input.name,
      type: kind.type,
      rate: kind.rate,
      dgiiCode: kind.dgiiCode,
      amountPerUnit: kind.amountPerUnit,
      isDefault: input.is_default,
      isActive: input.is_active,
      updatedAt: new Date(),
    })
    .where(and(eq(t.tenantId, tenantId), eq(t.id, id)))
    .returning()
    .then(oneRow);
  return row;
}

/**
 * Why a tax cannot be deleted because document lines applied it: invoice lines (invoice_item_taxes)
 * or quotation lines (their taxes snapshot). Returns a reason or null.
 */
async function taxDocumentReferences(db: AnyDb, tenantId: number, taxId: number): Promise<string | null> {
  const qi = schema.quotationItems;
  return firstReference(db, [
    ["invoice lines apply it", referencedBy(schema.invoiceItemTaxes, schema.invoiceItemTaxes.tenantId, schema.invoiceItemTaxes.taxId, tenantId, taxId)],
    [
      "quotation lines apply it",
      sql`EXISTS (SELECT 1 FROM ${qi} WHERE ${qi.tenantId} = ${tenantId} AND ${qi.taxes} @> ${JSON.stringify([{ id: taxId }])}::jsonb)`,
    ],
  ]);
}

export async function deleteTax(db: AnyDb, tenantId: number, id: number): Promise<void> {
  await getTax(db, tenantId, id, true);
  const product = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(schema.products)
    .where(and(eq(schema.products.tenantId, tenantId), sql`${id} = ANY(${schema.products.defaultTaxIds})`))
    .then(oneRow);
  const reason = product.n > 0 ? `${product.n} product(s) use it as a default tax` : await taxDocumentReferences(db, tenantId, id);
  if (reason) throw new AppError("in_use", `This tax cannot be deleted: ${reason}. Deactivate it instead (is_active: false).`);
  await db
    .delete(t)
    .where(and(eq(t.tenantId, tenantId), eq(t.id, id)))
    .catch(inUseOnForeignKey("tax"));
}
