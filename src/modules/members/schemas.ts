import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../../http/pagination";

export const UserIdParam = z.object({
  user_id: z.coerce.number().int().positive().max(2_147_483_647).openapi({ param: { name: "user_id", in: "path" }, example: 2 }),
});

export const UpdateMemberBody = z
  .object({ role: z.string().trim().min(1).max(50).openapi({ description: "admin, member, viewer or a custom role name" }) })
  .strict()
  .openapi("UpdateMemberRequest");

export const MemberListQuery = listQuerySchema({
  filters: { role: z.string().max(50).optional() },
  sorts: ["name", "email", "added_at"] as const,
  defaultSort: "name",
});
