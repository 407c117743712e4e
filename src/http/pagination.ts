import { z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import { dateTimeInput, idText } from "../lib/bounds";
import type { AppEnv } from "./context";

export interface ListQuery<F extends string, S extends string> {
  page: number;
  perPage: number;
  filters: Partial<Record<F, string>>;
  /** `filter[updated_since]` (incremental sync, docs/api.md): rows whose updated_at is at or after it. */
  updatedSince: Date | undefined;
  sort: { field: S | "updated_at"; descending: boolean };
}

/** `filter[updated_since]`: an instant (src/lib/bounds.ts dateTimeInput). */
const UpdatedSince = dateTimeInput().optional();

/**
 * Query schema of a list endpoint: page, per_page (1-100), `filter[field]` and `sort=field|-field`
 * against allowlists. Any other parameter is refused with 422, so a typo never silently lists all.
 * Every list also takes `filter[updated_since]` and `sort=updated_at|-updated_at` (incremental sync):
 * declared here once so a new list cannot lack them, and the services' sort maps must name updated_at.
 */
export function listQuerySchema<F extends string, S extends string>(options: {
  filters: Record<F, z.ZodType<string | undefined>>;
  sorts: readonly S[];
  defaultSort: `${"-" | ""}${NoInfer<S>}`;
}) {
  const filterShape = Object.fromEntries(Object.entries(options.filters).map(([field, schema]) => [`filter[${field}]`, schema])) as Record<
    string,
    z.ZodType<string | undefined>
  >;
  const sortValues = [...options.sorts.filter((s) => s !== "updated_at"), "updated_at"].flatMap((s) => [s, `-${s}`]) as [string, ...string[]];
  return z
    .object({
      page: z.coerce.number().int().min(1).max(1_000_000).default(1),
      per_page: z.coerce.number().int().min(1).max(100).default(15),
      sort: z.enum(sortValues).default(options.defaultSort),
      ...filterShape,
      "filter[updated_since]": UpdatedSince,
    })
    .strict()
    .transform((q): ListQuery<F, S> => {
      const filters: Partial<Record<F, string>> = {};
      for (const field of Object.keys(options.filters) as F[]) {
        const value = (q as Record<string, unknown>)[`filter[${field}]`];
        if (value !== undefined) filters[field] = String(value);
      }
      const descending = q.sort.startsWith("-");
      const since = q["filter[updated_since]"];
      return {
        page: q.page,
        perPage: q.per_page,
        filters,
        updatedSince: since === undefined ? undefined : new Date(since),
        sort: { field: q.sort.replace(/^-/, "") as S | "updated_at", descending },
      };
    });
}

export const PaginationMeta = z.object({ current_page: z.number(), last_page: z.number(), per_page: z.number(), total: z.number() }).openapi("PaginationMeta");

export const PaginationLinks = z
  .object({ first: z.string(), last: z.string(), prev: z.string().nullable(), next: z.string().nullable() })
  .openapi("PaginationLinks");

export const paginated = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: PaginationMeta, links: PaginationLinks });

export function paginate<T>(c: Context<AppEnv>, query: { page: number; perPage: number }, total: number, data: T[]) {
  return { data, ...pageLinks(c, query, total) };
}

/**
 * A page whose `data` is JSON text already (an array Postgres wrote: invoices/service.ts
 * listInvoices), answered as `paginate` would answer it, the text written as it came instead of
 * parsed and written again. Typed as `paginate`'s answer for the route's handler; the text is
 * what the route's schema describes (test/invoices/counts.test.ts compares it field by field).
 */
export function jsonPage<T>(c: Context<AppEnv>, query: { page: number; perPage: number }, total: number, dataJson: string) {
  const { meta, links } = pageLinks(c, query, total);
  const body = `{"data":${dataJson},"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
  return c.body(body, 200, { "content-type": "application/json" }) as unknown as TypedResponse<ReturnType<typeof paginate<T>>, 200, "json">;
}

function pageLinks(c: Context<AppEnv>, query: { page: number; perPage: number }, total: number) {
  const lastPage = Math.max(1, Math.ceil(total / query.perPage));
  // One parse of the request's URL for the four links (each written out before the next is set;
  // page then per_page, appended in that order when the request had neither).
  const url = new URL(c.req.url);
  const link = (page: number) => {
    url.searchParams.set("page", String(page));
    url.searchParams.set("per_page", String(query.perPage));
    return url.toString();
  };
  return {
    meta: { current_page: query.page, last_page: lastPage, per_page: query.perPage, total },
    links: {
      first: link(1),
      last: link(lastPage),
      prev: query.page > 1 ? link(Math.min(query.page - 1, lastPage)) : null,
      next: query.page < lastPage ? link(query.page + 1) : null,
    },
  };
}

/** `filter[…_id]=N`: a positive integer that fits Postgres' integer (larger ids cannot exist). */
export const idFilter = (message = "Must be an id (a positive integer).") => idText(message).optional();
