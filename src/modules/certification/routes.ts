import { commonErrors, createRouter, defineRoute, errorResponses, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { dataOnly, dataWithMessage } from "../../http/schemas";
import { Certification, MarkStepBody, PutCertificationBody, StepParam } from "./schemas";
import * as certification from "./service";

/** DGII's certification of the tenant as an electronic issuer (issue 32; docs/ecf.md, "Getting certified"). */
export const certificationRouter = createRouter();
const tags = ["e-CF certification"];

certificationRouter.openapi(
  defineRoute(
    { permission: "ecf:manage" },
    {
      method: "get",
      path: `${V1}/ecf/certification`,
      tags,
      summary: "DGII's 14 certification steps in order: each one's state, what Sucursal did, what the admin does in DGII's Oficina Virtual, and the evidence",
      responses: { 200: jsonResponse("The certification", dataOnly(Certification)), ...commonErrors },
    },
  ),
  async (c) => c.json({ data: await certification.getCertification(c.var.db, c.get("tenant").id) }, 200),
);

certificationRouter.openapi(
  defineRoute(
    { permission: "ecf:manage" },
    {
      method: "put",
      path: `${V1}/ecf/certification`,
      tags,
      summary: "Say whether the tenant issues through a certified provider (DGII's data and communication tests then do not apply)",
      request: jsonBody(PutCertificationBody),
      responses: { 200: jsonResponse("Updated", dataWithMessage(Certification)), ...commonErrors },
    },
  ),
  async (c) => {
    const tenantId = c.get("tenant").id;
    await certification.setCertifiedProvider(c.var.db, tenantId, c.req.valid("json").uses_certified_provider);
    return c.json({ data: await certification.getCertification(c.var.db, tenantId), message: "Certification updated." }, 200);
  },
);

certificationRouter.openapi(
  defineRoute(
    { permission: "ecf:manage" },
    {
      method: "put",
      path: `${V1}/ecf/certification/steps/{number}`,
      tags,
      summary: "Mark done, with a note, a step done in DGII's Oficina Virtual (409 for a step Sucursal runs: its state comes from its evidence)",
      request: { params: StepParam, ...jsonBody(MarkStepBody) },
      responses: { 200: jsonResponse("Marked done", dataWithMessage(Certification)), ...errorResponses(409), ...commonErrors },
    },
  ),
  async (c) => {
    const tenantId = c.get("tenant").id;
    const { number } = c.req.valid("param");
    await certification.markStep(c.var.db, tenantId, number, c.req.valid("json").note, c.var.scope.userId);
    return c.json({ data: await certification.getCertification(c.var.db, tenantId), message: `Step ${number} marked done.` }, 200);
  },
);

certificationRouter.openapi(
  defineRoute(
    { permission: "ecf:manage" },
    {
      method: "delete",
      path: `${V1}/ecf/certification/steps/{number}`,
      tags,
      summary: "Take back the mark of a step done in DGII's Oficina Virtual (404 when not marked)",
      request: { params: StepParam },
      responses: { 200: jsonResponse("Mark removed", dataWithMessage(Certification)), ...errorResponses(404, 409), ...commonErrors },
    },
  ),
  async (c) => {
    const tenantId = c.get("tenant").id;
    const { number } = c.req.valid("param");
    await certification.unmarkStep(c.var.db, tenantId, number);
    return c.json({ data: await certification.getCertification(c.var.db, tenantId), message: `Step ${number} is pending again.` }, 200);
  },
);
