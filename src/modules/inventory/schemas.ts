import { z } from "@hono/zod-openapi";
import { idFilter, listQuerySchema } from "../../http/pagination";
import { dateInput, idInput, idQuery, MONEY_MAX } from "../../lib/bounds";
import { decimalInput } from "../../lib/decimal";

const id = () => idInput();
const text = (max: number) => z.string().trim().max(max).optional();
const positiveQuantity = () => decimalInput({ sign: "positive", max: MONEY_MAX });

export const CreateTransferBody = z
  .object({
    product_id: id(),
    to_workspace_id: id().openapi({ description: "The destination: another workspace than the caller's, which the stock leaves" }),
    quantity: positiveQuantity(),
    reference: text(100),
    notes: text(1000),
  })
  .openapi("CreateStockTransfer");

const AdjustmentReason = z.enum(["damaged", "lost", "found", "recount", "other"]);

export const CreateAdjustmentBody = z
  .object({
    reference: text(100),
    items: z
      .array(
        z.object({
          product_id: id(),
          quantity_adjustment: decimalInput({ sign: "nonzero", max: MONEY_MAX }),
          reason: AdjustmentReason,
          notes: text(1000),
        }),
      )
      .min(1)
      .max(500),
  })
  .openapi("CreateInventoryAdjustment");

export const InitialStockBody = z
  .object({
    items: z
      .array(
        z.object({
          product_id: id(),
          quantity: decimalInput({ max: MONEY_MAX }),
          cost: decimalInput({ max: MONEY_MAX }).optional(),
        }),
      )
      .min(1)
      .max(500),
  })
  .openapi("InitialStock");

export const MinimumBody = z.object({ workspace_id: id(), minimum_quantity: decimalInput({ max: MONEY_MAX }) }).openapi("StockMinimum");

const Ref = z.object({ id: z.number(), name: z.string() });

export const MovementItem = z
  .object({
    id: z.number(),
    product_id: z.number(),
    type: z.string(),
    quantity: z.string(),
    from_workspace_id: z.number().nullable(),
    to_workspace_id: z.number().nullable(),
    reference: z.string().nullable(),
    notes: z.string().nullable(),
    created_by: z.object({ id: z.number(), name: z.string(), email: z.string().optional() }).nullable(),
    created_at: z.string(),
    product: z.object({ id: z.number(), name: z.string(), sku: z.string().nullable(), current_stock: z.string().optional() }),
    from_workspace: Ref.nullable(),
    to_workspace: Ref.nullable(),
  })
  .openapi("StockTransfer");

export const CreatedTransfer = z.object({
  data: z.object({
    id: z.number(),
    product_id: z.number(),
    type: z.literal("transfer_out"),
    quantity: z.string(),
    from_workspace_id: z.number(),
    to_workspace_id: z.number(),
    reference: z.string(),
    created_at: z.string(),
  }),
  message: z.string(),
});

export const AdjustmentItem = z
  .object({
    id: z.number(),
    workspace_id: z.number(),
    reference: z.string().nullable(),
    items: z.array(z.object({ product_id: z.number(), quantity_adjustment: z.string(), reason: z.string(), notes: z.string().nullable() })),
    created_by: z.object({ id: z.number(), name: z.string() }).nullable(),
    created_at: z.string(),
  })
  .openapi("InventoryAdjustment");

export const ProductStock = z
  .object({
    product_id: z.number(),
    product_name: z.string(),
    total_stock: z.string(),
    workspace_stocks: z.array(
      z.object({ workspace_id: z.number(), workspace_name: z.string(), quantity: z.string(), minimum_quantity: z.string(), is_low_stock: z.boolean() }),
    ),
  })
  .openapi("ProductStock");

export const LowStockItem = z
  .object({
    product_id: z.number(),
    product_name: z.string(),
    sku: z.string().nullable(),
    workspace_id: z.number(),
    workspace_name: z.string(),
    current_quantity: z.string(),
    minimum_quantity: z.string(),
    deficit: z.string(),
  })
  .openapi("LowStockItem");

export const MovementReportItem = z
  .object({
    id: z.number(),
    product_id: z.number(),
    product_name: z.string(),
    type: z.string(),
    quantity: z.string(),
    workspace_id: z.number(),
    reference: z.string().nullable(),
    invoice_id: z.number().nullable(),
    created_at: z.string(),
  })
  .openapi("StockMovement");

export const TransferListQuery = listQuerySchema({
  filters: { product_id: idFilter(), type: z.enum(["transfer_out", "transfer_in"]).optional() },
  sorts: ["created_at", "quantity"] as const,
  defaultSort: "-created_at",
});

export const AdjustmentListQuery = listQuerySchema({
  filters: { product_id: idFilter() },
  sorts: ["created_at"] as const,
  defaultSort: "-created_at",
});

const isoDate = dateInput();

export const MovementReportQuery = z
  .object({
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    per_page: z.coerce.number().int().min(1).max(100).default(15),
    product_id: idQuery(),
    workspace_id: idQuery(),
    type: z.enum(["sale", "return", "purchase", "transfer_out", "transfer_in", "adjustment", "initial_stock"]).optional(),
    date_from: isoDate.optional(),
    date_to: isoDate.optional(),
  })
  .strict();

export const LowStockQuery = z.object({ workspace_id: idQuery() }).strict();

export type CreateTransferInput = z.output<typeof CreateTransferBody>;
export type CreateAdjustmentInput = z.output<typeof CreateAdjustmentBody>;
export type InitialStockInput = z.output<typeof InitialStockBody>;
export type MovementReportItem = z.output<typeof MovementReportItem>;
