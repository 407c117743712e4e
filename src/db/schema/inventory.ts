import { sql } from "drizzle-orm";
import { check, index, integer, numeric, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { products } from "./catalog";
import { createdAt, tenantId, tenantIsolation } from "./common";
import { tenants, users, workspaces } from "./tenancy";

const quantity = (name: string) => numeric(name, { precision: 14, scale: 2 });

/** The stock of a product in a workspace. Changed only together with a movement (level = Σ movements). */
export const stockLevels = pgTable(
  "stock_levels",
  {
    tenantId: tenantId().references(() => tenants.id),
    productId: integer("product_id")
      .notNull()
      .references(() => products.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    quantity: quantity("quantity").notNull().default("0"),
    minimumQuantity: quantity("minimum_quantity").notNull().default("0"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.productId, t.workspaceId] }),
    index("stock_levels_workspace_idx").on(t.workspaceId),
    check("stock_levels_minimum_not_negative", sql`minimum_quantity >= 0`),
    tenantIsolation("stock_levels"),
  ],
);

export const inventoryAdjustments = pgTable(
  "inventory_adjustments",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    reference: text("reference"),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [index("inventory_adjustments_workspace_idx").on(t.workspaceId, t.createdAt), tenantIsolation("inventory_adjustments")],
);

/**
 * Append-only record of every stock change. `workspace_id` is the workspace whose level moved;
 * a transfer writes two rows sharing `transfer_id`. A sale links its invoice by `invoice_id`.
 */
export const stockMovements = pgTable(
  "stock_movements",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    productId: integer("product_id")
      .notNull()
      .references(() => products.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    type: text("type").notNull(),
    quantity: quantity("quantity").notNull(),
    fromWorkspaceId: integer("from_workspace_id").references(() => workspaces.id),
    toWorkspaceId: integer("to_workspace_id").references(() => workspaces.id),
    reference: text("reference"),
    notes: text("notes"),
    reason: text("reason"),
    unitCost: numeric("unit_cost", { precision: 14, scale: 2 }),
    transferId: uuid("transfer_id"),
    adjustmentId: integer("adjustment_id").references(() => inventoryAdjustments.id),
    invoiceId: integer("invoice_id"),
    /** A purchase's stock entry (and its reversal when voided): purchases/enter.ts and changes.ts. */
    purchaseId: integer("purchase_id"),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [
    index("stock_movements_workspace_created_idx").on(t.workspaceId, t.createdAt),
    index("stock_movements_product_workspace_idx").on(t.productId, t.workspaceId),
    index("stock_movements_invoice_idx").on(t.invoiceId),
    index("stock_movements_purchase_idx").on(t.purchaseId),
    index("stock_movements_adjustment_idx").on(t.adjustmentId),
    tenantIsolation("stock_movements"),
  ],
);
