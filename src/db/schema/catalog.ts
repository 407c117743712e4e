import { sql } from "drizzle-orm";
import { bigint, boolean, check, date, index, integer, numeric, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tenantId, tenantIsolation, updatedAt } from "./common";
import { tenants, workspaces } from "./tenancy";

/** Money and quantities: numeric(14,2), read and written as decimal strings. */
const money = (name: string) => numeric(name, { precision: 14, scale: 2 });

export const taxes = pgTable(
  "taxes",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    name: text("name").notNull(),
    type: text("type").notNull(),
    rate: numeric("rate", { precision: 5, scale: 2 }).notNull(),
    /**
     * The code of Formato e-CF v1.0's Tabla I (Codificación Tipos de Impuestos Adicionales): 001
     * propina legal, 002-005 other additional taxes, 006-022 ISC específico, 023-039 ISC ad valorem.
     * NULL for ITBIS, exento and no facturable (and taxes created before migration 0021).
     */
    dgiiCode: text("dgii_code"),
    /** ISC específico (codes 006-022): the amount per unit sold, instead of a rate. */
    amountPerUnit: numeric("amount_per_unit", { precision: 14, scale: 2 }),
    isDefault: boolean("is_default").notNull().default(false),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("taxes_tenant_idx").on(t.tenantId), tenantIsolation("taxes")],
);

export const currencies = pgTable(
  "currencies",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    code: text("code").notNull(),
    name: text("name").notNull(),
    symbol: text("symbol").notNull(),
    exchangeRate: numeric("exchange_rate", { precision: 18, scale: 6 }).notNull().default("1"),
    isDefault: boolean("is_default").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("currencies_tenant_code_key").on(t.tenantId, t.code),
    // One default currency per tenant: the one exchange rates are relative to.
    uniqueIndex("currencies_one_default_key").on(t.tenantId).where(sql`is_default`),
    tenantIsolation("currencies"),
  ],
);

export const documentSubtypes = pgTable(
  "document_subtypes",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    name: text("name").notNull(),
    type: text("type").notNull(),
    prefix: text("prefix").notNull(),
    startNumber: bigint("start_number", { mode: "number" }).notNull(),
    endNumber: bigint("end_number", { mode: "number" }).notNull(),
    nextNumber: bigint("next_number", { mode: "number" }).notNull(),
    validUntil: date("valid_until", { mode: "string" }),
    /** DGII's authorization of the range (Oficina Virtual: "Solicitud de autorización de NCF"). */
    authorizationNumber: text("authorization_number"),
    authorizedAt: date("authorized_at", { mode: "string" }),
    /** Seeded by `tenant:create --demo-sequences`: a made-up range for trying the API, never DGII's. */
    isDemo: boolean("is_demo").notNull().default(false),
    isDefault: boolean("is_default").notNull().default(false),
    isActive: boolean("is_active").notNull().default(true),
    isElectronic: boolean("is_electronic").notNull().default(false),
    /**
     * A paper B-series range kept for a branch's contingency (issue 33): its numbers are written by
     * hand while the branch cannot issue e-CF, never handed out by Sucursal, and each is later
     * replaced by an e-CF (invoices.replaced_ncf).
     */
    contingencyWorkspaceId: integer("contingency_workspace_id").references(() => workspaces.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("document_subtypes_tenant_type_idx").on(t.tenantId, t.type),
    // One default per document type and tenant.
    uniqueIndex("document_subtypes_one_default_key").on(t.tenantId, t.type).where(sql`is_default`),
    tenantIsolation("document_subtypes"),
  ],
);

export const workspaceDocumentPreferences = pgTable(
  "workspace_document_preferences",
  {
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    documentSubtypeId: integer("document_subtype_id")
      .notNull()
      .references(() => documentSubtypes.id),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.type] }), tenantIsolation("workspace_document_preferences")],
);

export const products = pgTable(
  "products",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id").references(() => workspaces.id),
    name: text("name").notNull(),
    sku: text("sku"),
    description: text("description"),
    productType: text("product_type").notNull().default("product"),
    unit: text("unit"),
    price: money("price").notNull().default("0"),
    cost: money("cost"),
    trackInventory: boolean("track_inventory").notNull().default(true),
    allowNegativeStock: boolean("allow_negative_stock").notNull().default(false),
    defaultTaxIds: integer("default_tax_ids").array().notNull().default(sql`'{}'::integer[]`),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("products_tenant_sku_key").on(t.tenantId, t.sku).where(sql`sku IS NOT NULL`),
    index("products_tenant_workspace_idx").on(t.tenantId, t.workspaceId),
    tenantIsolation("products"),
  ],
);

export const contacts = pgTable(
  "contacts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id").references(() => workspaces.id),
    name: text("name").notNull(),
    contactType: text("contact_type").notNull().default("customer"),
    identificationType: text("identification_type"),
    identification: text("identification"),
    email: text("email"),
    phone: text("phone"),
    address: text("address"),
    notes: text("notes"),
    creditLimit: money("credit_limit"),
    /**
     * As a supplier, how DGII's IT-1 section A classifies the ITBIS withheld from it: `ordinary`,
     * `rst` (Régimen Simplificado de Tributación: casillas 44/45, 53/54) or `non_profit` (entidad
     * sin fines de lucro, Norma 01-11: casilla 40). docs/reports.md, "IT-1".
     */
    taxRegime: text("tax_regime").notNull().default("ordinary"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("contacts_tenant_workspace_idx").on(t.tenantId, t.workspaceId),
    index("contacts_tenant_identification_idx").on(t.tenantId, t.identification),
    check("contacts_tax_regime", sql`${t.taxRegime} IN ('ordinary', 'rst', 'non_profit')`),
    tenantIsolation("contacts"),
  ],
);

export const salesmen = pgTable(
  "salesmen",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    fullName: text("full_name").notNull(),
    email: text("email"),
    phone: text("phone"),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("salesmen_tenant_idx").on(t.tenantId), tenantIsolation("salesmen")],
);

export const bankAccounts = pgTable(
  "bank_accounts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    name: text("name").notNull(),
    type: text("type").notNull().default("bank"),
    accountNumber: text("account_number"),
    currencyId: integer("currency_id").references(() => currencies.id),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("bank_accounts_tenant_idx").on(t.tenantId), tenantIsolation("bank_accounts")],
);

export { money };
