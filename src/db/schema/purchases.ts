import { sql } from "drizzle-orm";
import { check, date, index, integer, jsonb, numeric, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { bankAccounts, contacts, currencies, documentSubtypes, products } from "./catalog";
import { createdAt, tenantId, tenantIsolation, updatedAt } from "./common";
import { tenants, users, workspaces } from "./tenancy";

const money = (name: string) => numeric(name, { precision: 14, scale: 2 });

/**
 * Supplier bills (issue 19, docs/purchases.md): what a branch bought, with the supplier's NCF, or a
 * number the buyer issued itself (B11 compras, B13 gastos menores, B17 pagos al exterior) taken
 * from `self_issued_subtype_id`. Belongs to a workspace, whose stock its lines add to. An e-CF
 * (E41/E43/E47) will reference it from ecf_documents by its id.
 */
export const purchases = pgTable(
  "purchases",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    /** NULL only on a B13/E43 (gastos menores) without a supplier. */
    supplierId: integer("supplier_id").references(() => contacts.id),
    /** The NCF or e-NCF printed on the supplier's document; NULL on a self-issued one. */
    supplierNcf: text("supplier_ncf"),
    /** The buyer's own sequence (B11/B13/B17, E41/E43/E47) when the buyer issues the document. */
    selfIssuedSubtypeId: integer("self_issued_subtype_id").references(() => documentSubtypes.id),
    /** The number taken from self_issued_subtype_id; NULL for a draft and for supplier bills. */
    ncf: text("ncf"),
    issueDate: date("issue_date", { mode: "string" }).notNull(),
    dueDate: date("due_date", { mode: "string" }),
    /** `draft`, `pending_payment`, `partially_paid`, `paid`, `voided`. */
    status: text("status").notNull().default("pending_payment"),
    /** DGII's 606 classification (Formato 606, "Tipo de Bienes y Servicios Comprados"): 01-11. */
    expenseType: text("expense_type").notNull(),
    paymentMethod: text("payment_method"),
    currencyId: integer("currency_id").references(() => currencies.id),
    /** DOP per unit of the currency on the issue date ("1" in DOP). */
    exchangeRate: numeric("exchange_rate", { precision: 18, scale: 6 }).notNull(),
    subtotalAmount: money("subtotal_amount").notNull(),
    discountAmount: money("discount_amount").notNull(),
    taxAmount: money("tax_amount").notNull(),
    totalAmount: money("total_amount").notNull(),
    totalAmountDop: money("total_amount_dop").notNull(),
    taxBreakdown: jsonb("tax_breakdown").notNull(),
    itbisWithheld: money("itbis_withheld").notNull().default("0"),
    isrWithheld: money("isr_withheld").notNull().default("0"),
    withholdingDate: date("withholding_date", { mode: "string" }),
    amountPaid: money("amount_paid").notNull().default("0"),
    notes: text("notes"),
    voidReason: text("void_reason"),
    voidedAt: timestamp("voided_at", { withTimezone: true }),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A supplier's NCF is booked once: a second bill with it is a duplicate (409
    // duplicate_supplier_ncf), enforced here so that two concurrent requests cannot both win.
    uniqueIndex("purchases_supplier_ncf_key").on(t.tenantId, t.supplierId, t.supplierNcf).where(sql`supplier_ncf IS NOT NULL AND status <> 'voided'`),
    // A self-issued NCF is issued once per tenant, voided or not (Decreto 254-06).
    uniqueIndex("purchases_tenant_ncf_key").on(t.tenantId, t.ncf),
    index("purchases_workspace_issue_date_idx").on(t.workspaceId, t.issueDate, t.id),
    // DGII's 606 reads the company's entered purchases of a month (reports/purchases606.ts): by
    // tenant and issue date, with the report's own status condition so the planner can use it.
    index("purchases_entered_tenant_issue_date_idx").on(t.tenantId, t.issueDate, t.id).where(sql`status IN ('pending_payment', 'partially_paid', 'paid')`),
    index("purchases_supplier_idx").on(t.supplierId),
    check("purchases_status", sql`${t.status} IN ('draft', 'pending_payment', 'partially_paid', 'paid', 'voided')`),
    check("purchases_expense_type", sql`${t.expenseType} ~ '^(0[1-9]|1[01])$'`),
    tenantIsolation("purchases"),
  ],
);

/** A purchase's lines: the sales line shape (sales/lines.ts computes them), the product optional (an expense). */
export const purchaseItems = pgTable(
  "purchase_items",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    purchaseId: integer("purchase_id")
      .notNull()
      .references(() => purchases.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    productId: integer("product_id").references(() => products.id),
    description: text("description").notNull(),
    quantity: money("quantity").notNull(),
    unitCost: numeric("unit_cost", { precision: 14, scale: 4 }).notNull(),
    discount: numeric("discount", { precision: 5, scale: 2 }).notNull().default("0"),
    discountAmount: money("discount_amount").notNull(),
    subtotal: money("subtotal").notNull(),
    taxAmount: money("tax_amount").notNull(),
    total: money("total").notNull(),
    taxes: jsonb("taxes").notNull().default(sql`'[]'::jsonb`),
  },
  (t) => [index("purchase_items_purchase_idx").on(t.purchaseId), index("purchase_items_product_idx").on(t.productId), tenantIsolation("purchase_items")],
);

export const purchasePayments = pgTable(
  "purchase_payments",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    purchaseId: integer("purchase_id")
      .notNull()
      .references(() => purchases.id, { onDelete: "cascade" }),
    amount: money("amount").notNull(),
    paymentDate: date("payment_date", { mode: "string" }).notNull(),
    paymentMethod: text("payment_method").notNull(),
    bankAccountId: integer("bank_account_id").references(() => bankAccounts.id),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [index("purchase_payments_purchase_idx").on(t.purchaseId), tenantIsolation("purchase_payments")],
);
