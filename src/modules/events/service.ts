import { type SQL, sql } from "drizzle-orm";
import type { Context } from "hono";
import type { AnyDb } from "../../db/client";
import { rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { AppEnv } from "../../http/context";
import { type EventDataFormat, prefixWildcard, WEBHOOK_EVENTS, type WebhookEventType } from "./catalog";

/**
 * `evt_` and 24 hex digits of a random UUID (92 random bits: its version digit is always 4): the id
 * receivers deduplicate on (the `webhook-id` header). Made by Postgres, so the event's statement
 * carries no value of its own and the bench can replay it.
 */
const eventId = sql`'evt_' || left(replace(gen_random_uuid()::text, '-', ''), 24)`;

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

/** What the event is about, for GET /events' resource filter (catalog.ts, WEBHOOK_EVENTS). */
function resourceOf(type: WebhookEventType, data: unknown): { type: string | null; id: number | null } {
  const spec = WEBHOOK_EVENTS[type];
  const fields = (data ?? {}) as Record<string, unknown>;
  const id = fields[spec.id];
  const resource = spec.resource === "document_kind" ? fields.document_kind : spec.resource;
  return { type: typeof resource === "string" ? resource : null, id: typeof id === "number" ? id : null };
}

/**
 * An event's `data` read by SQL inside the statement that stores the event, so reading it costs no
 * round trip of its own: `statement` yields one row whose one column is the resource as the
 * database gives it, stored as read with its `format`; the API's shape is made from it by that
 * format's function whenever the event is shown or sent (modules/webhooks/data-formats.ts). Events whose `data` the
 * caller has in hand, or reads with JS in between, pass a function instead.
 */
export interface EventDataQuery {
  /** The function that makes the API's shape of what the statement read; null: stored as read. */
  format: EventDataFormat | null;
  statement: SQL;
  /** The resource's id (what `data` would name), for GET /events' filter. */
  resourceId: number;
  /** The resource's type when the event type does not fix it (the document an e-CF is). */
  resourceType?: string;
}

type EventData = (() => Promise<unknown>) | EventDataQuery;

const ev = schema.webhookEvents;
const e = schema.webhookEndpoints;
const d = schema.webhookDeliveries;

/**
 * The statement that records an event with one delivery per enabled endpoint subscribed to it
 * (type, and workspace when it has one), returning the delivery ids. Every event is stored,
 * listened to or not: GET /events is the log.
 */
async function eventStatement(tenantId: number, type: WebhookEventType, workspaceId: number | null, data: EventData): Promise<SQL> {
  let value: SQL;
  let format: EventDataFormat | null = null;
  let resource: { type: string | null; id: number | null };
  if (typeof data === "function") {
    const payload = await data();
    value = sql`${JSON.stringify(payload)}::jsonb`;
    resource = resourceOf(type, payload);
  } else {
    value = sql`(SELECT to_jsonb(source) FROM (${data.statement}) source)`;
    format = data.format;
    resource = { type: data.resourceType ?? WEBHOOK_EVENTS[type].resource, id: data.resourceId };
  }
  const workspaceMatch = workspaceId === null ? sql`true` : sql`(${e.workspaceIds} IS NULL OR ${workspaceId}::int = ANY(${e.workspaceIds}))`;
  return sql`
    WITH event AS (
      INSERT INTO ${ev} (${sql.identifier(ev.tenantId.name)}, ${sql.identifier(ev.publicId.name)}, ${sql.identifier(ev.type.name)},
        ${sql.identifier(ev.workspaceId.name)}, ${sql.identifier(ev.resourceType.name)}, ${sql.identifier(ev.resourceId.name)},
        ${sql.identifier(ev.data.name)}, ${sql.identifier(ev.dataFormat.name)})
      VALUES (${tenantId}, ${eventId}, ${type}, ${workspaceId}, ${resource.type}, ${resource.id}, ${value}, ${format})
      RETURNING id
    )
    INSERT INTO ${d} (${sql.identifier(d.tenantId.name)}, ${sql.identifier(d.endpointId.name)}, ${sql.identifier(d.eventId.name)})
    SELECT ${tenantId}, ${e.id}, event.id FROM ${e}, event
    WHERE ${e.tenantId} = ${tenantId} AND ${e.enabled}
      AND ${e.events} && ARRAY[${type}, ${prefixWildcard(type)}, '*']::text[] AND ${workspaceMatch}
    RETURNING id`;
}

const deliveryIds = (rows: Record<string, unknown>[]) => rows.map((row) => Number(row.id));

/**
 * Records an event now, in the caller's transaction — so it exists exactly when the change
 * commits — and returns its delivery ids, also kept on `db` for an after-commit dispatch. For jobs
 * that queue the deliveries themselves (the e-CF step) and code deep in a service (a stock crossing).
 */
export async function recordEvent(db: AnyDb, tenantId: number, type: WebhookEventType, workspaceId: number | null, data: EventData): Promise<number[]> {
  const ids = deliveryIds(rowsOf<Record<string, unknown>>(await db.execute(await eventStatement(tenantId, type, workspaceId, data))));
  queueAfterCommit(db, ids);
  return ids;
}

/**
 * An event of a route handler: written by the request's COMMIT message (deferUntilCommit), so it
 * commits exactly with the change and costs no round trip of its own (a `data` function still
 * reads when called); its deliveries go on the Queue once the request commits (jobs/dispatch.ts).
 */
export async function emitEvent(c: Context<AppEnv>, type: WebhookEventType, workspaceId: number | null, data: EventData): Promise<void> {
  const db = c.var.db;
  const statement = await eventStatement(c.get("tenant").id, type, workspaceId, data);
  const tx = c.get("tx");
  // c.var.db is the open request transaction's handle (http/auth.ts sets it from c.var.tx).
  if (!tx?.isOpen || tx.db !== db) throw new Error("an event needs the request's open transaction");
  tx.deferUntilCommit(statement, (rows) => queueAfterCommit(db, deliveryIds(rows)));
}

/**
 * `data` of a `<resource>.deleted` event: what a syncing client needs to drop its copy, and
 * `extra` text fields (the invoice's NCF). `deleted_at` is the delete's transaction time as the
 * database tells it (the event's `created_at`, and the clock every `updated_at` is on, shown as the
 * API shows times), so a client weighing it against a row's `updated_at` compares one clock, not the
 * Worker's with Postgres'.
 */
export function deletedEventData(id: number, workspaceId: number | null, extra: Record<string, string | null> = {}): EventDataQuery {
  const columns = Object.entries(extra).map(([name, value]) => sql`, ${value}::text AS ${sql.identifier(name)}`);
  return {
    format: null,
    resourceId: id,
    statement: sql`SELECT ${id}::int AS id, ${workspaceId}::int AS workspace_id,
      to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS deleted_at${sql.join(columns)}`,
  };
}
