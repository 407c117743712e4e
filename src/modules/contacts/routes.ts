import { z } from "@hono/zod-openapi";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { listQuerySchema, paginate, paginated } from "../../http/pagination";
import { dataOnly, dataWithMessage, MessageResponse, WorkspaceFilter } from "../../http/schemas";
import { IDENTIFICATION_TYPES } from "../../lib/identification";
import { deletedEventData, emitEvent } from "../events/service";
import { CONTACT_TYPES, Contact, CreateContactBody, UpdateContactBody } from "./schemas";
import { createContact, deleteContact, listContacts, showContact, shownContact, updateContact } from "./service";

export const contactsRouter = createRouter();
const tags = ["Contacts"];

const ContactListQuery = listQuerySchema({
  filters: {
    search: z.string().trim().min(1).max(100).optional(),
    contact_type: z.enum(CONTACT_TYPES).optional(),
    identification_type: z.enum(IDENTIFICATION_TYPES).optional(),
    identification: z.string().trim().min(1).max(40).optional(),
    workspace_id: WorkspaceFilter,
  },
  sorts: ["id", "name", "created_at"] as const,
  defaultSort: "name",
});

const listRoute = defineRoute(
  { permission: "contacts:view" },
  {
    method: "get",
    path: `${V1}/contacts`,
    tags,
    summary: "List contacts visible in the request's workspace (filter[search] over name, email and identification)",
    request: { query: ContactListQuery },
    responses: { 200: jsonResponse("Contacts", paginated(Contact)), ...commonErrors },
  },
);
export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await listContacts(c.var.db, c.var.scope, query);
  return c.json(paginate(c, query, total, data), 200);
};
contactsRouter.openapi(listRoute, list);

const getRoute = defineRoute(
  { permission: "contacts:view" },
  {
    method: "get",
    path: `${V1}/contacts/{id}`,
    tags,
    summary: "Get a contact",
    request: { params: IdParam },
    responses: { 200: jsonResponse("The contact", dataOnly(Contact)), ...errorResponses(404), ...commonErrors },
  },
);
export const get: AppRouteHandler<typeof getRoute> = async (c) => {
  const data = await showContact(c.var.db, c.var.scope, c.req.valid("param").id);
  return c.json({ data: data }, 200);
};
contactsRouter.openapi(getRoute, get);

const createRoute = defineRoute(
  { permission: "contacts:create" },
  {
    method: "post",
    path: `${V1}/contacts`,
    tags,
    summary: "Create a contact (in the request's workspace unless workspace_id says otherwise; null shares it)",
    request: jsonBody(CreateContactBody),
    responses: { 201: jsonResponse("Created", dataWithMessage(Contact)), ...commonErrors },
  },
);
export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const db = c.var.db;
  const data = await shownContact(db, await createContact(db, c.var.scope, c.req.valid("json")));
  return c.json({ data: data, message: "Contact created." }, 201);
};
contactsRouter.openapi(createRoute, create);

const updateRoute = defineRoute(
  { permission: "contacts:edit" },
  {
    method: "patch",
    path: `${V1}/contacts/{id}`,
    tags,
    summary: "Update a contact (only the fields given)",
    description:
      "identification_type and identification go together, each given or taken from the contact as it is: a type without a number is a 422 on identification, a number without a type a 422 on identification_type (null clears both).",
    request: { params: IdParam, ...jsonBody(UpdateContactBody) },
    responses: { 200: jsonResponse("Updated", dataWithMessage(Contact)), ...errorResponses(404), ...commonErrors },
  },
);
export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const db = c.var.db;
  const data = await shownContact(db, await updateContact(db, c.var.scope, c.req.valid("param").id, c.req.valid("json")));
  return c.json({ data: data, message: "Contact updated." }, 200);
};
contactsRouter.openapi(updateRoute, update);

const removeRoute = defineRoute(
  { permission: "contacts:delete" },
  {
    method: "delete",
    path: `${V1}/contacts/{id}`,
    tags,
    summary: "Delete a contact (409 in_use when documents were issued to it)",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const remove: AppRouteHandler<typeof removeRoute> = async (c) => {
  const id = c.req.valid("param").id;
  const { workspaceId } = await deleteContact(c.var.db, c.var.scope, id);
  // Incremental sync cannot see a deleted row: the event, in the delete's transaction, tells (docs/api.md).
  await emitEvent(c, "contact.deleted", workspaceId, deletedEventData(id, workspaceId));
  return c.json({ message: "Contact deleted." }, 200);
};
contactsRouter.openapi(removeRoute, remove);
