import type { ZodError } from "zod";

/**
 * What was refused, in the API's words, below every layer that refuses: services, the data layer
 * (what the database refused, db/errors.ts; what was not found, db/queries.ts) and the request
 * pipeline throw an AppError naming one of these codes, with the fields at fault. The HTTP status
 * of each code is the HTTP layer's (src/http/errors.ts, `errorStatus`), applied in its one error
 * path (src/http/on-error.ts).
 */
export type ErrorCode =
  | "malformed_json"
  | "malformed_multipart"
  | "unauthenticated"
  | "invalid_credentials"
  | "forbidden"
  | "workspace_forbidden"
  | "company_forbidden"
  | "builtin_role_immutable"
  | "webhook_verification_failed"
  | "not_found"
  | "tenant_not_found"
  | "route_not_found"
  | "method_not_allowed"
  | "conflict"
  | "owner_cannot_be_removed"
  | "owner_role_immutable"
  | "owner_cannot_be_deactivated"
  | "role_in_use"
  | "in_use"
  | "invoice_not_editable"
  | "invoice_not_deletable"
  | "invoice_not_payable"
  | "invoice_not_draft"
  | "invoice_not_modifiable"
  | "invoice_has_notes"
  | "duplicate_supplier_ncf"
  | "duplicate_currency_code"
  | "duplicate_workspace_name"
  | "duplicate_role_name"
  | "duplicate_phone_number_id"
  | "purchase_not_draft"
  | "purchase_not_payable"
  | "purchase_not_voidable"
  | "purchase_has_payments"
  | "purchase_not_printable"
  | "invalid_transition"
  | "quotation_not_convertible"
  | "period_closed"
  | "stock_already_initialized"
  | "ncf_range_overlap"
  | "ncf_range_in_use"
  | "contingency_overlap"
  | "contingency_closed"
  | "contingency_ncf_used"
  | "ecf_already_sent"
  | "approval_already_sent"
  | "certification_incomplete"
  | "certification_step_observed"
  | "certification_not_certecf"
  | "certification_run_in_progress"
  | "received_ecf_already_purchased"
  | "ecf_not_retryable"
  | "ecf_not_cancellable"
  | "note_not_cancellable"
  | "invitation_not_usable"
  | "event_expired"
  | "payload_too_large"
  | "unsupported_media_type"
  | "validation_failed"
  | "insufficient_stock"
  | "ncf_sequence_exhausted"
  | "ncf_sequence_expired"
  | "fiscal_profile_incomplete"
  | "ecf_not_configured"
  | "deferred_sending_not_authorized"
  | "webhooks_not_configured"
  | "no_webhook_endpoint"
  | "idempotency_key_reused"
  | "template_not_approved"
  | "rate_limited"
  | "internal_error"
  | "integration_failed"
  | "service_unavailable"
  | "receiver_not_configured";

export type FieldErrors = Record<string, string[]>;

/**
 * A write into a closed fiscal period (issue 47, drizzle/0058_period_lock.sql): 409 naming the
 * period, in the message and under `errors.period` (`YYYYMM`), for programs.
 */
export function periodClosed(period: string): AppError {
  return new AppError(
    "period_closed",
    `The fiscal period ${period} is closed: its returns were filed, so nothing may be issued, dated, moved or changed into it. Date the correction in an open period (a credit note is dated when issued), or have the owner re-open ${period}.`,
    { period: [period] },
  );
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldErrors,
    /** A refusal that passes (the database busy, a rate limit): when to try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A 422 naming one field. */
export function fieldError(field: string, message: string, code: ErrorCode = "validation_failed"): AppError {
  return new AppError(code, message, { [field]: [message] });
}

export function notFound(what = "Resource"): AppError {
  return new AppError("not_found", `${what} not found.`);
}

/** zod issues → `{ "items.0.quantity": ["..."] }`; an unknown field under its own name; a root-level issue under `body`. */
export function fieldErrorsFromZod(error: ZodError): FieldErrors {
  const errors: FieldErrors = {};
  const add = (key: string, message: string) => {
    errors[key] = [...(errors[key] ?? []), message];
  };
  for (const issue of error.issues) {
    // An unknown field is named as the field itself, so a typo points at its own spelling.
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add([...issue.path, key].map(String).join("."), "Unknown field: this request takes no such field.");
      continue;
    }
    add(issue.path.length ? issue.path.map(String).join(".") : "body", issue.message);
  }
  return errors;
}

/** Input that failed its schema: a 422 naming every field at fault. */
export function validationError(error: ZodError): AppError {
  return new AppError("validation_failed", "The given data was invalid.", fieldErrorsFromZod(error));
}
