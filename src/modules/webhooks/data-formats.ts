import { rowFromJson } from "../../db/rows";
import * as schema from "../../db/schema";
import type { Config } from "../../env";
import { timestamp } from "../../lib/format";
import { serializeSubmission } from "../ecf/documents";
import type { ECF_CAUSE_CODES, ECF_TIMELINE_STATES } from "../ecf/schemas";
import type { EventDataFormat } from "../events/catalog";
import { type InvoiceJson, invoiceFromJson, paymentFromJson } from "../invoices/json";

/** What a format may need besides the stored data: DGII's URLs (an e-CF's QR link). */
export type EventFormatConfig = Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">;

/** What the e-CF events' statement reads (ecf/transitions.ts): the row and its last transition. */
interface EcfTransitionJson {
  document: Record<string, unknown>;
  transition: { state: (typeof ECF_TIMELINE_STATES)[number]; at: string; cause: string | null; code?: (typeof ECF_CAUSE_CODES)[number] | null };
}

/**
 * The payload of an event stored as the database read it (its `data_format`, events/service.ts
 * EventDataQuery): each format's function makes the API's shape of it — the same function the
 * resource's GET uses — whenever the event is listed, resent or delivered.
 */
const EVENT_DATA_FORMATS = {
  invoice: (raw: unknown) => invoiceFromJson(raw as InvoiceJson),
  payment: (raw: unknown) => paymentFromJson(raw as InvoiceJson & { payment_id: number }),
  ecf: (raw: unknown, config: EventFormatConfig) => {
    const { document, transition } = raw as EcfTransitionJson;
    return {
      ...serializeSubmission(rowFromJson(schema.ecfDocuments, document), config),
      transition: { state: transition.state, at: timestamp(transition.at), cause: transition.cause, code: transition.code ?? null },
    };
  },
} as const satisfies Record<EventDataFormat, (raw: unknown, config: EventFormatConfig) => unknown>;

/** An event's `data` as sent: stored as is, or made from what its statement read. */
export function eventPayload(event: { data: unknown; dataFormat: string | null }, config: EventFormatConfig): unknown {
  if (event.dataFormat === null) return event.data;
  const format = EVENT_DATA_FORMATS[event.dataFormat as EventDataFormat];
  if (!format) throw new Error(`unknown event data format ${event.dataFormat}`);
  return format(event.data, config);
}
