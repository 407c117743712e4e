import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../../http/pagination";

const USER_STATUSES = ["active", "deactivated"] as const;

export const UserListQuery = listQuerySchema({
  filters: {
    status: z.enum(USER_STATUSES).optional(),
    search: z.string().trim().min(1).max(100).optional().openapi({ description: "A substring of the name or the email" }),
  },
  sorts: ["name", "email", "created_at"] as const,
  defaultSort: "name",
});

export const TenantUser = z
  .object({
    id: z.number(),
    name: z.string(),
    email: z.string(),
    status: z.enum(USER_STATUSES),
    deactivated_at: z.string().nullable(),
    created_at: z.string(),
    workspaces: z.array(z.object({ id: z.number(), name: z.string(), role: z.string() })),
  })
  .openapi("TenantUser");

export const TenantUserResponse = z.object({ data: TenantUser, message: z.string() }).openapi("TenantUserResponse");

/**
 * The password rules of a new password: at least 12 characters (length is what resists guessing);
 * at most 1024, as at login, so that hashing cost stays bounded.
 */
const NEW_PASSWORD_MIN_LENGTH = 12;

export const ChangePasswordBody = z
  .object({
    current_password: z.string().min(1, "The current password is required.").max(1024).openapi({ description: "The caller's current password: checked" }),
    new_password: z
      .string()
      .min(NEW_PASSWORD_MIN_LENGTH, `The new password must have at least ${NEW_PASSWORD_MIN_LENGTH} characters.`)
      .max(1024, "The new password may have at most 1024 characters."),
  })
  .strict()
  .openapi("ChangePasswordRequest");
