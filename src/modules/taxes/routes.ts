import { z } from "@hono/zod-openapi";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { listQuerySchema, paginate, paginated } from "../../http/pagination";
import { BooleanFilter, dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { deletedEventData, emitEvent } from "../events/service";
import { CreateTaxBody, TAX_TYPES, Tax, UpdateTaxBody } from "./schemas";
import { createTax, deleteTax, getTax, listTaxes, serializeTax, updateTax } from "./service";

export const taxesRouter = createRouter();
const tags = ["Taxes"];

const TaxListQuery = listQuerySchema({
  filters: { search: z.string().trim().min(1).max(100).optional(), type: z.enum(TAX_TYPES).optional(), is_active: BooleanFilter, is_default: BooleanFilter },
  sorts: ["id", "name", "rate", "created_at"] as const,
  defaultSort: "name",
});

const listRoute = defineRoute(
  { permission: "taxes:view" },
  {
    method: "get",
    path: `${V1}/taxes`,
    tags,
    summary: "List taxes",
    request: { query: TaxListQuery },
    responses: { 200: jsonResponse("Taxes", paginated(Tax)), ...commonErrors },
  },
);
export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await listTaxes(c.var.db, c.get("tenant").id, query);
  return c.json(paginate(c, query, total, rows.map(serializeTax)), 200);
};
taxesRouter.openapi(listRoute, list);

const getRoute = defineRoute(
  { permission: "taxes:view" },
  {
    method: "get",
    path: `${V1}/taxes/{id}`,
    tags,
    summary: "Get a tax",
    request: { params: IdParam },
    responses: { 200: jsonResponse("The tax", dataOnly(Tax)), ...errorResponses(404), ...commonErrors },
  },
);
export const get: AppRouteHandler<typeof getRoute> = async (c) => {
  const row = await getTax(c.var.db, c.get("tenant").id, c.req.valid("param").id);
  return c.json({ data: serializeTax(row) }, 200);
};
taxesRouter.openapi(getRoute, get);

const createRoute = defineRoute(
  { permission: "taxes:create", level: "company" },
  {
    method: "post",
    path: `${V1}/taxes`,
    tags,
    summary: "Create a tax",
    request: jsonBody(CreateTaxBody),
    responses: { 201: jsonResponse("Created", dataWithMessage(Tax)), ...commonErrors },
  },
);
export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const row = await createTax(c.var.db, c.get("tenant").id, c.req.valid("json"));
  return c.json({ data: serializeTax(row), message: "Tax created." }, 201);
};
taxesRouter.openapi(createRoute, create);

const updateRoute = defineRoute(
  { permission: "taxes:edit", level: "company" },
  {
    method: "patch",
    path: `${V1}/taxes/{id}`,
    tags,
    summary: "Update a tax (only the fields given)",
    request: { params: IdParam, ...jsonBody(UpdateTaxBody) },
    responses: { 200: jsonResponse("Updated", dataWithMessage(Tax)), ...errorResponses(404), ...commonErrors },
  },
);
export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const row = await updateTax(c.var.db, c.get("tenant").id, c.req.valid("param").id, c.req.valid("json"));
  return c.json({ data: serializeTax(row), message: "Tax updated." }, 200);
};
taxesRouter.openapi(updateRoute, update);

const removeRoute = defineRoute(
  { permission: "taxes:delete", level: "company" },
  {
    method: "delete",
    path: `${V1}/taxes/{id}`,
    tags,
    summary: "Delete a tax (409 in_use when products or documents refer to it)",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const remove: AppRouteHandler<typeof removeRoute> = async (c) => {
  const id = c.req.valid("param").id;
  await deleteTax(c.var.db, c.get("tenant").id, id);
  // The company's, in no workspace; it leaves the list, so the event tells a syncing client.
  await emitEvent(c, "tax.deleted", null, deletedEventData(id, null));
  return c.json({ message: "Tax deleted." }, 200);
};
taxesRouter.openapi(removeRoute, remove);
