import { z } from "@hono/zod-openapi";
import { emailAddress, nullableText } from "../../http/schemas";

const fields = {
  full_name: z.string().trim().min(1).max(255),
  email: emailAddress().nullable().optional(),
  phone: nullableText(50),
  is_active: z.boolean().optional(),
};

export const CreateSalesmanBody = z.object(fields).openapi("CreateSalesmanRequest");
export const UpdateSalesmanBody = z.object({ ...fields, full_name: fields.full_name.optional() }).openapi("UpdateSalesmanRequest");
export type CreateSalesmanInput = z.output<typeof CreateSalesmanBody>;
export type UpdateSalesmanInput = z.output<typeof UpdateSalesmanBody>;

export const Salesman = z
  .object({
    id: z.number(),
    full_name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    is_active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Salesman");
export type Salesman = z.output<typeof Salesman>;
