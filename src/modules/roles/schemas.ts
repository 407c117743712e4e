import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../../http/pagination";
import { allPermissions } from "../../lib/permissions";

const ROLE_NAME_PATTERN = /^[A-Za-z0-9_]+$/;

// The catalog is the document's enum; the service refuses an unknown one naming GET /api/v1/permissions.
const permissionList = z.array(z.string().max(100).openapi({ enum: allPermissions })).max(200);

export const CreateRoleBody = z
  .object({
    name: z.string().trim().min(1).max(50).regex(ROLE_NAME_PATTERN, "The name may contain only letters, digits and underscores."),
    display_name: z.string().trim().min(1).max(100),
    permissions: permissionList,
  })
  .strict()
  .openapi("CreateRoleRequest");

export const UpdateRoleBody = z
  .object({
    display_name: z.string().trim().min(1).max(100).optional(),
    permissions: permissionList.optional(),
  })
  .strict()
  .openapi("UpdateRoleRequest");

export const Role = z
  .object({
    id: z.number(),
    name: z.string(),
    display_name: z.string(),
    permissions: z.array(z.string()),
    is_builtin: z.boolean(),
    members_count: z.number(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Role");

export const RoleResponse = z.object({ data: Role, message: z.string() }).openapi("RoleResponse");

export const RoleListQuery = listQuerySchema({
  filters: {},
  sorts: ["id", "name", "created_at"] as const,
  defaultSort: "id",
});

export const Permission = z.object({ name: z.string(), description: z.string() }).openapi("Permission");

export const PermissionListResponse = z.object({ data: z.array(Permission) }).openapi("PermissionList");
