/*
 * The webhook event catalog: every event a change can record (service.ts) and the resource each is
 * about. Below every module that records events; the delivery, the endpoints and the document's
 * webhooks section (modules/webhooks/) sit above and read it from here.
 */

/**
 * The event types (docs/webhooks.md), each with the resource it is about (GET /events'
 * `filter[resource_type]` and `filter[resource_id]`): a fixed type and the field of `data` holding its
 * id, or, for the e-CF events, the document the e-CF is (`document_kind`, `document_id`).
 */
export const WEBHOOK_EVENTS = {
  "invoice.created": { resource: "invoice", id: "id" },
  "invoice.updated": { resource: "invoice", id: "id" },
  "invoice.paid": { resource: "invoice", id: "id" },
  "invoice.cancelled": { resource: "invoice", id: "id" },
  "payment.received": { resource: "invoice", id: "invoice_id" },
  "quotation.converted": { resource: "quotation", id: "id" },
  "product.stock_low": { resource: "product", id: "product_id" },
  "credit_note.created": { resource: "credit_note", id: "id" },
  "ecf.signed": { resource: "document_kind", id: "document_id" },
  "ecf.sent": { resource: "document_kind", id: "document_id" },
  "ecf.accepted": { resource: "document_kind", id: "document_id" },
  "ecf.rejected": { resource: "document_kind", id: "document_id" },
  "ecf.failed": { resource: "document_kind", id: "document_id" },
  "ecf.retried": { resource: "document_kind", id: "document_id" },
  "ecf.annulled": { resource: "document_kind", id: "document_id" },
  "ecf.alert": { resource: "ecf_alert", id: "id" },
  "ecf.alert_resolved": { resource: "ecf_alert", id: "id" },
  "invoice.deleted": { resource: "invoice", id: "id" },
  "quotation.deleted": { resource: "quotation", id: "id" },
  "purchase.deleted": { resource: "purchase", id: "id" },
  "contact.deleted": { resource: "contact", id: "id" },
  "product.deleted": { resource: "product", id: "id" },
  "tax.deleted": { resource: "tax", id: "id" },
  "currency.deleted": { resource: "currency", id: "id" },
  "document_subtype.deleted": { resource: "document_subtype", id: "id" },
  "salesman.deleted": { resource: "salesman", id: "id" },
  "bank_account.deleted": { resource: "bank_account", id: "id" },
  "role.deleted": { resource: "role", id: "id" },
  "invitation.deleted": { resource: "invitation", id: "id" },
  "member.deleted": { resource: "member", id: "id" },
  "messaging_bot.deleted": { resource: "messaging_bot", id: "id" },
  "chat_account.deleted": { resource: "chat_account", id: "id" },
} as const;
/** The event types endpoints can subscribe to; `*` is every type, `<prefix>.*` every type of a prefix (`ecf.*`). */
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as (keyof typeof WEBHOOK_EVENTS)[];
export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
/** The subscription that takes every type of `type`'s prefix: `ecf.*` for `ecf.accepted`. */
export const prefixWildcard = (type: string) => `${type.slice(0, type.indexOf("."))}.*`;

/** How an event whose `data` was read by SQL is shaped for the API (modules/webhooks/data-formats.ts). */
export const EVENT_DATA_FORMATS = ["invoice", "payment", "ecf"] as const;
export type EventDataFormat = (typeof EVENT_DATA_FORMATS)[number];
