import { and, eq, ilike, or } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { inUseOnForeignKey } from "../../db/errors";
import { firstReference, likePattern, orderBy, type Page, pageOfQuery, referencedBy, updatedSince } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import type { BANK_ACCOUNT_TYPES, CreateBankAccountInput, UpdateBankAccountInput } from "./schemas";

const b = schema.bankAccounts;
const cur = schema.currencies;
type BankAccountRow = typeof b.$inferSelect;
type Joined = { account: BankAccountRow; currency: { id: number; code: string; symbol: string } | null };

export function serializeBankAccount({ account, currency }: Joined) {
  return {
    id: account.id,
    name: account.name,
    type: account.type as (typeof BANK_ACCOUNT_TYPES)[number],
    account_number: account.accountNumber,
    currency_id: account.currencyId,
    currency: currency ? { id: currency.id, code: currency.code, symbol: currency.symbol } : null,
    is_active: account.isActive,
    created_at: timestamp(account.createdAt),
    updated_at: timestamp(account.updatedAt),
  };
}

const selection = { account: b, currency: { id: cur.id, code: cur.code, symbol: cur.symbol } };

type BankAccountFilter = "search" | "type" | "currency_id" | "is_active";
type BankAccountSort = "id" | "name" | "created_at";

export async function listBankAccounts(db: AnyDb, tenantId: number, query: ListQuery<BankAccountFilter, BankAccountSort>): Promise<Page<Joined>> {
  const f = query.filters;
  const where = and(
    eq(b.tenantId, tenantId),
    f.search ? or(ilike(b.name, likePattern(f.search)), ilike(b.accountNumber, likePattern(f.search))) : undefined,
    f.type ? eq(b.type, f.type) : undefined,
    f.currency_id ? eq(b.currencyId, Number(f.currency_id)) : undefined,
    f.is_active ? eq(b.isActive, f.is_active === "true") : undefined,
    updatedSince(b.updatedAt, query),
  );
  const column = { id: b.id, name: b.name, created_at: b.createdAt, updated_at: b.updatedAt }[query.sort.field];
  const { rows, total } = await pageOfQuery(db, { table: b, id: b.id, where, order: [orderBy(column, b.id, query.sort.descending)], query }, (page) =>
    db
      .select({ ...selection, ...page })
      .from(b)
      .leftJoin(cur, eq(cur.id, b.currencyId))
      .$dynamic(),
  );
  return { rows: rows as Joined[], total };
}

export async function getBankAccount(db: AnyDb, tenantId: number, id: number): Promise<Joined> {
  const [row] = await db
    .select(selection)
    .from(b)
    .leftJoin(cur, eq(cur.id, b.currencyId))
    .where(and(eq(b.tenantId, tenantId), eq(b.id, id)));
  if (!row) throw notFound("Bank account");
  return row;
}

async function lockBankAccount(db: AnyDb, tenantId: number, id: number) {
  const [row] = await db
    .select({ id: b.id })
    .from(b)
    .where(and(eq(b.tenantId, tenantId), eq(b.id, id)))
    .for("update");
  if (!row) throw notFound("Bank account");
}

/** The currency must be one of the tenant's; omitted on create → the default currency. */
async function resolveCurrency(db: AnyDb, tenantId: number, currencyId: number | undefined): Promise<number | null> {
  const [row] = await db
    .select({ id: cur.id })
    .from(cur)
    .where(and(eq(cur.tenantId, tenantId), currencyId === undefined ? eq(cur.isDefault, true) : eq(cur.id, currencyId)));
  if (!row && currencyId !== undefined) throw fieldError("currency_id", "No such currency.");
  return row?.id ?? null;
}

export async function createBankAccount(db: AnyDb, tenantId: number, input: CreateBankAccountInput): Promise<Joined> {
  const currencyId = await resolveCurrency(db, tenantId, input.currency_id);
  const row = await db
    .insert(b)
    .values({
      tenantId,
      name: input.name,
      type: input.type ?? "bank",
      accountNumber: input.account_number ?? null,
      currencyId,
      isActive: input.is_active ?? true,
    })
    .returning({ id: b.id })
    .then(oneRow);
  return getBankAccount(db, tenantId, row.id);
}

export async function updateBankAccount(db: AnyDb, tenantId: number, id: number, input: UpdateBankAccountInput): Promise<Joined> {
  await lockBankAccount(db, tenantId, id);
  const currencyId = input.currency_id === undefined ? undefined : await resolveCurrency(db, tenantId, input.currency_id);
  await db
    .update(b)
    .set({ name: input.name, type: input.type, accountNumber: input.account_number, currencyId, isActive: input.is_active, updatedAt: new Date() })
    .where(and(eq(b.tenantId, tenantId), eq(b.id, id)));
  return getBankAccount(db, tenantId, id);
}

/** Why a bank account cannot be deleted because payments were recorded to it. Returns a reason or null. */
async function bankAccountDocumentReferences(db: AnyDb, tenantId: number, bankAccountId: number): Promise<string | null> {
  const ip = schema.invoicePayments;
  return firstReference(db, [["payments were recorded to it", referencedBy(ip, ip.tenantId, ip.bankAccountId, tenantId, bankAccountId)]]);
}

export async function deleteBankAccount(db: AnyDb, tenantId: number, id: number): Promise<void> {
  await lockBankAccount(db, tenantId, id);
  const reason = await bankAccountDocumentReferences(db, tenantId, id);
  if (reason) throw new AppError("in_use", `This bank account cannot be deleted: ${reason}. Deactivate it instead (is_active: false).`);
  await db
    .delete(b)
    .where(and(eq(b.tenantId, tenantId), eq(b.id, id)))
    .catch(inUseOnForeignKey("bank account"));
}

/** Whether `id` is an active bank account of the tenant (no account given: true). Payments check it (sales/payments.ts). */
export async function isActiveBankAccount(db: AnyDb, tenantId: number, id: number | null | undefined): Promise<boolean> {
  if (id == null) return true;
  const [account] = await db
    .select({ id: schema.bankAccounts.id })
    .from(schema.bankAccounts)
    .where(and(eq(schema.bankAccounts.tenantId, tenantId), eq(schema.bankAccounts.id, id), eq(schema.bankAccounts.isActive, true)));
  return account !== undefined;
}
