import { sql } from "drizzle-orm";
import { type AnyPgColumn, boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, tenantId, tenantIsolation, updatedAt } from "./common";

/** The root of tenancy: not tenant-scoped itself; the app role may only read it. */
export const tenants = pgTable("tenants", {
  id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
  subdomain: text("subdomain").notNull().unique(),
  name: text("name").notNull(),
  rnc: text("rnc"),
  createdAt: createdAt(),
});

/**
 * The company's fiscal identity (issuer of its documents): one row per tenant, written by
 * PATCH /company. Kept out of `tenants`, which the app role may only read.
 */
export const companyProfiles = pgTable(
  "company_profiles",
  {
    tenantId: tenantId()
      .primaryKey()
      .references(() => tenants.id),
    rnc: text("rnc"),
    legalName: text("legal_name"),
    tradeName: text("trade_name"),
    address: text("address"),
    municipalityCode: text("municipality_code"),
    provinceCode: text("province_code"),
    phone: text("phone"),
    email: text("email"),
    website: text("website"),
    economicActivity: text("economic_activity"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  () => [tenantIsolation("company_profiles")],
);

/**
 * A tenant's e-CF setup (issue 18): which DGII environment it sends to, whether e-CF is on, and its
 * signing certificate — the PKCS#12 and its password stored only encrypted with APP_ENCRYPTION_KEY
 * (lib/crypto.ts), with what GET /ecf/certificate shows read once at upload.
 */
export const ecfSettings = pgTable(
  "ecf_settings",
  {
    tenantId: tenantId()
      .primaryKey()
      .references(() => tenants.id),
    environment: text("environment").notNull().default("testecf"),
    enabled: boolean("enabled").notNull().default(false),
    /**
     * The tenant issues through a service provider DGII certified: it skips DGII's data and
     * communication tests (certification steps 2, 3 and 7-11), and may switch to production
     * without them (issue 32).
     */
    usesCertifiedProvider: boolean("uses_certified_provider").notNull().default(false),
    /**
     * DGII's authorization to send deferred (CERTIFICATION.md, "Deferred sending"): its reference,
     * or null when the tenant is not authorized. Only then may a branch device's offline sale be
     * issued with IndicadorEnvioDiferido 1 (Formato e-CF v1.0, field 6).
     */
    deferredSendingAuthorization: text("deferred_sending_authorization"),
    /**
     * The receiver's base URL the admin registers with DGII (certification steps 1 and 7), under
     * which /fe/recepcion, /fe/aprobacioncomercial and /fe/autenticacion answer; null: the tenant's
     * own Sucursal host. What the receiver check (issue 32, steps 7-11) calls.
     */
    receiverUrl: text("receiver_url"),
    certificateEncrypted: text("certificate_encrypted"),
    certificateSubject: text("certificate_subject"),
    certificateSerialNumber: text("certificate_serial_number"),
    certificateIssuer: text("certificate_issuer"),
    certificateNotBefore: timestamp("certificate_not_before", { withTimezone: true }),
    certificateNotAfter: timestamp("certificate_not_after", { withTimezone: true }),
    certificateFingerprint: text("certificate_fingerprint"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [check("ecf_settings_environment", sql`${t.environment} IN ('testecf', 'certecf', 'ecf')`), tenantIsolation("ecf_settings")],
);

export const users = pgTable(
  "users",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    name: text("name").notNull(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    currentWorkspaceId: integer("current_workspace_id").references((): AnyPgColumn => workspaces.id, {
      onDelete: "set null",
    }),
    /** Set while the account is deactivated: no login, and request_context finds no caller. */
    deactivatedAt: timestamp("deactivated_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("users_tenant_email_key").on(t.tenantId, sql`lower(${t.email})`), tenantIsolation("users")],
);

export const workspaces = pgTable(
  "workspaces",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    name: text("name").notNull(),
    /** The branch's address and phone print on its documents (Norma 06-2018). */
    address: text("address"),
    phone: text("phone"),
    ownerId: integer("owner_id")
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("workspaces_tenant_name_key").on(t.tenantId, sql`lower(${t.name})`), tenantIsolation("workspaces")],
);

export const roles = pgTable(
  "roles",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    name: text("name").notNull(),
    displayName: text("display_name").notNull(),
    permissions: text("permissions").array().notNull().default(sql`'{}'::text[]`),
    isBuiltin: boolean("is_builtin").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("roles_tenant_name_key").on(t.tenantId, t.name), tenantIsolation("roles")],
);

export const workspaceMembers = pgTable(
  "workspace_members",
  {
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    roleId: integer("role_id")
      .notNull()
      .references(() => roles.id),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId] }),
    index("workspace_members_user_idx").on(t.userId),
    index("workspace_members_role_idx").on(t.roleId),
    tenantIsolation("workspace_members"),
  ],
);

/**
 * The company's own grants (issue 41; docs/permissions.md, "The company and its branches"): a role
 * held at company level, apart from any branch membership. Only the company-level permissions a
 * route asks for are read from it, and only these rows give them: a branch role never does. One row
 * per tenant is its owner (`is_owner`, role admin), who alone grants, changes and revokes the
 * others and cannot lose their own; the owner hands the company over with POST
 * /company/transfer-ownership.
 */
export const companyMembers = pgTable(
  "company_members",
  {
    tenantId: tenantId().references(() => tenants.id),
    userId: integer("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    roleId: integer("role_id")
      .notNull()
      .references(() => roles.id),
    isOwner: boolean("is_owner").notNull().default(false),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("company_members_one_owner_key").on(t.tenantId).where(sql`is_owner`),
    index("company_members_role_idx").on(t.roleId),
    tenantIsolation("company_members"),
  ],
);

export const accessTokens = pgTable(
  "access_tokens",
  {
    id: uuid("id").primaryKey(),
    tenantId: tenantId().references(() => tenants.id),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("access_tokens_user_idx").on(t.userId), tenantIsolation("access_tokens")],
);

export const invitations = pgTable(
  "invitations",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    roleId: integer("role_id")
      .notNull()
      .references(() => roles.id),
    /** SHA-256 of the token: the token itself is shown once, at creation. */
    tokenHash: text("token_hash").notNull().unique(),
    invitedBy: integer("invited_by").references(() => users.id),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("invitations_workspace_idx").on(t.workspaceId), tenantIsolation("invitations")],
);

/** Transactional outbox: written in the transaction of the change that causes the message. */
export const outboxMessages = pgTable(
  "outbox_messages",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    kind: text("kind").notNull(),
    payload: jsonb("payload").notNull(),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  // What is due, per tenant (the minute sweep, drizzle/0060 sweep_due): sent rows are not in it.
  (t) => [index("outbox_messages_due_idx").on(t.tenantId, t.nextAttemptAt).where(sql`${t.status} = 'pending'`), tenantIsolation("outbox_messages")],
);

/**
 * Where each minute sweep left off (drizzle/0060 sweep_due): when more tenants have work due than
 * one invocation takes, the next minute starts after the last tenant served. Global (no tenant_id,
 * no row-level security): it names no tenant's data, only a position among tenant ids, and only the
 * SECURITY DEFINER sweep function reads or writes it (the app role has no grant on it).
 */
export const sweepCursors = pgTable("sweep_cursors", {
  sweep: text("sweep").primaryKey(),
  afterTenant: integer("after_tenant").notNull().default(0),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The rows a minute sweep has handed out (a queue message sent) and whose step has not run yet
 * (drizzle/0061 sweep_due): leased for 5 minutes, so the next minutes' sweeps do not hand the same
 * row out again while its message waits on a busy queue; the step deletes the lease when it runs
 * (jobs/due.ts endLease), and a lease past its end (the message lost) lets the sweep take the row
 * again. One row per (sweep, row id): ids are unique per table, and two sweeps read ecf_documents.
 */
export const sweepLeases = pgTable(
  "sweep_leases",
  {
    sweep: text("sweep").notNull(),
    rowId: integer("row_id").notNull(),
    tenantId: tenantId(),
    until: timestamp("until", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.sweep, t.rowId] }), index("sweep_leases_until_idx").on(t.sweep, t.until), tenantIsolation("sweep_leases")],
);
