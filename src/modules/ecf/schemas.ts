import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../../http/pagination";
import { crossField, ifThen } from "../../http/schemas";
import { dateInput as dateFilter } from "../../lib/bounds";
import { HTTP_LOOPBACK_NOTE, HTTPS_URL_PATTERN } from "../../lib/outbound-url";

export const ECF_ENVIRONMENTS = ["testecf", "certecf", "ecf"] as const;
export type EcfEnvironment = (typeof ECF_ENVIRONMENTS)[number];

const B64 = "[A-Za-z0-9+/]\\s*";
const BASE64_PATTERN = `^\\s*(?:(?:${B64}){4})*(?:(?:${B64}){4}|(?:${B64}){2}=\\s*=|(?:${B64}){3}=)\\s*$`;

export const PutCertificateBody = z
  .object({
    p12_base64: z
      .string()
      .min(1)
      .max(200_000)
      // What src/modules/ecf/certificate.ts opens: whole base64 quanta, spaces and line breaks anywhere.
      .regex(new RegExp(BASE64_PATTERN), "The certificate file must be given in base64.")
      .openapi({
        description:
          "The PKCS#12 (.p12/.pfx) file in base64 (whitespace ignored): an RSA key and its certificate, from a DGII-accredited authority, opened with password",
        // JSON Schema 2020-12 keywords zod's metadata type does not list; the document carries them as given.
        ...({ contentEncoding: "base64", contentMediaType: "application/x-pkcs12" } as object),
      }),
    password: z.string().max(1000).openapi({ description: "The file's password; stored encrypted, never returned" }),
  })
  .strict()
  .openapi("PutEcfCertificateRequest");
export type PutCertificateInput = z.output<typeof PutCertificateBody>;

export const EcfCertificate = z
  .object({
    subject: z.string(),
    serial_number: z.string().nullable().openapi({ description: "The subject's serialNumber: the holder's cédula or RNC" }),
    issuer: z.string(),
    not_before: z.string(),
    not_after: z.string(),
    fingerprint_sha256: z.string(),
    warnings: z.array(z.object({ code: z.string(), message: z.string() })),
  })
  .openapi("EcfCertificate");

export const EcfSettings = z
  .object({
    environment: z.enum(ECF_ENVIRONMENTS),
    enabled: z.boolean(),
    has_certificate: z.boolean(),
    ecf_base_url: z.string().openapi({ description: "DGII's e-CF services for this environment" }),
    fc_base_url: z.string().openapi({ description: "DGII's consumer-invoice summary (RFCE) services for this environment" }),
    deferred_sending_authorization: z.string().nullable().openapi({
      description:
        "DGII's authorization to send deferred (IndicadorEnvioDiferido): its reference; null when not authorized. Only then may an invoice be created with offline_issued_at",
    }),
    receiver_url: z.string().nullable().openapi({
      description:
        "The receiver's base URL registered with DGII (/fe/… under it); null: the tenant's own Sucursal host. What POST /api/v1/ecf/certification/receiver-check calls",
      example: "https://acme.sucursal.do",
    }),
    updated_at: z.string().nullable(),
  })
  .openapi("EcfSettings");

export const PutSettingsBody = z
  .object({
    environment: z.enum(ECF_ENVIRONMENTS).optional().openapi({ description: "testecf (pre-certification), certecf (certification), ecf (production)" }),
    enabled: z.boolean().optional().openapi({ description: "true needs the signing certificate uploaded first (PUT /api/v1/ecf/certificate)" }),
    deferred_sending_authorization: z.string().trim().min(1).max(100).nullable().optional().openapi({
      description: "The reference of DGII's authorization to send deferred (sales made offline by branch devices); null: not authorized",
      example: "DGII-ED-2026-000123",
    }),
    receiver_url: z
      .string()
      .trim()
      .max(300)
      .nullable()
      .optional()
      .openapi({
        pattern: HTTPS_URL_PATTERN,
        description: `The receiver's base URL the admin registers with DGII (https to a public address, no query, fragment nor trailing /fe; /fe/… is appended; ${HTTP_LOOPBACK_NOTE}); null: the tenant's own Sucursal host`,
        example: "https://facturas.acme.com.do",
      }),
  })
  .strict()
  .openapi("PutEcfSettingsRequest");
export type PutSettingsInput = z.output<typeof PutSettingsBody>;

export const ECF_STATUS_VALUES = ["pending", "in_process", "accepted", "accepted_conditional", "rejected", "failed", "annulled"] as const;

export const ECF_DELIVERY_STATUSES = ["pending", "delivered", "not_received", "refused", "not_electronic", "failed"] as const;

export const EcfStatus = z
  .object({
    encf: z.string().openapi({ example: "E310000000001" }),
    type: z.string().openapi({ description: "TipoeCF: 31, 32, 33, 34, 44, 45, 46" }),
    environment: z.enum(ECF_ENVIRONMENTS),
    status: z.enum(ECF_STATUS_VALUES).openapi({
      description:
        "pending: signed, not yet received by DGII (also while DGII is unreachable); in_process: received (trackId), being validated; accepted, accepted_conditional, rejected: DGII's final answer; failed: DGII unreachable for 24 hours (POST …/ecf/retry); annulled: never received by DGII, its e-NCF annulled (POST /ecf/annulments) and the document cancelled",
    }),
    track_id: z.string().nullable(),
    security_code: z.string().openapi({ description: "The first 6 characters of the SignatureValue (código de seguridad)" }),
    signed_at: z.string(),
    qr_url: z.string().nullable().openapi({ description: "What the printed representation's QR code carries (DGII's timbre URL)" }),
    dgii_messages: z.array(z.object({ codigo: z.string(), valor: z.string() })),
    sequence_used: z
      .boolean()
      .nullable()
      .openapi({ description: "On a rejection, DGII's secuenciaUtilizada: false means the e-NCF may be sent again (retry)" }),
    consumer_summary: z.boolean().openapi({ description: "An E32 under RD$250,000: its signed summary (RFCE) is what DGII receives" }),
    attempts: z.number().int(),
    last_attempt_at: z.string().nullable(),
    next_attempt_at: z.string().nullable().openapi({ description: "When the next send or result query is due (pending and in_process)" }),
    last_error: z.string().nullable(),
    total_amount: z.string().openapi({ description: "MontoTotal as signed, in pesos (a foreign-currency document's total at its rate)" }),
    deferred_sending: z
      .object({
        offline_issued_at: z.string().openapi({ description: "When the branch device made the sale offline" }),
        deadline: z.string().openapi({ description: "24 hours later: DGII must have received it by then (DGII's help answer CA5197)" }),
      })
      .nullable()
      .openapi({ description: "An e-CF sent deferred (IndicadorEnvioDiferido 1: invoice created with offline_issued_at); null otherwise" }),
    commercial_status: z
      .enum(["approved", "rejected"])
      .nullable()
      .openapi({ description: "The buyer's commercial approval (ACECF) received at /fe/aprobacioncomercial/api/ecf; null while none came" }),
    commercial_reason: z.string().nullable().openapi({ description: "DetalleMotivoRechazo of a rejection" }),
    commercial_at: z.string().nullable(),
    buyer_delivery: z
      .object({
        status: z.enum(ECF_DELIVERY_STATUSES).openapi({
          description:
            "pending: to be sent (retried while the receiver is unreachable); delivered: the buyer's acknowledgement (ARECF) says received; not_received: it says not (reason_code); refused: the receiver answered 4xx or not a signed ARECF of this e-CF; not_electronic: DGII's directory lists no receiver for the buyer (deliver the PDF); failed: unreachable for 24 hours",
        }),
        receiver_url: z.string().nullable(),
        reason_code: z.number().int().nullable().openapi({
          description: "CodigoMotivoNoRecibido of a not_received ARECF: 1 specification error, 2 signature, 3 duplicate, 4 RNC Comprador not the receiver's",
        }),
        attempts: z.number().int(),
        last_error: z.string().nullable(),
        next_attempt_at: z.string().nullable(),
        delivered_at: z.string().nullable().openapi({ description: "When the receiver answered with its acknowledgement" }),
      })
      .nullable()
      .openapi({ description: "Delivery to the buyer's receiver once DGII accepted it; null when not due (not accepted yet, or no buyer RNC)" }),
  })
  .openapi("EcfStatus");

export const EcfSubmission = EcfStatus.extend({
  id: z.number().int(),
  document_kind: z.enum(["invoice", "credit_note", "debit_note", "purchase"]),
  document_id: z.number().int(),
  issue_date: z.string(),
}).openapi("EcfSubmission");

export const SubmissionListQuery = listQuerySchema({
  filters: {
    status: z.enum(ECF_STATUS_VALUES).optional(),
    type: z.enum(["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"]).optional(),
    issue_date_from: dateFilter().optional(),
    issue_date_to: dateFilter().optional(),
  },
  sorts: ["issue_date", "encf", "created_at"] as const,
  defaultSort: "-issue_date",
});
export type SubmissionFilter = "status" | "type" | "issue_date_from" | "issue_date_to";
export type SubmissionSort = "issue_date" | "encf" | "created_at";

export const CreateAnnulmentBody = z
  .object({
    document_subtype_id: z.number().int().positive().max(2147483647),
    from: z.number().int().positive().max(9_999_999_999).openapi({ description: "The first number to annul: the sequence's next number" }),
    to: z.number().int().positive().max(9_999_999_999).openapi({ description: "The last number to annul, within the authorized range" }),
  })
  .strict()
  .openapi("CreateEcfAnnulmentRequest");
export type CreateAnnulmentInput = z.output<typeof CreateAnnulmentBody>;

export const EcfAnnulment = z
  .object({
    id: z.number().int(),
    document_subtype_id: z.number().int(),
    type: z.string(),
    from: z.string().openapi({ example: "E310000000011" }),
    to: z.string().openapi({ example: "E310000000020" }),
    count: z.number().int().openapi({ description: "How many e-NCF of the range DGII annulled" }),
    environment: z.enum(ECF_ENVIRONMENTS),
    dgii_messages: z.array(z.object({ codigo: z.string(), valor: z.string() })),
    not_annulled: z.array(z.object({ encf: z.string(), reason: z.string().openapi({ description: "DGII's message naming it" }) })).openapi({
      description:
        "Number by number, the e-NCF of the range DGII did not annul (a partial answer: 'Con excepción de las secuencias del detalle'); every other number of the range was annulled. Empty when all were",
    }),
    created_at: z.string(),
  })
  .openapi("EcfAnnulment");

export const ECF_ALERT_KINDS = ["deferred_deadline", "dgii_down", "certificate_expiring", "sequence_low", "sequence_expiring", "contingency_limit"] as const;

export const EcfAlert = z
  .object({
    id: z.number().int(),
    kind: z.enum(ECF_ALERT_KINDS).openapi({
      description:
        "deferred_deadline: a deferred e-CF not yet accepted near (or past) its 24 hours; dgii_down: DGII's reception reported down for hours; certificate_expiring: the signing certificate within 30 days of its end; sequence_low: a range with under 10 % of its numbers left; sequence_expiring: a range's valid_until within 30 days; contingency_limit: a contingency still open near CONTINGENCY_LIMIT_HOURS (72 by default)",
    }),
    subject: z.string().openapi({ description: "The cause: one alert per kind and subject, ever", example: "ecf_document:42" }),
    message: z.string(),
    details: z
      .record(z.string(), z.union([z.string(), z.number(), z.null()]))
      .openapi({ description: "What the alert is about: the e-NCF and deadline, the service and since when, the certificate, the range and what is left" }),
    due_at: z.string().nullable().openapi({ description: "The deadline or expiry at stake, when there is one" }),
    raised_at: z.string(),
    resolved_at: z.string().nullable().openapi({ description: "When the sweep found the cause gone; null while open" }),
  })
  .openapi("EcfAlert");

export const DgiiStatus = z
  .object({
    configured: z.boolean().openapi({ description: "Whether DGII's status service is read (DGII_STATUS_API_KEY set); without it nothing is paused" }),
    services: z.array(
      z.object({
        environment: z.enum(ECF_ENVIRONMENTS),
        service: z.string().openapi({ description: "DGII's name of the service", example: "Recepción" }),
        available: z.boolean(),
        status: z.string().openapi({ description: "DGII's word for its state", example: "Disponible" }),
        down_since: z.string().nullable().openapi({ description: "When the sweep first saw it unavailable in the current outage" }),
        checked_at: z.string(),
      }),
    ),
    maintenance_windows: z.array(
      z.object({
        environment: z.enum(ECF_ENVIRONMENTS),
        starts_at: z.string(),
        ends_at: z.string(),
        in_progress: z.boolean().openapi({ description: "Sending to this environment waits until ends_at" }),
      }),
    ),
    alerts: z
      .array(EcfAlert)
      .openapi({ description: "The company's open e-CF alerts (deadlines at risk), oldest first; each was sent once to its admins and as ecf.alert" }),
  })
  .openapi("DgiiStatus");

/**
 * The timeline's entries: the changes of state, and the course entries (no change of state) of an
 * exchange with DGII that changed what happens next: held (a window, a reported outage, a
 * contingency), unanswered (DGII not reached or its answer lost), used_number (DGII refused a resend
 * as a used number).
 */
export const ECF_TIMELINE_STATES = [
  "signed",
  "sent",
  "retried",
  "accepted",
  "accepted_conditional",
  "rejected",
  "failed",
  "annulled",
  "held",
  "unanswered",
  "used_number",
] as const;

/** What caused a timeline entry (docs/ecf.md, "Timeline and next action"). */
export const ECF_CAUSE_CODES = [
  "issued",
  "first_attempt",
  "after_outage",
  "after_window",
  "after_reported_outage",
  "after_contingency",
  "after_retry",
  "dgii_answer",
  "reconciled",
  "refused",
  "window",
  "reported_outage",
  "contingency",
  "unreachable",
  "unjudged",
  "outage_24h",
  "retry",
  "annulled",
] as const;

export const EcfTimelineEntry = z
  .object({
    state: z.enum(ECF_TIMELINE_STATES),
    at: z.string(),
    code: z.enum(ECF_CAUSE_CODES).nullable().openapi({
      description:
        "What caused it: issued; first_attempt, after_outage, after_window, after_reported_outage, after_contingency, after_retry (a send); dgii_answer, reconciled (through consultatrackids: track_id is the one followed), refused (DGII refused the file); window, reported_outage, contingency (held); unreachable, unjudged (DGII's answer had neither codigo nor estado: its state is asked, nothing is sent again); outage_24h; retry; annulled. Null for entries written before issue 43",
    }),
    cause: z.string().nullable().openapi({ description: "The cause in words: who, which attempt, what DGII answered" }),
    attempt: z.number().int().nullable().openapi({ description: "The send attempt it happened on, when one did" }),
    track_id: z.string().nullable().openapi({ description: "DGII's trackId the entry is about (the one sent, answered or followed)" }),
    by: z
      .object({ id: z.number().int(), name: z.string() })
      .nullable()
      .openapi({ description: "The user who did it (issued, retried, annulled); null for what Sucursal or DGII did" }),
  })
  .openapi("EcfTimelineEntry");
export type EcfTimelineEntry = z.output<typeof EcfTimelineEntry>;

/** GET …/ecf: the e-CF, its timeline and what to do next. */
export const EcfDocument = EcfStatus.extend({
  timeline: z.array(EcfTimelineEntry).openapi({
    description:
      "In order, each change of state (signed, sent, retried, DGII's answer, failed, annulled) and each exchange with DGII that changed the course (held, unanswered, used_number), each with what caused it",
  }),
  next_action: z
    .object({
      code: z.enum(["retry", "issue_again"]),
      method: z.literal("POST"),
      path: z.string(),
      description: z.string(),
    })
    .nullable()
    .openapi({ description: "What to do with an e-CF that did not go through, from DGII's answer; null when nothing is to be done" }),
}).openapi("EcfDocument");

export const CreateContingencyBody = z
  .object({
    scope: z.enum(["total", "branches"]).openapi({ description: "total: every branch (DGII's reception down); branches: the workspaces listed" }),
    workspace_ids: z
      .array(z.number().int().positive().max(2147483647))
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: "The branches (workspace ids) in contingency; required for scope branches, refused for total" }),
    reason: z.string().trim().min(1).max(500).openapi({ example: "Sin internet en la sucursal desde las 9:40" }),
  })
  .strict()
  // ecf/contingency.ts: a total contingency lists no branch, one of branches lists them (issue 44: it was a 422 the schema did not state).
  .openapi(crossField(ifThen({ properties: { scope: { const: "total" } } }, { not: { required: ["workspace_ids"] } }, { required: ["workspace_ids"] })))
  .openapi("CreateEcfContingencyRequest");
export type CreateContingencyInput = z.output<typeof CreateContingencyBody>;

export const EcfContingency = z
  .object({
    id: z.number().int(),
    scope: z.enum(["total", "branches"]),
    workspace_ids: z.array(z.number().int()).nullable().openapi({ description: "null for a total contingency" }),
    reason: z.string(),
    open: z.boolean(),
    opened_at: z.string(),
    opened_by: z.number().int().nullable().openapi({ description: "The user who opened it" }),
    closed_at: z.string().nullable(),
    closed_by: z.number().int().nullable().openapi({ description: "The user who closed it; null when DGII's reception closed it" }),
    closed_how: z
      .enum(["manual", "dgii"])
      .nullable()
      .openapi({ description: "manual: DELETE; dgii: a total one, when DGII's status service reported reception available again" }),
  })
  .openapi("EcfContingency");
export type EcfContingency = z.output<typeof EcfContingency>;
