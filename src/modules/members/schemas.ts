import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../../http/pagination";
import { idParam } from "../../lib/bounds";

export const UserIdParam = z.object({
  user_id: idParam("user_id", 2),
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
