import type { Context } from "hono";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import type { AppEnv } from "../../http/context";
import type { WebhookEventType } from "./schemas";
import { matchingEndpoints } from "./service";

/** `evt_` and 24 random hex digits: the id receivers deduplicate on (the `webhook-id` header). */
const eventId = () => `evt_${[...crypto.getRandomValues(new Uint8Array(12))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;

/**
 * Records an event in the caller's transaction — so it exists exactly when the change commits —
 * with one delivery per enabled endpoint subscribed to it; returns the delivery ids (queued after
 * the commit). `data` is read only when some endpoint listens: an event nobody subscribed to is not
 * stored (docs/webhooks.md).
 */
export async function recordEvent(
  db: AnyDb,
  tenantId: number,
  type: WebhookEventType,
  workspaceId: number | null,
  data: () => Promise<unknown>,
): Promise<number[]> {
  const endpoints = await matchingEndpoints(db, tenantId, type, workspaceId);
  if (!endpoints.length) return [];
  const [event] = await db
    .insert(schema.webhookEvents)
    .values({ tenantId, publicId: eventId(), type, workspaceId, data: await data() })
    .returning({ id: schema.webhookEvents.id });
  const deliveries = await db
    .insert(schema.webhookDeliveries)
    .values(endpoints.map((endpoint) => ({ tenantId, endpointId: endpoint.id, eventId: event!.id })))
    .returning({ id: schema.webhookDeliveries.id });
  return deliveries.map((row) => row.id);
}

/** recordEvent for a route handler: its deliveries go on the Queue once the request commits (jobs/dispatch.ts). */
export async function emitEvent(c: Context<AppEnv>, type: WebhookEventType, workspaceId: number | null, data: () => Promise<unknown>): Promise<void> {
  const ids = await recordEvent(c.var.db, c.get("tenant").id, type, workspaceId, data);
  c.var.webhooks.push(...ids);
}

/** `data` of a `<resource>.deleted` event: what a syncing client needs to drop its copy. */
export const deletedEventData = (id: number, workspaceId: number | null) => ({ id, workspace_id: workspaceId, deleted_at: new Date().toISOString() });
