import { z } from "@hono/zod-openapi";
import { assertHeldForBranches } from "../../db/grants";
import { config } from "../../env";
import { type AppRouteHandler, commonErrors, createRouter, defineRoute, errorResponses, IdParam, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { companyGrant } from "../../http/permissions";
import { FILE_UPLOAD_TYPE_MESSAGE } from "../../http/request-checks";
import { dataOnly, dataWithMessage } from "../../http/schemas";
import { selfFetcher } from "../../http/self";
import { AppError } from "../../lib/errors";
import { pdfZipStream } from "../quotations/zip";
import { renderPrintedRepresentation, simulationPrintedEntries } from "./printed";
import { checkReceiver, receiverTarget } from "./receiver-check";
import {
  CaseParams,
  CaseXmlQuery,
  Certification,
  MarkStepBody,
  PrintedRepresentationsQuery,
  PutCertificationBody,
  ReceiverCheck,
  StepParam,
  TestSet,
  TestSetSummary,
  TestSetUpload,
} from "./schemas";
import * as certification from "./service";
import * as testSetRuns from "./test-set-runs";
import * as testSets from "./test-sets";

/** DGII's certification of the tenant as an electronic issuer (issue 32; docs/ecf.md, "Getting certified"). */
export const certificationRouter = createRouter();
const tags = ["e-CF certification"];

const getCertificationRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "get",
    path: `${V1}/ecf/certification`,
    tags,
    summary: "DGII's 14 certification steps in order: each one's state, what Sucursal did, what the admin does in DGII's Oficina Virtual, and the evidence",
    responses: { 200: jsonResponse("The certification", dataOnly(Certification)), ...commonErrors },
  },
);
export const getCertification: AppRouteHandler<typeof getCertificationRoute> = async (c) =>
  c.json({ data: await certification.getCertification(c.var.db, c.get("tenant").id) }, 200);
certificationRouter.openapi(getCertificationRoute, getCertification);

const putCertificationRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "put",
    path: `${V1}/ecf/certification`,
    tags,
    summary: "Say whether the tenant issues through a certified provider (DGII's data and communication tests then do not apply)",
    request: jsonBody(PutCertificationBody),
    responses: { 200: jsonResponse("Updated", dataWithMessage(Certification)), ...commonErrors },
  },
);
export const putCertification: AppRouteHandler<typeof putCertificationRoute> = async (c) => {
  const tenantId = c.get("tenant").id;
  await certification.setCertifiedProvider(c.var.db, tenantId, c.req.valid("json").uses_certified_provider);
  return c.json({ data: await certification.getCertification(c.var.db, tenantId), message: "Certification updated." }, 200);
};
certificationRouter.openapi(putCertificationRoute, putCertification);

const markStepRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "put",
    path: `${V1}/ecf/certification/steps/{number}`,
    tags,
    summary: "Mark done, with a note, a step done in DGII's Oficina Virtual (409 for a step Sucursal runs: its state comes from its evidence)",
    request: { params: StepParam, ...jsonBody(MarkStepBody) },
    responses: { 200: jsonResponse("Marked done", dataWithMessage(Certification)), ...errorResponses(409), ...commonErrors },
  },
);
export const markStep: AppRouteHandler<typeof markStepRoute> = async (c) => {
  const tenantId = c.get("tenant").id;
  const { number } = c.req.valid("param");
  await certification.markStep(c.var.db, tenantId, number, c.req.valid("json").note, c.var.scope.userId);
  return c.json({ data: await certification.getCertification(c.var.db, tenantId), message: `Step ${number} marked done.` }, 200);
};
certificationRouter.openapi(markStepRoute, markStep);

const unmarkStepRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "delete",
    path: `${V1}/ecf/certification/steps/{number}`,
    tags,
    summary: "Take back the mark of a step done in DGII's Oficina Virtual (404 when not marked)",
    request: { params: StepParam },
    responses: { 200: jsonResponse("Mark removed", dataWithMessage(Certification)), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const unmarkStep: AppRouteHandler<typeof unmarkStepRoute> = async (c) => {
  const tenantId = c.get("tenant").id;
  const { number } = c.req.valid("param");
  await certification.unmarkStep(c.var.db, tenantId, number);
  return c.json({ data: await certification.getCertification(c.var.db, tenantId), message: `Step ${number} is pending again.` }, 200);
};
certificationRouter.openapi(unmarkStepRoute, unmarkStep);

// ---- Step 5: the printed representations of the simulation

const getPrintedRepresentationsRoute = defineRoute(
  { permission: "ecf:manage", level: "branches" },
  {
    method: "get",
    path: `${V1}/ecf/certification/printed-representations.zip`,
    tags,
    summary:
      "Step 5: a ZIP of the PDF of each e-CF DGII accepted in certecf (the simulation, step 4), named <e-NCF>.pdf, each under DGII's 10 MB, to upload in the Oficina Virtual",
    description:
      "409 when no e-CF has been accepted in certecf yet, or when there are more than 500 (download each document's PDF then). With workspace_id, only that branch's: ecf:manage as a member of it or at company level (403 forbidden otherwise); without, the whole company's (403 company_forbidden without ecf:manage at company level).",
    request: { query: PrintedRepresentationsQuery },
    responses: {
      200: { description: "ZIP of <e-NCF>.pdf files", content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } } },
      ...errorResponses(409),
      ...commonErrors,
    },
  },
);
export const getPrintedRepresentations: AppRouteHandler<typeof getPrintedRepresentationsRoute> = async (c) => {
  // Every database read happens here, inside the request's transaction; the stream below only renders.
  const { workspace_id: workspaceId } = c.req.valid("query");
  const caller = { userId: c.var.scope.userId, company: await companyGrant(c) };
  await assertHeldForBranches(c.var.db, caller, "ecf:manage", workspaceId === undefined ? null : [workspaceId], "download these printed representations");
  const entries = await simulationPrintedEntries(c.var.db, c.get("tenant").id, caller.userId, config(c.env), new URL(c.req.url).origin, workspaceId);
  const zip = pdfZipStream(entries, { requestId: c.get("requestId"), render: renderPrintedRepresentation });
  return c.body(zip, 200, {
    "Content-Type": "application/zip",
    "Content-Disposition": `attachment; filename="representaciones-impresas.zip"`,
  });
};
certificationRouter.openapi(getPrintedRepresentationsRoute, getPrintedRepresentations);

// ---- Steps 7-11: the tenant's receiver, checked as DGII calls it

const runReceiverCheckRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "post",
    path: `${V1}/ecf/certification/receiver-check`,
    tags,
    summary:
      "Steps 7-11: play DGII against the tenant's receiver (e-CF settings' receiver_url, else its own host): seed, certificate validation, an e-CF to reception expecting a signed ARECF, an ACECF to commercial approval; each answer and why it failed",
    description:
      "200 whether the receiver passes or not (`ok`, each step's outcome). 409 when the receiver URL is refused (not https, a private address, a name that does not resolve); 422 ecf_not_configured without a signing certificate or trust store; 422 fiscal_profile_incomplete without the company's RNC.",
    responses: { 200: jsonResponse("The check", dataOnly(ReceiverCheck)), ...errorResponses(409, 503), ...commonErrors },
  },
);
export const runReceiverCheck: AppRouteHandler<typeof runReceiverCheckRoute> = async (c) => {
  const tenantId = c.get("tenant").id;
  const settings = config(c.env);
  const target = await receiverTarget(c.var.db, tenantId, c.req.url, settings);
  const fetcher = target.inProcess ? selfFetcher(c.env, c.executionCtx) : (request: Request) => fetch(request);
  return c.json({ data: await checkReceiver(c.var.db, tenantId, target, fetcher, settings) }, 200);
};
certificationRouter.openapi(runReceiverCheckRoute, runReceiverCheck);

// ---- DGII's test sets (steps 2 and 3)

const XLSX_UPLOAD = "multipart/form-data";

const importTestSetRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "post",
    path: `${V1}/ecf/certification/test-sets`,
    tags,
    summary:
      "Import a test set DGII gave the tenant: the .xlsx as DGII gives it, multipart field `file` (at most 1 MiB). 422 naming each case, column and why when a row cannot make a document; nothing is stored then",
    request: { body: { required: true, content: { [XLSX_UPLOAD]: { schema: TestSetUpload } } } },
    responses: { 201: jsonResponse("Imported", dataWithMessage(TestSet)), ...errorResponses(413, 415), ...commonErrors },
  },
);
export const importTestSet: AppRouteHandler<typeof importTestSetRoute> = async (c) => {
  if (!/^multipart\/form-data/i.test(c.req.header("content-type") ?? "")) {
    throw new AppError("unsupported_media_type", FILE_UPLOAD_TYPE_MESSAGE);
  }
  const { file } = c.req.valid("form");
  const tenantId = c.get("tenant").id;
  const id = await testSets.importTestSet(c.var.db, tenantId, c.var.scope.userId, file.name || "test-set.xlsx", await file.arrayBuffer());
  const set = await testSets.getTestSet(c.var.db, tenantId, id);
  return c.json({ data: set, message: `Test set imported: ${set.case_count} cases: ${testSets.sendingSummary(set.cases)}.` }, 201);
};
certificationRouter.openapi(importTestSetRoute, importTestSet);

const listTestSetsRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "get",
    path: `${V1}/ecf/certification/test-sets`,
    tags,
    summary: "The tenant's imported test sets, the newest first",
    responses: { 200: jsonResponse("The test sets", dataOnly(z.array(TestSetSummary))), ...commonErrors },
  },
);
export const listTestSets: AppRouteHandler<typeof listTestSetsRoute> = async (c) =>
  c.json({ data: await testSets.listTestSets(c.var.db, c.get("tenant").id) }, 200);
certificationRouter.openapi(listTestSetsRoute, listTestSets);

const getTestSetRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "get",
    path: `${V1}/ecf/certification/test-sets/{id}`,
    tags,
    summary: "A test set and each case: its name (CasoPrueba), type, e-NCF, state and the row's elements as DGII gives them",
    request: { params: IdParam },
    responses: { 200: jsonResponse("The test set", dataOnly(TestSet)), ...errorResponses(404), ...commonErrors },
  },
);
export const getTestSet: AppRouteHandler<typeof getTestSetRoute> = async (c) =>
  c.json({ data: await testSets.getTestSet(c.var.db, c.get("tenant").id, c.req.valid("param").id) }, 200);
certificationRouter.openapi(getTestSetRoute, getTestSet);

const runTestSetRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "post",
    path: `${V1}/ecf/certification/test-sets/{id}/run`,
    tags,
    summary:
      "Run the test set in CerteCF: each case signed and sent to DGII in order, a rejection stopping the run; a new run starts the whole set over with the next e-NCF numbers (409 outside certecf or while a run of the set is running)",
    request: { params: IdParam },
    responses: { 202: jsonResponse("Run started", dataWithMessage(TestSet)), ...errorResponses(404, 409), ...commonErrors },
  },
);
export const runTestSet: AppRouteHandler<typeof runTestSetRoute> = async (c) => {
  const tenantId = c.get("tenant").id;
  const id = c.req.valid("param").id;
  const runId = await testSetRuns.startRun(c.var.db, tenantId, c.var.scope.userId, id);
  c.var.certificationRuns.push(runId);
  const set = await testSets.getTestSet(c.var.db, tenantId, id);
  return c.json({ data: set, message: `Run ${set.run!.number} started: ${set.case_count} cases to send.` }, 202);
};
certificationRouter.openapi(runTestSetRoute, runTestSet);

const getCaseXmlRoute = defineRoute(
  { permission: "ecf:manage", level: "company" },
  {
    method: "get",
    path: `${V1}/ecf/certification/test-sets/{id}/cases/{position}/xml`,
    tags,
    summary:
      "A case's signed XML in the set's latest run, byte for byte, named RNCEmisor + e-NCF: an E32 sent as its summary gives the whole E32 (the OFV asks for it under «Facturas de consumo < 250Mil»), `part=summary` the RFCE sent",
    description: "409 before the run has signed the case, or `part=summary` of a case sent whole.",
    request: { params: CaseParams, query: CaseXmlQuery },
    responses: {
      200: { description: "The signed XML", content: { "application/xml": { schema: z.string() } } },
      ...errorResponses(404, 409),
      ...commonErrors,
    },
  },
);
export const getCaseXml: AppRouteHandler<typeof getCaseXmlRoute> = async (c) => {
  const { id, position } = c.req.valid("param");
  const file = await testSets.caseXmlFile(c.var.db, c.get("tenant").id, id, position, c.req.valid("query").part);
  return c.body(file.xml, 200, {
    "Content-Type": "application/xml; charset=utf-8",
    "Content-Disposition": `attachment; filename="${file.fileName}"`,
  });
};
certificationRouter.openapi(getCaseXmlRoute, getCaseXml);
