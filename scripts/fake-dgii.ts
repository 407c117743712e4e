import { randomUUID, webcrypto, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DOMParser } from "@xmldom/xmldom";
import * as xmldsig from "xmldsigjs";
import { validateXML } from "xmllint-wasm";
import { type LocalServer, listenOnLoopback } from "./lib/local-server";

/**
 * A local stand-in for DGII's e-CF services (issue 18), speaking their protocol as DGII's
 * "Descripción técnica de facturación electrónica" describes it, under
 * `/{testecf|certecf|ecf}/…`:
 *
 * - GET  /{env}/autenticacion/api/autenticacion/semilla → a SemillaModel (valor, fecha);
 * - POST /{env}/autenticacion/api/autenticacion/validarsemilla (multipart, field `xml`) → the
 *   seed must be one this fake issued and not used yet, valid against Semilla.xsd
 *   (`../shared/dgii/xsd-strict`, libxml2 via xmllint-wasm) and signed — verified with xmldsigjs,
 *   not the library that signs — else 400 with DGII-like messages; → `{token, expira, expedido}`.
 *
 * - POST /{env}/recepcion/api/facturaselectronicas (bearer token; multipart `xml`) → `{trackId}`;
 *   the e-CF is checked at once — its schema (e-CF-{TipoeCF}.xsd), its signature (xmldsigjs), that
 *   the token's signer signed it, the file name RNCEmisor+eNCF.xml, an e-NCF not received before
 *   for that RNC — and the result kept for the trackId;
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
 * - GET /{env}/consultadirectorio/api/consultas/listado and …/obtenerdirectorioporrnc?RNC= → the
 *   electronic taxpayers it knows (the RNCs it received from) with receiver URLs on itself.
 *
 * A token, a document and a script belong to a signer: the certificate's subject CN (tests give
 * each tenant a certificate of its own). Control, for tests: `GET /_control/tokens`,
 * `POST /_control/token-ttl?seconds=` (life of the next tokens), `POST /_control/script` with JSON
 * `{signer, down?: n, results?: ["in_process", "accepted", "accepted_conditional", "rejected",
 * "rejected_unused"]}` (the next n calls from that signer answer 503; the next result queries of
 * its documents, and its summaries, answer these states in order; a final state is then that
 * trackId's for good), `POST /_control/expire-tokens?signer=` (its tokens stop
 * working: 401), `GET /_control/received?signer=` (what it sent: kind, eNCF, trackId, errors, xml),
 * `GET /_control/annulments?signer=` (its ANECF and the fake's verdicts).
 */
xmldsig.Application.setEngine("WebCrypto", webcrypto as unknown as Crypto);

const XSD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../shared/dgii/xsd-strict");

interface Token {
  environment: string;
  expires: Date;
  signer: string;
  revoked?: boolean;
}

type ScriptedState = "in_process" | "accepted" | "accepted_conditional" | "rejected" | "rejected_unused";

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
  const base64 = /<X509Certificate>([^<]+)<\/X509Certificate>/.exec(xml)?.[1];
  if (!base64) return null;
  try {
    const subject = new X509Certificate(Buffer.from(base64.replace(/\s+/g, ""), "base64")).subject;
    return /^CN=(.*)$/m.exec(subject)?.[1] ?? subject;
  } catch {
    return null;
  }
}

const field = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? "";

const STATES: Record<Exclude<ScriptedState, "rejected_unused">, { codigo: number; estado: string }> = {
  accepted: { codigo: 1, estado: "Aceptado" },
  rejected: { codigo: 2, estado: "Rechazado" },
  in_process: { codigo: 3, estado: "En Proceso" },
  accepted_conditional: { codigo: 4, estado: "Aceptado Condicional" },
};

async function schemaErrors(xml: string, xsd: string): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: "document.xml", contents: xml }],
    schema: [{ fileName: xsd, contents: readFileSync(path.join(XSD_DIR, xsd), "utf8") }],
  });
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

export async function startFakeDgii(): Promise<FakeDgii> {
  const seeds = new Set<string>();
  const tokens = new Map<string, Token>();
  let ttlSeconds = 3600;
  const scripts = new Map<string, { down: number; results: ScriptedState[] }>();
  const received: Received[] = [];
  const annulments: { signer: string; environment: string; rnc: string; xml: string; errors: string[] }[] = [];
  const script = (signer: string) => {
    const entry = scripts.get(signer) ?? { down: 0, results: [] };
    scripts.set(signer, entry);
    return entry;
  };
  /** A scripted outage: the signer's next calls answer 503. */
  const isDown = (signer: string | null) => {
    const entry = signer ? scripts.get(signer) : undefined;
    if (!entry?.down) return false;
    entry.down -= 1;
    return true;
  };
  const tokenOf = (req: http.IncomingMessage, environment: string): Token | "expired" | null => {
    const value = /^bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim();
    const token = value ? tokens.get(value) : undefined;
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

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://dgii.local");
    const send = (status: number, body: unknown, type = "application/json") => {
      res.writeHead(status, { "content-type": type });
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
        const body = JSON.parse((await readBody(req)).toString("utf8")) as { signer: string; down?: number; results?: ScriptedState[] };
        const entry = script(body.signer);
        if (body.down !== undefined) entry.down = body.down;
        if (body.results) entry.results.push(...body.results);
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
      if (url.pathname === "/_control/received") {
        const signer = url.searchParams.get("signer");
        return send(
          200,
          received.filter((r) => r.signer === signer),
        );
      }
      const service =
        /^\/(testecf|certecf|ecf)\/(recepcion\/api\/facturaselectronicas|consultaresultado\/api\/consultas\/estado|recepcionfc\/api\/recepcion\/ecf|anulacionrangos\/api\/operaciones\/anularrango|consultaestado\/api\/consultas\/estado|consultadirectorio\/api\/consultas\/(?:listado|obtenerdirectorioporrnc))$/i.exec(
          url.pathname,
        );
      if (service) {
        const environment = service[1]!;
        const path = service[2]!.toLowerCase();
        const token = tokenOf(req, environment);
        if (token === null) return send(401, { mensaje: "Token no válido." });
        if (token === "expired") return send(401, { mensaje: "El token ha expirado." });
        if (isDown(token.signer)) return send(503, { mensaje: "Servicio no disponible temporalmente." });
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
        if (path.startsWith("consultadirectorio/") && req.method === "GET") {
          // Consulta directorio: the electronic taxpayers it knows (every RNC it received from), with
          // receiver URLs on this fake (pre-certification answers DGII's own test receivers).
          const base = `http://${req.headers.host}/${environment}/receptor`;
          const entries = [...new Map(received.map((r) => [r.rnc, field(r.xml, "RazonSocialEmisor")])).entries()].map(([rnc, name]) => ({
            nombre: name,
            rnc,
            urlRecepcion: `${base}/${rnc}`,
            urlAceptacion: `${base}/${rnc}`,
            urlOpcional: `${base}/${rnc}`,
          }));
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
          if (document.errors.length) {
            return send(200, {
              ...base,
              ...STATES.rejected,
              secuenciaUtilizada: false,
              mensajes: document.errors.map((valor, i) => ({ valor, codigo: i + 1 })),
            });
          }
          const next = document.final ?? script(token.signer).results.shift() ?? "accepted";
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
          const errors = await check(xml, `e-CF-${type}.xsd`, token, fileName, "ecf");
          const trackId = randomUUID();
          received.push({
            kind: "ecf",
            signer: token.signer,
            environment,
            encf: field(xml, "eNCF"),
            rnc: field(xml, "RNCEmisor"),
            trackId,
            fileName,
            errors,
            xml,
            at: new Date().toISOString(),
            final: null,
          });
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
        received.push(summary);
        if (errors.length)
          return send(200, { ...STATES.rejected, mensajes: errors.map((valor, i) => ({ codigo: String(i + 1), valor })), encf, secuenciaUtilizada: false });
        const next = script(token.signer).results.shift() ?? "accepted";
        summary.final = next;
        const state = next === "rejected_unused" || next === "in_process" ? "rejected" : next;
        return send(200, { ...STATES[state], mensajes: [], encf, secuenciaUtilizada: next !== "rejected_unused" });
      }
      const match = /^\/(testecf|certecf|ecf)\/autenticacion\/api\/autenticacion\/(semilla|validarsemilla)$/.exec(url.pathname);
      if (!match) return send(404, { mensaje: "Recurso no encontrado" });
      const [, environment, action] = match;
      if (action === "semilla" && req.method === "GET") {
        const value = Buffer.from(randomUUID()).toString("base64");
        seeds.add(value);
        const xml = `<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><valor>${value}</valor><fecha>${new Date().toISOString()}</fecha></SemillaModel>`;
        return send(200, xml, "application/xml");
      }
      if (action === "validarsemilla" && req.method === "POST") {
        const xml = multipartXml(await readBody(req), req.headers["content-type"] ?? "");
        if (!xml) return send(400, { mensaje: ["No se recibió el archivo xml."] });
        const errors = await schemaErrors(xml, "Semilla.xsd");
        if (errors.length) return send(400, { mensaje: errors });
        const value = /<valor>([^<]*)<\/valor>/.exec(xml)?.[1] ?? "";
        if (!seeds.delete(value)) return send(400, { mensaje: ["Semilla inválida o ya utilizada."] });
        if (!(await verifySignature(xml))) return send(400, { mensaje: ["La firma del archivo no es válida."] });
        const signer = signerOf(xml) ?? "";
        if (isDown(signer)) return send(503, { mensaje: "Servicio no disponible temporalmente." });
        const token = Buffer.from(randomUUID()).toString("base64url");
        const issued = new Date();
        const expires = new Date(issued.getTime() + ttlSeconds * 1000);
        tokens.set(token, { environment: environment!, expires, signer });
        const stamp = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;
        return send(200, { token, expira: stamp(expires), expedido: stamp(issued) });
      }
      return send(405, { mensaje: "Método no permitido" });
    } catch (error) {
      return send(500, { mensaje: String(error) });
    }
  });
  return { ...(await listenOnLoopback(server)), tokens };
}
