import { and, eq, gte, inArray, type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { findRow, orderBy, type Page, pageOf, pageOfQuery, pageOfRows, updatedSince } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import { config, type Env } from "../../env";
import type { ListQuery } from "../../http/pagination";
import { encryptSecret } from "../../lib/crypto";
import { AppError, fieldError } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import { log } from "../../lib/log";
import { endpointUrlProblem, ResolverUnavailable, resolvedHostProblem } from "../../lib/outbound-url";
import { prefixWildcard } from "../events/catalog";
import { enqueueEmail } from "../outbox/service";
import { type EventFormatConfig, eventPayload } from "./data-formats";
import type { CreateEndpointInput, UpdateEndpointInput, WebhookDelivery, WebhookEndpoint, WebhookEvent } from "./schemas";

const e = schema.webhookEndpoints;
const d = schema.webhookDeliveries;
const ev = schema.webhookEvents;
const at = schema.webhookAttempts;
type EndpointRow = typeof e.$inferSelect;

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** A new secret sealed with APP_ENCRYPTION_KEY; without the key no endpoint can be created or rotated. */
async function sealedSecret(env: Env): Promise<{ secret: string; sealed: string }> {
  const key = config(env).APP_ENCRYPTION_KEY;
  if (!key) throw new AppError("webhooks_not_configured", "The server has no APP_ENCRYPTION_KEY: webhook signing secrets cannot be stored.");
  const secret = newSecret();
  return { secret, sealed: await encryptSecret(key, secret) };
}

/** The public shape: never a secret (shown once, by create and rotate-secret). */
export function serializeEndpoint(row: EndpointRow, now = new Date()): WebhookEndpoint {
  const rotating = row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? row.previousSecretExpiresAt : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    workspace_ids: row.workspaceIds,
    enabled: row.enabled,
    previous_secret_expires_at: timestamp(rotating),
    disabled_for_failures_at: timestamp(row.disabledForFailuresAt),
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

/**
 * The URL's form, then the addresses its host resolves to. A resolver that cannot answer does not
 * refuse the endpoint: each delivery checks again and is not sent while its host is unknown.
 */
async function checkUrl(env: Env, url: string): Promise<void> {
  const { WEBHOOKS_ALLOW_HTTP_LOOPBACK, WEBHOOKS_DNS_RESOLVER_URL } = config(env);
  const problem = endpointUrlProblem(url, WEBHOOKS_ALLOW_HTTP_LOOPBACK);
  if (problem) throw fieldError("url", problem);
  try {
    const resolved = await resolvedHostProblem(url, WEBHOOKS_ALLOW_HTTP_LOOPBACK, WEBHOOKS_DNS_RESOLVER_URL);
    if (resolved) throw fieldError("url", resolved);
  } catch (error) {
    if (!(error instanceof ResolverUnavailable)) throw error;
    log.warn("webhook endpoint host not resolved when saved", { cause: error.message });
  }
}

/** Every id of `workspace_ids` must be a workspace of the tenant (RLS hides the others). */
async function checkWorkspaces(db: AnyDb, tenantId: number, ids: number[] | null | undefined): Promise<void> {
  if (!ids?.length) return;
  const found = await db
    .select({ id: schema.workspaces.id })
    .from(schema.workspaces)
    .where(and(eq(schema.workspaces.tenantId, tenantId), inArray(schema.workspaces.id, ids)));
  const missing = ids.filter((id) => !found.some((w) => w.id === id));
  if (missing.length) throw fieldError("workspace_ids", `No such workspace: ${missing.join(", ")}.`);
}

export async function listEndpoints(db: AnyDb, tenantId: number, query: ListQuery<never, "id" | "created_at">): Promise<Page<EndpointRow>> {
  const column = { id: e.id, created_at: e.createdAt, updated_at: e.updatedAt }[query.sort.field];
  return pageOf(db, e, eq(e.tenantId, tenantId), orderBy(column, e.id, query.sort.descending), query);
}

export const getEndpoint = (db: AnyDb, tenantId: number, id: number, lock = false): Promise<EndpointRow> =>
  findRow(db, e, and(eq(e.tenantId, tenantId), eq(e.id, id)), "Webhook endpoint", lock);

export async function createEndpoint(db: AnyDb, env: Env, tenantId: number, input: CreateEndpointInput): Promise<{ row: EndpointRow; secret: string }> {
  await checkUrl(env, input.url);
  await checkWorkspaces(db, tenantId, input.workspace_ids);
  const { secret, sealed } = await sealedSecret(env);
  const row = await db
    .insert(e)
    .values({
      tenantId,
      url: input.url,
      description: input.description ?? null,
      events: input.events,
      workspaceIds: input.workspace_ids ?? null,
      enabled: input.enabled ?? true,
      secretEncrypted: sealed,
    })
    .returning()
    .then(oneRow);
  return { row: row, secret };
}

export async function updateEndpoint(db: AnyDb, env: Env, tenantId: number, id: number, input: UpdateEndpointInput): Promise<EndpointRow> {
  await getEndpoint(db, tenantId, id, true);
  if (input.url !== undefined) await checkUrl(env, input.url);
  await checkWorkspaces(db, tenantId, input.workspace_ids);
  const row = await db
    .update(e)
    .set({
      url: input.url,
      events: input.events,
      description: input.description,
      enabled: input.enabled,
      workspaceIds: input.workspace_ids,
      // Enabling again starts the count of failing days afresh.
      ...(input.enabled === true ? { failingSince: null, disabledForFailuresAt: null } : {}),
      updatedAt: new Date(),
    })
    .where(and(eq(e.tenantId, tenantId), eq(e.id, id)))
    .returning()
    .then(oneRow);
  return row;
}

export async function deleteEndpoint(db: AnyDb, tenantId: number, id: number): Promise<void> {
  await getEndpoint(db, tenantId, id, true);
  await db.delete(e).where(and(eq(e.tenantId, tenantId), eq(e.id, id)));
}

/** A new secret; the current one becomes the previous and keeps signing for ROTATION_OVERLAP_MS. */
export async function rotateSecret(db: AnyDb, env: Env, tenantId: number, id: number, now = new Date()): Promise<{ row: EndpointRow; secret: string }> {
  const current = await getEndpoint(db, tenantId, id, true);
  const { secret, sealed } = await sealedSecret(env);
  const row = await db
    .update(e)
    .set({
      secretEncrypted: sealed,
      previousSecretEncrypted: current.secretEncrypted,
      previousSecretExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
      updatedAt: now,
    })
    .where(and(eq(e.tenantId, tenantId), eq(e.id, id)))
    .returning()
    .then(oneRow);
  return { row: row, secret };
}

/** A delivery's attempt as its page's statement gathers it (listDeliveries). */
interface AttemptJson {
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  response_body: string | null;
  error: string | null;
  attempted_at: string;
}

/** An endpoint's deliveries, newest first, each with its attempts. */
export async function listDeliveries(
  db: AnyDb,
  tenantId: number,
  endpointId: number,
  query: ListQuery<"status", "id">,
): Promise<{ data: WebhookDelivery[]; total: number }> {
  const where: SQL | undefined = and(
    eq(d.tenantId, tenantId),
    eq(d.endpointId, endpointId),
    query.filters.status ? eq(d.status, query.filters.status) : undefined,
    updatedSince(d.updatedAt, query),
  );
  // Each delivery's attempts as JSON in the page's statement, and the page issued together with the
  // endpoint's lookup: one round trip (issue 46); the page is answered only once the endpoint is
  // found (404 otherwise).
  const attemptsOf = sql<AttemptJson[]>`(SELECT coalesce(json_agg(json_build_object('attempt', ${at.attempt}, 'status_code', ${at.statusCode},
      'duration_ms', ${at.durationMs}, 'response_body', ${at.responseBody}, 'error', ${at.error}, 'attempted_at', ${at.attemptedAt}) ORDER BY ${at.attempt}), '[]')
    FROM ${at} WHERE ${at.tenantId} = ${tenantId} AND ${at.deliveryId} = ${d.id})`;
  const [, { rows, total }] = await Promise.all([
    getEndpoint(db, tenantId, endpointId),
    pageOfQuery(
      db,
      { table: d, id: d.id, where, order: [orderBy(query.sort.field === "updated_at" ? d.updatedAt : d.id, d.id, query.sort.descending)], query },
      (page) =>
        db
          .select({ delivery: d, eventId: ev.publicId, eventType: ev.type, attempts: attemptsOf, ...page })
          .from(d)
          .innerJoin(ev, eq(ev.id, d.eventId))
          .$dynamic(),
    ),
  ]);
  const data = rows.map(({ delivery, eventId, eventType, attempts }) => ({
    id: delivery.id,
    event_id: eventId,
    event_type: eventType,
    status: delivery.status as WebhookDelivery["status"],
    attempt_count: delivery.attempts,
    next_attempt_at: delivery.status === "pending" ? timestamp(delivery.nextAttemptAt) : null,
    delivered_at: timestamp(delivery.deliveredAt),
    created_at: timestamp(delivery.createdAt),
    attempts: attempts.map((a) => ({ ...a, attempted_at: timestamp(a.attempted_at) })),
  }));
  return { data, total };
}

/** The enabled endpoints subscribed to `type` for `workspaceId`'s events. */
export function matchingEndpoints(db: AnyDb, tenantId: number, type: string, workspaceId: number | null) {
  return db
    .select({ id: e.id })
    .from(e)
    .where(
      and(
        eq(e.tenantId, tenantId),
        eq(e.enabled, true),
        sql`${e.events} && ARRAY[${type}, ${prefixWildcard(type)}, '*']::text[]`,
        workspaceId === null ? undefined : sql`(${e.workspaceIds} IS NULL OR ${workspaceId} = ANY(${e.workspaceIds}))`,
      ),
    );
}

/**
 * Disables an endpoint that has failed for WEBHOOK_DISABLE_AFTER_MS (never deletes it) and writes,
 * in the same transaction, an email to each active admin of the tenant; returns the outbox ids.
 */
export async function disableForFailures(db: AnyDb, tenantId: number, endpoint: EndpointRow, now: Date): Promise<number[]> {
  // Only the attempt that flips it writes the emails (two deliveries of the endpoint may fail at once).
  const flipped = await db
    .update(e)
    .set({ enabled: false, disabledForFailuresAt: now, updatedAt: now })
    .where(and(eq(e.tenantId, tenantId), eq(e.id, endpoint.id), eq(e.enabled, true)))
    .returning({ id: e.id });
  if (!flipped.length) return [];
  const admins = await db
    .selectDistinct({ email: schema.users.email })
    .from(schema.users)
    .innerJoin(schema.workspaceMembers, eq(schema.workspaceMembers.userId, schema.users.id))
    .innerJoin(schema.roles, eq(schema.roles.id, schema.workspaceMembers.roleId))
    .where(and(eq(schema.users.tenantId, tenantId), eq(schema.roles.name, "admin"), sql`${schema.users.deactivatedAt} IS NULL`))
    .orderBy(schema.users.email);
  const since = timestamp(endpoint.failingSince ?? now);
  const ids: number[] = [];
  for (const admin of admins) {
    ids.push(
      await enqueueEmail(db, tenantId, {
        to: admin.email,
        subject: `Webhook desactivado: ${endpoint.url}`,
        text: [
          `El endpoint de webhooks ${endpoint.url} (id ${endpoint.id}) no ha aceptado ninguna entrega desde ${since} y fue desactivado.`,
          "No se ha borrado y sus entregas pendientes no se reintentarán.",
          `Revise el receptor y vuelva a activarlo con PATCH /api/v1/webhook-endpoints/${endpoint.id} {"enabled": true}.`,
        ].join("\n\n"),
        template: "webhook_endpoint_disabled",
      }),
    );
  }
  return ids;
}

/** How long events are kept visible (GET /events) and can be resent; older ones are left out. */
export const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;

type EventRow = typeof ev.$inferSelect;

export function serializeEvent(row: EventRow, config: EventFormatConfig): WebhookEvent {
  return {
    id: row.publicId,
    type: row.type as WebhookEvent["type"],
    created_at: timestamp(row.createdAt),
    workspace_id: row.workspaceId,
    resource_type: row.resourceType,
    resource_id: row.resourceId,
    data: eventPayload(row, config),
  };
}

/** The tenant's events of the last 30 days (every workspace's: the route is admin-only), newest first by default. */
export async function listEvents(
  db: AnyDb,
  tenantId: number,
  query: ListQuery<"type" | "resource_type" | "resource_id", "created_at">,
  now = new Date(),
): Promise<Page<EventRow>> {
  const f = query.filters;
  const where = and(
    eq(ev.tenantId, tenantId),
    gte(ev.createdAt, new Date(now.getTime() - EVENT_RETENTION_MS)),
    f.type ? eq(ev.type, f.type) : undefined,
    f.resource_type ? eq(ev.resourceType, f.resource_type) : undefined,
    f.resource_id ? eq(ev.resourceId, Number(f.resource_id)) : undefined,
  );
  // Events never change: their updated_since is their creation.
  return pageOfRows(db, ev, ev.createdAt, where, orderBy(ev.createdAt, ev.id, query.sort.descending), query);
}

/**
 * A new delivery of a stored event (same id, so receivers deduplicate) to every enabled endpoint
 * subscribed to its type and workspace, or to `endpointId` alone, which must be one of them. Each is
 * a delivery of its own, with the full retry schedule from now. Refused: an unknown event (404), one
 * older than 30 days (410 event_expired), no endpoint to send it to (422).
 */
export async function resendEvent(
  db: AnyDb,
  tenantId: number,
  publicId: string,
  endpointId: number | undefined,
  now = new Date(),
): Promise<{ event: EventRow; deliveries: { id: number; endpointId: number }[] }> {
  const event = await findRow(db, ev, and(eq(ev.tenantId, tenantId), eq(ev.publicId, publicId)), "Event");
  if (now.getTime() - event.createdAt.getTime() >= EVENT_RETENTION_MS) {
    throw new AppError("event_expired", "Events are kept for 30 days: this one is older and cannot be resent.");
  }
  let targets = (await matchingEndpoints(db, tenantId, event.type, event.workspaceId)).map((row) => row.id);
  if (endpointId !== undefined) {
    if (!targets.includes(endpointId)) {
      const [known] = await db
        .select({ id: e.id })
        .from(e)
        .where(and(eq(e.tenantId, tenantId), eq(e.id, endpointId)));
      throw fieldError(
        "endpoint_id",
        known ? `The endpoint is disabled, or not subscribed to ${event.type} for this event's workspace.` : "No such webhook endpoint.",
      );
    }
    targets = [endpointId];
  }
  if (!targets.length) {
    throw new AppError("no_webhook_endpoint", `No enabled webhook endpoint is subscribed to ${event.type} for this event's workspace.`);
  }
  const deliveries = await db
    .insert(d)
    .values(targets.map((id) => ({ tenantId, endpointId: id, eventId: event.id, nextAttemptAt: now })))
    .returning({ id: d.id, endpointId: d.endpointId });
  return { event, deliveries };
}
