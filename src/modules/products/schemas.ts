import { z } from "@hono/zod-openapi";
import { nullableText } from "../../http/schemas";
import { idInput } from "../../lib/bounds";
import { moneyInput } from "../../lib/decimal";

export const PRODUCT_TYPES = ["product", "service"] as const;

const fields = {
  name: z.string().trim().min(1).max(255),
  sku: nullableText(100),
  description: nullableText(5000),
  product_type: z.enum(PRODUCT_TYPES).optional(),
  unit: nullableText(50),
  price: moneyInput().optional(),
  cost: moneyInput().nullable().optional(),
  track_inventory: z.boolean().optional(),
  allow_negative_stock: z.boolean().optional(),
  default_tax_ids: z.array(idInput()).max(20).optional(),
  is_active: z.boolean().optional(),
  workspace_id: idInput().nullable().optional(),
};

export const CreateProductBody = z.object(fields).openapi("CreateProductRequest");
export const UpdateProductBody = z.object({ ...fields, name: fields.name.optional() }).openapi("UpdateProductRequest");
export type CreateProductInput = z.output<typeof CreateProductBody>;
export type UpdateProductInput = z.output<typeof UpdateProductBody>;

export const Product = z
  .object({
    id: z.number(),
    workspace_id: z.number().nullable(),
    name: z.string(),
    sku: z.string().nullable(),
    description: z.string().nullable(),
    product_type: z.enum(PRODUCT_TYPES),
    unit: z.string().nullable(),
    price: z.string().openapi({ example: "1500.00" }),
    cost: z.string().nullable(),
    track_inventory: z.boolean(),
    allow_negative_stock: z.boolean(),
    default_tax_ids: z.array(z.number()),
    is_active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Product");
export type Product = z.output<typeof Product>;
