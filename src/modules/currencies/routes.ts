import { z } from "@hono/zod-openapi";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { listQuerySchema, paginate, paginated } from "../../http/pagination";
import { BooleanFilter, dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { deletedEventData, emitEvent } from "../events/service";
import { CreateCurrencyBody, Currency, UpdateCurrencyBody } from "./schemas";
import { createCurrency, deleteCurrency, getCurrency, listCurrencies, serializeCurrency, updateCurrency } from "./service";

export const currenciesRouter = createRouter();
const tags = ["Currencies"];

const CurrencyListQuery = listQuerySchema({
  filters: { search: z.string().trim().min(1).max(100).optional(), code: z.string().trim().min(1).max(3).optional(), is_default: BooleanFilter },
  sorts: ["id", "code", "name", "created_at"] as const,
  defaultSort: "code",
});

const listRoute = defineRoute(
  { permission: "currencies:view" },
  {
    method: "get",
    path: `${V1}/currencies`,
    tags,
    summary: "List currencies",
    request: { query: CurrencyListQuery },
    responses: { 200: jsonResponse("Currencies", paginated(Currency)), ...commonErrors },
  },
);
export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await listCurrencies(c.var.db, c.get("tenant").id, query);
  return c.json(paginate(c, query, total, rows.map(serializeCurrency)), 200);
};
currenciesRouter.openapi(listRoute, list);

const getRoute = defineRoute(
  { permission: "currencies:view" },
  {
    method: "get",
    path: `${V1}/currencies/{id}`,
    tags,
    summary: "Get a currency",
    request: { params: IdParam },
    responses: { 200: jsonResponse("The currency", dataOnly(Currency)), ...errorResponses(404), ...commonErrors },
  },
);
export const get: AppRouteHandler<typeof getRoute> = async (c) => {
  const row = await getCurrency(c.var.db, c.get("tenant").id, c.req.valid("param").id);
  return c.json({ data: serializeCurrency(row) }, 200);
};
currenciesRouter.openapi(getRoute, get);

const createRoute = defineRoute(
  { permission: "currencies:create", level: "company" },
  {
    method: "post",
    path: `${V1}/currencies`,
    tags,
    summary: "Create a currency (409 duplicate_currency_code when the tenant has that code)",
    request: jsonBody(CreateCurrencyBody),
    responses: { 201: jsonResponse("Created", dataWithMessage(Currency)), ...errorResponses(409), ...commonErrors },
  },
);
export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const row = await createCurrency(c.var.db, c.get("tenant").id, c.req.valid("json"));
  return c.json({ data: serializeCurrency(row), message: "Currency created." }, 201);
};
currenciesRouter.openapi(createRoute, create);

const updateRoute = defineRoute(
  { permission: "currencies:edit", level: "company" },
  {
    method: "patch",
    path: `${V1}/currencies/{id}`,
    tags,
    summary: "Update a currency (only the fields given; 409 duplicate_currency_code for a code the tenant has)",
    description:
      "The default currency's exchange_rate is 1: an exchange_rate other than 1 given for the currency that is the default, or becomes it (is_default: true), is a 422 on exchange_rate.",
    request: { params: IdParam, ...jsonBody(UpdateCurrencyBody) },
    responses: { 200: jsonResponse("Updated", dataWithMessage(Currency)), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const row = await updateCurrency(c.var.db, c.get("tenant").id, c.req.valid("param").id, c.req.valid("json"));
  return c.json({ data: serializeCurrency(row), message: "Currency updated." }, 200);
};
currenciesRouter.openapi(updateRoute, update);

const removeRoute = defineRoute(
  { permission: "currencies:delete", level: "company" },
  {
    method: "delete",
    path: `${V1}/currencies/{id}`,
    tags,
    summary: "Delete a currency (409 in_use when it is the default or bank accounts or documents use it)",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const remove: AppRouteHandler<typeof removeRoute> = async (c) => {
  const id = c.req.valid("param").id;
  await deleteCurrency(c.var.db, c.get("tenant").id, id);
  // The company's, in no workspace; it leaves the list, so the event tells a syncing client.
  await emitEvent(c, "currency.deleted", null, deletedEventData(id, null));
  return c.json({ message: "Currency deleted." }, 200);
};
currenciesRouter.openapi(removeRoute, remove);
