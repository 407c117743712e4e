import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../../http/pagination";
import { INT4_MAX, idParam } from "../../lib/bounds";

/** The event types endpoints can subscribe to (docs/webhooks.md); `*` is every type. */
export const WEBHOOK_EVENT_TYPES = [
  "invoice.created",
  "invoice.paid",
  "invoice.cancelled",
  "payment.received",
  "credit_note.created",
  "contact.deleted",
  "product.deleted",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const events = z
  .array(z.enum([...WEBHOOK_EVENT_TYPES, "*"]))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .refine((list) => !list.includes("*") || list.length === 1, 'Use ["*"] alone for every event, or list the types.')
  .transform((list) => [...new Set(list)])
  .openapi({ example: ["invoice.created", "payment.received"] });
const url = z.string().trim().min(1).max(2048).openapi({ example: "https://example.com/hooks/sucursal" });
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
