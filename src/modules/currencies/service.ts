import { and, eq, ilike, or, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { inUseOnForeignKey, isUniqueViolation } from "../../db/errors";
import { findRow, firstReference, likePattern, orderBy, type Page, pageOf, referencedBy } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import { Big } from "../../lib/decimal";
import { AppError, fieldError } from "../../lib/errors";
import { exchangeRateText, timestamp } from "../../lib/format";
import type { CreateCurrencyInput, UpdateCurrencyInput } from "./schemas";

const cur = schema.currencies;
type CurrencyRow = typeof cur.$inferSelect;

/** An exchange rate with at least 2 decimals and no trailing zeros beyond: "60.00", "58.7525". */
export function serializeCurrency(row: CurrencyRow) {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    symbol: row.symbol,
    exchange_rate: exchangeRateText(row.exchangeRate),
    is_default: row.isDefault,
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

type CurrencyFilter = "search" | "code" | "is_default";
type CurrencySort = "id" | "code" | "name" | "created_at";

export async function listCurrencies(db: AnyDb, tenantId: number, query: ListQuery<CurrencyFilter, CurrencySort>): Promise<Page<CurrencyRow>> {
  const f = query.filters;
  const where = and(
    eq(cur.tenantId, tenantId),
    f.search ? or(ilike(cur.name, likePattern(f.search)), ilike(cur.code, likePattern(f.search))) : undefined,
    f.code ? eq(cur.code, f.code.toUpperCase()) : undefined,
    f.is_default ? eq(cur.isDefault, f.is_default === "true") : undefined,
  );
  const column = { id: cur.id, code: cur.code, name: cur.name, created_at: cur.createdAt, updated_at: cur.updatedAt }[query.sort.field];
  return pageOf(db, cur, where, orderBy(column, cur.id, query.sort.descending), query);
}

export async function getCurrency(db: AnyDb, tenantId: number, id: number, lock = false): Promise<CurrencyRow> {
  return findRow(db, cur, and(eq(cur.tenantId, tenantId), eq(cur.id, id)), "Currency", lock);
}

function codeTaken(error: unknown): never {
  if (isUniqueViolation(error, "currencies_tenant_code_key")) throw fieldError("code", "This currency already exists.", "duplicate_currency_code");
  throw error;
}

/** The default currency is the unit of every exchange rate: its own rate is 1. */
function checkDefaultRate(rate: string | undefined) {
  if (rate !== undefined && !new Big(rate).eq(1)) throw fieldError("exchange_rate", "The default currency has an exchange rate of 1.");
}

async function clearDefault(db: AnyDb, tenantId: number) {
  await db
    .update(cur)
    .set({ isDefault: false, updatedAt: new Date() })
    .where(and(eq(cur.tenantId, tenantId), eq(cur.isDefault, true)));
}

export async function createCurrency(db: AnyDb, tenantId: number, input: CreateCurrencyInput): Promise<CurrencyRow> {
  if (input.is_default) {
    checkDefaultRate(input.exchange_rate);
    await clearDefault(db, tenantId);
  }
  const row = await db
    .insert(cur)
    .values({
      tenantId,
      code: input.code,
      name: input.name,
      symbol: input.symbol,
      exchangeRate: input.is_default ? "1" : (input.exchange_rate ?? "1"),
      isDefault: input.is_default ?? false,
    })
    .returning()
    .catch(codeTaken)
    .then(oneRow);
  return row;
}

export async function updateCurrency(db: AnyDb, tenantId: number, id: number, input: UpdateCurrencyInput): Promise<CurrencyRow> {
  const current = await getCurrency(db, tenantId, id, true);
  if (current.isDefault && input.is_default === false) {
    throw fieldError("is_default", "There must be a default currency: make another currency the default instead.");
  }
  const becomesDefault = input.is_default === true && !current.isDefault;
  if (current.isDefault || becomesDefault) checkDefaultRate(input.exchange_rate);
  if (becomesDefault) await clearDefault(db, tenantId);
  const row = await db
    .update(cur)
    .set({
      code: input.code,
      name: input.name,
      symbol: input.symbol,
      exchangeRate: becomesDefault ? "1" : input.exchange_rate,
      isDefault: input.is_default,
      updatedAt: new Date(),
    })
    .where(and(eq(cur.tenantId, tenantId), eq(cur.id, id)))
    .returning()
    .catch(codeTaken)
    .then(oneRow);
  return row;
}

/** Why a currency cannot be deleted because invoices or quotations are in it. Returns a reason or null. */
async function currencyDocumentReferences(db: AnyDb, tenantId: number, currencyId: number): Promise<string | null> {
  return firstReference(db, [
    ["invoices are in this currency", referencedBy(schema.invoices, schema.invoices.tenantId, schema.invoices.currencyId, tenantId, currencyId)],
    ["quotations are in this currency", referencedBy(schema.quotations, schema.quotations.tenantId, schema.quotations.currencyId, tenantId, currencyId)],
  ]);
}

export async function deleteCurrency(db: AnyDb, tenantId: number, id: number): Promise<void> {
  const current = await getCurrency(db, tenantId, id, true);
  if (current.isDefault) throw new AppError("in_use", "The default currency cannot be deleted: make another currency the default first.");
  const accounts = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(schema.bankAccounts)
    .where(and(eq(schema.bankAccounts.tenantId, tenantId), eq(schema.bankAccounts.currencyId, id)))
    .then(oneRow);
  const reason = accounts.n > 0 ? `${accounts.n} bank account(s) are in this currency` : await currencyDocumentReferences(db, tenantId, id);
  if (reason) throw new AppError("in_use", `This currency cannot be deleted: ${reason}.`);
  await db
    .delete(cur)
    .where(and(eq(cur.tenantId, tenantId), eq(cur.id, id)))
    .catch(inUseOnForeignKey("currency"));
}
