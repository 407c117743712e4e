import { commonErrors, createRouter, defineRoute, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { dataOnly, dataWithMessage } from "../../http/schemas";
import { Company, UpdateCompanyBody } from "./schemas";
import { getProfile, serializeCompany, updateProfile } from "./service";

export const companyRouter = createRouter();
const tags = ["Company"];

// Readable by every member of the tenant: the issuer's identity prints on every document they make.
const get = defineRoute("authenticated", {
  method: "get",
  path: `${V1}/company`,
  tags,
  summary: "The company's fiscal profile (issuer of its documents)",
  responses: { 200: jsonResponse("The profile", dataOnly(Company)), ...commonErrors },
});
companyRouter.openapi(get, async (c) => {
  const row = await getProfile(c.var.db, c.get("tenant").id);
  return c.json({ data: serializeCompany(row) }, 200);
});

const update = defineRoute(
  { permission: "company:edit" },
  {
    method: "patch",
    path: `${V1}/company`,
    tags,
    summary: "Change the company's fiscal profile",
    request: jsonBody(UpdateCompanyBody),
    responses: { 200: jsonResponse("Updated", dataWithMessage(Company)), ...commonErrors },
  },
);
companyRouter.openapi(update, async (c) => {
  const row = await updateProfile(c.var.db, c.get("tenant").id, c.req.valid("json"));
  return c.json({ data: serializeCompany(row), message: "Company profile updated." }, 200);
});
