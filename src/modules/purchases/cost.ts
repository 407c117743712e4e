import { type SQL, sql } from "drizzle-orm";
import { Big } from "../../lib/decimal";
import { inDop } from "../sales/money";
import type { Prepared } from "./prepare";

/* What entering (or voiding) a purchase does to its products: their stock and weighted-average cost. */

/**
 * What entering the purchase does to its products, per product that tracks inventory: the
 * quantity bought and its value in DOP — the lines' amount after discount, before taxes (ITBIS
 * paid on a purchase is credited against ITBIS charged, not a cost: docs/purchases.md), at the
 * purchase's rate, half-up to the cent.
 */
export function stockEntries(p: Prepared): { productId: number; quantity: Big; value: Big; field: string }[] {
  const byProduct = new Map<number, { productId: number; quantity: Big; value: Big; field: string }>();
  p.lines.forEach((line, i) => {
    if (!line.trackInventory || line.productId === null) return;
    const amounts = p.amounts[i]!;
    const value = inDop(new Big(amounts.subtotal).minus(amounts.discountAmount), p.exchangeRate);
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
export function costCtes(entries: { productId: number; quantity: Big; value: Big }[], sign: 1 | -1, when: SQL): SQL {
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
