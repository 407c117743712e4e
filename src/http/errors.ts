import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppError, ErrorCode, FieldErrors } from "../lib/errors";

/**
 * The HTTP status of every error code (src/lib/errors.ts): the answer to an AppError in the one
 * error path (on-error.ts), and the codes the OpenAPI document lists. A code missing here, or one
 * that is not an ErrorCode, fails the type check.
 */
export const errorStatus = {
  malformed_json: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  forbidden: 403,
  workspace_forbidden: 403,
  builtin_role_immutable: 403,
  webhook_verification_failed: 403,
  not_found: 404,
  tenant_not_found: 404,
  route_not_found: 404,
  conflict: 409,
  owner_cannot_be_removed: 409,
  owner_role_immutable: 409,
  owner_cannot_be_deactivated: 409,
  role_in_use: 409,
  in_use: 409,
  invoice_not_editable: 409,
  invoice_not_deletable: 409,
  invoice_not_payable: 409,
  invoice_not_draft: 409,
  invoice_not_modifiable: 409,
  invoice_has_notes: 409,
  duplicate_supplier_ncf: 409,
  purchase_not_draft: 409,
  purchase_not_payable: 409,
  purchase_not_voidable: 409,
  purchase_has_payments: 409,
  purchase_not_printable: 409,
  invalid_transition: 409,
  quotation_not_convertible: 409,
  stock_already_initialized: 409,
  ncf_range_overlap: 409,
  contingency_overlap: 409,
  contingency_closed: 409,
  contingency_ncf_used: 409,
  ncf_range_in_use: 409,
  ecf_already_sent: 409,
  approval_already_sent: 409,
  certification_incomplete: 409,
  certification_step_observed: 409,
  certification_not_certecf: 409,
  certification_run_in_progress: 409,
  received_ecf_already_purchased: 409,
  ecf_not_retryable: 409,
  invitation_not_usable: 410,
  event_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  insufficient_stock: 422,
  ncf_sequence_exhausted: 422,
  ncf_sequence_expired: 422,
  fiscal_profile_incomplete: 422,
  ecf_not_configured: 422,
  deferred_sending_not_authorized: 422,
  webhooks_not_configured: 422,
  no_webhook_endpoint: 422,
  idempotency_key_reused: 422,
  template_not_approved: 422,
  rate_limited: 429,
  internal_error: 500,
  integration_failed: 502,
  service_unavailable: 503,
  receiver_not_configured: 503,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

/** The body of an AppError's answer. */
export function errorBody(error: AppError): { message: string; code: ErrorCode; errors?: FieldErrors } {
  return error.errors ? { message: error.message, code: error.code, errors: error.errors } : { message: error.message, code: error.code };
}
