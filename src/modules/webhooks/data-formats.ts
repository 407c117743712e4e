import { type InvoiceJson, invoiceFromJson, paymentFromJson } from "../sales/invoice-json";

/**
 * The payload of an event stored as the database read it (its `data_format`, events.ts
 * EventDataQuery): each format's function makes the API's shape of it — the same function the
 * resource's GET uses — whenever the event is listed, resent or delivered.
 */
const EVENT_DATA_FORMATS = {
  invoice: (raw: unknown) => invoiceFromJson(raw as InvoiceJson),
  payment: (raw: unknown) => paymentFromJson(raw as InvoiceJson & { payment_id: number }),
} as const satisfies Record<string, (raw: unknown) => unknown>;

export type EventDataFormat = keyof typeof EVENT_DATA_FORMATS;

/** An event's `data` as sent: stored as is, or made from what its statement read. */
export function eventPayload(event: { data: unknown; dataFormat: string | null }): unknown {
  if (event.dataFormat === null) return event.data;
  const format = EVENT_DATA_FORMATS[event.dataFormat as EventDataFormat];
  if (!format) throw new Error(`unknown event data format ${event.dataFormat}`);
  return format(event.data);
}
