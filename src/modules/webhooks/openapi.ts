import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { ECF_CAUSE_CODES, ECF_TIMELINE_STATES, EcfAlert, EcfSubmission } from "../ecf/schemas";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../events/catalog";
import { LowStockItem } from "../inventory/schemas";
import { InvoiceDetail, Payment } from "../invoices/schemas";
import { NoteDetail } from "../notes/schemas";
import { QuotationDetail } from "../quotations/schemas";

/**
 * The OpenAPI document's `webhooks` section (OpenAPI 3.1): one entry per event type, the POST an
 * endpoint receives. `data` is the resource as its GET answers it (docs/webhooks.md); the record
 * below must name a schema for every type, so a new type cannot be left out of the document.
 */
/** `data` of the `.deleted` events (events/service.ts, deletedEventData). */
const DeletedData = z.object({
  id: z.number(),
  workspace_id: z.number().nullable(),
  deleted_at: z.string().openapi({ description: "The delete's transaction time on the database's clock (the one of updated_at): the event's created_at" }),
});

/** A `.deleted` event's entry: the row's id, its workspace (`where`) and when. */
const deleted = (what: string, where = "its workspace") => ({ schema: DeletedData, resource: `The deleted ${what}'s id, ${where} and when it was deleted.` });
const COMPANY = "workspace null (the company's)";

/** `data` of the e-CF events: the e-CF as GET /ecf/submissions lists it, with the transition it is (its timeline's entry). */
const EcfTransitionData = EcfSubmission.extend({
  transition: z
    .object({
      state: z.enum(ECF_TIMELINE_STATES),
      at: z.string().openapi({ description: "When the state changed (the timeline's `at`)" }),
      cause: z.string().nullable().openapi({ description: "What caused it, in words (the timeline's `cause`)" }),
      code: z.enum(ECF_CAUSE_CODES).nullable().openapi({ description: "What caused it (the timeline's `code`)" }),
    })
    .openapi({ description: "The change of state this event is, as GET …/ecf's timeline lists it" }),
});
const ecf = (what: string) => ({ schema: EcfTransitionData, resource: `The e-CF ${what}, as GET /api/v1/ecf/submissions lists it, with the transition.` });

const EVENT_DATA: Record<WebhookEventType, { schema: z.ZodType; resource: string }> = {
  "invoice.created": { schema: InvoiceDetail, resource: "The invoice, as GET /api/v1/invoices/{id} answers it." },
  "invoice.updated": {
    schema: InvoiceDetail,
    resource:
      "The invoice after the change (an edit, a draft issued, a payment removed, withholdings recorded, a credit or debit note), as GET /api/v1/invoices/{id} answers it.",
  },
  "quotation.converted": {
    schema: QuotationDetail,
    resource: "The converted quotation (invoice_id names the invoice), as GET /api/v1/quotations/{id} answers it.",
  },
  "product.stock_low": { schema: LowStockItem, resource: "The product's level in the workspace, as GET /api/v1/inventory/low-stock lists it." },
  "ecf.signed": ecf("signed and queued for DGII (pending): an invoice, note or purchase issued as e-CF"),
  "ecf.sent": ecf("received by DGII, which gave its trackId (in_process)"),
  "ecf.accepted": ecf("at DGII's answer: accepted or accepted_conditional (`status` tells)"),
  "ecf.rejected": ecf("at DGII's answer: rejected (or the reception refused outright); `sequence_used` says whether its e-NCF was used"),
  "ecf.failed": ecf("DGII could not be reached for in 24 hours (failed)"),
  "ecf.retried": ecf("sent again (POST …/ecf/retry): back to pending"),
  "ecf.annulled": ecf("whose unsent e-NCF DGII annulled (POST /api/v1/ecf/annulments)"),
  "ecf.alert": {
    schema: EcfAlert,
    resource:
      "A deadline at risk, raised once per cause by the hourly sweep (deferred e-CF near its 24 hours, DGII's reception down for hours, the certificate or a range expiring, a range running out, a contingency open near its limit), as GET /api/v1/ecf/dgii-status lists it.",
  },
  "ecf.alert_resolved": {
    schema: EcfAlert,
    resource:
      "An alert whose cause the hourly sweep no longer finds (DGII answered the e-CF, the service is back, a new certificate, the range extended or deactivated, the contingency closed), with its resolved_at; the same id as its ecf.alert.",
  },
  "invoice.paid": {
    schema: InvoiceDetail,
    resource: "The invoice once a payment or the buyer's withholdings leave nothing due, as GET /api/v1/invoices/{id} answers it.",
  },
  "invoice.cancelled": { schema: InvoiceDetail, resource: "The cancelled invoice, as GET /api/v1/invoices/{id} answers it." },
  "payment.received": {
    schema: Payment.extend({ invoice_id: z.number(), invoice: InvoiceDetail }),
    resource: "The payment as the invoice's GET lists it, with the invoice's id and the invoice.",
  },
  "credit_note.created": { schema: NoteDetail, resource: "The credit note, as GET /api/v1/credit-notes/{id} answers it." },
  "contact.deleted": deleted("contact", "its workspace (null: shared)"),
  "product.deleted": deleted("product", "its workspace (null: shared)"),
  "invoice.deleted": {
    schema: DeletedData.extend({ document_number: z.string().nullable() }),
    resource:
      "The deleted invoice's id, workspace, when it was deleted and its NCF (null: a draft, removed; otherwise the NCF stays used and is recorded as annulled).",
  },
  "quotation.deleted": deleted("quotation"),
  "purchase.deleted": deleted("draft purchase", "its workspace (a voided purchase stays: its status says)"),
  "tax.deleted": deleted("tax", COMPANY),
  "currency.deleted": deleted("currency", COMPANY),
  "document_subtype.deleted": deleted("document subtype", COMPANY),
  "salesman.deleted": deleted("salesman", COMPANY),
  "bank_account.deleted": deleted("bank account", COMPANY),
  "role.deleted": deleted("custom role", COMPANY),
  "invitation.deleted": deleted("invitation", "its workspace (a past invitation, deleted with the role it offered)"),
  "member.deleted": { schema: DeletedData, resource: "The removed member's user id, the workspace they left and when." },
  "messaging_bot.deleted": deleted("messaging bot"),
  "chat_account.deleted": deleted("chat account"),
};

const headers = z.object({
  "webhook-id": z
    .string()
    .openapi({ description: "The event's id (evt_…): the same on every attempt; deduplicate on it.", example: "evt_4f1c2a9b8e7d6c5b4a392817" }),
  "webhook-timestamp": z.string().openapi({ description: "Seconds since the epoch when this attempt was signed.", example: "1795441491" }),
  "webhook-signature": z.string().openapi({
    description:
      "Standard Webhooks signature(s), space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` under the endpoint's secret (during a rotation also the previous one).",
  }),
});

export function registerWebhookDocs(registry: OpenAPIHono["openAPIRegistry"]): void {
  for (const type of WEBHOOK_EVENT_TYPES) {
    const { schema, resource } = EVENT_DATA[type];
    registry.registerWebhook({
      method: "post",
      path: type,
      tags: ["Webhooks"],
      summary: `The ${type} event`,
      description:
        "Sent to each enabled endpoint subscribed to this type (or to `*`), signed per Standard Webhooks. Answer any 2xx within 5 seconds; anything else is retried with backoff for 3 days (docs/webhooks.md).",
      request: {
        headers,
        body: {
          content: {
            "application/json": {
              schema: z.object({
                id: z.string().openapi({ description: "The event's id, as in webhook-id" }),
                type: z.literal(type),
                created_at: z.string().openapi({ description: "When the change happened (ISO 8601, UTC)" }),
                data: schema.openapi({ description: resource }),
              }),
            },
          },
        },
      },
      responses: { 200: { description: "Any 2xx acknowledges the delivery." } },
    });
  }
}
