import { z } from "@hono/zod-openapi";
import { ID_PATTERN } from "../lib/bounds";

/** Zod pieces shared by the modules' request and response schemas. */

/** `filter[workspace_id]` of workspace-scoped lists: `all`, `shared` or a workspace id. */
export const WorkspaceFilter = z
  .string()
  .regex(new RegExp(`^(?:all|shared|${ID_PATTERN.source.slice(1, -1)})$`), "Use all, shared or a workspace id.")
  .optional()
  .openapi({ description: "all (view_all_locations only), shared, or a workspace id; default: the request's workspace and shared rows" });

export const BooleanFilter = z.enum(["true", "false"]).optional();

export const nullableText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullable()
    .optional()
    .transform((v) => (v === "" ? null : v));

export const MessageResponse = z.object({ message: z.string() }).openapi("Message");

export const dataWithMessage = <T extends z.ZodType>(item: T) => z.object({ data: item, message: z.string() });
export const dataOnly = <T extends z.ZodType>(item: T) => z.object({ data: item });
