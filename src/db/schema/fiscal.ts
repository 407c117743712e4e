import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tenantId, tenantIsolation } from "./common";
import { tenants, users } from "./tenancy";

/**
 * A fiscal period (a month, `YYYYMM`) closed once its returns were filed (issue 47,
 * docs/reports.md "Closing the month"): one row per close. The period is closed while its last
 * close has not been re-opened; re-opening (the owner's alone, with a reason) stamps the row, and
 * the next close is a new row with the next version, so each version's snapshots stay (an amended
 * return, "rectificativa", is filed from the new one). The lock itself is enforced by the
 * database (drizzle/0058_period_lock.sql) on every write of a document, payment or withholding
 * dated in a closed period.
 */
export const fiscalPeriodCloses = pgTable(
  "fiscal_period_closes",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    /** YYYYMM, as DGII writes the period in its formats. */
    period: text("period").notNull(),
    version: integer("version").notNull(),
    closedAt: timestamp("closed_at", { withTimezone: true }).notNull().defaultNow(),
    closedBy: integer("closed_by")
      .notNull()
      .references(() => users.id),
    reopenedAt: timestamp("reopened_at", { withTimezone: true }),
    reopenedBy: integer("reopened_by").references(() => users.id),
    reopenReason: text("reopen_reason"),
  },
  (t) => [
    uniqueIndex("fiscal_period_closes_version_key").on(t.tenantId, t.period, t.version),
    // At most one standing close per period: what the lock's trigger looks up.
    uniqueIndex("fiscal_period_closes_standing_key").on(t.tenantId, t.period).where(sql`reopened_at IS NULL`),
    check("fiscal_period_closes_period", sql`${t.period} ~ '^[0-9]{4}(0[1-9]|1[0-2])$'`),
    check(
      "fiscal_period_closes_reopen",
      sql`(${t.reopenedAt} IS NULL) = (${t.reopenedBy} IS NULL) AND (${t.reopenedAt} IS NULL) = (${t.reopenReason} IS NULL)`,
    ),
    tenantIsolation("fiscal_period_closes"),
  ],
);

/**
 * What a close kept of the period's reports (606, 607, 607 with e-CF, 608, IT-1, IR-17), as TXT and
 * JSON, byte for byte with their SHA-256: the reports of a closed period are served from here, so
 * they stay as filed whatever happens after (never updated nor deleted).
 */
export const fiscalPeriodSnapshots = pgTable(
  "fiscal_period_snapshots",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    closeId: integer("close_id")
      .notNull()
      .references(() => fiscalPeriodCloses.id),
    /** `606`, `607`, `607-ecf` (the 607 with include_ecf), `608`, `it1`, `ir17`. */
    report: text("report").notNull(),
    /** `txt` or `json`. */
    format: text("format").notNull(),
    contentType: text("content_type").notNull(),
    body: text("body").notNull(),
    sha256: text("sha256").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("fiscal_period_snapshots_key").on(t.closeId, t.report, t.format),
    index("fiscal_period_snapshots_tenant_idx").on(t.tenantId),
    tenantIsolation("fiscal_period_snapshots"),
  ],
);
