import { z } from "@hono/zod-openapi";
import { oneRow } from "../../db/rows";
import { commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { listQuerySchema, paginate, paginated } from "../../http/pagination";
import { dataOnly, dataWithMessage, MessageResponse, WorkspaceFilter } from "../../http/schemas";
import { IDENTIFICATION_TYPES } from "../../lib/identification";
import { deletedEventData, emitEvent } from "../events/service";
import { CONTACT_TYPES, Contact, CreateContactBody, UpdateContactBody } from "./schemas";
import { createContact, deleteContact, getContact, listContacts, serializeContacts, updateContact } from "./service";

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

const list = defineRoute(
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
contactsRouter.openapi(list, async (c) => {
  const query = c.req.valid("query");
  const db = c.var.db;
  const { rows, total } = await listContacts(db, c.var.scope, query);
  return c.json(paginate(c, query, total, await serializeContacts(db, rows)), 200);
});

const get = defineRoute(
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
contactsRouter.openapi(get, async (c) => {
  const db = c.var.db;
  const row = await getContact(db, c.var.scope, c.req.valid("param").id);
  const data = oneRow(await serializeContacts(db, [row]));
  return c.json({ data: data }, 200);
});

const create = defineRoute(
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
contactsRouter.openapi(create, async (c) => {
  const db = c.var.db;
  const row = await createContact(db, c.var.scope, c.req.valid("json"));
  const data = oneRow(await serializeContacts(db, [row]));
  return c.json({ data: data, message: "Contact created." }, 201);
});

const update = defineRoute(
  { permission: "contacts:edit" },
  {
    method: "patch",
    path: `${V1}/contacts/{id}`,
    tags,
    summary: "Update a contact (only the fields given)",
    request: { params: IdParam, ...jsonBody(UpdateContactBody) },
    responses: { 200: jsonResponse("Updated", dataWithMessage(Contact)), ...errorResponses(404), ...commonErrors },
  },
);
contactsRouter.openapi(update, async (c) => {
  const db = c.var.db;
  const row = await updateContact(db, c.var.scope, c.req.valid("param").id, c.req.valid("json"));
  const data = oneRow(await serializeContacts(db, [row]));
  return c.json({ data: data, message: "Contact updated." }, 200);
});

const remove = defineRoute(
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
contactsRouter.openapi(remove, async (c) => {
  const id = c.req.valid("param").id;
  const { workspaceId } = await deleteContact(c.var.db, c.var.scope, id);
  // Incremental sync cannot see a deleted row: the event, in the delete's transaction, tells (docs/api.md).
  await emitEvent(c, "contact.deleted", workspaceId, deletedEventData(id, workspaceId));
  return c.json({ message: "Contact deleted." }, 200);
});
