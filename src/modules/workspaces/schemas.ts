import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../../http/pagination";
import { nullableText } from "../../http/schemas";
import { idInput } from "../../lib/bounds";

const name = z.string().trim().min(1).max(100);

// The branch's address and phone print on its fiscal documents (Norma 06-2018).
const branch = {
  address: nullableText(250).openapi({ description: "The branch's address (printed on its documents)" }),
  phone: nullableText(30),
};

export const CreateWorkspaceBody = z
  .object({ name, ...branch })
  .strict()
  .openapi("CreateWorkspaceRequest");
export const UpdateWorkspaceBody = z
  .object({ name: name.optional(), ...branch })
  .strict()
  .openapi("UpdateWorkspaceRequest");

const Person = z.object({ id: z.number(), name: z.string(), email: z.string() }).openapi("Person");

export const WorkspaceMember = z
  .object({ id: z.number(), name: z.string(), email: z.string(), role: z.string(), added_at: z.string() })
  .openapi("WorkspaceMember");

export const WorkspaceListItem = z
  .object({
    id: z.number(),
    name: z.string(),
    owner_id: z.number(),
    owner: Person,
    is_owner: z.boolean(),
    role: z.string().nullable().openapi({ description: "The caller's role there; null when reached through view_all_locations" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("WorkspaceListItem");

export const WorkspaceDetail = WorkspaceListItem.extend({
  address: z.string().nullable(),
  phone: z.string().nullable(),
  members: z.array(WorkspaceMember),
}).openapi("Workspace");

export const WorkspaceDetailResponse = z.object({ data: WorkspaceDetail }).openapi("WorkspaceResponse");

export const TransferOwnershipBody = z
  .object({
    user_id: idInput().openapi({ description: "The new owner: a member of the workspace, not its current owner" }),
    previous_owner_role: z
      .string()
      .trim()
      .min(1)
      .max(50)
      .optional()
      .openapi({ description: "The former owner's role there afterwards (a role name); admin when omitted" }),
  })
  .strict()
  .openapi("TransferOwnershipRequest");

export const WorkspaceTransferredResponse = z.object({ data: WorkspaceDetail, message: z.string() }).openapi("WorkspaceTransferred");

export const WorkspaceCreatedResponse = z
  .object({
    data: z.object({ id: z.number(), name: z.string(), owner_id: z.number(), created_at: z.string() }),
    message: z.string(),
  })
  .openapi("WorkspaceCreated");

export const WorkspaceUpdatedResponse = z
  .object({ data: z.object({ id: z.number(), name: z.string(), updated_at: z.string() }), message: z.string() })
  .openapi("WorkspaceUpdated");

export const WorkspaceContextResponse = z
  .object({
    data: z.object({ current_workspace_id: z.number(), workspace: z.object({ id: z.number(), name: z.string() }) }),
    message: z.string(),
  })
  .openapi("WorkspaceContext");

export const WorkspaceListQuery = listQuerySchema({
  filters: { name: z.string().max(100).optional() },
  sorts: ["id", "name", "created_at"] as const,
  defaultSort: "id",
});
