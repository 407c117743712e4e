import { eq, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow, rowsOf } from "../../db/rows";
import type { RequestScope } from "../../http/scope";
import { Big } from "../../lib/decimal";
import { AppError, fieldError } from "../../lib/errors";
import { isElectronicNumber } from "../../lib/ncf";
import { checkStockResult, type StockChange, type StockResult, stockCtes, stockResultColumns } from "../inventory/stock";
import { costCtes } from "./cost";
import { assertDraft, draftInput, draftWritten, duplicateNcf, headColumns, insertItems, type WrittenPurchase } from "./enter";
import { preparePurchase, pur } from "./prepare";
import type { UpdatePurchaseInput } from "./schemas";
import { lockPurchase } from "./service";

/* Changing a draft, and deleting a draft or voiding an entered purchase (its stock and cost taken back). */

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
  await checkStockResult(db, changes, oneRow(rowsOf<StockResult>(written)));
  return "voided";
}
