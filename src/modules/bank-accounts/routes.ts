import { z } from "@hono/zod-openapi";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { idFilter, listQuerySchema, paginate, paginated } from "../../http/pagination";
import { BooleanFilter, dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { deletedEventData, emitEvent } from "../events/service";
import { BANK_ACCOUNT_TYPES, BankAccount, CreateBankAccountBody, UpdateBankAccountBody } from "./schemas";
import { createBankAccount, deleteBankAccount, getBankAccount, listBankAccounts, serializeBankAccount, updateBankAccount } from "./service";

export const bankAccountsRouter = createRouter();
const tags = ["Bank accounts"];

const BankAccountListQuery = listQuerySchema({
  filters: {
    search: z.string().trim().min(1).max(100).optional(),
    type: z.enum(BANK_ACCOUNT_TYPES).optional(),
    currency_id: idFilter("Must be a currency id."),
    is_active: BooleanFilter,
  },
  sorts: ["id", "name", "created_at"] as const,
  defaultSort: "name",
});

const listRoute = defineRoute(
  { permission: "bank_accounts:view" },
  {
    method: "get",
    path: `${V1}/bank-accounts`,
    tags,
    summary: "List bank accounts",
    request: { query: BankAccountListQuery },
    responses: { 200: jsonResponse("Bank accounts", paginated(BankAccount)), ...commonErrors },
  },
);
export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await listBankAccounts(c.var.db, c.get("tenant").id, query);
  return c.json(paginate(c, query, total, rows.map(serializeBankAccount)), 200);
};
bankAccountsRouter.openapi(listRoute, list);

const getRoute = defineRoute(
  { permission: "bank_accounts:view" },
  {
    method: "get",
    path: `${V1}/bank-accounts/{id}`,
    tags,
    summary: "Get a bank account",
    request: { params: IdParam },
    responses: { 200: jsonResponse("The bank account", dataOnly(BankAccount)), ...errorResponses(404), ...commonErrors },
  },
);
export const get: AppRouteHandler<typeof getRoute> = async (c) => {
  const row = await getBankAccount(c.var.db, c.get("tenant").id, c.req.valid("param").id);
  return c.json({ data: serializeBankAccount(row) }, 200);
};
bankAccountsRouter.openapi(getRoute, get);

const createRoute = defineRoute(
  { permission: "bank_accounts:create", level: "company" },
  {
    method: "post",
    path: `${V1}/bank-accounts`,
    tags,
    summary: "Create a bank account",
    request: jsonBody(CreateBankAccountBody),
    responses: { 201: jsonResponse("Created", dataWithMessage(BankAccount)), ...commonErrors },
  },
);
export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const row = await createBankAccount(c.var.db, c.get("tenant").id, c.req.valid("json"));
  return c.json({ data: serializeBankAccount(row), message: "Bank account created." }, 201);
};
bankAccountsRouter.openapi(createRoute, create);

const updateRoute = defineRoute(
  { permission: "bank_accounts:edit", level: "company" },
  {
    method: "patch",
    path: `${V1}/bank-accounts/{id}`,
    tags,
    summary: "Update a bank account (only the fields given)",
    request: { params: IdParam, ...jsonBody(UpdateBankAccountBody) },
    responses: { 200: jsonResponse("Updated", dataWithMessage(BankAccount)), ...errorResponses(404), ...commonErrors },
  },
);
export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const row = await updateBankAccount(c.var.db, c.get("tenant").id, c.req.valid("param").id, c.req.valid("json"));
  return c.json({ data: serializeBankAccount(row), message: "Bank account updated." }, 200);
};
bankAccountsRouter.openapi(updateRoute, update);

const removeRoute = defineRoute(
  { permission: "bank_accounts:delete", level: "company" },
  {
    method: "delete",
    path: `${V1}/bank-accounts/{id}`,
    tags,
    summary: "Delete a bank account (409 in_use when payments were recorded to it)",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const remove: AppRouteHandler<typeof removeRoute> = async (c) => {
  const id = c.req.valid("param").id;
  await deleteBankAccount(c.var.db, c.get("tenant").id, id);
  // The company's, in no workspace; it leaves the list, so the event tells a syncing client.
  await emitEvent(c, "bank_account.deleted", null, deletedEventData(id, null));
  return c.json({ message: "Bank account deleted." }, 200);
};
bankAccountsRouter.openapi(removeRoute, remove);
