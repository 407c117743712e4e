import { z } from "@hono/zod-openapi";
import { nullableText } from "../../http/schemas";
import { idInput } from "../../lib/bounds";

export const BANK_ACCOUNT_TYPES = ["bank", "cash", "credit_card", "other"] as const;

const fields = {
  name: z.string().trim().min(1).max(255),
  type: z.enum(BANK_ACCOUNT_TYPES).optional(),
  account_number: nullableText(50),
  currency_id: idInput().optional(),
  is_active: z.boolean().optional(),
};

export const CreateBankAccountBody = z.object(fields).openapi("CreateBankAccountRequest");
export const UpdateBankAccountBody = z.object({ ...fields, name: fields.name.optional() }).openapi("UpdateBankAccountRequest");
export type CreateBankAccountInput = z.output<typeof CreateBankAccountBody>;
export type UpdateBankAccountInput = z.output<typeof UpdateBankAccountBody>;

export const BankAccount = z
  .object({
    id: z.number(),
    name: z.string(),
    type: z.enum(BANK_ACCOUNT_TYPES),
    account_number: z.string().nullable(),
    currency_id: z.number().nullable(),
    currency: z.object({ id: z.number(), code: z.string(), symbol: z.string() }).nullable(),
    is_active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("BankAccount");
export type BankAccount = z.output<typeof BankAccount>;
