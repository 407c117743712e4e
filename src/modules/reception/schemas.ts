import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../../http/pagination";
import { crossField, ifThen } from "../../http/schemas";
import { dateInput as dateFilter } from "../../lib/bounds";
import { CreatePurchaseBody } from "../purchases/schemas";

export const RECEIVED_STATUSES = ["received", "purchased"] as const;
export const COMMERCIAL_STATUSES = ["pending", "approved", "rejected"] as const;
export const DELIVERY_STATUSES = ["pending", "delivered", "refused", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
const DELIVERY = z.enum(DELIVERY_STATUSES);

export const ReceivedEcf = z
  .object({
    id: z.number().int(),
    ecf_type: z.string().openapi({ description: "TipoeCF as the supplier issued it (31, 32, 33, 34, 44, 45, 46)" }),
    encf: z.string().openapi({ example: "E310000000123" }),
    issuer_rnc: z.string(),
    issuer_name: z.string(),
    buyer_rnc: z.string(),
    issue_date: z.string(),
    total_amount: z.string().openapi({ description: "MontoTotal as the supplier signed it, in pesos" }),
    itbis_amount: z.string().nullable(),
    security_code: z.string(),
    signer: z.string().openapi({ description: "The subject of the certificate that signed it" }),
    xml_sha256: z.string().openapi({ description: "SHA-256 of the XML as received (GET …/xml returns it byte for byte)" }),
    status: z.enum(RECEIVED_STATUSES),
    purchase_id: z.number().int().nullable(),
    commercial_status: z.enum(COMMERCIAL_STATUSES),
    approval: z
      .object({
        approved: z.boolean(),
        reason: z.string().nullable(),
        dgii_status: DELIVERY,
        issuer_status: DELIVERY,
        attempts: z.number().int(),
        last_error: z.string().nullable(),
        next_attempt_at: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: "Our commercial approval (ACECF) and its delivery to DGII and to the issuer's receiver" }),
    received_at: z.string(),
  })
  .openapi("ReceivedEcf");

export const ReceivedEcfListQuery = listQuerySchema({
  filters: {
    status: z.enum(RECEIVED_STATUSES).optional(),
    commercial_status: z.enum(COMMERCIAL_STATUSES).optional(),
    issuer_rnc: z
      .string()
      .regex(/^\d{9}$|^\d{11}$/, "must be an RNC (9 digits) or a cédula (11)")
      .optional(),
    received_from: dateFilter().optional(),
  },
  sorts: ["received_at", "issue_date", "encf"] as const,
  defaultSort: "-received_at",
});
export type ReceivedEcfFilter = "status" | "commercial_status" | "issuer_rnc" | "received_from";
export type ReceivedEcfSort = "received_at" | "issue_date" | "encf";

export const ApprovalBody = z
  .object({
    approved: z.boolean(),
    reason: z.string().trim().min(1).max(250).nullish().openapi({
      description: "Required when rejecting, and only then (null or absent on an approval): DetalleMotivoRechazo of the ACECF (up to 250 characters)",
    }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (!body.approved && !body.reason) ctx.addIssue({ code: "custom", path: ["reason"], message: "is required when rejecting" });
    // DGII's ACECF carries a reason with a rejection only: one sent with an approval was a 500 (issue 44).
    if (body.approved && body.reason) ctx.addIssue({ code: "custom", path: ["reason"], message: "goes with a rejection only: omit it, or send null" });
  })
  .openapi(
    crossField(
      ifThen(
        { required: ["approved"], properties: { approved: { const: false } } },
        { required: ["reason"], properties: { reason: { type: "string", minLength: 1 } } },
        { properties: { reason: { type: "null" } } },
      ),
    ),
  )
  .openapi("ReceivedEcfApprovalRequest");
export type ReceivedEcf = z.output<typeof ReceivedEcf>;

const purchase = CreatePurchaseBody.shape;

/**
 * POST /received-ecf/{id}/purchase: what the e-CF does not say about the purchase. Its supplier,
 * e-NCF, dates, currency and lines come from the e-CF (docs/reception.md, "Turning a received e-CF
 * into a purchase"); `supplier_id` and `items` replace what would be prefilled.
 */
export const ReceivedEcfPurchaseBody = z
  .object({
    expense_type: purchase.expense_type,
    supplier_id: purchase.supplier_id.openapi({
      description: "Default: the contact whose identification is the e-CF's RNCEmisor (created as a supplier when there is none)",
    }),
    items: purchase.items.optional().openapi({
      description: "Replace the e-CF's lines (e.g. to name the products whose stock the purchase moves); default: the e-CF's lines as expense lines",
    }),
    status: z
      .enum(["draft", "pending_payment"])
      .default("draft")
      .openapi({ description: "draft (default): to be reviewed and entered with POST /purchases/{id}/enter; pending_payment: entered at once" }),
    payment_method: purchase.payment_method,
    itbis_withheld: purchase.itbis_withheld,
    isr_withheld: purchase.isr_withheld,
    withholding_date: purchase.withholding_date,
    notes: purchase.notes,
  })
  .strict()
  .openapi("ReceivedEcfPurchaseRequest");
export type ReceivedEcfPurchaseInput = z.output<typeof ReceivedEcfPurchaseBody>;
