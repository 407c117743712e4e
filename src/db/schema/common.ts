import { sql } from "drizzle-orm";
import { integer, pgPolicy, timestamp } from "drizzle-orm/pg-core";

/**
 * Row-level security: every tenant-owned table carries this policy. When `app.tenant_id` has not been
 * set in the session `current_setting` raises, and when it was set in an earlier transaction it is
 * '' which fails the integer cast: either way a query without a tenant errors instead of returning rows.
 */
export const tenantIsolation = (table: string) =>
  pgPolicy(`${table}_tenant_isolation`, {
    as: "permissive",
    for: "all",
    using: sql`tenant_id = current_setting('app.tenant_id')::integer`,
    withCheck: sql`tenant_id = current_setting('app.tenant_id')::integer`,
  });

export const tenantId = () => integer("tenant_id").notNull();

export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
export const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();
