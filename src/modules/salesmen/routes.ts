import { z } from "@hono/zod-openapi";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { listQuerySchema, paginate, paginated } from "../../http/pagination";
import { BooleanFilter, dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { deletedEventData, emitEvent } from "../events/service";
import { CreateSalesmanBody, Salesman, UpdateSalesmanBody } from "./schemas";
import { createSalesman, deleteSalesman, getSalesman, listSalesmen, serializeSalesman, updateSalesman } from "./service";

export const salesmenRouter = createRouter();
const tags = ["Salesmen"];

const SalesmanListQuery = listQuerySchema({
  filters: { search: z.string().trim().min(1).max(100).optional(), is_active: BooleanFilter },
  sorts: ["id", "full_name", "created_at"] as const,
  defaultSort: "full_name",
});

const listRoute = defineRoute(
  { permission: "salesmen:view" },
  {
    method: "get",
    path: `${V1}/salesmen`,
    tags,
    summary: "List salesmen",
    request: { query: SalesmanListQuery },
    responses: { 200: jsonResponse("Salesmen", paginated(Salesman)), ...commonErrors },
  },
);
export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await listSalesmen(c.var.db, c.get("tenant").id, query);
  return c.json(paginate(c, query, total, rows.map(serializeSalesman)), 200);
};
salesmenRouter.openapi(listRoute, list);

const getRoute = defineRoute(
  { permission: "salesmen:view" },
  {
    method: "get",
    path: `${V1}/salesmen/{id}`,
    tags,
    summary: "Get a salesman",
    request: { params: IdParam },
    responses: { 200: jsonResponse("The salesman", dataOnly(Salesman)), ...errorResponses(404), ...commonErrors },
  },
);
export const get: AppRouteHandler<typeof getRoute> = async (c) => {
  const row = await getSalesman(c.var.db, c.get("tenant").id, c.req.valid("param").id);
  return c.json({ data: serializeSalesman(row) }, 200);
};
salesmenRouter.openapi(getRoute, get);

const createRoute = defineRoute(
  { permission: "salesmen:create", level: "company" },
  {
    method: "post",
    path: `${V1}/salesmen`,
    tags,
    summary: "Create a salesman",
    request: jsonBody(CreateSalesmanBody),
    responses: { 201: jsonResponse("Created", dataWithMessage(Salesman)), ...commonErrors },
  },
);
export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const row = await createSalesman(c.var.db, c.get("tenant").id, c.req.valid("json"));
  return c.json({ data: serializeSalesman(row), message: "Salesman created." }, 201);
};
salesmenRouter.openapi(createRoute, create);

const updateRoute = defineRoute(
  { permission: "salesmen:edit", level: "company" },
  {
    method: "patch",
    path: `${V1}/salesmen/{id}`,
    tags,
    summary: "Update a salesman (only the fields given)",
    request: { params: IdParam, ...jsonBody(UpdateSalesmanBody) },
    responses: { 200: jsonResponse("Updated", dataWithMessage(Salesman)), ...errorResponses(404), ...commonErrors },
  },
);
export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const row = await updateSalesman(c.var.db, c.get("tenant").id, c.req.valid("param").id, c.req.valid("json"));
  return c.json({ data: serializeSalesman(row), message: "Salesman updated." }, 200);
};
salesmenRouter.openapi(updateRoute, update);

const removeRoute = defineRoute(
  { permission: "salesmen:delete", level: "company" },
  {
    method: "delete",
    path: `${V1}/salesmen/{id}`,
    tags,
    summary: "Delete a salesman (409 in_use when invoices name them)",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const remove: AppRouteHandler<typeof removeRoute> = async (c) => {
  const id = c.req.valid("param").id;
  await deleteSalesman(c.var.db, c.get("tenant").id, id);
  // The company's, in no workspace; it leaves the list, so the event tells a syncing client.
  await emitEvent(c, "salesman.deleted", null, deletedEventData(id, null));
  return c.json({ message: "Salesman deleted." }, 200);
};
salesmenRouter.openapi(removeRoute, remove);
