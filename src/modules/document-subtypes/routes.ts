import { z } from "@hono/zod-openapi";
import { requireAuth } from "../../http/auth";
import {
  type AppRouteHandler,
  commonErrors,
  createRouter,
  defineRoute,
  errorResponse,
  errorResponses,
  IdParam,
  jsonBody,
  jsonResponse,
  V1,
} from "../../http/openapi";
import { listQuerySchema, paginate, paginated } from "../../http/pagination";
import { BooleanFilter, dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { requireWorkspace } from "../../http/workspace";
import { idParam } from "../../lib/bounds";
import { deletedEventData, emitEvent } from "../events/service";
import {
  CreateDocumentSubtypeBody,
  DOCUMENT_TYPES,
  DocumentSubtype,
  PreferredSubtype,
  PreferredSubtypeBody,
  UpdateDocumentSubtypeBody,
  ValidateNcfBody,
  ValidateNcfResponse,
} from "./schemas";
import {
  createSubtype,
  deleteSubtype,
  getSubtype,
  listPreferredSubtypes,
  listSubtypes,
  serializeSubtype,
  setPreferredSubtype,
  updateSubtype,
  validateNcf,
} from "./service";

export const documentSubtypesRouter = createRouter();
const tags = ["Document subtypes"];

const SubtypeListQuery = listQuerySchema({
  filters: {
    search: z.string().trim().min(1).max(100).optional(),
    type: z.enum(DOCUMENT_TYPES).optional(),
    prefix: z.string().trim().min(1).max(10).optional(),
    is_active: BooleanFilter,
    is_default: BooleanFilter,
  },
  sorts: ["id", "name", "prefix", "valid_until", "created_at"] as const,
  defaultSort: "id",
});

const listRoute = defineRoute(
  { permission: "document_subtypes:view" },
  {
    method: "get",
    path: `${V1}/document-subtypes`,
    tags,
    summary: "List document subtypes (NCF sequences)",
    request: { query: SubtypeListQuery },
    responses: { 200: jsonResponse("Document subtypes", paginated(DocumentSubtype)), ...commonErrors },
  },
);
export const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { rows, total } = await listSubtypes(c.var.db, c.get("tenant").id, query);
  return c.json(paginate(c, query, total, rows.map(serializeSubtype)), 200);
};
documentSubtypesRouter.openapi(listRoute, list);

const getRoute = defineRoute(
  { permission: "document_subtypes:view" },
  {
    method: "get",
    path: `${V1}/document-subtypes/{id}`,
    tags,
    summary: "Get a document subtype",
    request: { params: IdParam },
    responses: { 200: jsonResponse("The document subtype", dataOnly(DocumentSubtype)), ...errorResponses(404), ...commonErrors },
  },
);
export const get: AppRouteHandler<typeof getRoute> = async (c) => {
  const row = await getSubtype(c.var.db, c.get("tenant").id, c.req.valid("param").id);
  return c.json({ data: serializeSubtype(row) }, 200);
};
documentSubtypesRouter.openapi(getRoute, get);

const createRoute = defineRoute(
  { permission: "document_subtypes:create", level: "company" },
  {
    method: "post",
    path: `${V1}/document-subtypes`,
    tags,
    summary: "Create a document subtype",
    description:
      "Rules across fields that JSON Schema cannot compare, each a 422 on the field named: end_number ≥ start_number (on end_number); start_number ≤ next_number ≤ end_number + 1 (on next_number); end_number fits the prefix's digits (8 for B-series and quotations, 10 for E-series); valid_until is required for every type but quotation; is_electronic follows the prefix; a default is active.",
    request: jsonBody(CreateDocumentSubtypeBody),
    responses: {
      201: jsonResponse("Created", dataWithMessage(DocumentSubtype)),
      409: errorResponse("ncf_range_overlap: the range overlaps another of the same prefix"),
      ...commonErrors,
    },
  },
);
export const create: AppRouteHandler<typeof createRoute> = async (c) => {
  const row = await createSubtype(c.var.db, c.get("tenant").id, c.req.valid("json"));
  return c.json({ data: serializeSubtype(row), message: "Document subtype created." }, 201);
};
documentSubtypesRouter.openapi(createRoute, create);

const updateRoute = defineRoute(
  { permission: "document_subtypes:edit", level: "company" },
  {
    method: "patch",
    path: `${V1}/document-subtypes/{id}`,
    tags,
    summary: "Update a document subtype (only the fields given; next_number is set at creation only: 422 on it here)",
    description:
      "The fields given are combined with the subtype's stored values, then held to the rules of its creation. Each rule checked against what is stored, and its refusal (422 validation_failed on the field named unless said): " +
      "(1) type cannot change (on type); " +
      "(2) the prefix follows the stored type: invoices B01-B04, B11-B17, E31-E34, E41, E43-E47, credit notes B04 or E34, debit notes B03 or E33, quotations 1 to 10 letters, digits or dashes but not B or E and two digits (on prefix); " +
      "(3) prefix, start_number and end_number are fixed once a number was issued from the sequence (409 ncf_range_in_use on each one changed); " +
      "(4) end_number ≥ start_number (on end_number); " +
      "(5) start_number ≤ next_number (on start_number) and next_number ≤ end_number + 1 (on end_number); " +
      "(6) end_number fits the prefix's digits: 8 for B-series and quotations, 10 for E-series (on end_number); " +
      "(7) valid_until stays set for every type but quotation (null: on valid_until); " +
      "(8) is_electronic follows the prefix, true exactly for E-series (on is_electronic; a prefix changed between B and E moves it along when it is not given); " +
      "(9) a default is active (is_default true on an inactive subtype, or is_active false on the default: on is_default); " +
      "(10) a contingency range stays a paper range of B01, B02, B14, B15, B16, B03 or B04 (on prefix) and is never the default (on is_default); " +
      "(11) the range overlaps no other sequence of its prefix (409 ncf_range_overlap).",
    request: { params: IdParam, ...jsonBody(UpdateDocumentSubtypeBody) },
    responses: {
      200: jsonResponse("Updated", dataWithMessage(DocumentSubtype)),
      409: errorResponse("ncf_range_overlap (the new range overlaps another), or ncf_range_in_use (the range is fixed once a number was issued)"),
      ...errorResponses(404),
      ...commonErrors,
    },
  },
);
export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const row = await updateSubtype(c.var.db, c.get("tenant").id, c.req.valid("param").id, c.req.valid("json"));
  return c.json({ data: serializeSubtype(row), message: "Document subtype updated." }, 200);
};
documentSubtypesRouter.openapi(updateRoute, update);

const removeRoute = defineRoute(
  { permission: "document_subtypes:delete", level: "company" },
  {
    method: "delete",
    path: `${V1}/document-subtypes/{id}`,
    tags,
    summary: "Delete a document subtype (409 in_use when it is a default, a workspace preference, or numbered documents)",
    request: { params: IdParam },
    responses: { 200: jsonResponse("Deleted", MessageResponse), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const remove: AppRouteHandler<typeof removeRoute> = async (c) => {
  const id = c.req.valid("param").id;
  await deleteSubtype(c.var.db, c.get("tenant").id, id);
  // The company's, in no workspace; it leaves the list, so the event tells a syncing client.
  await emitEvent(c, "document_subtype.deleted", null, deletedEventData(id, null));
  return c.json({ message: "Document subtype deleted." }, 200);
};
documentSubtypesRouter.openapi(removeRoute, remove);

const WorkspaceIdParam = z.object({
  id: idParam("id"),
});

const setPreferredRoute = defineRoute(
  { permission: "workspaces:edit" },
  {
    method: "put",
    path: `${V1}/workspaces/{id}/preferred-document-subtype`,
    tags: ["Workspaces"],
    summary: "Set (or clear with null) the workspace's preferred document subtype for a document type; workspace owner only",
    request: { params: WorkspaceIdParam, ...jsonBody(PreferredSubtypeBody) },
    responses: { 200: jsonResponse("Preference saved", dataWithMessage(PreferredSubtype)), ...errorResponses(404), ...commonErrors },
  },
);
export const setPreferred: AppRouteHandler<typeof setPreferredRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const subtype = await setPreferredSubtype(c.var.db, c.get("tenant").id, requireAuth(c).userId, id, body.type, body.document_subtype_id);
  return c.json(
    {
      data: {
        workspace_id: id,
        type: body.type,
        document_subtype_id: subtype?.id ?? null,
        document_subtype: subtype ? { id: subtype.id, name: subtype.name, prefix: subtype.prefix } : null,
      },
      message: subtype ? "Preferred document subtype updated." : "Preferred document subtype cleared.",
    },
    200,
  );
};
documentSubtypesRouter.openapi(setPreferredRoute, setPreferred);

const listPreferredRoute = defineRoute(
  { permission: "workspaces:view" },
  {
    method: "get",
    path: `${V1}/workspaces/{id}/preferred-document-subtypes`,
    tags: ["Workspaces"],
    summary: "The workspace's preferred document subtypes, one per document type that has one",
    request: { params: WorkspaceIdParam },
    responses: { 200: jsonResponse("Preferences", dataOnly(z.array(PreferredSubtype))), ...errorResponses(404), ...commonErrors },
  },
);
export const listPreferred: AppRouteHandler<typeof listPreferredRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const workspace = requireWorkspace(c);
  const rows = await listPreferredSubtypes(c.var.db, c.get("tenant").id, requireAuth(c).userId, workspace.viewAllLocations, id);
  return c.json(
    {
      data: rows.map((r) => ({
        workspace_id: id,
        type: r.type as (typeof DOCUMENT_TYPES)[number],
        document_subtype_id: r.id,
        document_subtype: { id: r.id, name: r.name, prefix: r.prefix },
      })),
    },
    200,
  );
};
documentSubtypesRouter.openapi(listPreferredRoute, listPreferred);

const validateRoute = defineRoute(
  { permission: "invoices:create" },
  {
    method: "post",
    path: `${V1}/invoices/validate-ncf`,
    tags: ["Invoices"],
    summary: "Check an NCF against a document subtype: format, prefix, range, expiry, not already used",
    request: jsonBody(ValidateNcfBody),
    responses: { 200: jsonResponse("The verdict (top-level, no data wrapper)", ValidateNcfResponse), ...commonErrors },
  },
);
export const validate: AppRouteHandler<typeof validateRoute> = async (c) => {
  const body = c.req.valid("json");
  const result = await validateNcf(c.var.db, c.get("tenant").id, body.ncf, body.document_subtype_id);
  return c.json(result, 200);
};
documentSubtypesRouter.openapi(validateRoute, validate);
