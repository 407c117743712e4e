import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../../http/pagination";
import { emailAddress } from "../../http/schemas";

const INVITATION_STATUSES = ["pending", "accepted", "revoked", "expired"] as const;

export const CreateInvitationBody = z
  .object({
    email: emailAddress().toLowerCase(),
    role: z.string().trim().min(1).max(50).default("member").openapi({ description: "The name of one of the company's roles (GET /api/v1/roles)" }),
  })
  .strict()
  .openapi("CreateInvitationRequest");

export const Invitation = z
  .object({
    id: z.number(),
    workspace_id: z.number(),
    email: z.string(),
    role: z.string(),
    status: z.enum(INVITATION_STATUSES),
    expires_at: z.string(),
    created_at: z.string(),
  })
  .openapi("Invitation");

const CreatedInvitation = Invitation.extend({
  token: z.string().openapi({ description: "Shown only in this response; the database keeps its SHA-256." }),
}).openapi("CreatedInvitation");

export const CreatedInvitationResponse = z.object({ data: CreatedInvitation, message: z.string() }).openapi("CreatedInvitationResponse");

export const InvitationListQuery = listQuerySchema({
  filters: { status: z.enum(INVITATION_STATUSES).optional() },
  sorts: ["created_at", "expires_at", "email"] as const,
  defaultSort: "-created_at",
});

export const TokenParam = z.object({
  token: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "token", in: "path" }, example: "<INVITATION_TOKEN>" }),
});

export const AcceptInvitationBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional().openapi({ description: "Required when the invitee has no account yet" }),
    password: z.string().min(8).max(1024).optional().openapi({ description: "Required when the invitee has no account yet" }),
  })
  .strict()
  .openapi("AcceptInvitationRequest");

export const AcceptedInvitationResponse = z
  .object({
    data: z.object({
      user: z.object({ id: z.number(), name: z.string(), email: z.string() }),
      workspace: z.object({ id: z.number(), name: z.string() }),
      role: z.string(),
      account_created: z.boolean(),
      token: z.string().nullable().openapi({ description: "An access token for a newly created account; null for an existing user" }),
      token_expires_at: z.string().nullable(),
    }),
    message: z.string(),
  })
  .openapi("AcceptedInvitation");
