import { randomUUID, webcrypto } from "node:crypto";
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
 * `/{testecf|certecf|ecf}/…`. This first part is the authentication:
 *
 * - GET  /{env}/autenticacion/api/autenticacion/semilla → a SemillaModel (valor, fecha);
 * - POST /{env}/autenticacion/api/autenticacion/validarsemilla (multipart, field `xml`) → the
 *   seed must be one this fake issued and not used yet, valid against Semilla.xsd
 *   (`../shared/dgii/xsd-strict`, libxml2 via xmllint-wasm) and signed — verified with xmldsigjs,
 *   not the library that signs — else 400 with DGII-like messages; → `{token, expira, expedido}`.
 *
 * `GET /_control/tokens` lists the tokens issued (tests), `POST /_control/token-ttl` sets how long
 * the next tokens live, in seconds.
 */
xmldsig.Application.setEngine("WebCrypto", webcrypto as unknown as Crypto);

const XSD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../shared/dgii/xsd-strict");

export interface FakeDgii extends LocalServer {
  tokens: Map<string, { environment: string; expires: Date }>;
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
  const tokens = new Map<string, { environment: string; expires: Date }>();
  let ttlSeconds = 3600;

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
        const token = Buffer.from(randomUUID()).toString("base64url");
        const issued = new Date();
        const expires = new Date(issued.getTime() + ttlSeconds * 1000);
        tokens.set(token, { environment: environment!, expires });
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
