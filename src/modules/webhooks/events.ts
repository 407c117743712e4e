import { sql } from "drizzle-orm";
import type { Context } from "hono";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { AppEnv } from "../../http/context";
import { WEBHOOK_EVENTS, type WebhookEventType } from "./schemas";

/** `evt_` and 24 random hex digits: the id receivers deduplicate on (the `webhook-id` header). */
const eventId = () => `evt_${[...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;

/**
 * The deliveries recorded on each transaction handle, for the request pipeline to queue after its
 * commit (jobs/dispatch.ts): an event can be recorded deep in a service that has only `db` (a stock
 * crossing in inventory/stock.ts), and the handle is what every part of a request shares.
 */
const recorded = new WeakMap<object, number[]>();

/** Keeps delivery ids written on `db` for the request's after-commit dispatch. */
export function queueAfterCommit(db: AnyDb, ids: number[]): void {
  if (ids.length) recorded.set(db, [...(recorded.get(db) ?? []), ...ids]);
}

/** Takes (and forgets) the delivery ids recorded on `db`. */
export function takeRecordedDeliveries(db: AnyDb | undefined): number[] {
  if (!db) return [];
  const ids = recorded.get(db) ?? [];
  recorded.delete(db);
  return ids;
}

/** What the event is about, for GET /events' resource filter (schemas.ts, WEBHOOK_EVENTS). */
function resourceOf(type: WebhookEventType, data: unknown): { type: string | null; id: number | null } {
  const spec = WEBHOOK_EVENTS[type];
  const fields = (data ?? {}) as Record<string, unknown>;
  const id = fields[spec.id];
  const resource = spec.resource === "document_kind" ? fields.document_kind : spec.resource;
  return { type: typeof resource === "string" ? resource : null, id: typeof id === "number" ? id : null };
}

const ev = schema.webhookEvents;
const e = schema.webhookEndpoints;
const d = schema.webhookDeliveries;

/**
 * Records an event in the caller's transaction — so it exists exactly when the change commits —
 * with one delivery per enabled endpoint subscribed to it (type, and workspace when it has one), in
 * one statement; returns the delivery ids, which are also kept on `db` for the request's
 * after-commit dispatch. Every event is stored, listened to or not: GET /events is the log.
 */
export async function recordEvent(
  db: AnyDb,
  tenantId: number,
  type: WebhookEventType,
  workspaceId: number | null,
  data: () => Promise<unknown>,
): Promise<number[]> {
  const payload = await data();
  const resource = resourceOf(type, payload);
  const workspaceMatch = workspaceId === null ? sql`true` : sql`(${e.workspaceIds} IS NULL OR ${workspaceId}::int = ANY(${e.workspaceIds}))`;
  const result = await db.execute(sql`
    WITH event AS (
      INSERT INTO ${ev} (${sql.identifier(ev.tenantId.name)}, ${sql.identifier(ev.publicId.name)}, ${sql.identifier(ev.type.name)},
        ${sql.identifier(ev.workspaceId.name)}, ${sql.identifier(ev.resourceType.name)}, ${sql.identifier(ev.resourceId.name)}, ${sql.identifier(ev.data.name)})
      VALUES (${tenantId}, ${eventId()}, ${type}, ${workspaceId}, ${resource.type}, ${resource.id}, ${JSON.stringify(payload)}::jsonb)
      RETURNING id
    )
    INSERT INTO ${d} (${sql.identifier(d.tenantId.name)}, ${sql.identifier(d.endpointId.name)}, ${sql.identifier(d.eventId.name)})
    SELECT ${tenantId}, ${e.id}, event.id FROM ${e}, event
    WHERE ${e.tenantId} = ${tenantId} AND ${e.enabled}
      AND (${e.events} @> ARRAY[${type}]::text[] OR ${e.events} @> ARRAY['*']::text[]) AND ${workspaceMatch}
    RETURNING id`);
  const ids = rowsOf<{ id: number }>(result).map((row) => Number(row.id));
  queueAfterCommit(db, ids);
  return ids;
}

/** recordEvent for a route handler: its deliveries go on the Queue once the request commits (jobs/dispatch.ts). */
export async function emitEvent(c: Context<AppEnv>, type: WebhookEventType, workspaceId: number | null, data: () => Promise<unknown>): Promise<void> {
  await recordEvent(c.var.db, c.get("tenant").id, type, workspaceId, data);
}

/** `data` of a `<resource>.deleted` event: what a syncing client needs to drop its copy. */
export const deletedEventData = (id: number, workspaceId: number | null) => ({ id, workspace_id: workspaceId, deleted_at: new Date().toISOString() });
