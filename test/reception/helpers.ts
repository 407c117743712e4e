import { expect } from "vitest";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { signXml } from "../../src/modules/ecf/signature";
import type { ReceivedEcf } from "../../src/modules/reception/schemas";
import { type EcfTenant, fakeDgii } from "../ecf/helpers";
import type { Page } from "../support/api";
import { type ApiResponse, call } from "../support/api";
import { makeCertificate, type TestCertificate } from "../support/certificates";
import { uniqueName } from "../support/seed";
import { signable } from "../support/signable";
import { supplierEcf } from "./supplier";

/** A multipart body with the file in field `xml`, as DGII's examples send it (`-F 'xml=@file.xml;type=text/xml'`). */
export function xmlForm(xml: string | Uint8Array, fileName = "document.xml"): FormData {
  const form = new FormData();
  form.append("xml", new Blob([xml as BlobPart], { type: "text/xml" }), fileName);
  return form;
}

/** A call to a tenant's receiver services (/fe/…): the XML as multipart unless `raw` is given. */
export function fe(
  subdomain: string,
  path: string,
  options: { xml?: string | Uint8Array; token?: string; accept?: string; raw?: BodyInit; contentType?: string } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { accept: options.accept ?? "application/json" };
  if (options.contentType) headers["content-type"] = options.contentType;
  const body = options.raw ?? (options.xml !== undefined ? xmlForm(options.xml) : undefined);
  return call(subdomain, path, { method: body ? "POST" : "GET", rawBody: body, token: options.token, headers });
}

/** Another taxpayer's signing certificate, issued by the run's authority in the name of `rnc`. */
export async function supplierCertificate(rnc = "131246796"): Promise<TestCertificate & { signer: string }> {
  const signer = uniqueName("PROVEEDOR ");
  return { ...(await makeCertificate({ commonName: signer, holderId: rnc })), signer };
}

/** `xml` signed with a certificate of the test's (our signer, the other party's certificate: tests play other taxpayers). */
export const signAs = (cert: TestCertificate, xml: string) => signXml(signable(xml), signingMaterial(cert.p12Base64, cert.password)).xml;

/**
 * The receiver's authentication as another taxpayer's system goes through it, the fake signing the
 * seed as `rnc` (signAsSupplier): the token of the certificate that then signs that taxpayer's documents.
 */
export async function supplierToken(subdomain: string, rnc: string): Promise<string> {
  const seed = await fe(subdomain, "/fe/autenticacion/api/semilla");
  expect(seed.status, seed.text).toBe(200);
  const res = await fe(subdomain, "/fe/autenticacion/api/validacioncertificado", { xml: await signAsSupplier(seed.text, rnc) });
  expect(res.status, res.text).toBe(200);
  return res.body.token as string;
}

/** The receiver's authentication as a sender goes through it: seed → signed seed → token. */
export async function receiverToken(subdomain: string, cert: TestCertificate): Promise<string> {
  const seed = await fe(subdomain, "/fe/autenticacion/api/semilla");
  expect(seed.status, seed.text).toBe(200);
  const res = await fe(subdomain, "/fe/autenticacion/api/validacioncertificado", { xml: signAs(cert, seed.text) });
  expect(res.status, res.text).toBe(200);
  return res.body.token as string;
}

/**
 * The fake DGII playing another taxpayer: it signs with its own library (xmldsigjs, not ours) and a
 * certificate of the run's authority naming `rnc` — by default the document's author (RNCEmisor of
 * an e-CF, RNCComprador of an ACECF or ARECF).
 */
export async function signAsSupplier(xml: string, rnc?: string): Promise<string> {
  const res = await fetch(`${fakeDgii}/_control/supplier/sign`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ xml, rnc }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { xml: string }).xml;
}

/** An independent check of what we answered: the fake's xmldsigjs for the signature, libxml2 for the schema. */
export async function independentCheck(xml: string, xsd: string): Promise<{ signature: boolean; signer: string | null; schemaErrors: string[] }> {
  const res = await fetch(`${fakeDgii}/_control/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ xml, xsd }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { signature: boolean; signer: string | null; schemaErrors: string[] };
}

/** The fields of an ARECF answer. */
export function arecfFields(xml: string) {
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? null;
  return {
    rncEmisor: field("RNCEmisor"),
    rncComprador: field("RNCComprador"),
    encf: field("eNCF"),
    estado: field("Estado"),
    codigo: field("CodigoMotivoNoRecibido"),
    fecha: field("FechaHoraAcuseRecibo"),
  };
}

/** Registers an RNC in the fake DGII's directory (consultadirectorio), with receiver URLs on the fake. */
export async function inDirectory(rnc: string, name = "Materiales del Cibao SRL"): Promise<void> {
  const res = await fetch(`${fakeDgii}/_control/directory`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rnc, name }),
  });
  expect(res.status).toBe(200);
}

/** The next `calls` calls to that taxpayer's receiver on the fake answer 503. */
export async function receiverDown(rnc: string, calls: number): Promise<void> {
  const res = await fetch(`${fakeDgii}/_control/receiver-down`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rnc, calls }),
  });
  expect(res.status).toBe(200);
}

interface Delivered {
  xml: string;
  errors: string[];
}

/** The ACECF DGII (the fake) received from a signer. */
export async function dgiiApprovals(signer: string): Promise<Delivered[]> {
  return (await (await fetch(`${fakeDgii}/_control/approvals?signer=${encodeURIComponent(signer)}`)).json()) as Delivered[];
}

/** The ACECF the issuer's receiver (the fake as that taxpayer) received. */
export async function receiverApprovals(rnc: string): Promise<Delivered[]> {
  return (await (await fetch(`${fakeDgii}/_control/receiver-approvals?rnc=${encodeURIComponent(rnc)}`)).json()) as Delivered[];
}

let sequence = 0;
/** An E31 e-NCF not used before in this run. */
export const nextEncf = () => `E31${String(Date.now() % 1e7).padStart(7, "0")}${String(++sequence % 1000).padStart(3, "0")}`;

/** The supplier `supplierRnc` sends the tenant an e-CF (supplier.ts; its lines, currency and name as given) that is received; as listed. */
export async function receiveFromSupplier(
  t: EcfTenant,
  supplierRnc: string,
  options: Omit<Parameters<typeof supplierEcf>[0], "issuerRnc" | "buyerRnc" | "encf"> = {},
): Promise<ReceivedEcf> {
  const token = await supplierToken(t.tenant.subdomain, supplierRnc);
  const encf = nextEncf();
  const res = await fe(t.tenant.subdomain, "/fe/recepcion/api/ecf", {
    xml: await signAsSupplier(supplierEcf({ issuerRnc: supplierRnc, buyerRnc: t.rnc, encf, ...options })),
    token,
  });
  expect(res.text).toContain("<Estado>0</Estado>");
  const list = await t.tenant.api.get<Page<ReceivedEcf>>("/received-ecf?per_page=100");
  return list.body.data.find((r) => r.encf === encf)!;
}
