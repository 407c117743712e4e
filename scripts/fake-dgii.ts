import { generateKeyPair, randomUUID, webcrypto, X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { DOMImplementation, DOMParser, XMLSerializer } from "@xmldom/xmldom";
import forge from "node-forge";
import * as xmldsig from "xmldsigjs";
import { SCHEMA_NAMES, type SchemaName, schemaText } from "../src/modules/ecf/formats";
import { command, commandLine, isMain } from "./lib/args";
import { type Authority, makeAuthority } from "./lib/certificates";
import { type LocalServer, listenOnLoopback, serveUntilStopped } from "./lib/local-server";
import { localAuthority } from "./lib/secrets";
import { validateXml } from "./lib/xmllint";

/**
 * A local stand-in for DGII's e-CF services (issue 18), speaking their protocol as DGII's
 * "Descripción técnica de facturación electrónica" describes it, under
 * `/{testecf|certecf|ecf}/…`:
 *
 * - GET  /{env}/autenticacion/api/autenticacion/semilla → a SemillaModel (valor, fecha);
 * - POST /{env}/autenticacion/api/autenticacion/validarsemilla (multipart, field `xml`) → the
 *   seed must be one this fake issued and not used yet, valid against Semilla.xsd
 *   (SCHEMA_JUDGE: DGII's XSDs, or ours without ../shared; libxml2 via xmllint-wasm) and signed — verified with xmldsigjs,
 *   not the library that signs — else 400 with DGII-like messages; → `{token, expira, expedido}`.
 *
 * - POST /{env}/recepcion/api/facturaselectronicas (bearer token; multipart `xml`) → `{trackId}`;
 *   the e-CF is checked at once — its schema (e-CF-{TipoeCF}.xsd), its signature (xmldsigjs), that
 *   the token's signer signed it, the file name RNCEmisor+eNCF.xml, an e-NCF not received before
 *   for that RNC, not an E32 under RD$250,000 (its summary goes to recepcionfc), not a credit note
 *   crediting more than its e-CF's total with the notes before it — and the result kept for the trackId;
 * - GET /{env}/consultaresultado/api/consultas/estado?trackid=… → `{trackId, codigo, estado, rnc,
 *   eNCF, secuenciaUtilizada, fechaRecepcion, mensajes}` (1 Aceptado, 2 Rechazado, 3 En Proceso,
 *   4 Aceptado Condicional): Rechazado with DGII-like messages when the checks failed, else what
 *   the test scripted for the signer, else Aceptado;
 * - POST /{env}/recepcionfc/api/recepcion/ecf (an RFCE: RFCE-32.xsd, signature) → the final
 *   `{codigo, estado, mensajes, encf, secuenciaUtilizada}` at once;
 * - POST /{env}/anulacionrangos/api/operaciones/anularrango (an ANECF: ANECF.xsd, signature,
 *   signer, no range holding an e-NCF it received) → `{rnc, codigo, nombre, mensajes}`, 400 when
 *   refused;
 * - GET /{env}/consultaestado/api/consultas/estado?rncemisor&ncfelectronico[&rnccomprador&codigoseguridad]
 *   → the state and amounts of a received e-CF or RFCE (0 No encontrado when the code differs);
 * - GET /api/estatusservicios/obtenerestatus and …/obtenerventanasmantenimiento (DGII's status host,
 *   `Authorization: Apikey …`) → every service of each environment, "Disponible" unless
 *   `POST /_control/dgii-status {ambiente, servicio, estatus}` says otherwise (`{reset: true}`
 *   clears), and the windows `POST /_control/dgii-windows` gave, in DGII's shape;
 * - GET /{env}/consultarfce/api/Consultas/Consulta?RNC_Emisor&ENCF&Cod_Seguridad_eCF → the state of
 *   a summary (RFCE) it received, `{rnc, encf, secuenciaUtilizada, codigo, estado, mensajes}`, or
 *   No encontrado;
 * - GET /{env}/consultatrackids/api/trackids/consulta?rncemisor&encf → `[{trackId, estado,
 *   fechaRecepcion}]`, every reception of that e-NCF (a resend of a used number is received and
 *   answered rejected, "secuencia ya utilizada"); 400 when the token's signer did not send them;
 * - POST /{env}/aprobacioncomercial/api/aprobacioncomercial (an ACECF; "Recepción de aprobación
 *   comercial": ACECF.xsd, signature, the token's signer signed it) → `{mensaje, estado, codigo}`:
 *   200 with codigo "1", else 400 with codigo "2" and DGII's messages;
 * - GET /{env}/consultadirectorio/api/consultas/listado and …/obtenerdirectorioporrnc?RNC= → the
 *   electronic taxpayers it knows (the RNCs it received from, and those tests register) with
 *   receiver URLs on itself.
 *
 * It also plays other taxpayers (issues 19 and 30): for each RNC it signs as, an RSA key and a
 * certificate of the run's certification authority (`startFakeDgii({authority})`, the one the Worker
 * trusts as ECF_TRUSTED_CA_PEM; CN "Proveedor Fake SRL", the RNC in the subject's serialNumber),
 * made on first use, signing with xmldsigjs — as "Firmado de e-CF" asks:
 * enveloped, C14N 1.0, RSA-SHA256, SHA-256 digest, Reference URI="", the certificate in KeyInfo,
 * the Signature as the root's last child; with the `ds:` prefix xmldsigjs writes, which a verifier
 * must accept as it accepts DGII's unprefixed example. Every taxpayer of the directory has a
 * receiver ("Estándar de comunicación Emisor - Receptor") under `/{env}/receptor/{rnc}/fe/`, paths
 * case-insensitive as that section requires:
 *
 * - GET …/autenticacion/api/semilla and POST …/autenticacion/api/validacioncertificado (checked as
 *   validarsemilla; tokens of that receiver only);
 * - POST …/aprobacioncomercial/api/ecf (bearer; an ACECF about an e-CF that RNC issued: ACECF.xsd,
 *   signature, the token's signer) → 200, else 400 `{mensaje}`;
 * - POST …/recepcion/api/ecf (bearer) → recorded, answered with an ARECF signed as that receiver's
 *   RNC: Estado 0, or 1 with CodigoMotivoNoRecibido 1 (schema), 2 (signature), 4 (RNCComprador not it).
 *
 * A receiver can be scripted hostile (`POST /_control/receiver-hostile` with JSON `{rnc, seed?,
 * answer?}`): its seed service serves DGII's seed, an e-CF, an ANECF, a seed with a DOCTYPE or an
 * extra element, an oversized seed or a redirect instead of a seed; its reception answers an
 * oversized ARECF, one signed by another taxpayer, or a redirect. DGII's own seed service can be
 * scripted so too for the next calls of one environment (`POST /_control/dgii-hostile-seed` with JSON
 * `{kind, calls, environment}`).
 *
 * - GET /{env}/consultatimbre and /{env}/consultatimbrefc (public) → DGII's timbre page, the one a
 *   printed e-CF's QR opens, for a document this stand-in received (`timbrePage`).
 *
 * A token, a document and a script belong to a signer: the certificate's subject CN (tests give
 * each tenant a certificate of its own). Control, for tests: `GET /_control/tokens`,
 * `POST /_control/token-ttl?seconds=` (life of the next tokens), `POST /_control/script` with JSON
 * `{signer, down?: n, drop?: n, unindexed?: n, results?: ["in_process", "accepted", "accepted_conditional", "rejected",
 * "rejected_unused"], reject?: [eNCF]}` (the next n calls from that signer answer 503; its next `drop` e-CF or summaries (RFCE) are
 * received and kept, then the connection is cut before the answer, as when a send's answer is lost;
 * its next `unindexed` trackIds lookups find nothing yet, as before DGII has indexed a reception;
 * the next result queries of its documents, and its summaries, answer these states in order; a
 * final state is then that trackId's for good; the first document of an e-NCF in `reject`, e-CF or
 * summary, is answered rejected, as DGII rejects a chosen case of a test set; `answers: [{service, status, body}]` — its next call
 * to `service` (the path's first segment: "recepcion", "consultaresultado", "recepcionfc",
 * "anulacionrangos") is answered `status` with that JSON `body` instead, still recorded as received: how DGII's
 * answers that contradict their HTTP status are played, a refusal with 200 or an acceptance with
 * 400), `POST /_control/expire-tokens?signer=` (its tokens stop
 * working: 401), `GET /_control/received?signer=` (what it sent: kind, eNCF, trackId, errors, xml),
 * `GET /_control/annulments?signer=` (its ANECF and the fake's verdicts), `GET
 * /_control/approvals?signer=` (its ACECF and the verdicts), `POST /_control/directory` with JSON
 * `{rnc, name, url?}` (an electronic taxpayer in the directory, its receiver on this fake unless
 * `url` names another). The other taxpayer: `GET /_control/supplier?rnc=` (`{name, rnc,
 * certificatePem}`), `GET /_control/authority` (the authority's certificate), `POST
 * /_control/supplier/sign` with JSON `{xml, rnc?}` → `{xml}` signed as `rnc` (by default the
 * document's author: RNCEmisor of an e-CF, RNCComprador of an ACECF or ARECF), `POST /_control/verify` with JSON `{xml, xsd?}` → `{signature, signer,
 * schemaErrors}` (xmldsigjs; libxml2 with `xsd` of xsd-strict), `POST /_control/receiver-down` with
 * JSON `{rnc, calls}` (that receiver's next calls answer 503), `GET /_control/receiver-approvals?rnc=`
 * `GET /_control/receiver-received?rnc=` and `GET /_control/receiver-seeds?rnc=` (what its receiver
 * took, with the verdicts; the seeds signed for it).
 */
xmldsig.Application.setEngine("WebCrypto", webcrypto as unknown as Crypto);

/**
 * The schemas this fake judges documents by: DGII's own XSDs when ../shared/dgii is there (CI, this
 * workspace), so that what we build is checked by a judge independent of our definitions; else (a
 * clone on its own) our definitions, src/modules/ecf/formats/. Said in the log at start.
 */
const XSD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../shared/dgii/xsd-strict");
const DGII_SCHEMAS = existsSync(XSD_DIR);
export const SCHEMA_JUDGE = DGII_SCHEMAS ? `DGII's XSDs (${XSD_DIR})` : "our definitions (src/modules/ecf/formats; ../shared/dgii is absent)";

/** The text of schema `xsd` ("e-CF-31.xsd", "ARECF.xsd", …), or null when there is none. */
function schemaSource(xsd: string): string | null {
  if (DGII_SCHEMAS) return existsSync(path.join(XSD_DIR, xsd)) ? readFileSync(path.join(XSD_DIR, xsd), "utf8") : null;
  const name = xsd.replace(/\.xsd$/, "") as SchemaName;
  return SCHEMA_NAMES.includes(name) ? schemaText(name) : null;
}

interface Token {
  environment: string;
  expires: Date;
  signer: string;
  revoked?: boolean;
}

type ScriptedState = "in_process" | "accepted" | "accepted_conditional" | "rejected" | "rejected_unused";
/** An answer given instead of the computed one (`answers` of /_control/script). */
type ScriptedAnswer = { service: string; status: number; body: unknown };

interface Received {
  kind: "ecf" | "rfce";
  signer: string;
  environment: string;
  encf: string;
  rnc: string;
  trackId: string | null;
  fileName: string;
  errors: string[];
  xml: string;
  at: string;
  /** The final state once answered: later queries of the trackId answer it again. */
  final: ScriptedState | null;
  /** A resend of an e-NCF DGII already received whole: its result is "secuencia ya utilizada". */
  resend?: boolean;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * DGII's timbre page, the one a printed e-CF's QR opens (Descripción técnica, "Consulta timbre
 * (QR)" and "Consulta timbre FC (QR)"): public, by the timbre's parameters. The document is found
 * when the issuer, the e-NCF, the security code and the total are those of one this stand-in
 * received (the e-CF, or an E32's summary with `fc`), as DGII answers "No fue encontrada la factura
 * (e-CF)" otherwise. It shows DGII's outputs: issuer and buyer (RNC, name), e-NCF, issue date,
 * ITBIS, total and the state (Aceptado, Aceptado Condicional, Rechazado; En Proceso while the
 * stand-in has not yet answered its result).
 */
function timbrePage(received: readonly Received[], environment: string, fc: boolean, query: URLSearchParams): string {
  const rnc = query.get("rncemisor") ?? "";
  const encf = (query.get("encf") ?? "").toUpperCase();
  const code = query.get("codigoseguridad") ?? "";
  const total = Number(query.get("montototal"));
  const document = [...received]
    .reverse()
    .find(
      (r) =>
        r.kind === (fc ? "rfce" : "ecf") &&
        r.environment === environment &&
        r.rnc === rnc &&
        r.encf === encf &&
        !r.errors.length &&
        (field(r.xml, "CodigoSeguridadeCF") || field(r.xml, "SignatureValue").slice(0, 6)) === code &&
        Number(field(r.xml, "MontoTotal")) === total,
    );
  const title = fc ? "Consulta Timbre Factura de Consumo Electrónica" : "Consulta Timbre e-CF";
  const page = (body: string) =>
    `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}<p>Servicio local que hace las veces de la DGII (${environment}).</p></body></html>`;
  if (!document) return page(`<p id="estado">No fue encontrada la factura (e-CF)</p>`);
  const final = document.final ?? "in_process";
  const state = final === "rejected_unused" ? STATES.rejected.estado : STATES[final].estado;
  const rows: [string, string][] = [
    ["RNC Emisor", rnc],
    ["Razón social emisor", field(document.xml, "RazonSocialEmisor")],
    ...(fc
      ? []
      : ([
          ["RNC Comprador", field(document.xml, "RNCComprador")],
          ["Razón social comprador", field(document.xml, "RazonSocialComprador")],
        ] as [string, string][])),
    ["e-NCF", encf],
    ["Fecha de Emisión", field(document.xml, "FechaEmision")],
    ["Total de ITBIS", field(document.xml, "TotalITBIS") || "0.00"],
    ["Monto Total", field(document.xml, "MontoTotal")],
    ["Estado", state],
  ];
  return page(`<table>${rows.map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`).join("")}</table>`);
}

export interface FakeDgii extends LocalServer {
  tokens: Map<string, Token>;
}

async function verifySignature(xml: string): Promise<boolean> {
  const document = new DOMParser().parseFromString(xml, "application/xml");
  const signature = document.getElementsByTagNameNS("http://www.w3.org/2000/09/xmldsig#", "Signature")[0];
  if (!signature) return false;
  const signed = new xmldsig.SignedXml(document as unknown as ConstructorParameters<typeof xmldsig.SignedXml>[0]);
  signed.LoadXml(signature as unknown as Parameters<typeof signed.LoadXml>[0]);
  try {
    return await signed.Verify();
  } catch {
    return false;
  }
}

/** The subject CN of the certificate in a signed document's KeyInfo (node's X509Certificate: not what signs). */
function signerOf(xml: string): string | null {
  const base64 = /<(?:[\w.-]+:)?X509Certificate>([^<]+)<\/(?:[\w.-]+:)?X509Certificate>/.exec(xml)?.[1];
  if (!base64) return null;
  try {
    const subject = new X509Certificate(Buffer.from(base64.replace(/\s+/g, ""), "base64")).subject;
    return /^CN=(.*)$/m.exec(subject)?.[1] ?? subject;
  } catch {
    return null;
  }
}

/** The name of the other taxpayer this fake plays (the supplier's certificate CN). */
export const SUPPLIER_NAME = "Proveedor Fake SRL";

/**
 * xmldsigjs builds the Signature through its own copy of xml-core, which in Node needs a DOM
 * registered with it, and xmldsigjs 2.8 does not re-export that registration: the copy xmldsigjs
 * itself resolves is imported (its ESM entry, the one xmldsigjs loads) and given @xmldom/xmldom.
 */
async function registerXmlDom(): Promise<void> {
  const fromXmldsig = createRequire(createRequire(import.meta.url).resolve("xmldsigjs/package.json"));
  const manifest = fromXmldsig.resolve("xml-core/package.json");
  const entry = (JSON.parse(readFileSync(manifest, "utf8")) as { exports: { ".": { import: string } } }).exports["."].import;
  const xmlCore = (await import(pathToFileURL(path.join(path.dirname(manifest), entry)).href)) as {
    setNodeDependencies(deps: Record<string, unknown>): void;
  };
  xmlCore.setNodeDependencies({ DOMParser, XMLSerializer, DOMImplementation });
}

/** The RNC the other taxpayer signs as when a test names none (a seed, a foreign document). */
export const SUPPLIER_RNC = "130000001";

/**
 * The other taxpayer, signing as one RNC: an RSA 2048 key (node:crypto) and a certificate the run's
 * certification authority issues it (node-forge; CN SUPPLIER_NAME, the RNC in the subject's
 * organizationIdentifier `VATDO-…`, a cédula in its serialNumber `IDCDO-…`, as INDOTEL-accredited
 * authorities write them), and xmldsigjs to sign with.
 */
async function taxpayerIdentity(authority: Authority, rnc: string) {
  const { privateKey, publicKey } = await promisify(generateKeyPair)("rsa", { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString());
  // 01 first: a minimal, positive DER INTEGER (a leading zero byte would not re-encode as signed).
  cert.serialNumber = `01${randomUUID().replace(/-/g, "").slice(0, 14)}`;
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  cert.setSubject([
    { shortName: "CN", value: SUPPLIER_NAME },
    rnc.length === 11
      ? { name: "serialNumber", value: `IDCDO-${rnc}` }
      : // forge writes the tag number (a UTF8String) into valueTagClass; its types call that field an asn1.Class.
        { type: "2.5.4.97", value: `VATDO-${rnc}`, valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class },
    { shortName: "C", value: "DO" },
  ]);
  cert.setIssuer(forge.pki.certificateFromPem(authority.certificatePem).subject.attributes);
  cert.setExtensions([{ name: "keyUsage", digitalSignature: true, nonRepudiation: true, critical: true }]);
  cert.sign(forge.pki.privateKeyFromPem(authority.privateKeyPem), forge.md.sha256.create());
  const certificateBase64 = forge.util.encode64(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes());
  const key = await webcrypto.subtle.importKey(
    "pkcs8",
    privateKey.export({ type: "pkcs8", format: "der" }),
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return {
    rnc,
    certificatePem: forge.pki.certificateToPem(cert),
    /** The document signed as this taxpayer, its Signature appended as the root's last child. */
    async sign(xml: string): Promise<string> {
      const errors: string[] = [];
      // Warnings too: xmldom repairs an unclosed element with a warning, and a broken document is the caller's error.
      const collect = (message: string) => void errors.push(message);
      const document = new DOMParser({ errorHandler: { warning: collect, error: collect, fatalError: collect } }).parseFromString(xml, "application/xml");
      if (errors.length || !document.documentElement) throw new Error(`Not well-formed XML: ${errors.join("; ")}`);
      const signed = new xmldsig.SignedXml(document as unknown as ConstructorParameters<typeof xmldsig.SignedXml>[0]);
      signed.XmlSignature.SignedInfo.CanonicalizationMethod.Algorithm = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315";
      await signed.Sign({ name: "RSASSA-PKCS1-v1_5" }, key as unknown as CryptoKey, document as unknown as Parameters<typeof signed.Sign>[2], {
        x509: [certificateBase64],
        references: [{ uri: "", hash: "SHA-256", transforms: ["enveloped"] }],
      });
      document.documentElement.appendChild(signed.GetXml() as unknown as Node);
      return new XMLSerializer().serializeToString(document);
    },
  };
}

type TaxpayerIdentity = Awaited<ReturnType<typeof taxpayerIdentity>>;

/**
 * Who a document names as its author, whom the other taxpayer signs it as: RNCEmisor of an e-CF or
 * RFCE, RNCComprador of an ACECF or ARECF (the buyer approves and acknowledges); SUPPLIER_RNC else.
 */
function authorOf(xml: string): string {
  const root = /<([A-Za-z]+)[\s>/]/.exec(xml.replace(/^<\?xml[^>]*\?>/, ""))?.[1];
  const rnc = root === "ACECF" || root === "ARECF" ? field(xml, "RNCComprador") : root === "ECF" || root === "RFCE" ? field(xml, "RNCEmisor") : "";
  return /^(\d{9}|\d{11})$/.test(rnc) ? rnc : SUPPLIER_RNC;
}

/**
 * What a hostile receiver serves instead of a seed at /fe/autenticacion/api/semilla (tests script it
 * with POST /_control/receiver-hostile): DGII's own seed, an e-CF or an ANECF to get signed, a seed
 * with a DOCTYPE, one beyond the size a seed has, or a redirect elsewhere.
 */
type HostileSeed = "dgii-seed" | "ecf" | "anecf" | "doctype" | "oversized" | "redirect" | "extra-element";

const field = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? "";

const STATES: Record<Exclude<ScriptedState, "rejected_unused">, { codigo: number; estado: string }> = {
  accepted: { codigo: 1, estado: "Aceptado" },
  rejected: { codigo: 2, estado: "Rechazado" },
  in_process: { codigo: 3, estado: "En Proceso" },
  accepted_conditional: { codigo: 4, estado: "Aceptado Condicional" },
};

async function schemaErrors(xml: string, xsd: string): Promise<string[]> {
  const result = await validateXml([{ fileName: "document.xml", contents: xml }], [{ fileName: xsd, contents: schemaSource(xsd) ?? "" }]);
  return result.valid ? [] : result.errors.map((error) => error.message);
}

/** The `xml` part of a multipart/form-data body (what DGII's services take). */
function multipartXml(body: Buffer, contentType: string): string | null {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  if (!boundary) return null;
  for (const part of body.toString("utf8").split(`--${boundary}`)) {
    const [head, ...rest] = part.split("\r\n\r\n");
    if (head && /name="xml"/.test(head)) return rest.join("\r\n\r\n").replace(/\r\n$/, "");
  }
  return null;
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

const readJson = async <T>(req: http.IncomingMessage) => JSON.parse((await readBody(req)).toString("utf8")) as T;

/** A SemillaModel with a fresh value, remembered in `seeds` until it is used. */
function newSeed(seeds: Set<string>): string {
  const value = Buffer.from(randomUUID()).toString("base64");
  seeds.add(value);
  return `<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><valor>${value}</valor><fecha>${new Date().toISOString()}</fecha></SemillaModel>`;
}

/** A signed seed's signer when it is a seed of `seeds` not used yet, valid and signed; else the messages. */
async function seedSigner(xml: string | null, seeds: Set<string>): Promise<{ signer: string } | { errors: string[] }> {
  if (!xml) return { errors: ["No se recibió el archivo xml."] };
  const errors = await schemaErrors(xml, "Semilla.xsd");
  if (errors.length) return { errors };
  if (!seeds.delete(field(xml, "valor"))) return { errors: ["Semilla inválida o ya utilizada."] };
  if (!(await verifySignature(xml))) return { errors: ["La firma del archivo no es válida."] };
  return { signer: signerOf(xml) ?? "" };
}

/**
 * An ACECF's checks, as "Recepción de aprobación comercial" lists them (Descripción técnica,
 * VALIDACIONES): structure against ACECF.xsd, the signature, and that the certificate is the
 * token's — the approver's, the e-CF's buyer (RNCComprador).
 */
async function approvalErrors(xml: string | null, signer: string): Promise<string[]> {
  if (!xml) return ["Tipo de archivo no válido, favor proveer un XML"];
  const errors = (await schemaErrors(xml, "ACECF.xsd")).map(
    (message) =>
      `La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente. ${message.trim()}`,
  );
  if (!(await verifySignature(xml))) errors.push("La firma del XML no es válida");
  if (signerOf(xml) !== signer) errors.push(`El RNC del certificado no está delegado para realizar transacciones para el RNC: ${field(xml, "RNCComprador")}.`);
  return errors;
}

/** What was received as a commercial approval (by DGII or by a receiver) or as an e-CF (by a receiver). */
interface Exchange {
  kind: "acecf" | "ecf" | "seed";
  signer: string;
  environment: string;
  /** The receiver's RNC (for DGII's reception, the approver's: RNCComprador). */
  rnc: string;
  rncEmisor: string;
  encf: string;
  xml: string;
  errors: string[];
  at: string;
}

const exchange = (kind: Exchange["kind"], token: Token, rnc: string, xml: string | null, errors: string[]): Exchange => ({
  kind,
  signer: token.signer,
  environment: token.environment,
  rnc,
  rncEmisor: field(xml ?? "", "RNCEmisor"),
  encf: field(xml ?? "", "eNCF"),
  xml: xml ?? "",
  errors,
  at: new Date().toISOString(),
});

/** dd-MM-yyyy HH:mm:ss in Dominican time (UTC-4, no daylight saving), as DGII's DateAndTime types take it. */
function dominicanDateTime(at: Date): string {
  const [date, time] = new Date(at.getTime() - 4 * 3_600_000).toISOString().slice(0, 19).split("T");
  const [year, month, day] = date!.split("-");
  return `${day}-${month}-${year} ${time}`;
}

/** A 302 to `location`: a receiver that would have the sender follow it somewhere else. */
function redirect(send: (status: number, body: unknown, type?: string, headers?: Record<string, string>) => void, location: string) {
  return send(302, "", "text/plain", { location });
}

const hostileSeed = (
  kind: HostileSeed,
  send: (status: number, body: unknown, type?: string, headers?: Record<string, string>) => void,
  environment: string,
  rnc: string,
) => {
  const seed = newSeed(new Set());
  switch (kind) {
    case "dgii-seed":
      return send(200, seed, "application/xml");
    case "ecf":
      return send(
        200,
        `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000001</eNCF></IdDoc><Emisor><RNCEmisor>${rnc}</RNCEmisor></Emisor></Encabezado></ECF>`,
        "application/xml",
      );
    case "anecf":
      return send(
        200,
        `<?xml version="1.0" encoding="utf-8"?><ANECF><Encabezado><Version>1.0</Version><RncEmisor>${rnc}</RncEmisor><CantidadeNCFAnulados>1</CantidadeNCFAnulados></Encabezado></ANECF>`,
        "application/xml",
      );
    case "doctype":
      return send(200, seed.replace("<SemillaModel", '<!DOCTYPE SemillaModel [<!ENTITY v "x">]><SemillaModel'), "application/xml");
    case "oversized":
      return send(200, seed.replace("<fecha>", `<!--${"x".repeat(8 * 1024)}--><fecha>`), "application/xml");
    case "extra-element":
      return send(200, seed.replace("</SemillaModel>", `<eNCF>E310000000001</eNCF></SemillaModel>`), "application/xml");
    case "redirect":
      return redirect(send, `http://127.0.0.1:1/${environment}/autenticacion/api/autenticacion/semilla`);
  }
};

export async function startFakeDgii(options: { authority?: Authority } = {}): Promise<FakeDgii> {
  console.log(`fake DGII: documents judged by ${SCHEMA_JUDGE}`);
  await registerXmlDom();
  const authority = options.authority ?? (await makeAuthority());
  /** The other taxpayers' identities, by RNC, each made on first use. */
  const identities = new Map<string, Promise<TaxpayerIdentity>>();
  const identityFor = (rnc: string) => {
    const known = identities.get(rnc) ?? taxpayerIdentity(authority, rnc);
    identities.set(rnc, known);
    return known;
  };
  /** Receivers scripted to be hostile (POST /_control/receiver-hostile), by RNC. */
  const hostile = new Map<string, { seed?: HostileSeed; answer?: "oversized" | "redirect" | "wrong-signer" }>();
  const seeds = new Set<string>();
  const tokens = new Map<string, Token>();
  let ttlSeconds = 3600;
  const scripts = new Map<
    string,
    { down: number; drop: number; unindexed: number; results: ScriptedState[]; answers: ScriptedAnswer[]; reject: Set<string> }
  >();
  const received: Received[] = [];
  const annulments: { signer: string; environment: string; rnc: string; xml: string; errors: string[] }[] = [];
  const script = (signer: string) => {
    const entry = scripts.get(signer) ?? { down: 0, drop: 0, unindexed: 0, results: [], answers: [], reject: new Set<string>() };
    scripts.set(signer, entry);
    return entry;
  };
  /** A scripted outage: the signer's next calls answer 503. */
  /** The state DGII decides for a document of the signer: rejected once when its e-NCF was scripted so, else the next scripted state, else accepted. */
  const decide = (signer: string, encf: string): ScriptedState => {
    const entry = script(signer);
    if (entry.reject.delete(encf)) return "rejected";
    return entry.results.shift() ?? "accepted";
  };
  const isDown = (signer: string | null) => {
    const entry = signer ? scripts.get(signer) : undefined;
    if (!entry?.down) return false;
    entry.down -= 1;
    return true;
  };
  const approvals: Exchange[] = [];
  /** DGII's status service (statusecf): every service available until a test says otherwise; no windows. */
  const STATUS_SERVICES = [
    "Autenticación",
    "Recepción",
    "Consulta Resultado",
    "Consulta Estado",
    "Consulta Directorio",
    "Consulta TrackIds",
    "Aprobación Comercial",
    "Anulación Rangos",
    "Recepción FC",
  ];
  const serviceStates = new Map<string, string>();
  let maintenanceWindows: unknown[] = [];
  /** Electronic taxpayers registered by tests: RNC → name; and the receiver URL a test gave one instead of this fake's. */
  const directory = new Map<string, string>();
  const directoryUrls = new Map<string, string>();
  /** DGII's own seed service serving something else for its next `calls` calls (POST /_control/dgii-hostile-seed). */
  let hostileDgiiSeed: { kind: HostileSeed; calls: number; environment: string } | null = null;
  /** The receivers of the directory's taxpayers, by RNC: their seeds, tokens, outages and what they took. */
  const receivers = new Map<string, { seeds: Set<string>; tokens: Map<string, Token>; down: number; log: Exchange[] }>();
  const receiverOf = (rnc: string) => {
    const entry = receivers.get(rnc) ?? { seeds: new Set<string>(), tokens: new Map<string, Token>(), down: 0, log: [] };
    receivers.set(rnc, entry);
    return entry;
  };
  /** The directory: every RNC it received from (named as its e-CF names it), then those registered. */
  const taxpayers = () => new Map([...received.map((r) => [r.rnc, field(r.xml, "RazonSocialEmisor")] as const), ...directory.entries()]);
  const issueToken = (store: Map<string, Token>, environment: string, signer: string) => {
    const token = Buffer.from(randomUUID()).toString("base64url");
    const issued = new Date();
    const expires = new Date(issued.getTime() + ttlSeconds * 1000);
    store.set(token, { environment, expires, signer });
    const stamp = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;
    return { token, expira: stamp(expires), expedido: stamp(issued) };
  };
  const tokenOf = (req: http.IncomingMessage, environment: string, store = tokens): Token | "expired" | null => {
    const value = /^bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim();
    const token = value ? store.get(value) : undefined;
    if (!token || token.environment !== environment) return null;
    if (token.revoked || token.expires.getTime() < Date.now()) return "expired";
    return token;
  };

  /** The checks DGII makes of a received document; its messages when it fails them. */
  async function check(xml: string, xsd: string, token: Token, fileName: string, kind: Received["kind"]): Promise<string[]> {
    const errors = (await schemaErrors(xml, xsd)).map((message) => `Estructura del comprobante (XML) no es válida: ${message.trim()}`);
    if (!(await verifySignature(xml))) errors.push("Certificado y/o firma inválida.");
    if (signerOf(xml) !== token.signer)
      errors.push("Firmante del comprobante fiscal electrónico no corresponde a un delegado autorizado para hacer transacciones para el RNC Emisor.");
    const rnc = field(xml, "RNCEmisor");
    const encf = field(xml, "eNCF");
    if (fileName !== `${rnc}${encf}.xml`) errors.push(`El nombre del archivo debe ser RNCEmisor+eNCF.xml (${rnc}${encf}.xml), no ${fileName}.`);
    // A number DGII received is used, unless it was rejected with secuenciaUtilizada false.
    const used = (r: Received) => !r.errors.length && r.final !== "rejected_unused";
    if (received.some((r) => r.kind === kind && r.rnc === rnc && r.encf === encf && r.environment === token.environment && used(r))) {
      errors.push(`El e-NCF ${encf} ya fue recibido.`);
    }
    return errors;
  }

  /**
   * What DGII's reception refuses of an e-CF beyond its structure: an E32 under RD$250,000, whose
   * summary goes to Recepción FC instead (Descripción técnica, "Recepción de e-CF": "no serán
   * recibidos por este servicio"); a credit note (E34) that, with the notes DGII took before, credits
   * more than the e-CF it modifies (Formato e-CF v1.0, MontoTotal, note 30: the sum of the credit
   * notes of an e-CF is at most its total). The e-CF modified is one DGII holds from that issuer,
   * whole or as a summary, not refused.
   */
  function receptionRules(xml: string, environment: string): string[] {
    const cents = (text: string) => Math.round(Number(text || "0") * 100);
    const total = cents(field(xml, "MontoTotal"));
    const type = field(xml, "TipoeCF");
    const rnc = field(xml, "RNCEmisor");
    if (type === "32" && total < 250_000_00)
      return [
        "Las Facturas de Consumo Electrónica con un monto inferior a los RD$250,000.00 no son recibidas por este servicio: remita su resumen (RFCE) a la recepción de resumen factura de consumo.",
      ];
    const modified = field(xml, "NCFModificado");
    if (type !== "34" || !modified) return [];
    const standing = (r: Received) =>
      r.rnc === rnc && r.environment === environment && !r.errors.length && !r.resend && r.final !== "rejected" && r.final !== "rejected_unused";
    const invoice = received.find((r) => standing(r) && r.encf === modified);
    if (!invoice) return [];
    const credited = received
      .filter((r) => standing(r) && r.kind === "ecf" && field(r.xml, "TipoeCF") === "34" && field(r.xml, "NCFModificado") === modified)
      .reduce((sum, r) => sum + cents(field(r.xml, "MontoTotal")), 0);
    const limit = cents(field(invoice.xml, "MontoTotal"));
    if (credited + total <= limit) return [];
    const money = (c: number) => (c / 100).toFixed(2);
    return [
      `La sumatoria de los montos de las notas de crédito (${money(credited + total)}) excede el monto total del e-CF modificado ${modified} (${money(limit)}).`,
    ];
  }

  type Send = (status: number, body: unknown, type?: string, headers?: Record<string, string>) => void;
  /**
   * The receiver of another taxpayer (Descripción técnica, "Estándar de comunicación Emisor -
   * Receptor"): authentication as DGII's, then its commercial approvals and e-CF reception.
   */
  async function receive(req: http.IncomingMessage, send: Send, environment: string, rnc: string, resource: string) {
    if (!taxpayers().has(rnc)) return send(404, { mensaje: "Recurso no encontrado" });
    const receiver = receiverOf(rnc);
    if (receiver.down > 0) {
      receiver.down -= 1;
      return send(503, { mensaje: "Servicio no disponible temporalmente." });
    }
    const script = hostile.get(rnc) ?? {};
    if (resource === "autenticacion/api/semilla" && req.method === "GET") {
      if (script.seed) return hostileSeed(script.seed, send, environment, rnc);
      return send(200, newSeed(receiver.seeds), "application/xml");
    }
    if (req.method !== "POST") return send(405, { mensaje: "Método no permitido" });
    const xml = multipartXml(await readBody(req), req.headers["content-type"] ?? "");
    if (resource === "autenticacion/api/validacioncertificado") {
      // Whatever a sender signed for this receiver is kept, so a test sees what a hostile seed got signed.
      receiver.log.push({ ...exchange("seed", { environment, expires: new Date(), signer: signerOf(xml ?? "") ?? "" }, rnc, xml, []) });
      const seed = await seedSigner(xml, receiver.seeds);
      if ("errors" in seed) return send(400, { mensaje: seed.errors });
      return send(200, issueToken(receiver.tokens, environment, seed.signer));
    }
    const token = tokenOf(req, environment, receiver.tokens);
    if (token === null) return send(401, { mensaje: "Token no válido." });
    if (token === "expired") return send(401, { mensaje: "El token ha expirado." });
    if (resource === "aprobacioncomercial/api/ecf") {
      const errors = await approvalErrors(xml, token.signer);
      // A taxpayer is sent the approvals of the e-CF it issued.
      if (xml && field(xml, "RNCEmisor") !== rnc) errors.push(`El RNCEmisor ${field(xml, "RNCEmisor")} no es el de este receptor (${rnc}).`);
      receiver.log.push(exchange("acecf", token, rnc, xml, errors));
      return errors.length ? send(400, { mensaje: errors }) : send(200, { mensaje: [] });
    }
    // Recepción: an ARECF (formato-arecf-v1.0), signed as the supplier: Estado 0 received, or 1
    // with CodigoMotivoNoRecibido 1 specification, 2 signature, 3 duplicate, 4 not its buyer.
    const type = field(xml ?? "", "TipoeCF");
    const duplicate = (e: Exchange) =>
      e.kind === "ecf" && !e.errors.length && e.rncEmisor === field(xml ?? "", "RNCEmisor") && e.encf === field(xml ?? "", "eNCF");
    const reason =
      !xml || !/^(31|32|33|34|41|43|44|45|46|47)$/.test(type) || (await schemaErrors(xml, `e-CF-${type}.xsd`)).length
        ? 1
        : !(await verifySignature(xml))
          ? 2
          : receiver.log.some(duplicate)
            ? 3
            : field(xml, "RNCComprador") !== rnc
              ? 4
              : 0;
    receiver.log.push(exchange("ecf", token, rnc, xml, reason ? [`CodigoMotivoNoRecibido ${reason}`] : []));
    const detail =
      `<Version>1.0</Version><RNCEmisor>${field(xml ?? "", "RNCEmisor")}</RNCEmisor><RNCComprador>${rnc}</RNCComprador>` +
      `<eNCF>${field(xml ?? "", "eNCF")}</eNCF><Estado>${reason ? 1 : 0}</Estado>${reason ? `<CodigoMotivoNoRecibido>${reason}</CodigoMotivoNoRecibido>` : ""}` +
      `<FechaHoraAcuseRecibo>${dominicanDateTime(new Date())}</FechaHoraAcuseRecibo>`;
    const arecf = `<?xml version="1.0" encoding="utf-8"?><ARECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><DetalleAcusedeRecibo>${detail}</DetalleAcusedeRecibo></ARECF>`;
    if (script.answer === "redirect") return redirect(send, `http://169.254.169.254/latest/meta-data/`);
    // Signed by the receiver it names (RNCComprador), or by another taxpayer when scripted so.
    const signed = await (await identityFor(script.answer === "wrong-signer" ? SUPPLIER_RNC : rnc)).sign(arecf);
    if (script.answer === "oversized") return send(200, signed.replace("</ARECF>", `<!--${"x".repeat(200 * 1024)}--></ARECF>`), "application/xml");
    return send(200, signed, "application/xml");
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://dgii.local");
    /** A scripted answer (`answers` of /_control/script) replacing what this request computes. */
    let scriptedAnswer: ScriptedAnswer | null = null;
    const send = (status: number, body: unknown, type = "application/json", headers: Record<string, string> = {}) => {
      if (scriptedAnswer) {
        ({ status, body } = scriptedAnswer);
        type = "application/json";
      }
      res.writeHead(status, { "content-type": type, ...headers });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    try {
      if (url.pathname === "/_control/tokens")
        return send(
          200,
          [...tokens.entries()].map(([token, t]) => ({ token, ...t })),
        );
      if (url.pathname === "/_control/token-ttl" && req.method === "POST") {
        ttlSeconds = Number(url.searchParams.get("seconds") ?? 3600);
        return send(200, { ttlSeconds });
      }
      if (url.pathname === "/_control/script" && req.method === "POST") {
        const body = JSON.parse((await readBody(req)).toString("utf8")) as {
          signer: string;
          down?: number;
          drop?: number;
          unindexed?: number;
          results?: ScriptedState[];
          reject?: string[];
          answers?: ScriptedAnswer[];
        };
        const entry = script(body.signer);
        for (const encf of body.reject ?? []) entry.reject.add(encf);
        if (body.down !== undefined) entry.down = body.down;
        if (body.drop !== undefined) entry.drop = body.drop;
        if (body.unindexed !== undefined) entry.unindexed = body.unindexed;
        if (body.results) entry.results.push(...body.results);
        if (body.answers) entry.answers.push(...body.answers);
        return send(200, entry);
      }
      if (url.pathname === "/_control/expire-tokens" && req.method === "POST") {
        const signer = url.searchParams.get("signer");
        let expired = 0;
        for (const token of tokens.values()) {
          if (token.signer === signer && !token.revoked) {
            token.revoked = true;
            expired++;
          }
        }
        return send(200, { expired });
      }
      if (url.pathname === "/_control/annulments") {
        const signer = url.searchParams.get("signer");
        return send(
          200,
          annulments.filter((r) => r.signer === signer),
        );
      }
      if (url.pathname === "/_control/approvals") {
        const signer = url.searchParams.get("signer");
        return send(
          200,
          approvals.filter((r) => r.signer === signer),
        );
      }
      if (url.pathname === "/_control/directory" && req.method === "POST") {
        const body = await readJson<{ rnc: string; name: string; url?: string }>(req);
        if (!/^(\d{9}|\d{11})$/.test(body.rnc ?? "") || !body.name) return send(400, { mensaje: "rnc (9 or 11 digits) and name are required." });
        directory.set(body.rnc, body.name);
        // A receiver URL of the taxpayer's own choosing (DGII lists what each taxpayer registers), instead of one on this fake.
        if (body.url) directoryUrls.set(body.rnc, body.url);
        else directoryUrls.delete(body.rnc);
        return send(200, { rnc: body.rnc, nombre: body.name });
      }
      if (url.pathname === "/_control/dgii-hostile-seed" && req.method === "POST") {
        const body = await readJson<{ kind: HostileSeed; calls: number; environment?: string }>(req);
        hostileDgiiSeed = body.calls > 0 ? { kind: body.kind, calls: body.calls, environment: body.environment ?? "certecf" } : null;
        return send(200, hostileDgiiSeed ?? {});
      }
      if (url.pathname === "/_control/supplier") {
        const rnc = url.searchParams.get("rnc") ?? SUPPLIER_RNC;
        return send(200, { name: SUPPLIER_NAME, rnc, certificatePem: (await identityFor(rnc)).certificatePem });
      }
      if (url.pathname === "/_control/authority") return send(200, { certificatePem: authority.certificatePem });
      if (url.pathname === "/_control/receiver-hostile" && req.method === "POST") {
        const body = await readJson<{ rnc: string; seed?: HostileSeed; answer?: "oversized" | "redirect" | "wrong-signer" }>(req);
        hostile.set(body.rnc, { seed: body.seed, answer: body.answer });
        return send(200, hostile.get(body.rnc));
      }
      if (url.pathname === "/_control/supplier/sign" && req.method === "POST") {
        const { xml, rnc } = await readJson<{ xml: string; rnc?: string }>(req);
        try {
          return send(200, { xml: await (await identityFor(rnc ?? authorOf(xml))).sign(xml) });
        } catch (error) {
          return send(400, { mensaje: String(error) });
        }
      }
      if (url.pathname === "/_control/verify" && req.method === "POST") {
        const { xml, xsd } = await readJson<{ xml: string; xsd?: string }>(req);
        if (xsd !== undefined && !(/^[\w.-]+\.xsd$/.test(xsd) && schemaSource(xsd) !== null)) return send(400, { mensaje: `No such schema: ${xsd}` });
        return send(200, { signature: await verifySignature(xml), signer: signerOf(xml), schemaErrors: xsd ? await schemaErrors(xml, xsd) : [] });
      }
      if (url.pathname === "/_control/dgii-status" && req.method === "POST") {
        // {ambiente: "Produccion", servicio: "Recepción", estatus: "No Disponible"}, or {reset: true}.
        const body = JSON.parse((await readBody(req)).toString("utf8")) as { ambiente?: string; servicio?: string; estatus?: string; reset?: boolean };
        if (body.reset) serviceStates.clear();
        else serviceStates.set(`${body.ambiente}|${body.servicio}`, body.estatus ?? "Disponible");
        return send(200, { ok: true });
      }
      if (url.pathname === "/_control/dgii-windows" && req.method === "POST") {
        // DGII's own shape: {ventanaMantenimientos: [{ambiente, horaInicio, horaFin, dias}]}.
        const body = JSON.parse((await readBody(req)).toString("utf8")) as { ventanaMantenimientos?: unknown[] };
        maintenanceWindows = body.ventanaMantenimientos ?? [];
        return send(200, { ok: true });
      }
      const statusService = /^\/api\/estatusservicios\/(obtenerestatus|obtenerventanasmantenimiento)$/i.exec(url.pathname);
      if (statusService) {
        // Estatus Servicios (Descripción técnica): an API key DGII gives, as `Authorization: Apikey …`.
        if (!/^Apikey \S+/.test(req.headers.authorization ?? "")) return send(401, { mensaje: "Apikey no válido." });
        if (statusService[1]!.toLowerCase() === "obtenerventanasmantenimiento") return send(200, { ventanaMantenimientos: maintenanceWindows });
        return send(
          200,
          ["PreCertificacion", "Certificacion", "Produccion"].flatMap((ambiente) =>
            STATUS_SERVICES.map((servicio) => ({ servicio, estatus: serviceStates.get(`${ambiente}|${servicio}`) ?? "Disponible", ambiente })),
          ),
        );
      }
      if (url.pathname === "/_control/receiver-down" && req.method === "POST") {
        const body = await readJson<{ rnc: string; calls: number }>(req);
        receiverOf(body.rnc).down = body.calls;
        return send(200, { rnc: body.rnc, down: body.calls });
      }
      const log = /^\/_control\/receiver-(approvals|received|seeds)$/.exec(url.pathname);
      if (log) {
        const kind = log[1] === "approvals" ? "acecf" : log[1] === "seeds" ? "seed" : "ecf";
        return send(
          200,
          receiverOf(url.searchParams.get("rnc") ?? "").log.filter((r) => r.kind === kind),
        );
      }
      const atReceiver =
        /^\/(testecf|certecf|ecf)\/receptor\/(\d{9}|\d{11})\/fe\/(autenticacion\/api\/semilla|autenticacion\/api\/validacioncertificado|aprobacioncomercial\/api\/ecf|recepcion\/api\/ecf)$/i.exec(
          url.pathname,
        );
      if (atReceiver) return await receive(req, send, atReceiver[1]!.toLowerCase(), atReceiver[2]!, atReceiver[3]!.toLowerCase());
      if (url.pathname === "/_control/received") {
        const signer = url.searchParams.get("signer");
        return send(
          200,
          received.filter((r) => r.signer === signer),
        );
      }
      const timbre = /^\/(testecf|certecf|ecf)\/(consultatimbre|consultatimbrefc)$/i.exec(url.pathname);
      if (timbre && req.method === "GET")
        return send(200, timbrePage(received, timbre[1]!, timbre[2]!.toLowerCase() === "consultatimbrefc", url.searchParams), "text/html; charset=utf-8");
      const service =
        /^\/(testecf|certecf|ecf)\/(recepcion\/api\/facturaselectronicas|consultaresultado\/api\/consultas\/estado|recepcionfc\/api\/recepcion\/ecf|anulacionrangos\/api\/operaciones\/anularrango|consultaestado\/api\/consultas\/estado|consultarfce\/api\/consultas\/consulta|consultatrackids\/api\/trackids\/consulta|consultadirectorio\/api\/consultas\/(?:listado|obtenerdirectorioporrnc)|aprobacioncomercial\/api\/aprobacioncomercial)$/i.exec(
          url.pathname,
        );
      if (service) {
        const environment = service[1]!;
        const path = service[2]!.toLowerCase();
        const token = tokenOf(req, environment);
        if (token === null) return send(401, { mensaje: "Token no válido." });
        if (token === "expired") return send(401, { mensaje: "El token ha expirado." });
        if (isDown(token.signer)) return send(503, { mensaje: "Servicio no disponible temporalmente." });
        const answers = script(token.signer).answers;
        const scripted = answers.findIndex((answer) => answer.service === path.slice(0, path.indexOf("/")));
        if (scripted >= 0) scriptedAnswer = answers.splice(scripted, 1)[0]!;
        if (path === "consultaestado/api/consultas/estado" && req.method === "GET") {
          // Consulta de estado e-CF: by RNC emisor and e-NCF (e-CF received whole or as an RFCE);
          // a security code that is not the document's finds nothing.
          const rnc = url.searchParams.get("rncemisor") ?? "";
          const encf = url.searchParams.get("ncfelectronico") ?? "";
          const code = url.searchParams.get("codigoseguridad");
          const document = [...received].reverse().find((r) => r.rnc === rnc && r.encf === encf && r.environment === environment && !r.errors.length);
          const security = document ? field(document.xml, "CodigoSeguridadeCF") || field(document.xml, "SignatureValue").slice(0, 6) : "";
          if (!document || (code !== null && code !== security)) return send(200, { codigo: 0, estado: "No encontrado", rncEmisor: rnc, ncfElectronico: encf });
          const final = document.final ?? "in_process";
          const state =
            final === "rejected" || final === "rejected_unused"
              ? STATES.rejected
              : final === "in_process"
                ? { codigo: 0, estado: "En Proceso" }
                : STATES[final];
          const total = Number(field(document.xml, "MontoTotal"));
          const itbis = Number(field(document.xml, "TotalITBIS") || 0);
          return send(200, {
            ...state,
            rncEmisor: rnc,
            ncfElectronico: encf,
            montoTotal: total,
            totalITBIS: itbis,
            fechaEmision: field(document.xml, "FechaEmision"),
            fechaFirma: field(document.xml, "FechaHoraFirma"),
            rncComprador: field(document.xml, "RNCComprador") || null,
            codigoSeguridad: security,
            idExtranjero: field(document.xml, "IdentificadorExtranjero") || null,
          });
        }
        if (path === "consultarfce/api/consultas/consulta" && req.method === "GET") {
          // Consulta de Resumen de Factura (Descripción técnica, "Consulta de Resumen de Factura
          // (RFCE)"): the state of a summary received, by RNC_Emisor, ENCF and Cod_Seguridad_eCF;
          // No encontrado (0) when none was, or the code is not its.
          const rnc = url.searchParams.get("RNC_Emisor") ?? "";
          const encf = url.searchParams.get("ENCF") ?? "";
          const code = url.searchParams.get("Cod_Seguridad_eCF") ?? "";
          const summary = received.find(
            (r) => r.kind === "rfce" && r.rnc === rnc && r.encf === encf && r.environment === environment && field(r.xml, "CodigoSeguridadeCF") === code,
          );
          if (!summary) return send(200, { rnc, encf, secuenciaUtilizada: false, codigo: "0", estado: "No encontrado", mensajes: [] });
          const final = summary.errors.length ? "rejected_unused" : (summary.final ?? "accepted");
          const state = final === "rejected_unused" || final === "in_process" ? STATES.rejected : STATES[final];
          const mensajes = summary.errors.map((valor, i) => ({ codigo: i + 1, valor }));
          return send(200, { rnc, encf, secuenciaUtilizada: final !== "rejected_unused", codigo: String(state.codigo), estado: state.estado, mensajes });
        }
        if (path === "consultatrackids/api/trackids/consulta" && req.method === "GET") {
          // Consulta de trackIds (Descripción técnica, "Consulta de trackId e-CF"): every trackId of
          // the issuer's e-NCF, one object each; only a delegate of the issuer may ask.
          const rnc = url.searchParams.get("rncemisor") ?? "";
          const encf = url.searchParams.get("encf") ?? "";
          if (!/^(\d{9}|\d{11})$/.test(rnc)) return send(400, { mensaje: "La longitud del RNC Emisor es inválida." });
          if (!/^E\d{12}$/.test(encf)) return send(400, { mensaje: "El ENCF es inválido." });
          const held = received.filter((r) => r.kind === "ecf" && r.rnc === rnc && r.encf === encf && r.environment === environment);
          if (held.some((r) => r.signer !== token.signer)) {
            return send(400, {
              mensaje:
                "El RNC del token no está autorizado a consultar el trackid de este e-NCF, favor verificar que se encuentre delegado por el emisor y volver a intentarlo.",
            });
          }
          const scripted = script(token.signer);
          if (scripted.unindexed > 0) {
            scripted.unindexed -= 1;
            return send(200, []);
          }
          // DGII validates what it received on its own: by the time one asks, a document has its
          // state, decided as a result query would (the next scripted state, else accepted).
          const stateOf = (r: Received) => {
            if (r.errors.length || r.resend) return STATES.rejected.estado;
            if (r.final === null) {
              const next = decide(token.signer, r.encf);
              if (next !== "in_process") r.final = next;
            }
            if (r.final === null || r.final === "in_process") return STATES.in_process.estado;
            return r.final === "rejected_unused" ? STATES.rejected.estado : STATES[r.final].estado;
          };
          return send(
            200,
            held.map((r) => ({ trackId: r.trackId, estado: stateOf(r), fechaRecepcion: r.at })),
          );
        }
        if (path.startsWith("consultadirectorio/") && req.method === "GET") {
          // Consulta directorio: the electronic taxpayers it knows (every RNC it received from, and
          // those tests registered), with receiver URLs on this fake (pre-certification answers
          // DGII's own test receivers).
          const base = `http://${req.headers.host}/${environment}/receptor`;
          const entries = [...taxpayers().entries()].map(([rnc, name]) => {
            const receiverUrl = directoryUrls.get(rnc) ?? `${base}/${rnc}`;
            return { nombre: name, rnc, urlRecepcion: receiverUrl, urlAceptacion: receiverUrl, urlOpcional: receiverUrl };
          });
          if (path.endsWith("listado")) return send(200, entries);
          const wanted = url.searchParams.get("RNC") ?? url.searchParams.get("rnc") ?? "";
          return send(
            200,
            entries.filter((entry) => entry.rnc === wanted),
          );
        }
        if (path === "consultaresultado/api/consultas/estado" && req.method === "GET") {
          const trackId = url.searchParams.get("trackid") ?? "";
          const document = received.find((r) => r.trackId === trackId && r.signer === token.signer);
          if (!document) return send(200, { trackId, codigo: 0, estado: "No encontrado", mensajes: [{ valor: "No se encontró el trackId.", codigo: 0 }] });
          const base = { trackId, rnc: document.rnc, eNCF: document.encf, fechaRecepcion: document.at };
          if (document.resend) {
            return send(200, {
              ...base,
              ...STATES.rejected,
              secuenciaUtilizada: true,
              mensajes: [{ valor: "Secuencia ya utilizada: el e-NCF fue recibido anteriormente.", codigo: 1 }],
            });
          }
          if (document.errors.length) {
            return send(200, {
              ...base,
              ...STATES.rejected,
              secuenciaUtilizada: false,
              mensajes: document.errors.map((valor, i) => ({ valor, codigo: i + 1 })),
            });
          }
          const next = document.final ?? decide(token.signer, document.encf);
          if (next !== "in_process") document.final = next;
          if (next === "rejected_unused") {
            return send(200, {
              ...base,
              ...STATES.rejected,
              secuenciaUtilizada: false,
              mensajes: [{ valor: "El e-NCF no está autorizado para el RNC Emisor del comprobante fiscal electrónico.", codigo: 5 }],
            });
          }
          const messages =
            next === "rejected"
              ? [{ valor: "El RNC Comprador no se encuentra activo.", codigo: 2 }]
              : next === "accepted_conditional"
                ? [{ valor: "El nombre comercial no coincide con el registrado.", codigo: 613 }]
                : [];
          return send(200, { ...base, ...STATES[next], secuenciaUtilizada: true, mensajes: messages });
        }
        if (req.method !== "POST") return send(405, { mensaje: "Método no permitido" });
        const body = await readBody(req);
        const contentType = req.headers["content-type"] ?? "";
        const xml = multipartXml(body, contentType);
        if (path === "aprobacioncomercial/api/aprobacioncomercial") {
          // Recepción de aprobación comercial: estado 1 "aprobada" (validated), 2 "rechazada".
          const errors = await approvalErrors(xml, token.signer);
          approvals.push(exchange("acecf", token, field(xml ?? "", "RNCComprador"), xml, errors));
          if (errors.length) return send(400, { mensaje: errors, estado: "Aprobación comercial rechazada", codigo: "2" });
          return send(200, { mensaje: [], estado: "Aprobación comercial aprobada", codigo: "1" });
        }
        if (!xml) return send(400, { trackId: null, error: "Tipo de archivo no valido, favor proveer un XML", mensaje: "No se recibió el archivo xml." });
        const fileName = /filename="([^"]*)"/.exec(body.toString("utf8"))?.[1] ?? "";
        if (path === "anulacionrangos/api/operaciones/anularrango") {
          const rnc = field(xml, "RncEmisor");
          const errors = (await schemaErrors(xml, "ANECF.xsd")).map((message) => `Estructura del archivo no es válida: ${message.trim()}`);
          if (!(await verifySignature(xml))) errors.push("La firma del documento no es válida.");
          if (signerOf(xml) !== token.signer) errors.push(`El RNC del certificado no está delegado para realizar transacciones para el RNC ${rnc}.`);
          // Used numbers cannot be annulled: any e-CF DGII holds for this RNC within a range.
          for (const [, from, to] of xml.matchAll(/<SecuenciaeNCFDesde>([^<]+)<\/SecuenciaeNCFDesde><SecuenciaeNCFHasta>([^<]+)<\/SecuenciaeNCFHasta>/g)) {
            const used = received.filter(
              (r) => r.rnc === rnc && r.environment === environment && r.encf.slice(0, 3) === from!.slice(0, 3) && r.encf >= from! && r.encf <= to!,
            );
            if (used.length) errors.push(`Las secuencias que está intentando anular han sido utilizadas: ${used.map((r) => r.encf).join(", ")}.`);
          }
          annulments.push({ signer: token.signer, environment, rnc, xml, errors });
          if (errors.length) return send(400, { rnc, codigo: "2", nombre: "No fue posible anular las siguientes secuencias", mensajes: errors });
          return send(200, { rnc, codigo: "1", nombre: "Anulación recibida", mensajes: ["Las secuencias fueron anuladas correctamente."] });
        }
        if (path === "recepcion/api/facturaselectronicas") {
          const type = field(xml, "TipoeCF");
          if (!/^(31|32|33|34|41|43|44|45|46|47)$/.test(type)) return send(400, { trackId: null, error: "El tipo de comprobante no es válido", mensaje: type });
          const errors = [...(await check(xml, `e-CF-${type}.xsd`, token, fileName, "ecf")), ...receptionRules(xml, environment)];
          const trackId = randomUUID();
          const encf = field(xml, "eNCF");
          const rnc = field(xml, "RNCEmisor");
          // DGII takes a second e-CF with an e-NCF it already holds as used, and rejects it as used; a
          // number it said was not used (a refused structure or signer, rejected_unused) may be sent again.
          const resend = received.some(
            (r) => r.kind === "ecf" && r.rnc === rnc && r.encf === encf && r.environment === environment && !r.errors.length && r.final !== "rejected_unused",
          );
          received.push({
            kind: "ecf",
            signer: token.signer,
            environment,
            encf,
            rnc,
            trackId,
            fileName,
            errors,
            xml,
            at: new Date().toISOString(),
            final: null,
            resend,
          });
          const scripted = script(token.signer);
          if (scripted.drop > 0) {
            // Received and kept, but the answer never reaches the sender.
            scripted.drop -= 1;
            req.socket.destroy();
            return;
          }
          return send(200, { trackId, error: null, mensaje: null });
        }
        // Recepción FC: the summary's answer is final at once.
        const errors = await check(xml, "RFCE-32.xsd", token, fileName, "rfce");
        const encf = field(xml, "eNCF");
        const summary: Received = {
          kind: "rfce",
          signer: token.signer,
          environment,
          encf,
          rnc: field(xml, "RNCEmisor"),
          trackId: null,
          fileName,
          errors,
          xml,
          at: new Date().toISOString(),
          final: null,
        };
        // A summary of an e-NCF DGII already took (accepted, or rejected as used) is refused as a used sequence.
        const earlier = received.find(
          (r) =>
            r.kind === "rfce" &&
            r.signer === token.signer &&
            r.environment === environment &&
            r.encf === encf &&
            !r.errors.length &&
            r.final !== null &&
            r.final !== "rejected_unused",
        );
        received.push(summary);
        if (errors.length)
          return send(200, { ...STATES.rejected, mensajes: errors.map((valor, i) => ({ codigo: String(i + 1), valor })), encf, secuenciaUtilizada: false });
        if (earlier) {
          summary.final = "rejected";
          return send(200, {
            ...STATES.rejected,
            mensajes: [{ codigo: "1", valor: "Secuencia ya utilizada: el e-NCF fue recibido anteriormente." }],
            encf,
            secuenciaUtilizada: true,
          });
        }
        const next = decide(token.signer, encf);
        summary.final = next;
        const plan = script(token.signer);
        if (plan.drop > 0) {
          // Received and judged, but the answer never reaches the sender.
          plan.drop -= 1;
          req.socket.destroy();
          return;
        }
        const state = next === "rejected_unused" || next === "in_process" ? "rejected" : next;
        return send(200, { ...STATES[state], mensajes: [], encf, secuenciaUtilizada: next !== "rejected_unused" });
      }
      const match = /^\/(testecf|certecf|ecf)\/autenticacion\/api\/autenticacion\/(semilla|validarsemilla)$/.exec(url.pathname);
      if (!match) return send(404, { mensaje: "Recurso no encontrado" });
      const [, environment, action] = match;
      if (action === "semilla" && req.method === "GET") {
        const scripted = hostileDgiiSeed;
        if (scripted && scripted.environment === environment && scripted.calls-- > 0)
          return hostileSeed(scripted.kind, send, scripted.environment, SUPPLIER_RNC);
        return send(200, newSeed(seeds), "application/xml");
      }
      if (action === "validarsemilla" && req.method === "POST") {
        const seed = await seedSigner(multipartXml(await readBody(req), req.headers["content-type"] ?? ""), seeds);
        if ("errors" in seed) return send(400, { mensaje: seed.errors });
        if (isDown(seed.signer)) return send(503, { mensaje: "Servicio no disponible temporalmente." });
        return send(200, issueToken(tokens, environment!, seed.signer));
      }
      return send(405, { mensaje: "Método no permitido" });
    } catch (error) {
      return send(500, { mensaje: String(error) });
    }
  });
  return { ...(await listenOnLoopback(server)), tokens };
}

export const COMMAND = command({
  usage: `Usage: npx tsx scripts/fake-dgii.ts

The local DGII stand-in on its own (npm run dev and the tests start their own): DGII's e-CF services
under /{testecf|certecf|ecf}/ on a free loopback port, its certification authority the one npm run
dev keeps in .dev-data/. Point DGII_ECF_BASE_URL and DGII_FC_BASE_URL at the URL it prints. Takes no
options; Ctrl-C stops it.`,
  options: {},
});

if (isMain(import.meta.url)) {
  commandLine(COMMAND);
  void serveUntilStopped(
    "The DGII stand-in",
    localAuthority().then((authority) => startFakeDgii({ authority })),
  );
}
