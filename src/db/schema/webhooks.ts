import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tenantId, tenantIsolation, updatedAt } from "./common";
import { tenants } from "./tenancy";

/**
 * Outgoing webhooks (issue 21, docs/webhooks.md). An endpoint's signing secret (`whsec_…`) is stored
 * encrypted (AES-GCM, src/lib/crypto.ts); after a rotation the previous one keeps signing until
 * `previous_secret_expires_at` (24 h).
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    url: text("url").notNull(),
    description: text("description"),
    /** Event types, or `{*}` for every type. */
    events: text("events").array().notNull(),
    /** Only events of these workspaces; null: every workspace. */
    workspaceIds: integer("workspace_ids").array(),
    enabled: boolean("enabled").notNull().default(true),
    secretEncrypted: text("secret_encrypted").notNull(),
    previousSecretEncrypted: text("previous_secret_encrypted"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
    /** The first failed attempt since the last success; null while deliveries succeed. */
    failingSince: timestamp("failing_since", { withTimezone: true }),
    /** Set when the endpoint was disabled for failing 5 days in a row (never deleted). */
    disabledForFailuresAt: timestamp("disabled_for_failures_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhook_endpoints_tenant_idx").on(t.tenantId), tenantIsolation("webhook_endpoints")],
);

/**
 * An event, written in the transaction of the change it describes, whether or not an endpoint listens (GET /events is
 * the log of the last 30 days); `public_id` (`evt_…`) is what receivers deduplicate on.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    publicId: text("public_id").notNull(),
    type: text("type").notNull(),
    workspaceId: integer("workspace_id"),
    /** What the event is about, for GET /events' filter (invoice 12, product 7…); null on events stored before it existed. */
    resourceType: text("resource_type"),
    resourceId: integer("resource_id"),
    data: jsonb("data").notNull(),
    /**
     * Null: `data` is the payload as sent. Otherwise `data` is the resource as the database gave it
     * in the event's own statement, and this names the function that makes the payload of it
     * (modules/webhooks/data-formats.ts), applied whenever the event is shown or sent.
     */
    dataFormat: text("data_format"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_events_public_id_key").on(t.publicId),
    index("webhook_events_tenant_idx").on(t.tenantId, t.createdAt),
    index("webhook_events_resource_idx").on(t.tenantId, t.resourceType, t.resourceId),
    // The retention sweep's scan across tenants, oldest first (webhook_purge_events, jobs/webhooks.ts).
    index("webhook_events_created_idx").on(t.createdAt),
    tenantIsolation("webhook_events"),
  ],
);

/**
 * One event for one endpoint: pending until a 2xx (`succeeded`) or the retry window ends (`failed`).
 * An event has one per endpoint when recorded, and one more per resend (POST /events/{id}/resend).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    endpointId: integer("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("webhook_deliveries_endpoint_idx").on(t.tenantId, t.endpointId, t.id),
    // What is due, per tenant (the minute sweep, drizzle/0060 sweep_due): finished deliveries are not in it.
    index("webhook_deliveries_due_idx").on(t.tenantId, t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // An event's deliveries: its resend, and the retention sweep's check and cascade (webhook_purge_events).
    index("webhook_deliveries_event_idx").on(t.eventId),
    check("webhook_deliveries_status", sql`${t.status} IN ('pending', 'succeeded', 'failed')`),
    tenantIsolation("webhook_deliveries"),
  ],
);

/** Each HTTP attempt of a delivery: status code (null: timeout or network error), duration, the response body's first 1 KB. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    deliveryId: integer("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    responseBody: text("response_body"),
    error: text("error"),
    attemptedAt: timestamp("attempted_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt), tenantIsolation("webhook_attempts")],
);
