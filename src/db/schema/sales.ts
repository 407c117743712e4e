import { sql } from "drizzle-orm";
import { bigint, boolean, check, date, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { bankAccounts, contacts, currencies, documentSubtypes, money, products, salesmen, taxes } from "./catalog";
import { createdAt, tenantId, tenantIsolation, updatedAt } from "./common";
import { tenants, users, workspaces } from "./tenancy";

/** The columns invoices and quotations share (sales/serialize.ts documentFields shows them): who, which number, when. */
const documentHeadColumns = () => ({
  id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
  tenantId: tenantId().references(() => tenants.id),
  workspaceId: integer("workspace_id")
    .notNull()
    .references(() => workspaces.id),
  contactId: integer("contact_id")
    .notNull()
    .references(() => contacts.id),
  documentSubtypeId: integer("document_subtype_id")
    .notNull()
    .references(() => documentSubtypes.id),
  documentNumber: text("document_number").notNull(),
  issueDate: date("issue_date", { mode: "string" }).notNull(),
  dueDate: date("due_date", { mode: "string" }),
});

/** The document's totals, computed by sales/lines.ts documentAmounts, and its taxes by kind (taxBreakdown). */
const documentAmountColumns = () => ({
  subtotalAmount: money("subtotal_amount").notNull(),
  discountAmount: money("discount_amount").notNull(),
  taxAmount: money("tax_amount").notNull(),
  totalAmount: money("total_amount").notNull(),
  /** ITBIS per rate with its base, exempt base, ISC and other additional taxes by Tabla I code, propina (sales/lines.ts TaxBreakdown). NULL before migration 0021. */
  taxBreakdown: jsonb("tax_breakdown"),
});

export const invoices = pgTable(
  "invoices",
  {
    ...documentHeadColumns(),
    /** NULL only for a draft: the NCF is taken when the draft is issued (POST /invoices/{id}/issue). */
    documentNumber: text("document_number"),
    status: text("status").notNull().default("pending_payment"),
    ...documentAmountColumns(),
    amountPaid: money("amount_paid").notNull().default("0"),
    /**
     * What the buyer, a withholding agent, withheld of this invoice and paid to DGII on the seller's
     * behalf (in the invoice's currency), and when: it settles the invoice as a payment does and is
     * reported in the 607 (columns 7, 10, 12). PUT /invoices/{id}/withholdings.
     */
    itbisWithheld: money("itbis_withheld").notNull().default("0"),
    isrWithheld: money("isr_withheld").notNull().default("0"),
    withholdingDate: date("withholding_date", { mode: "string" }),
    /** DGII's Tipo de Ingreso (607 column 5): 01 operaciones … 06 otros. */
    incomeType: text("income_type").notNull().default("01"),
    currencyId: integer("currency_id").references(() => currencies.id),
    /**
     * The fiscal data frozen at issue (sales/snapshots.ts DocumentSnapshot: issuer and branch, buyer,
     * sequence expiry, currency): the PDF and the e-CF read these, never the live rows (FISCAL.md,
     * Norma 06-2018). NULL for drafts and for invoices issued before migration 0020.
     */
    snapshot: jsonb("snapshot"),
    /** DOP per unit of the invoice's currency on its issue date ("1" in DOP); the DOP amounts below use it. */
    exchangeRate: numeric("exchange_rate", { precision: 18, scale: 6 }),
    subtotalAmountDop: money("subtotal_amount_dop"),
    discountAmountDop: money("discount_amount_dop"),
    taxAmountDop: money("tax_amount_dop"),
    totalAmountDop: money("total_amount_dop"),
    /** Sums of the invoice's credit and debit notes (notes/service.ts): amount_due = total + debited − credited − paid. */
    creditedAmount: money("credited_amount").notNull().default("0"),
    debitedAmount: money("debited_amount").notNull().default("0"),
    paymentTerm: text("payment_term"),
    notes: text("notes"),
    quotationId: integer("quotation_id"),
    /**
     * A contingency replacement (Formato e-CF v1.0, section F, CodigoModificacion 4): the paper
     * B-series NCF this e-CF replaces, from its branch's contingency range, and its date
     * (FechaNCFModificado). Each paper NCF is replaced once.
     */
    replacedNcf: text("replaced_ncf"),
    replacedNcfDate: date("replaced_ncf_date", { mode: "string" }),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** Deleted invoices stay, hidden, so that their NCF remains on record as used. */
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    // An NCF is issued once per tenant, whatever happens to the invoice afterwards.
    uniqueIndex("invoices_tenant_document_number_key").on(t.tenantId, t.documentNumber),
    uniqueIndex("invoices_tenant_replaced_ncf_key").on(t.tenantId, t.replacedNcf),
    check("invoices_number_unless_draft", sql`status = 'draft' OR document_number IS NOT NULL`),
    check("invoices_income_type", sql`income_type IN ('01', '02', '03', '04', '05', '06')`),
    // Lists read live invoices of one workspace in (issue_date, id) order: partial indexes ending
    // in id, so a page is the first rows of an index scan, without sorting a day's invoices.
    index("invoices_live_workspace_issue_date_id_idx").on(t.workspaceId, t.issueDate, t.id).where(sql`deleted_at IS NULL`),
    index("invoices_live_workspace_status_id_idx").on(t.workspaceId, t.status, t.issueDate, t.id).where(sql`deleted_at IS NULL`),
    // DGII's 607 reads the whole company's month (reports/sales607.ts): by tenant and issue date.
    index("invoices_live_tenant_issue_date_id_idx").on(t.tenantId, t.issueDate, t.id).where(sql`deleted_at IS NULL`),
    index("invoices_contact_idx").on(t.contactId),
    tenantIsolation("invoices"),
  ],
);

/** Line items of invoices, quotations and notes share one shape; `discount` is a percentage. */
const lineColumns = () => ({
  id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
  tenantId: tenantId().references(() => tenants.id),
  position: integer("position").notNull(),
  productId: integer("product_id")
    .notNull()
    .references(() => products.id),
  description: text("description").notNull(),
  quantity: money("quantity").notNull(),
  /** Up to 4 decimals (Formato e-CF v1.0, PrecioUnitarioItem); line amounts are cents. */
  unitPrice: numeric("unit_price", { precision: 14, scale: 4 }).notNull(),
  discount: numeric("discount", { precision: 5, scale: 2 }).notNull().default("0"),
  discountAmount: money("discount_amount").notNull(),
  subtotal: money("subtotal").notNull(),
  taxAmount: money("tax_amount").notNull(),
  total: money("total").notNull(),
  /** The taxes applied, as they were at the time: [{id, name, type, rate, amount}]. */
  taxes: jsonb("taxes").notNull().default(sql`'[]'::jsonb`),
});

/**
 * The number of live invoices per workspace and status, as deltas (+1/-1) written by triggers on
 * `invoices` (drizzle/0012) and summed when read: a list's `meta.total` without counting tens of
 * thousands of rows per request. Insert-only, so writers never wait for one another on a counter
 * row (an updated counter row would be locked until commit, in an order that could deadlock with
 * stock rows); `compact_invoice_status_counts()` folds the deltas of each key into one row (cron).
 */
export const invoiceStatusCounts = pgTable(
  "invoice_status_counts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id").notNull(),
    status: text("status").notNull(),
    delta: integer("delta").notNull(),
    /**
     * A row the fold wrote (the sum of a key's deltas); the triggers' deltas are not: the minute's
     * fold looks only at keys with a delta not folded yet (the partial index), never at every key.
     */
    folded: boolean("folded").notNull().default(false),
  },
  (t) => [
    index("invoice_status_counts_key_idx").on(t.tenantId, t.workspaceId, t.status, t.delta),
    index("invoice_status_counts_unfolded_idx").on(t.tenantId, t.workspaceId, t.status).where(sql`NOT ${t.folded}`),
    tenantIsolation("invoice_status_counts"),
  ],
);

export const invoiceItems = pgTable(
  "invoice_items",
  {
    ...lineColumns(),
    invoiceId: integer("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
  },
  (t) => [index("invoice_items_invoice_idx").on(t.invoiceId), index("invoice_items_product_idx").on(t.productId), tenantIsolation("invoice_items")],
);

/** Which taxes lines use, for "tax in use" checks (the line's jsonb keeps the snapshot). */
export const invoiceItemTaxes = pgTable(
  "invoice_item_taxes",
  {
    tenantId: tenantId().references(() => tenants.id),
    invoiceItemId: integer("invoice_item_id")
      .notNull()
      .references(() => invoiceItems.id, { onDelete: "cascade" }),
    taxId: integer("tax_id")
      .notNull()
      .references(() => taxes.id),
  },
  (t) => [primaryKey({ columns: [t.invoiceItemId, t.taxId] }), index("invoice_item_taxes_tax_idx").on(t.taxId), tenantIsolation("invoice_item_taxes")],
);

export const invoicePayments = pgTable(
  "invoice_payments",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    invoiceId: integer("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    amount: money("amount").notNull(),
    paymentDate: date("payment_date", { mode: "string" }).notNull(),
    paymentMethod: text("payment_method").notNull(),
    bankAccountId: integer("bank_account_id").references(() => bankAccounts.id),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [index("invoice_payments_invoice_idx").on(t.invoiceId), tenantIsolation("invoice_payments")],
);

export const invoiceSalesmen = pgTable(
  "invoice_salesmen",
  {
    tenantId: tenantId().references(() => tenants.id),
    invoiceId: integer("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    salesmanId: integer("salesman_id")
      .notNull()
      .references(() => salesmen.id),
  },
  (t) => [primaryKey({ columns: [t.invoiceId, t.salesmanId] }), index("invoice_salesmen_salesman_idx").on(t.salesmanId), tenantIsolation("invoice_salesmen")],
);

/**
 * NCFs annulled before they reached anyone (Formato 608 of DGII: the NCF, the date and one of
 * DGII's reason codes 01-10, src/lib/annulments.ts): written when an issued invoice is deleted or
 * cancelled. The number stays used (never reissued); the monthly 608 report reads this table.
 */
export const ncfAnnulments = pgTable(
  "ncf_annulments",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    invoiceId: integer("invoice_id")
      .notNull()
      .references(() => invoices.id),
    ncf: text("ncf").notNull(),
    annulledOn: date("annulled_on").notNull(),
    reasonCode: text("reason_code").notNull(),
    /** What annulled it: `deleted` (DELETE /invoices/{id}) or `cancelled` (POST …/cancel). */
    action: text("action").notNull(),
    createdBy: integer("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("ncf_annulments_tenant_ncf_key").on(t.tenantId, t.ncf),
    index("ncf_annulments_tenant_date_idx").on(t.tenantId, t.annulledOn),
    check("ncf_annulments_reason_code", sql`${t.reasonCode} ~ '^(0[1-9]|10)$'`),
    tenantIsolation("ncf_annulments"),
  ],
);

/**
 * What changed on an issued invoice (issue 17: issued documents are records): one row per PATCH,
 * cancel or delete of an invoice that has an NCF — who, when, and the changed fields only, before
 * and after. Drafts are not records: their edits are not kept. Rows are never updated or deleted.
 */
export const invoiceHistory = pgTable(
  "invoice_history",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    invoiceId: integer("invoice_id")
      .notNull()
      .references(() => invoices.id),
    /** `updated`, `cancelled` or `deleted`. */
    action: text("action").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    before: jsonb("before").notNull(),
    after: jsonb("after").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("invoice_history_invoice_idx").on(t.tenantId, t.invoiceId, t.id), tenantIsolation("invoice_history")],
);

/**
 * Credit and debit notes (NCF types 04/34 and 03/33): fiscal documents of their own that modify an
 * issued invoice (Norma General 06-2018; Formato e-CF v1.0, InformacionReferencia). Numbered from
 * their own sequence, with the snapshot and amounts of a document; never edited once issued.
 */
export const invoiceNotes = pgTable(
  "invoice_notes",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    /** The invoice's workspace: a note belongs to the branch that sold. */
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    invoiceId: integer("invoice_id")
      .notNull()
      .references(() => invoices.id),
    contactId: integer("contact_id")
      .notNull()
      .references(() => contacts.id),
    /** `credit` or `debit`. */
    kind: text("kind").notNull(),
    documentSubtypeId: integer("document_subtype_id")
      .notNull()
      .references(() => documentSubtypes.id),
    documentNumber: text("document_number").notNull(),
    issueDate: date("issue_date", { mode: "string" }).notNull(),
    status: text("status").notNull().default("issued"),
    /** The modified invoice's NCF and date, as the note prints and the e-CF's InformacionReferencia carries them. */
    modifiedNcf: text("modified_ncf").notNull(),
    modifiedIssueDate: date("modified_issue_date", { mode: "string" }).notNull(),
    /** Formato e-CF v1.0 CodigoModificacion: 1 annuls, 2 corrects text, 3 corrects amounts, 4 replaces a contingency NCF. */
    modificationCode: integer("modification_code").notNull(),
    reason: text("reason").notNull(),
    /** IndicadorNotaCredito: 1 when issued more than 30 days after the invoice (no ITBIS back); null for debit notes. */
    creditNoteIndicator: integer("credit_note_indicator"),
    /**
     * A contingency replacement (issue 43; Formato e-CF v1.0, section F, CodigoModificacion 4): the
     * paper B03/B04 this E33/E34 replaces, from its branch's contingency range, and its date
     * (FechaNCFModificado). Each paper NCF is replaced once.
     */
    replacedNcf: text("replaced_ncf"),
    replacedNcfDate: date("replaced_ncf_date", { mode: "string" }),
    restock: boolean("restock").notNull().default(false),
    ...documentAmountColumns(),
    currencyId: integer("currency_id").references(() => currencies.id),
    exchangeRate: numeric("exchange_rate", { precision: 18, scale: 6 }).notNull(),
    subtotalAmountDop: money("subtotal_amount_dop").notNull(),
    discountAmountDop: money("discount_amount_dop").notNull(),
    taxAmountDop: money("tax_amount_dop").notNull(),
    totalAmountDop: money("total_amount_dop").notNull(),
    snapshot: jsonb("snapshot").notNull(),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("invoice_notes_tenant_document_number_key").on(t.tenantId, t.documentNumber),
    uniqueIndex("invoice_notes_tenant_replaced_ncf_key").on(t.tenantId, t.replacedNcf),
    index("invoice_notes_invoice_idx").on(t.tenantId, t.invoiceId, t.id),
    index("invoice_notes_list_idx").on(t.tenantId, t.workspaceId, t.kind, t.issueDate, t.id),
    // DGII's 607: the company's notes of a month.
    index("invoice_notes_tenant_issue_date_idx").on(t.tenantId, t.issueDate, t.id),
    check("invoice_notes_kind", sql`${t.kind} IN ('credit', 'debit')`),
    check("invoice_notes_modification_code", sql`${t.modificationCode} BETWEEN 1 AND 4`),
    tenantIsolation("invoice_notes"),
  ],
);

/**
 * A note's lines: a quantity of one of the invoice's lines (`invoice_item_id`, at its price,
 * discount and taxes) or a free amount (no line, no product).
 */
export const invoiceNoteItems = pgTable(
  "invoice_note_items",
  {
    noteId: integer("note_id")
      .notNull()
      .references(() => invoiceNotes.id),
    ...lineColumns(),
    invoiceItemId: integer("invoice_item_id").references(() => invoiceItems.id),
    /** NULL on an amount line (not a line of the invoice). */
    productId: integer("product_id").references(() => products.id),
  },
  (t) => [
    index("invoice_note_items_note_idx").on(t.noteId),
    index("invoice_note_items_invoice_item_idx").on(t.invoiceItemId),
    tenantIsolation("invoice_note_items"),
  ],
);

export const quotations = pgTable(
  "quotations",
  {
    ...documentHeadColumns(),
    status: text("status").notNull().default("draft"),
    ...documentAmountColumns(),
    currencyId: integer("currency_id").references(() => currencies.id),
    notes: text("notes"),
    invoiceId: integer("invoice_id").references(() => invoices.id),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("quotations_tenant_document_number_key").on(t.tenantId, t.documentNumber),
    index("quotations_workspace_issue_date_idx").on(t.workspaceId, t.issueDate),
    index("quotations_contact_idx").on(t.contactId),
    tenantIsolation("quotations"),
  ],
);

export const quotationItems = pgTable(
  "quotation_items",
  {
    ...lineColumns(),
    quotationId: integer("quotation_id")
      .notNull()
      .references(() => quotations.id, { onDelete: "cascade" }),
  },
  (t) => [index("quotation_items_quotation_idx").on(t.quotationId), index("quotation_items_product_idx").on(t.productId), tenantIsolation("quotation_items")],
);

/**
 * Idempotency-Key records: the first request's status and body, replayed for 24 h to a retry with
 * the same key and body. Written in the transaction of the work it protects.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    tenantId: tenantId().references(() => tenants.id),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    scope: text("scope").notNull(),
    requestHash: text("request_hash").notNull(),
    responseStatus: integer("response_status"),
    responseBody: jsonb("response_body"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.userId, t.scope, t.key] }),
    index("idempotency_keys_created_idx").on(t.createdAt),
    tenantIsolation("idempotency_keys"),
  ],
);
