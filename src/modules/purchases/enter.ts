import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { isUniqueViolation } from "../../db/errors";
import { oneRow, rowFromJson, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError } from "../../lib/errors";
import { isElectronicPrefix } from "../../lib/ncf";
import { numberCtes, refusalAfterTaking } from "../document-subtypes/numbering";
import { insertEcfStatement } from "../ecf/issue";
import { type EcfSubject, recordEcfTransitionEvent } from "../ecf/transitions";
import { type StockChange, stockCtes } from "../inventory/stock";
import type { DocumentWarning } from "../sales/snapshots";
import { costCtes, stockEntries } from "./cost";
import { type Prepared, type PurchaseInput, type PurchaseRow, preparePurchase, pur, retarget } from "./prepare";
import type { CreatePurchaseInput, PurchaseSummary, UpdatePurchaseInput } from "./schemas";
import { lockPurchase, serializePurchase } from "./service";

/*
 * Entering a purchase: created (entered at once, or kept as a draft) and a draft entered, each in
 * ONE statement that takes the self-issued number, writes the purchase and its lines, adds the
 * stock and moves the cost; an E41/E43/E47 is signed in it.
 */

/** The purchase's columns from its prepared values (the head the insert and the updates write). */
export function headColumns(p: Prepared): [string, SQL][] {
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
export function insertItems(tenantId: number, purchaseId: SQL, p: Prepared): SQL {
  const json = p.lines.map((line, position) => {
    const { discountAmount, subtotal, taxAmount, total, taxes } = p.amounts[position]!;
    return {
      position,
      product_id: line.productId,
      description: line.description,
      quantity: line.quantity,
      unit_cost: line.unitCost,
      discount: line.discount,
      discount_amount: discountAmount,
      subtotal,
      tax_amount: taxAmount,
      total,
      taxes,
    };
  });
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
    const row = oneRow(rowsOf<{ purchase: Record<string, unknown> | null; ecf_id?: number | null }>(result));
    if (!row.purchase) throw await refusalAfterTaking(db, t, p.subtypeId!, p.input.issue_date).then((error) => retarget(error, "self_issued_subtype_id"));
    return { row: rowFromJson(pur, row.purchase), ecfId: row.ecf_id ?? null };
  } catch (error) {
    throw duplicateNcf(error, p);
  }
}

export function duplicateNcf(error: unknown, p: Prepared): unknown {
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
export function draftWritten(result: Parameters<typeof rowsOf>[0], p: Prepared): WrittenPurchase {
  const row = oneRow(rowsOf<{ purchase: Record<string, unknown> }>(result));
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

/** A draft's stored values and lines as a body, with a PATCH's fields over them. */
export async function draftInput(db: AnyDb, draft: PurchaseRow, patch: UpdatePurchaseInput = {}): Promise<PurchaseInput> {
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

export function assertDraft(row: PurchaseRow, what: string) {
  if (row.status !== "draft") throw new AppError("purchase_not_draft", `Only a draft can be ${what}; this purchase is ${row.status}.`);
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
