import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { orderBy, pageOf } from "../../db/queries";
import * as schema from "../../db/schema";
import { AppError, notFound } from "../../http/errors";
import type { ListQuery } from "../../http/pagination";
import { sha256Hex } from "../../lib/crypto";
import { decimal2, timestamp } from "../../lib/format";
import type { SchemaName } from "../../lib/xsd";
import type { SigningMaterial } from "../ecf/certificate";
import { type AcecfInput, buildAcecf, buildArecf, type EcfHeader, EcfReadError, readAcecf, readEcfHeader } from "../ecf/receipts";
import type { EcfEnvironment } from "../ecf/schemas";
import { openedCertificate } from "../ecf/service";
import { signXml } from "../ecf/signature";
import type { DeliveryStatus, ReceivedEcfFilter, ReceivedEcfSort } from "./schemas";
import { tryParseXml, verifySignedXml } from "./verify";

/**
 * The receiver side of e-CF (Ley 32-23: every electronic issuer receives; DGII, Descripción técnica,
 * "Estándar de comunicación Emisor-Receptor"): e-CF our suppliers send us, acknowledged with a
 * signed ARECF (Formato Acuse de Recibo v1.0), and commercial approvals (ACECF) of the e-CF we
 * issued. Our own approvals of what we received are in jobs/approvals.ts.
 */

/**
 * The schema validator, loaded on first use: libxml2's wasm and DGII's schemas are bundled for the
 * Worker, and Node scripts that read the route table (docs:routes, the OpenAPI checks) never load them.
 */
const validateAgainstSchema = async (xml: string, name: SchemaName) => (await import("../../lib/xsd")).validateAgainstSchema(xml, name);

const received = schema.receivedEcf;
const approvals = schema.ecfApprovals;
const documents = schema.ecfDocuments;
export type ReceivedRow = typeof received.$inferSelect;

/** The tenant as a receiver: its RNC and the certificate that signs its answers. */
export interface Receiver {
  tenantId: number;
  rnc: string;
  environment: EcfEnvironment;
  material: SigningMaterial;
}

/**
 * A tenant receives e-CF once it could answer them: an RNC in its fiscal profile and an e-CF
 * certificate to sign the ARECF with. Otherwise it is no electronic receiver: 404.
 */
export async function receiverOf(db: AnyDb, tenantId: number, encryptionKey: string | undefined): Promise<Receiver> {
  const [row] = await db
    .select({ rnc: schema.companyProfiles.rnc, environment: schema.ecfSettings.environment, certificate: schema.ecfSettings.certificateEncrypted })
    .from(schema.ecfSettings)
    .innerJoin(schema.companyProfiles, eq(schema.companyProfiles.tenantId, schema.ecfSettings.tenantId))
    .where(eq(schema.ecfSettings.tenantId, tenantId));
  if (!row?.rnc || !row.certificate) throw new AppError("route_not_found", "This company does not receive electronic fiscal documents.");
  return {
    tenantId,
    rnc: row.rnc,
    environment: row.environment as EcfEnvironment,
    material: await openedCertificate(tenantId, row.certificate, encryptionKey),
  };
}

/** An answer the protocol gives without an ARECF: the document cannot even be read. */
export class ReceptionRefused extends Error {}

/** ARECF CodigoMotivoNoRecibido (Formato Acuse de Recibo v1.0, field 6). */
export const NOT_RECEIVED = { specification: 1, signature: 2, duplicate: 3, notOurs: 4 } as const;
type NotReceivedReason = keyof typeof NOT_RECEIVED;

/** The types a supplier issues to a buyer: E41, E43 and E47 are the buyer's own documents. */
const RECEIVABLE_TYPES = new Set(["31", "32", "33", "34", "44", "45", "46"]);

export interface ReceptionResult {
  receiptXml: string;
  received: boolean;
  reason?: NotReceivedReason;
  id?: number;
}

/**
 * POST /fe/recepcion/api/ecf. Checked in this order, the first failure answering an ARECF "no
 * recibido" with its code: the signature (2), DGII's schema for the type (1), the buyer being us (4),
 * a first reception of this issuer's e-NCF (3). A received e-CF is stored byte for byte with the
 * signed ARECF that acknowledged it.
 */
export async function receiveEcf(db: AnyDb, receiver: Receiver, xml: string, now = new Date()): Promise<ReceptionResult> {
  const identity = ecfIdentity(xml);
  if (!identity) throw new ReceptionRefused("La estructura del archivo XML no es válida: no se pudo leer RNCEmisor y eNCF.");
  const answer = (reason?: NotReceivedReason) =>
    signXml(
      buildArecf({
        issuerRnc: identity.issuerRnc,
        receiverRnc: receiver.rnc,
        encf: identity.encf,
        received: !reason,
        reasonCode: reason ? NOT_RECEIVED[reason] : undefined,
        at: now,
      }),
      receiver.material,
    ).xml;
  const refuse = (reason: NotReceivedReason): ReceptionResult => ({ receiptXml: answer(reason), received: false, reason });

  const signature = verifySignedXml(xml, now);
  if (!signature.valid) return refuse("signature");
  let header: EcfHeader;
  try {
    header = readEcfHeader(xml);
  } catch (error) {
    if (error instanceof EcfReadError) return refuse("specification");
    throw error;
  }
  if (!RECEIVABLE_TYPES.has(header.type)) return refuse("specification");
  const schemaCheck = await validateAgainstSchema(xml, `e-CF-${header.type}` as SchemaName);
  if (!schemaCheck.valid) return refuse("specification");
  if (header.buyerRnc !== receiver.rnc) return refuse("notOurs");

  const receiptXml = answer();
  const [row] = await db
    .insert(received)
    .values({
      tenantId: receiver.tenantId,
      ecfType: header.type,
      encf: header.encf,
      issuerRnc: header.issuerRnc,
      issuerName: header.issuerName,
      buyerRnc: receiver.rnc,
      issueDate: header.issueDate,
      totalAmount: header.totalAmount,
      itbisAmount: header.itbisTotal ?? null,
      securityCode: header.securityCode,
      signer: signature.signer,
      xml,
      xmlSha256: await sha256Hex(xml),
      receiptXml,
      receivedAt: now,
    })
    .onConflictDoNothing({ target: [received.tenantId, received.issuerRnc, received.encf] })
    .returning({ id: received.id });
  if (!row) return refuse("duplicate");
  return { receiptXml, received: true, id: row.id };
}

/**
 * Who the ARECF answers, read before anything else is trusted: RNCEmisor and eNCF of an ECF
 * document, in the formats ARECF.xsd requires of them. Null when they cannot be read.
 */
function ecfIdentity(xml: string): { issuerRnc: string; encf: string } | null {
  const root = tryParseXml(xml)?.documentElement;
  if (root?.nodeName !== "ECF") return null;
  const text = (name: string) => root.getElementsByTagName(name)[0]?.textContent?.trim() ?? "";
  const issuerRnc = text("RNCEmisor");
  const encf = text("eNCF");
  return /^(\d{9}|\d{11})$/.test(issuerRnc) && /^E\d{12}$/.test(encf) ? { issuerRnc, encf } : null;
}

/** A commercial approval refused: HTTP 400 with DGII's message for it (Descripción técnica, "Recepción de aprobación comercial"). */
export class ApprovalRefused extends Error {}

/**
 * POST /fe/aprobacioncomercial/api/ecf: a buyer's ACECF of one of our e-CF. Its signature and
 * schema are checked, it must name our RNC as issuer and an e-CF we issued to that buyer; the
 * e-CF's commercial_status then records it (the last one received wins).
 */
export async function receiveApproval(db: AnyDb, receiver: Receiver, xml: string, now = new Date()): Promise<AcecfInput> {
  let approval: AcecfInput;
  try {
    approval = readAcecf(xml);
  } catch (error) {
    if (!(error instanceof EcfReadError)) throw error;
    throw new ApprovalRefused("La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente");
  }
  if (!verifySignedXml(xml, now).valid) throw new ApprovalRefused("La firma del XML no es válida");
  const schemaCheck = await validateAgainstSchema(xml, "ACECF");
  if (!schemaCheck.valid)
    throw new ApprovalRefused(
      `La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente. ${schemaCheck.errors.join(" ")}`.trim(),
    );
  if (approval.issuerRnc !== receiver.rnc) throw new ApprovalRefused("Factura no encontrada para esta Aprobación comercial.");
  const [updated] = await db
    .update(documents)
    .set({
      commercialStatus: approval.approved ? "approved" : "rejected",
      commercialReason: approval.reason ?? null,
      commercialXml: xml,
      commercialAt: now,
      updatedAt: now,
    })
    .where(
      and(eq(documents.tenantId, receiver.tenantId), eq(documents.encf, approval.encf), sql`${documents.buyerRnc} IS NOT DISTINCT FROM ${approval.buyerRnc}`),
    )
    .returning({ id: documents.id });
  if (!updated) throw new ApprovalRefused("No se encuentra un e-CF válido para esta aprobación comercial");
  return approval;
}

// ---- The API side: what was received, turned into purchases and approved

export function serializeReceived(row: ReceivedRow, approval?: typeof approvals.$inferSelect | null) {
  return {
    id: row.id,
    ecf_type: row.ecfType,
    encf: row.encf,
    issuer_rnc: row.issuerRnc,
    issuer_name: row.issuerName,
    buyer_rnc: row.buyerRnc,
    issue_date: row.issueDate,
    total_amount: decimal2(row.totalAmount)!,
    itbis_amount: row.itbisAmount === null ? null : decimal2(row.itbisAmount),
    security_code: row.securityCode,
    signer: row.signer,
    xml_sha256: row.xmlSha256,
    status: row.status as "received" | "purchased",
    purchase_id: row.purchaseId,
    commercial_status: row.commercialStatus as "pending" | "approved" | "rejected",
    approval: approval
      ? {
          approved: approval.approved,
          reason: approval.reason,
          dgii_status: approval.dgiiStatus as DeliveryStatus,
          issuer_status: approval.issuerStatus as DeliveryStatus,
          attempts: approval.attempts,
          last_error: approval.lastError,
          next_attempt_at: approval.dgiiStatus === "pending" || approval.issuerStatus === "pending" ? timestamp(approval.nextAttemptAt) : null,
        }
      : null,
    received_at: timestamp(row.receivedAt)!,
  };
}

export async function listReceived(db: AnyDb, tenantId: number, query: ListQuery<ReceivedEcfFilter, ReceivedEcfSort>) {
  const f = query.filters;
  const where = and(
    eq(received.tenantId, tenantId),
    f.status ? eq(received.status, f.status) : undefined,
    f.received_from ? gte(received.receivedAt, new Date(`${f.received_from}T00:00:00-04:00`)) : undefined,
    f.commercial_status ? eq(received.commercialStatus, f.commercial_status) : undefined,
    f.issuer_rnc ? eq(received.issuerRnc, f.issuer_rnc) : undefined,
  );
  const column = { received_at: received.receivedAt, issue_date: received.issueDate, encf: received.encf }[query.sort.field];
  const page = await pageOf(db, received, where, orderBy(column, received.id, query.sort.descending), query);
  const ids = page.rows.map((row) => row.id);
  const sent = ids.length ? await db.select().from(approvals).where(inArray(approvals.receivedEcfId, ids)) : [];
  const byReceived = new Map(sent.map((approval) => [approval.receivedEcfId, approval]));
  return { data: page.rows.map((row) => serializeReceived(row, byReceived.get(row.id) ?? null)), total: page.total };
}

export async function findReceived(db: AnyDb, tenantId: number, id: number, lock = false) {
  const base = db
    .select()
    .from(received)
    .where(and(eq(received.tenantId, tenantId), eq(received.id, id)));
  const [row] = lock ? await base.for("update") : await base;
  if (!row) throw notFound("Received e-CF");
  const [approval] = await db.select().from(approvals).where(eq(approvals.receivedEcfId, id));
  return { row, approval: approval ?? null };
}

/**
 * POST /received-ecf/{id}/approval: our ACECF (Formato Aprobación Comercial v1.0), signed once and
 * stored; delivered after commit to DGII and to the issuer's receiver (jobs/approvals.ts). Once only:
 * a second decision is 409 `approval_already_sent`.
 */
export async function approveReceived(
  db: AnyDb,
  receiver: Receiver,
  id: number,
  input: { approved: boolean; reason?: string | null },
  userId: number,
  now = new Date(),
) {
  const { row, approval } = await findReceived(db, receiver.tenantId, id, true);
  if (approval) throw new AppError("approval_already_sent", `This e-CF was already ${approval.approved ? "approved" : "rejected"}.`);
  const xml = signXml(
    buildAcecf({
      issuerRnc: row.issuerRnc,
      buyerRnc: receiver.rnc,
      encf: row.encf,
      issueDate: row.issueDate,
      totalAmount: row.totalAmount,
      approved: input.approved,
      reason: input.reason ?? undefined,
      at: now,
    }),
    receiver.material,
  ).xml;
  const [created] = await db
    .insert(approvals)
    .values({
      tenantId: receiver.tenantId,
      receivedEcfId: row.id,
      approved: input.approved,
      reason: input.reason ?? null,
      environment: receiver.environment,
      xml,
      createdBy: userId,
      nextAttemptAt: now,
    })
    .returning();
  const [updated] = await db
    .update(received)
    .set({ commercialStatus: input.approved ? "approved" : "rejected", updatedAt: now })
    .where(eq(received.id, row.id))
    .returning();
  return { row: updated!, approval: created! };
}
