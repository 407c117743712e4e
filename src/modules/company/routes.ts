import { z } from "@hono/zod-openapi";
import { requireAuth } from "../../http/auth";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponse, errorResponses, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { grantCompanyRole, listCompanyMembers, revokeCompanyRole, serializeCompanyMember, transferCompanyOwnership } from "./members";
import { Company, CompanyMember, CompanyMemberParam, PutCompanyMemberBody, TransferCompanyOwnershipBody, UpdateCompanyBody } from "./schemas";
import { getProfile, serializeCompany, updateProfile } from "./service";

export const companyRouter = createRouter();
const tags = ["Company"];

// Readable by every member of the tenant: the issuer's identity prints on every document they make.
const getRoute = defineRoute("authenticated", {
  method: "get",
  path: `${V1}/company`,
  tags,
  summary: "The company's fiscal profile (issuer of its documents)",
  responses: { 200: jsonResponse("The profile", dataOnly(Company)), ...commonErrors },
});
export const get: AppRouteHandler<typeof getRoute> = async (c) => {
  const row = await getProfile(c.var.db, c.get("tenant").id);
  return c.json({ data: serializeCompany(row) }, 200);
};
companyRouter.openapi(getRoute, get);

const updateRoute = defineRoute(
  { permission: "company:edit", level: "company" },
  {
    method: "patch",
    path: `${V1}/company`,
    tags,
    summary: "Change the company's fiscal profile",
    request: jsonBody(UpdateCompanyBody),
    responses: { 200: jsonResponse("Updated", dataWithMessage(Company)), ...commonErrors },
  },
);
export const update: AppRouteHandler<typeof updateRoute> = async (c) => {
  const row = await updateProfile(c.var.db, c.get("tenant").id, c.req.valid("json"));
  return c.json({ data: serializeCompany(row), message: "Company profile updated." }, 200);
};
companyRouter.openapi(updateRoute, update);

// ---- The company's role holders (issue 41; docs/permissions.md, "The company and its branches")

const OWNER_ONLY = "the company's owner only (403 `company_forbidden` otherwise)";

const membersRoute = defineRoute(
  { permission: "members:view", level: "company" },
  {
    method: "get",
    path: `${V1}/company/members`,
    tags,
    summary: "Who holds a role at company level (the owner first): what the company-level routes read their permission from",
    responses: { 200: jsonResponse("The company's role holders", dataOnly(z.array(CompanyMember))), ...commonErrors },
  },
);
export const members: AppRouteHandler<typeof membersRoute> = async (c) =>
  c.json({ data: (await listCompanyMembers(c.var.db)).map(serializeCompanyMember) }, 200);
companyRouter.openapi(membersRoute, members);

const grantRoute = defineRoute("authenticated", {
  method: "put",
  path: `${V1}/company/members/{user_id}`,
  tags,
  summary: "Grant a user a role at company level, or change it (the owner's own is changed only by handing the company over)",
  description: "`role` names one of the company's roles (built-in or custom): another name is a 422 on it.",
  "x-access-note": OWNER_ONLY,
  request: { params: CompanyMemberParam, ...jsonBody(PutCompanyMemberBody) },
  responses: {
    200: jsonResponse("Role changed", dataWithMessage(CompanyMember)),
    201: jsonResponse("Role granted", dataWithMessage(CompanyMember)),
    ...errorResponses(404),
    409: errorResponse("owner_role_immutable: the owner's role"),
    ...commonErrors,
  },
});
export const grant: AppRouteHandler<typeof grantRoute> = async (c) => {
  const { user_id } = c.req.valid("param");
  const { member, created } = await grantCompanyRole(c.var.db, requireAuth(c).userId, user_id, c.req.valid("json").role);
  const data = serializeCompanyMember(member);
  return created
    ? c.json({ data, message: `${data.name} holds ${data.role} at company level.` }, 201)
    : c.json({ data, message: `${data.name} now holds ${data.role} at company level.` }, 200);
};
companyRouter.openapi(grantRoute, grant);

const revokeRoute = defineRoute("authenticated", {
  method: "delete",
  path: `${V1}/company/members/{user_id}`,
  tags,
  summary: "Take back a user's role at company level (their branch roles stay)",
  "x-access-note": OWNER_ONLY,
  request: { params: CompanyMemberParam },
  responses: {
    200: jsonResponse("Role revoked", MessageResponse),
    ...errorResponses(404),
    409: errorResponse("owner_cannot_be_removed: the owner"),
    ...commonErrors,
  },
});
export const revoke: AppRouteHandler<typeof revokeRoute> = async (c) => {
  await revokeCompanyRole(c.var.db, requireAuth(c).userId, c.req.valid("param").user_id);
  return c.json({ message: "The user holds no role at company level any more." }, 200);
};
companyRouter.openapi(revokeRoute, revoke);

const transferRoute = defineRoute("authenticated", {
  method: "post",
  path: `${V1}/company/transfer-ownership`,
  tags,
  summary: "Hand the company over: the heir becomes its owner (admin at company level); the former owner keeps admin there or previous_owner_role",
  "x-access-note": OWNER_ONLY,
  request: jsonBody(TransferCompanyOwnershipBody),
  responses: { 200: jsonResponse("Ownership transferred", dataWithMessage(CompanyMember)), ...errorResponses(404), ...commonErrors },
});
export const transfer: AppRouteHandler<typeof transferRoute> = async (c) => {
  const body = c.req.valid("json");
  const heir = await transferCompanyOwnership(c.var.db, requireAuth(c).userId, { userId: body.user_id, previousOwnerRole: body.previous_owner_role });
  return c.json({ data: serializeCompanyMember(heir), message: `${heir.name} owns the company now.` }, 200);
};
companyRouter.openapi(transferRoute, transfer);
