import { and, desc, eq, gte, inArray, isNull, or, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { orderBy, pageOfQuery, updatedSince } from "../../db/queries";
import { oneRow, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { isStorableDate, isStorableMoney } from "../../lib/bounds";
import { sha256Hex } from "../../lib/crypto";
import { Big } from "../../lib/decimal";
import { AppError, fieldError, fieldErrorsFromZod, notFound } from "../../lib/errors";
import { decimal2, timestamp } from "../../lib/format";
import { normalizeIdentification } from "../../lib/identification";
import { createContact } from "../contacts/service";
import type { SigningMaterial } from "../ecf/certificate";
import {
  type AcecfInput,
  buildAcecf,
  buildArecf,
  type EcfHeader,
  type EcfItem,
  type EcfLines,
  EcfReadError,
  readAcecf,
  readEcfHeader,
  readEcfLines,
} from "../ecf/receipts";
import type { EcfEnvironment } from "../ecf/schemas";
import { openedCertificate } from "../ecf/service";
import { parseUntrustedXml, signXml, UntrustedXmlError, type XmlDocument } from "../ecf/signature";
import { namesAuthor, type TrustStore, TrustStoreError, trustStoreOf } from "../ecf/signers";
import type { SchemaName } from "../ecf/xsd";
import { createPurchase, type WrittenPurchase } from "../purchases/enter";
import { CreatePurchaseBody, type CreatePurchaseInput } from "../purchases/schemas";
import { ourSeedExpiry, type TokenHolder } from "./receiver-auth";
import type { DeliveryStatus, ReceivedEcfFilter, ReceivedEcfPurchaseInput, ReceivedEcfSort } from "./schemas";
import { verifySignedDocument } from "./verify";

/**
 * The receiver side of e-CF (Ley 32-23: every electronic issuer receives; DGII, Descripción técnica,
 * "Estándar de comunicación Emisor-Receptor"): e-CF our suppliers send us, acknowledged with a
 * signed ARECF (Formato Acuse de Recibo v1.0), and commercial approvals (ACECF) of the e-CF we
 * issued. Our own approvals of what we received are in jobs/approvals.ts.
 */

/**
 * The schema validator, loaded on first use: libxml2's wasm is a module only the Worker's bundler
 * gives (wrangler's CompiledWasm rule), and Node scripts that read the route table (docs:routes, the
 * OpenAPI checks) never load it.
 */
const validateAgainstSchema = async (xml: string, name: SchemaName) => (await import("../ecf/xsd")).validateAgainstSchema(xml, name);

const received = schema.receivedEcf;
const seedUses = schema.receiverSeedUses;
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

/**
 * The authorities whose certificates the receiver accepts (ECF_TRUSTED_CA_PEM, signers.ts). Without
 * them nothing can be told about a signer, so the receiver services refuse with a configuration error
 * (503 receiver_not_configured) instead of trusting any certificate.
 */
export function receiverTrust(pemBundle: string | undefined): TrustStore {
  let trust: TrustStore | null;
  try {
    trust = trustStoreOf(pemBundle);
  } catch (error) {
    if (error instanceof TrustStoreError)
      throw new AppError("receiver_not_configured", `This receiver cannot check who signs what it receives: ${error.message}`);
    throw error;
  }
  if (!trust) {
    throw new AppError(
      "receiver_not_configured",
      "This receiver cannot check who signs what it receives: ECF_TRUSTED_CA_PEM (the certification authorities accredited by INDOTEL) is not configured.",
    );
  }
  return trust;
}

/** The receiver's authentication refused a signed seed: HTTP 400 with this text (DGII's messages). */
export class SeedRefused extends Error {}

/**
 * POST /fe/autenticacion/api/validacioncertificado: a seed we issued for this tenant, unexpired,
 * signed by an accepted certificate (signers.ts) that names a taxpayer (RNC or cédula), and never
 * exchanged before → who holds the token. The seed is spent in the same statement that checks it.
 */
export async function authenticateSeed(
  db: AnyDb,
  receiver: Pick<Receiver, "tenantId">,
  xml: string,
  options: { secret: string; trust: TrustStore; now?: Date },
): Promise<TokenHolder> {
  const now = options.now ?? new Date();
  let document: XmlDocument;
  try {
    document = parseUntrustedXml(xml);
  } catch (error) {
    if (error instanceof UntrustedXmlError) throw new SeedRefused(`El archivo XML no es válido: ${error.message}`);
    throw error;
  }
  const root = document.documentElement!;
  const value = root.localName === "SemillaModel" && !root.namespaceURI ? root.getElementsByTagName("valor")[0]?.textContent : null;
  const expires = value ? await ourSeedExpiry(options.secret, receiver.tenantId, value, now) : null;
  if (!value || !expires) throw new SeedRefused("Semilla inválida o expirada.");
  const signature = verifySignedDocument(document, xml, options.trust, now);
  if (!signature.valid) throw new SeedRefused(`La firma del archivo no es válida: ${signature.reason}`);
  if (!signature.signer.identifiers.length) {
    throw new SeedRefused("El certificado no identifica a un contribuyente: su serialNumber no es un RNC ni una cédula.");
  }
  const [spent] = rowsOf<{ spent: number }>(
    await db.execute(sql`
    WITH purged AS (
      DELETE FROM ${seedUses} WHERE ${seedUses.tenantId} = ${receiver.tenantId} AND ${seedUses.expiresAt} < ${now.toISOString()}::timestamptz
    ), spent AS (
      INSERT INTO ${seedUses} (tenant_id, seed_digest, expires_at) VALUES (${receiver.tenantId}, ${await sha256Hex(value)}, ${expires.toISOString()}::timestamptz)
      ON CONFLICT DO NOTHING RETURNING 1
    )
    SELECT count(*)::integer AS spent FROM spent`),
  );
  if (!spent?.spent) throw new SeedRefused("Semilla ya utilizada: solicite otra.");
  return { fingerprint: signature.signer.fingerprint, identifiers: signature.signer.identifiers };
}

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

/** Who sent a document: the receiver token's holder, and the authorities to check its signature against. */
export interface Sender {
  holder: TokenHolder;
  trust: TrustStore;
}

/** Whether the header's amounts and date fit our columns (numeric(14,2), a real date 1900-2199): DGII's schema allows more digits and any dd-MM-yyyy. */
function storable(header: EcfHeader): boolean {
  return isStorableDate(header.issueDate) && isStorableMoney(header.totalAmount) && (header.itbisTotal === null || isStorableMoney(header.itbisTotal));
}

/**
 * POST /fe/recepcion/api/ecf. The body is bounded and parsed once (parseUntrustedXml); that tree
 * serves every step. Checked in this order, the first failure answering an ARECF "no recibido" with
 * its code: the signature, its certificate (an accredited authority's, naming RNCEmisor) and that it
 * is the certificate that took the token (2); DGII's schema for the type, and amounts and a date our
 * books can hold (1); the buyer being us (4); a first reception of this issuer's e-NCF among
 * authenticated documents (3). A received e-CF is stored byte for byte with the signed ARECF that
 * acknowledged it.
 */
export async function receiveEcf(db: AnyDb, receiver: Receiver, xml: string, sender: Sender, now = new Date()): Promise<ReceptionResult> {
  let document: XmlDocument;
  try {
    document = parseUntrustedXml(xml);
  } catch (error) {
    if (error instanceof UntrustedXmlError) throw new ReceptionRefused(`La estructura del archivo XML no es válida: ${error.message}`);
    throw error;
  }
  const identity = ecfIdentity(document);
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

  const signature = verifySignedDocument(document, xml, sender.trust, now);
  if (!signature.valid) return refuse("signature");
  // Signed by the issuer it names (RNCEmisor), with the certificate that authenticated for the token.
  if (!namesAuthor(signature.signer, identity.issuerRnc) || signature.signer.fingerprint !== sender.holder.fingerprint) return refuse("signature");
  let header: EcfHeader;
  try {
    header = readEcfHeader(document);
  } catch (error) {
    if (error instanceof EcfReadError) return refuse("specification");
    throw error;
  }
  if (!RECEIVABLE_TYPES.has(header.type)) return refuse("specification");
  const schemaCheck = await validateAgainstSchema(xml, `e-CF-${header.type}` as SchemaName);
  if (!schemaCheck.valid || !storable(header)) return refuse("specification");
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
      signer: signature.signer.subject,
      authenticated: true,
      signerFingerprint: signature.signer.fingerprint,
      environment: receiver.environment,
      xml,
      xmlSha256: await sha256Hex(xml),
      receiptXml,
      receivedAt: now,
    })
    .onConflictDoNothing({ target: [received.tenantId, received.issuerRnc, received.encf], where: sql`${received.authenticated}` })
    .returning({ id: received.id });
  if (!row) return refuse("duplicate");
  return { receiptXml, received: true, id: row.id };
}

/**
 * Who the ARECF answers, read before anything else is trusted: RNCEmisor and eNCF of an ECF
 * document, in the formats ARECF.xsd requires of them. Null when they cannot be read.
 */
function ecfIdentity(document: XmlDocument): { issuerRnc: string; encf: string } | null {
  const root = document.documentElement;
  if (root?.nodeName !== "ECF") return null;
  const text = (name: string) => root.getElementsByTagName(name)[0]?.textContent?.trim() ?? "";
  const issuerRnc = text("RNCEmisor");
  const encf = text("eNCF");
  return /^(\d{9}|\d{11})$/.test(issuerRnc) && /^E\d{12}$/.test(encf) ? { issuerRnc, encf } : null;
}

/** A commercial approval refused: HTTP 400 with DGII's message for it (Descripción técnica, "Recepción de aprobación comercial"). */
export class ApprovalRefused extends Error {}

const STRUCTURE_REFUSED = "La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente";
/** The one answer for an ACECF that matches none of our e-CF, whatever differs: no oracle of which buyer got which number. */
const NO_MATCHING_ECF = "No se encuentra un e-CF válido para esta aprobación comercial";

/**
 * POST /fe/aprobacioncomercial/api/ecf: a buyer's ACECF of one of our e-CF. The body is bounded and
 * parsed once; its signature must be the buyer's (an accepted certificate naming RNCComprador, the
 * one that took the token), its structure ACECF.xsd's. It changes the commercial status of our e-CF
 * only when RNCEmisor (us), e-NCF, RNCComprador, FechaEmision and MontoTotal are all that e-CF's;
 * any difference, or an unknown e-NCF, gets the same refusal. The last approval received wins.
 */
export async function receiveApproval(db: AnyDb, receiver: Receiver, xml: string, sender: Sender, now = new Date()): Promise<AcecfInput> {
  let document: XmlDocument;
  let approval: AcecfInput;
  try {
    document = parseUntrustedXml(xml);
    approval = readAcecf(document);
  } catch (error) {
    if (!(error instanceof EcfReadError || error instanceof UntrustedXmlError)) throw error;
    throw new ApprovalRefused(STRUCTURE_REFUSED);
  }
  const signature = verifySignedDocument(document, xml, sender.trust, now);
  if (!signature.valid) throw new ApprovalRefused("La firma del XML no es válida");
  if (!namesAuthor(signature.signer, approval.buyerRnc) || signature.signer.fingerprint !== sender.holder.fingerprint) {
    throw new ApprovalRefused(`El certificado no corresponde al RNCComprador ${approval.buyerRnc} ni al que obtuvo el token.`);
  }
  const schemaCheck = await validateAgainstSchema(xml, "ACECF");
  if (!schemaCheck.valid) throw new ApprovalRefused(`${STRUCTURE_REFUSED}. ${schemaCheck.errors.join(" ")}`.trim());
  if (approval.issuerRnc !== receiver.rnc || !isStorableDate(approval.issueDate) || !isStorableMoney(approval.totalAmount)) {
    throw new ApprovalRefused(NO_MATCHING_ECF);
  }
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
      and(
        eq(documents.tenantId, receiver.tenantId),
        eq(documents.issuerRnc, approval.issuerRnc),
        eq(documents.encf, approval.encf),
        eq(documents.buyerRnc, approval.buyerRnc),
        eq(documents.issueDate, approval.issueDate),
        eq(documents.totalAmount, approval.totalAmount),
      ),
    )
    .returning({ id: documents.id });
  if (!updated) throw new ApprovalRefused(NO_MATCHING_ECF);
  return approval;
}

// ---- The API side: what was received, turned into purchases and approved

/** What a received e-CF shows of our approval of it. */
type ApprovalShown = Pick<typeof approvals.$inferSelect, "approved" | "reason" | "dgiiStatus" | "issuerStatus" | "attempts" | "lastError" | "nextAttemptAt">;
const approvalShown = {
  approved: approvals.approved,
  reason: approvals.reason,
  dgiiStatus: approvals.dgiiStatus,
  issuerStatus: approvals.issuerStatus,
  attempts: approvals.attempts,
  lastError: approvals.lastError,
  nextAttemptAt: approvals.nextAttemptAt,
};

export function serializeReceived(row: ReceivedRow, approval?: ApprovalShown | null) {
  return {
    id: row.id,
    ecf_type: row.ecfType,
    encf: row.encf,
    issuer_rnc: row.issuerRnc,
    issuer_name: row.issuerName,
    buyer_rnc: row.buyerRnc,
    issue_date: row.issueDate,
    total_amount: decimal2(row.totalAmount),
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
    received_at: timestamp(row.receivedAt),
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
    updatedSince(received.updatedAt, query),
  );
  const column = { received_at: received.receivedAt, issue_date: received.issueDate, encf: received.encf, updated_at: received.updatedAt }[query.sort.field];
  // Each received e-CF with our approval of it (at most one: ecf_approvals_received_idx), joined in
  // the page's statement (issue 46: one round trip per read).
  const { rows, total } = await pageOfQuery(
    db,
    { table: received, id: received.id, where, order: [orderBy(column, received.id, query.sort.descending)], query },
    (page) =>
      db
        .select({ row: received, approval: approvalShown, ...page })
        .from(received)
        .leftJoin(approvals, eq(approvals.receivedEcfId, received.id))
        .$dynamic(),
  );
  return { data: rows.map((r) => serializeReceived(r.row, r.approval)), total };
}

export async function findReceived(db: AnyDb, tenantId: number, id: number, lock = false) {
  const base = db
    .select()
    .from(received)
    .where(and(eq(received.tenantId, tenantId), eq(received.id, id)));
  // A read issues both together, one round trip (issue 46); a change reads the approval once it
  // holds the row's lock (two concurrent approvals then see each other's).
  const approvalOf = () => db.select().from(approvals).where(eq(approvals.receivedEcfId, id));
  const [[row], [approval]] = lock ? [await base.for("update"), await approvalOf()] : await Promise.all([base, approvalOf()]);
  if (!row) throw notFound("Received e-CF");
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
  const created = await db
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
    .returning()
    .then(oneRow);
  const updated = await db
    .update(received)
    .set({ commercialStatus: input.approved ? "approved" : "rejected", updatedAt: now })
    .where(eq(received.id, row.id))
    .returning()
    .then(oneRow);
  return { row: updated, approval: created };
}

// ---- A received e-CF turned into a purchase (docs/reception.md, "Turning a received e-CF into a purchase")

/**
 * The tax of each IndicadorFacturacion (Formato e-CF v1.0, DetallesItems field "Indicador de
 * Facturación"): 1 ITBIS 18 %, 2 ITBIS 16 %, 3 ITBIS 0 %, 4 exento; 0 (no facturable) takes none.
 */
const INDICATOR_TAX: Record<1 | 2 | 3 | 4, { type: string; rate: string; name: string }> = {
  1: { type: "itbis", rate: "18", name: "ITBIS 18 %" },
  2: { type: "itbis", rate: "16", name: "ITBIS 16 %" },
  3: { type: "itbis", rate: "0", name: "ITBIS 0 %" },
  4: { type: "exento", rate: "0", name: "exento" },
};

type PurchaseLine = CreatePurchaseInput["items"][number];

/** A line's pesos at the e-CF's TipoCambio, for a line of a foreign-currency e-CF without OtraMonedaDetalle. */
function inCurrency(item: EcfItem, rate: string) {
  const at = (value: string, places: number) => new Big(value).div(rate).round(places, Big.roundHalfUp).toFixed(places);
  return { unitPrice: at(item.unitPrice, 4), discount: at(item.discount, 2), amount: at(item.amount, 2) };
}

/**
 * The e-CF's lines as purchase lines, in the purchase's currency (the e-CF's OtraMonedaDetalle when
 * it has one). A discount (DescuentoMonto) becomes the line's percentage when a percentage of at
 * most 2 decimals gives exactly that amount on the line's subtotal; otherwise it goes into the unit
 * cost, MontoItem ÷ CantidadItem to 4 decimals, so the line amount stays the e-CF's.
 */
async function linesOfEcf(db: AnyDb, tenantId: number, lines: EcfLines): Promise<PurchaseLine[]> {
  const taxes = await db
    .select({ id: schema.taxes.id, type: schema.taxes.type, rate: schema.taxes.rate })
    .from(schema.taxes)
    .where(and(eq(schema.taxes.tenantId, tenantId), eq(schema.taxes.isActive, true), inArray(schema.taxes.type, ["itbis", "exento"])))
    .orderBy(desc(schema.taxes.isDefault), schema.taxes.id);
  return lines.items.map((item) => {
    const side = lines.currency ? (item.foreign ?? inCurrency(item, lines.currency.rate)) : item;
    const unitPrice = side.unitPrice;
    const discount = new Big(side.discount);
    const amount = new Big(side.amount);
    const subtotal = new Big(item.quantity).times(unitPrice).round(2, Big.roundHalfUp);
    let line = { unit_cost: new Big(unitPrice).toFixed(4), discount: "0.00" };
    if (discount.gt(0)) {
      const percent = subtotal.gt(0) ? discount.times(100).div(subtotal) : null;
      const exact = percent?.lte(100) && percent.eq(percent.round(2)) && subtotal.times(percent).div(100).round(2, Big.roundHalfUp).eq(discount);
      line = exact
        ? { unit_cost: line.unit_cost, discount: percent!.toFixed(2) }
        : { unit_cost: amount.div(item.quantity).round(4, Big.roundHalfUp).toFixed(4), discount: "0.00" };
    }
    let taxIds: number[] = [];
    if (item.billingIndicator !== 0) {
      const wanted = INDICATOR_TAX[item.billingIndicator];
      const tax = taxes.find((t) => t.type === wanted.type && new Big(t.rate).eq(wanted.rate));
      if (!tax) {
        throw fieldError(
          "items",
          `Line ${item.number} of the e-CF is ${wanted.name} (IndicadorFacturacion ${item.billingIndicator}) and the company has no active tax of type ${wanted.type} at ${wanted.rate} %: create it, or send items.`,
        );
      }
      taxIds = [tax.id];
    }
    return { product_id: null, description: item.name, quantity: item.quantity, ...line, tax_ids: taxIds };
  });
}

/**
 * The supplier of a received e-CF: the contact visible in the request's workspace whose
 * identification is RNCEmisor — a supplier (or both); a customer is made `both`. With none, one is
 * created in the request's workspace (as POST /contacts would): RazonSocialEmisor, RNC or cédula
 * by its length, contact_type supplier.
 */
async function supplierOfEcf(db: AnyDb, scope: RequestScope, row: ReceivedRow): Promise<number> {
  const contacts = schema.contacts;
  const [known] = await db
    .select({ id: contacts.id, contactType: contacts.contactType })
    .from(contacts)
    .where(
      and(
        eq(contacts.tenantId, scope.tenantId),
        eq(contacts.identification, row.issuerRnc),
        or(isNull(contacts.workspaceId), eq(contacts.workspaceId, scope.workspaceId)),
      ),
    )
    .orderBy(sql`${contacts.contactType} = 'customer'`, contacts.id)
    .limit(1)
    .for("update");
  if (known) {
    if (known.contactType === "customer") await db.update(contacts).set({ contactType: "both", updatedAt: new Date() }).where(eq(contacts.id, known.id));
    return known.id;
  }
  const type = row.issuerRnc.length === 9 ? "rnc" : "cedula";
  const checked = normalizeIdentification(type, row.issuerRnc);
  if (!checked.ok) throw fieldError("supplier_id", `The issuer's ${type} ${row.issuerRnc} cannot identify a contact (${checked.message}): send supplier_id.`);
  const created = await createContact(db, scope, {
    name: row.issuerName.slice(0, 255),
    contact_type: "supplier",
    identification_type: type,
    identification: checked.value,
    workspace_id: scope.workspaceId,
    phone: null,
    address: null,
    notes: null,
  });
  return created.id;
}

/**
 * POST /received-ecf/{id}/purchase: a purchase of the request's workspace prefilled from the
 * received e-CF (createPurchase does every check of POST /purchases), linked to it in the same
 * transaction. Once per e-CF while its purchase stands: a draft deleted or a purchase voided frees
 * it again. A total that differs from the e-CF's MontoTotal (lines replaced, rounding, taxes the
 * purchase does not carry) is a warning, not a refusal: the buyer books what it decides.
 */
export async function purchaseReceived(db: AnyDb, scope: RequestScope, id: number, input: ReceivedEcfPurchaseInput, today: string): Promise<WrittenPurchase> {
  const { row } = await findReceived(db, scope.tenantId, id, true);
  if (row.purchaseId !== null) {
    const [standing] = await db
      .select({ status: schema.purchases.status })
      .from(schema.purchases)
      .where(and(eq(schema.purchases.tenantId, scope.tenantId), eq(schema.purchases.id, row.purchaseId)));
    if (standing && standing.status !== "voided") {
      throw new AppError("received_ecf_already_purchased", `This e-CF is purchase ${row.purchaseId} already (${standing.status}).`);
    }
  }
  // An E34 lowers what was bought from the supplier (Formato e-CF v1.0, Nota de Crédito): it is not a purchase.
  if (row.ecfType === "34") throw fieldError("id", "A credit note (E34) reduces an earlier purchase; it is not entered as one.");
  let lines: EcfLines;
  try {
    lines = readEcfLines(row.xml);
  } catch (error) {
    if (error instanceof EcfReadError) throw fieldError("id", `The stored e-CF's lines cannot be read: ${error.message}`);
    throw error;
  }
  let currency: { id: number; rate: string } | null = null;
  if (lines.currency && lines.currency.code !== "DOP") {
    const [found] = await db
      .select({ id: schema.currencies.id })
      .from(schema.currencies)
      .where(and(eq(schema.currencies.tenantId, scope.tenantId), eq(schema.currencies.code, lines.currency.code)));
    if (!found) throw fieldError("currency", `The e-CF is in ${lines.currency.code} (OtraMoneda) and the company has no such currency: create it first.`);
    currency = { id: found.id, rate: lines.currency.rate };
  }
  const prefilled = {
    ...input,
    supplier_id: input.supplier_id ?? (await supplierOfEcf(db, scope, row)),
    supplier_ncf: row.encf,
    issue_date: row.issueDate,
    due_date: lines.dueDate,
    currency_id: currency?.id ?? null,
    exchange_rate: currency?.rate ?? null,
    items: input.items ?? (await linesOfEcf(db, scope.tenantId, currency ? lines : { ...lines, currency: null })),
  };
  const parsed = CreatePurchaseBody.safeParse(prefilled);
  if (!parsed.success)
    throw new AppError("validation_failed", "The e-CF's values cannot be entered as a purchase as they are.", fieldErrorsFromZod(parsed.error));
  const written = await createPurchase(db, scope, parsed.data, today);
  await db.update(received).set({ status: "purchased", purchaseId: written.purchase.id, updatedAt: new Date() }).where(eq(received.id, row.id));
  // In the purchase's currency: MontoTotalOtraMoneda when the e-CF has one (Formato e-CF v1.0, Otra Moneda), else MontoTotal.
  const [ecfTotal, field] = currency && lines.currency?.total ? [lines.currency.total, "MontoTotalOtraMoneda"] : [decimal2(row.totalAmount), "MontoTotal"];
  if (!new Big(written.purchase.total_amount).eq(ecfTotal)) {
    written.warnings.push({
      code: "total_differs_from_ecf",
      field: input.items ? "items" : "id",
      message: `The purchase's total ${written.purchase.total_amount} differs from the e-CF's ${field} ${ecfTotal}.`,
    });
  }
  return written;
}
