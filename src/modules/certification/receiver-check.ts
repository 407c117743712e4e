import { eq } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import type { Config } from "../../env";
import { Big } from "../../lib/decimal";
import { AppError } from "../../lib/errors";
import { endpointUrlProblem, ResolverUnavailable, resolvedHostProblem } from "../../lib/outbound-url";
import type { SigningMaterial } from "../ecf/certificate";
import { boundedText, RECEIVER_ANSWER_BYTES, UnusableAnswer } from "../ecf/dgii";
import { buildAcecf, EcfReadError, readArecf } from "../ecf/receipts";
import { MAX_SEED_BYTES, NotASeed, seedToSign } from "../ecf/seed";
import { tenantSigningMaterial } from "../ecf/service";
import { parseUntrustedXml, signXml, UntrustedXmlError } from "../ecf/signature";
import { namesAuthor, trustStoreOf } from "../ecf/signers";
import { buildEcf, type EcfDocument } from "../ecf/xml";
import { verifySignedDocument } from "../reception/verify";
import { lineAmounts, taxBreakdown } from "../sales/lines";

/**
 * Certification steps 7-11 (issue 32): before DGII sends its own e-CF and ACECF, the admin checks
 * the receiver it registered, as DGII will call it (Descripción técnica, "Estándar de comunicación
 * Emisor - Receptor"): seed, certificate validation, an e-CF to reception answered by a signed
 * ARECF, an ACECF to commercial approval. What it can prove, and what not, is said in `proves`.
 */

/** DGII's RNC (Dirección General de Impuestos Internos): the buyer of the check's e-CF, so that no receiver files it. */
export const CHECK_BUYER_RNC = "401506254";
/** The check's e-CF number: far beyond any sequence DGII authorizes a tenant in practice, and never sent to DGII. */
export const CHECK_ENCF = "E319999999999";

export type CheckStepName = "seed" | "certificate" | "reception" | "commercial_approval";

export interface CheckStep {
  name: CheckStepName;
  url: string;
  outcome: "ok" | "failed" | "skipped";
  /** The HTTP status the receiver answered; null when it was not reached or the step was skipped. */
  status: number | null;
  /** What the receiver answered, as text (the first 2,000 characters). */
  answer: string | null;
  detail: string;
}

export interface ReceiverCheck {
  receiver_url: string;
  /** in_process: a host of this deployment, called through the Worker's own handler; network: any other host. */
  via: "in_process" | "network";
  ok: boolean;
  steps: CheckStep[];
  proves: string;
  checked_at: string;
}

export type Fetcher = (request: Request) => Promise<Response>;

const PROVES =
  "A reachable receiver that serves a seed, gives a token for a seed signed with the tenant's certificate, answers an e-CF with an ARECF signed by a certificate naming the tenant's RNC, and judges an ACECF. " +
  "It cannot prove DGII's own certificate is accepted: the check signs as the tenant (Sucursal holds no DGII identity), so the receiver's trust of DGII's authority is shown only when DGII's e-CF arrive (steps 9 and 11). " +
  "The check's e-CF is addressed to DGII's RNC, so a receiver answers it Estado 1, CodigoMotivoNoRecibido 4 (not its buyer) after checking its signature and schema, and files nothing.";

const ANSWER_CHARS = 2000;

/** Calls `url` once: redirects are answers (never followed), the body read within the receiver bound. */
async function exchange(
  fetcher: Fetcher,
  url: string,
  init: RequestInit,
  maxBytes = RECEIVER_ANSWER_BYTES,
): Promise<{ status: number; text: string; location: string | null } | { error: string }> {
  let response: Response;
  try {
    response = await fetcher(new Request(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(15_000) }));
  } catch (error) {
    return { error: `The receiver could not be reached (${error instanceof Error ? error.name : "error"}).` };
  }
  const location = response.headers.get("location");
  try {
    return { status: response.status, text: await boundedText(response, maxBytes, url), location };
  } catch (error) {
    if (error instanceof UnusableAnswer) return { error: error.message };
    throw error;
  }
}

function xmlForm(xml: string, fileName: string): FormData {
  const form = new FormData();
  form.append("xml", new Blob([xml], { type: "text/xml" }), fileName);
  return form;
}

/** The check's e-CF: an E31 of one exempt service of RD$100.00 from the tenant to DGII, built as any e-CF of ours (xml.ts). */
function checkEcf(issuer: { rnc: string; legalName: string; address: string | null }, now: Date): EcfDocument {
  const amounts = lineAmounts({ quantity: "1", unitPrice: "100", discount: "0", taxes: [{ id: 0, name: "Exento", type: "exento", rate: "0.00" }] });
  return {
    type: "31",
    encf: CHECK_ENCF,
    sequenceExpiry: `${now.getUTCFullYear() + 1}-12-31`,
    issueDate: now.toISOString().slice(0, 10),
    paymentType: 1,
    incomeType: "01",
    snapshot: {
      issuer: {
        rnc: issuer.rnc,
        legal_name: issuer.legalName,
        trade_name: null,
        address: issuer.address ?? "República Dominicana",
        municipality_code: null,
        province_code: null,
        phone: null,
        email: null,
        branch: { id: 0, name: "Principal", address: null, phone: null },
      },
      buyer: {
        contact_id: 0,
        name: "Dirección General de Impuestos Internos",
        identification_type: "rnc",
        identification: CHECK_BUYER_RNC,
        address: null,
        email: null,
      },
      sequence: { prefix: "E31", name: "Prueba del receptor", valid_until: null, authorization_number: null },
      currency: { id: 0, code: "DOP", exchange_rate: "1.00" },
    },
    lines: [
      {
        name: "Prueba de recepción del receptor (Sucursal)",
        goodsOrService: 2,
        quantity: "1",
        unitPrice: "100",
        discountAmount: amounts.discountAmount,
        amount: new Big(amounts.subtotal).minus(amounts.discountAmount).toFixed(2),
        billingIndicator: 4,
      },
    ],
    breakdown: taxBreakdown([amounts]),
    total: new Big(amounts.total).toFixed(2),
    signedAt: now,
  };
}

/**
 * Where the check goes: the tenant's receiver_url, or its own host on this deployment. A host of
 * this deployment (the request's parent domain) is called in-process; any other gets the rules of a
 * webhook endpoint (https to a public address, the name resolved first), and no redirects.
 */
export async function receiverTarget(
  db: AnyDb,
  tenantId: number,
  requestUrl: string,
  cfg: Pick<Config, "WEBHOOKS_ALLOW_HTTP_LOOPBACK" | "WEBHOOKS_DNS_RESOLVER_URL">,
): Promise<{ base: string; inProcess: boolean }> {
  const [row] = await db.select({ url: schema.ecfSettings.receiverUrl }).from(schema.ecfSettings).where(eq(schema.ecfSettings.tenantId, tenantId));
  const own = new URL(requestUrl);
  const base = row?.url ?? own.origin;
  const host = new URL(base).hostname.toLowerCase();
  const parent = own.hostname.toLowerCase().split(".").slice(1).join(".");
  if (host === own.hostname.toLowerCase() || (parent.includes(".") && host.endsWith(`.${parent}`))) return { base, inProcess: true };
  const problem = endpointUrlProblem(base, cfg.WEBHOOKS_ALLOW_HTTP_LOOPBACK);
  if (problem) throw new AppError("conflict", `The receiver URL ${base} cannot be checked: ${problem}`);
  let resolved: string | null;
  try {
    resolved = await resolvedHostProblem(base, cfg.WEBHOOKS_ALLOW_HTTP_LOOPBACK, cfg.WEBHOOKS_DNS_RESOLVER_URL);
  } catch (error) {
    if (error instanceof ResolverUnavailable) throw new AppError("service_unavailable", `The receiver's host could not be resolved: ${error.message}`);
    throw error;
  }
  if (resolved) throw new AppError("conflict", `The receiver URL ${base} cannot be checked: ${resolved}`);
  return { base, inProcess: false };
}

/** Plays DGII against the receiver at `base`; each step's answer and why it failed. */
export async function checkReceiver(
  db: AnyDb,
  tenantId: number,
  target: { base: string; inProcess: boolean },
  fetcher: Fetcher,
  cfg: Pick<Config, "APP_ENCRYPTION_KEY" | "ECF_TRUSTED_CA_PEM">,
  now = new Date(),
): Promise<ReceiverCheck> {
  const [company] = await db
    .select({ rnc: schema.companyProfiles.rnc, legalName: schema.companyProfiles.legalName, address: schema.companyProfiles.address })
    .from(schema.companyProfiles)
    .where(eq(schema.companyProfiles.tenantId, tenantId));
  if (!company?.rnc) throw new AppError("fiscal_profile_incomplete", "The company has no RNC (PATCH /api/v1/company): the receiver answers for it.");
  const trust = trustStoreOf(cfg.ECF_TRUSTED_CA_PEM);
  if (!trust) throw new AppError("ecf_not_configured", "ECF_TRUSTED_CA_PEM is not configured: the receiver's signed answers could not be judged.");
  const material: SigningMaterial = await tenantSigningMaterial(db, tenantId, cfg.APP_ENCRYPTION_KEY);
  const rnc = company.rnc;
  const url = (path: string) => `${target.base}/fe/${path}`;
  const steps: CheckStep[] = [];
  const step = (name: CheckStepName, at: string, outcome: CheckStep["outcome"], detail: string, answer?: { status: number; text: string }) => {
    steps.push({ name, url: at, outcome, status: answer?.status ?? null, answer: answer ? answer.text.slice(0, ANSWER_CHARS) : null, detail });
  };
  const skipRest = (names: CheckStepName[], paths: string[], why: string) => {
    for (const [i, name] of names.entries()) step(name, url(paths[i]!), "skipped", why);
  };
  const finish = (): ReceiverCheck => ({
    receiver_url: target.base,
    via: target.inProcess ? "in_process" : "network",
    ok: steps.every((s) => s.outcome === "ok"),
    steps,
    proves: PROVES,
    checked_at: now.toISOString(),
  });
  const refusal = (answer: { status: number; text: string; location: string | null }) =>
    answer.status >= 300 && answer.status < 400
      ? `It answered a redirect (${answer.status}) to ${answer.location ?? "nowhere"}: DGII does not follow redirects.`
      : `It answered ${answer.status}.`;

  // 1. Seed (GET …/fe/autenticacion/api/semilla): signed only when it is a seed and nothing else.
  const seedUrl = url("autenticacion/api/semilla");
  const seedAnswer = await exchange(fetcher, seedUrl, { headers: { accept: "application/xml" } }, MAX_SEED_BYTES);
  const later: CheckStepName[] = ["certificate", "reception", "commercial_approval"];
  const laterPaths = ["autenticacion/api/validacioncertificado", "recepcion/api/ecf", "aprobacioncomercial/api/ecf"];
  if ("error" in seedAnswer) {
    step("seed", seedUrl, "failed", seedAnswer.error);
    skipRest(later, laterPaths, "Not tried: the seed failed.");
    return finish();
  }
  if (seedAnswer.status !== 200) {
    step("seed", seedUrl, "failed", `${refusal(seedAnswer)} DGII expects 200 with a seed (SemillaModel).`, seedAnswer);
    skipRest(later, laterPaths, "Not tried: the seed failed.");
    return finish();
  }
  let seed: ReturnType<typeof seedToSign>;
  try {
    seed = seedToSign(seedAnswer.text);
  } catch (error) {
    if (!(error instanceof NotASeed)) throw error;
    step("seed", seedUrl, "failed", `It did not serve a seed, so nothing was signed: ${error.message}`, seedAnswer);
    skipRest(later, laterPaths, "Not tried: the seed failed.");
    return finish();
  }
  step("seed", seedUrl, "ok", "A seed (SemillaModel), signed with the tenant's certificate for the next step.", seedAnswer);

  // 2. Certificate validation (POST …/validacioncertificado, the signed seed) → {token, expira}.
  const validateUrl = url("autenticacion/api/validacioncertificado");
  const validated = await exchange(fetcher, validateUrl, {
    method: "POST",
    body: xmlForm(signXml(seed, material).xml, "semilla.xml"),
    headers: { accept: "application/json" },
  });
  let token: string | null = null;
  if ("error" in validated) step("certificate", validateUrl, "failed", validated.error);
  else if (validated.status !== 200) step("certificate", validateUrl, "failed", `${refusal(validated)} DGII expects 200 with {token, expira}.`, validated);
  else {
    try {
      const body = JSON.parse(validated.text) as { token?: unknown; expira?: unknown };
      if (typeof body.token === "string" && body.token && typeof body.expira === "string") token = body.token;
    } catch {
      // Not JSON: said below.
    }
    if (token) step("certificate", validateUrl, "ok", "The signed seed was accepted: a token and its expiry.", validated);
    else step("certificate", validateUrl, "failed", "It answered 200 without {token, expira} as JSON.", validated);
  }
  if (!token) {
    skipRest(later.slice(1), laterPaths.slice(1), "Not tried: no token from the certificate validation.");
    return finish();
  }
  const headers = { authorization: `Bearer ${token}` };

  // 3. Reception (POST …/fe/recepcion/api/ecf) → an ARECF signed by the receiver, about our e-CF.
  const receptionUrl = url("recepcion/api/ecf");
  const ecf = signXml(buildEcf(checkEcf({ rnc, legalName: company.legalName ?? "Emisor", address: company.address }, now)), material).xml;
  const received = await exchange(fetcher, receptionUrl, {
    method: "POST",
    body: xmlForm(ecf, `${rnc}${CHECK_ENCF}.xml`),
    headers: { ...headers, accept: "application/xml" },
  });
  if ("error" in received) step("reception", receptionUrl, "failed", received.error);
  else if (received.status !== 200) step("reception", receptionUrl, "failed", `${refusal(received)} DGII expects 200 with a signed ARECF.`, received);
  else {
    const [outcome, detail] = judgeArecf(received.text, rnc, trust, now);
    step("reception", receptionUrl, outcome, detail, received);
  }

  // 4. Commercial approval (POST …/fe/aprobacioncomercial/api/ecf): an ACECF of the check's e-CF, signed as its buyer would.
  const approvalUrl = url("aprobacioncomercial/api/ecf");
  const acecf = signXml(
    buildAcecf({ issuerRnc: rnc, encf: CHECK_ENCF, issueDate: now.toISOString().slice(0, 10), totalAmount: "100.00", buyerRnc: rnc, approved: true, at: now }),
    material,
  ).xml;
  const approval = await exchange(fetcher, approvalUrl, { method: "POST", body: xmlForm(acecf, `${rnc}${CHECK_ENCF}.xml`), headers });
  if ("error" in approval) step("commercial_approval", approvalUrl, "failed", approval.error);
  else if (approval.status === 200) step("commercial_approval", approvalUrl, "ok", "It took the ACECF (200).", approval);
  else if (approval.status === 400 && messageBody(approval.text)) {
    step(
      "commercial_approval",
      approvalUrl,
      "ok",
      "It judged the ACECF and refused it with DGII's 400 {mensaje}: right, as the check's e-CF is not one the tenant issued.",
      approval,
    );
  } else step("commercial_approval", approvalUrl, "failed", `${refusal(approval)} DGII expects 200, or 400 with {mensaje}.`, approval);
  return finish();
}

/** A JSON body with DGII's `mensaje` (a string or a list). */
function messageBody(text: string): boolean {
  try {
    const body = JSON.parse(text) as { mensaje?: unknown };
    return typeof body.mensaje === "string" || Array.isArray(body.mensaje);
  } catch {
    return false;
  }
}

/**
 * The ARECF answering the check's e-CF (Formato ARECF v1.0): signed by an accepted certificate naming
 * the tenant's RNC, about our e-NCF; Estado 0, or 1 with CodigoMotivoNoRecibido 4 (the buyer is DGII,
 * not the tenant) — the other reasons say which check of the receiver failed.
 */
function judgeArecf(text: string, rnc: string, trust: NonNullable<ReturnType<typeof trustStoreOf>>, now: Date): ["ok" | "failed", string] {
  try {
    const document = parseUntrustedXml(text);
    const receipt = readArecf(document);
    const signature = verifySignedDocument(document, text, trust, now);
    if (!signature.valid) return ["failed", `The ARECF's signature is not accepted: ${signature.reason}`];
    if (!namesAuthor(signature.signer, rnc))
      return ["failed", `The ARECF is signed by ${signature.signer.subject}, whose certificate does not name the tenant's RNC ${rnc}.`];
    if (receipt.receiverRnc !== rnc || receipt.issuerRnc !== rnc || receipt.encf !== CHECK_ENCF) {
      return [
        "failed",
        `The ARECF is about ${receipt.issuerRnc} ${receipt.encf} received by ${receipt.receiverRnc}, not the check's ${rnc} ${CHECK_ENCF} received by ${rnc}.`,
      ];
    }
    if (receipt.received) return ["ok", "A signed ARECF, Estado 0 (received)."];
    if (receipt.reasonCode === 4)
      return ["ok", "A signed ARECF, Estado 1 with CodigoMotivoNoRecibido 4: the signature and schema passed, and the check's buyer (DGII) is not the tenant."];
    const reasons: Record<number, string> = {
      1: "1 (Error de especificación): the receiver found the e-CF off DGII's schema",
      2: "2 (Error de firma digital): the receiver did not accept the tenant's signature or certificate",
      3: "3 (Envío duplicado)",
    };
    return ["failed", `A signed ARECF, Estado 1 with CodigoMotivoNoRecibido ${reasons[receipt.reasonCode ?? 0] ?? "missing"}.`];
  } catch (error) {
    if (error instanceof EcfReadError || error instanceof UntrustedXmlError) return ["failed", `The answer is not an ARECF: ${error.message}`];
    throw error;
  }
}
