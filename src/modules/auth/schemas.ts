import { z } from "@hono/zod-openapi";
import { emailAddress } from "../../http/schemas";

export const CreateTokenBody = z
  .object({
    email: emailAddress(),
    password: z.string().min(1).max(1024),
    name: z.string().trim().min(1).max(100).optional(),
  })
  .openapi("CreateTokenRequest");

export const TokenResponse = z
  .object({
    data: z.object({ token: z.string(), token_type: z.literal("Bearer"), expires_at: z.string() }),
  })
  .openapi("TokenResponse");

export const MeResponse = z
  .object({
    data: z.object({
      id: z.number(),
      name: z.string(),
      email: z.string(),
      current_workspace_id: z.number().nullable(),
      current_workspace: z.object({ id: z.number(), name: z.string() }).nullable(),
      workspaces: z.array(z.object({ id: z.number(), name: z.string(), role: z.string() })),
      permissions: z.array(z.string()),
      company: z
        .object({
          role: z.string(),
          is_owner: z.boolean(),
          permissions: z.array(z.string()).openapi({ description: "What the role gives at company level (the routes declared at company level read these)" }),
        })
        .nullable()
        .openapi({ description: "The caller's role at company level; null when the owner granted them none" }),
    }),
  })
  .openapi("Me");

export const AccessTokenItem = z
  .object({
    id: z.string(),
    name: z.string(),
    expires_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
    is_current: z.boolean(),
  })
  .openapi("AccessToken");
