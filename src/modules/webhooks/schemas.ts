import { z } from "@hono/zod-openapi";
import { idFilter, listQuerySchema } from "../../http/pagination";
import { crossField, ifThen } from "../../http/schemas";
import { INT4_MAX, idParam } from "../../lib/bounds";
import { HTTP_LOOPBACK_NOTE, HTTPS_URL_PATTERN } from "../../lib/outbound-url";
import { prefixWildcard, WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS, type WebhookEventType } from "../events/catalog";

/** What events are about (GET /events' filter[resource_type]): each type's resource, and the documents an e-CF can be. */
export const EVENT_RESOURCE_TYPES = [
  ...new Set([
    ...Object.values(WEBHOOK_EVENTS)
      .map((spec) => spec.resource)
      .filter((resource) => resource !== "document_kind"),
    "credit_note",
    "debit_note",
  ]),
] as [string, ...string[]];
const WILDCARDS = [...new Set(WEBHOOK_EVENT_TYPES.map(prefixWildcard))];

const events = z
  .array(z.enum([...(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]), ...WILDCARDS, "*"]))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length + WILDCARDS.length + 1)
  .refine((list) => !list.includes("*") || list.length === 1, 'Use ["*"] alone for every event, or list the types.')
  .refine((list) => new Set(list).size === list.length, "Name each event type once.")
  .openapi({
    example: ["invoice.created", "payment.received", "ecf.*"],
    description: "Event types, each once; `<prefix>.*` (`ecf.*`, `invoice.*`) is every type of that prefix, `*` alone every type.",
    uniqueItems: true,
    ...crossField(ifThen({ contains: { const: "*" } }, { maxItems: 1 })),
  });
const url = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .openapi({
    example: "https://example.com/hooks/sucursal",
    pattern: HTTPS_URL_PATTERN,
    description: `An https:// URL to a public host, without credentials; ${HTTP_LOOPBACK_NOTE}.`,
  });
const description = z.string().trim().max(500).nullable();
const workspaceIds = z
  .array(z.number().int().min(1).max(INT4_MAX))
  .min(1)
  .max(100)
  .nullable()
  .transform((list) => (list ? [...new Set(list)] : null))
  .openapi({ description: "Only events of these workspaces; null or absent: every workspace." });

export const CreateEndpointBody = z
  .object({ url, events, description: description.optional(), enabled: z.boolean().optional(), workspace_ids: workspaceIds.optional() })
  .openapi("CreateWebhookEndpointRequest");
export const UpdateEndpointBody = z
  .object({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    enabled: z.boolean().optional(),
    workspace_ids: workspaceIds.optional(),
  })
  .openapi("UpdateWebhookEndpointRequest");
export type CreateEndpointInput = z.output<typeof CreateEndpointBody>;
export type UpdateEndpointInput = z.output<typeof UpdateEndpointBody>;

export const EndpointParam = z.object({ id: idParam("id") });

export const WebhookEndpoint = z
  .object({
    id: z.number(),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    workspace_ids: z.array(z.number()).nullable(),
    enabled: z.boolean(),
    previous_secret_expires_at: z.string().nullable().openapi({ description: "After a rotation, until when the previous secret also signs." }),
    disabled_for_failures_at: z
      .string()
      .nullable()
      .openapi({ description: "When the endpoint was disabled for failing 5 days in a row; cleared by enabling it again." }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("WebhookEndpoint");
export type WebhookEndpoint = z.output<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().openapi({ description: "The signing secret (whsec_…), shown only in this response.", example: "whsec_…" }),
}).openapi("WebhookEndpointWithSecret");
export type WebhookEndpointWithSecret = z.output<typeof WebhookEndpointWithSecret>;

export const EndpointListQuery = listQuerySchema({ filters: {}, sorts: ["id", "created_at"] as const, defaultSort: "id" });

export const DeliveryListQuery = listQuerySchema({
  filters: { status: z.enum(["pending", "succeeded", "failed"]).optional() },
  sorts: ["id"] as const,
  defaultSort: "-id",
});

export const WebhookAttempt = z
  .object({
    attempt: z.number(),
    status_code: z.number().nullable().openapi({ description: "Null when the endpoint did not answer (timeout, network error, refused URL)." }),
    duration_ms: z.number(),
    response_body: z.string().nullable().openapi({ description: "The response body's first 1 KB." }),
    error: z.string().nullable(),
    attempted_at: z.string(),
  })
  .openapi("WebhookAttempt");

export const WebhookDelivery = z
  .object({
    id: z.number(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    attempt_count: z.number(),
    next_attempt_at: z.string().nullable().openapi({ description: "Null once succeeded or failed." }),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
    attempts: z.array(WebhookAttempt),
  })
  .openapi("WebhookDelivery");
export type WebhookDelivery = z.output<typeof WebhookDelivery>;

export const EventListQuery = listQuerySchema({
  filters: {
    type: z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]).optional(),
    resource_type: z
      .enum(EVENT_RESOURCE_TYPES)
      .optional()
      .openapi({ description: "What the event is about (docs/webhooks.md): with resource_id, one resource's events" }),
    resource_id: idFilter(),
  },
  sorts: ["created_at"] as const,
  defaultSort: "-created_at",
});

export const EventParam = z.object({
  id: z
    .string()
    .regex(/^evt_[0-9a-f]{24}$/, "Must be an event id (evt_ and 24 hex digits).")
    .openapi({ param: { name: "id", in: "path" }, example: "evt_5f9cd3c233c0416ae6299a53" }),
});

export const WebhookEvent = z
  .object({
    id: z.string().openapi({ example: "evt_5f9cd3c233c0416ae6299a53", description: "The id receivers deduplicate on (webhook-id)" }),
    type: z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]),
    created_at: z.string(),
    workspace_id: z.number().nullable(),
    resource_type: z.string().nullable(),
    resource_id: z.number().nullable(),
    data: z.unknown().openapi({ description: "The resource as its GET returned it at the moment of the change (docs/webhooks.md)" }),
  })
  .openapi("WebhookEvent");
export type WebhookEvent = z.output<typeof WebhookEvent>;

export const ResendEventBody = z
  .object({
    endpoint_id: z
      .number()
      .int()
      .min(1)
      .max(INT4_MAX)
      .optional()
      .openapi({ description: "Only this endpoint; absent: every enabled endpoint subscribed to the event" }),
  })
  .openapi("ResendWebhookEventRequest");

export const ResentEvent = z
  .object({
    event_id: z.string(),
    deliveries: z.array(z.object({ id: z.number(), endpoint_id: z.number() })),
  })
  .openapi("ResentWebhookEvent");
