import { config } from "../../env";
import { commonErrors, createRouter, defineRoute, errorResponses, jsonBody, jsonResponse, V1 } from "../../http/openapi";
import { dataOnly, dataWithMessage, MessageResponse } from "../../http/schemas";
import { EcfCertificate, EcfSettings, PutCertificateBody, PutSettingsBody } from "./schemas";
import * as ecf from "./service";

export const ecfRouter = createRouter();
const tags = ["e-CF"];

ecfRouter.openapi(
  defineRoute(
    { permission: "ecf:manage" },
    {
      method: "put",
      path: `${V1}/ecf/certificate`,
      tags,
      summary: "Upload the e-CF signing certificate (PKCS#12 and its password; stored encrypted, never returned)",
      request: jsonBody(PutCertificateBody),
      responses: { 200: jsonResponse("Certificate stored", dataWithMessage(EcfCertificate)), ...commonErrors },
    },
  ),
  async (c) => {
    const now = new Date();
    const row = await ecf.putCertificate(c.var.db, c.get("tenant").id, c.req.valid("json"), config(c.env).APP_ENCRYPTION_KEY, now);
    return c.json({ data: ecf.serializeCertificate(row, now), message: "Certificate stored." }, 200);
  },
);

ecfRouter.openapi(
  defineRoute(
    { permission: "ecf:manage" },
    {
      method: "get",
      path: `${V1}/ecf/certificate`,
      tags,
      summary: "The signing certificate: subject, holder's id, issuer, validity, SHA-256 fingerprint; a warning within 30 days of expiry",
      responses: { 200: jsonResponse("Certificate", dataOnly(EcfCertificate)), ...errorResponses(404), ...commonErrors },
    },
  ),
  async (c) => c.json({ data: ecf.serializeCertificate(await ecf.getSettings(c.var.db, c.get("tenant").id), new Date()) }, 200),
);

ecfRouter.openapi(
  defineRoute(
    { permission: "ecf:manage" },
    {
      method: "delete",
      path: `${V1}/ecf/certificate`,
      tags,
      summary: "Remove the signing certificate (e-CF is turned off)",
      responses: { 200: jsonResponse("Certificate removed", MessageResponse), ...errorResponses(404), ...commonErrors },
    },
  ),
  async (c) => {
    await ecf.deleteCertificate(c.var.db, c.get("tenant").id);
    return c.json({ message: "Certificate removed." }, 200);
  },
);

ecfRouter.openapi(
  defineRoute(
    { permission: "ecf:manage" },
    {
      method: "get",
      path: `${V1}/ecf/settings`,
      tags,
      summary: "The e-CF environment (testecf, certecf, ecf), whether e-CF is on, and DGII's URLs",
      responses: { 200: jsonResponse("Settings", dataOnly(EcfSettings)), ...commonErrors },
    },
  ),
  async (c) => c.json({ data: ecf.serializeSettings(await ecf.getSettings(c.var.db, c.get("tenant").id), config(c.env)) }, 200),
);

ecfRouter.openapi(
  defineRoute(
    { permission: "ecf:manage" },
    {
      method: "put",
      path: `${V1}/ecf/settings`,
      tags,
      summary: "Choose DGII's environment and turn e-CF on or off (on needs a certificate)",
      request: jsonBody(PutSettingsBody),
      responses: { 200: jsonResponse("Settings updated", dataWithMessage(EcfSettings)), ...commonErrors },
    },
  ),
  async (c) => {
    const row = await ecf.putSettings(c.var.db, c.get("tenant").id, c.req.valid("json"));
    return c.json({ data: ecf.serializeSettings(row, config(c.env)), message: "e-CF settings updated." }, 200);
  },
);
