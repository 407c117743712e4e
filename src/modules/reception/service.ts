import { and, desc, eq, gte, inArray, isNull, or, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { orderBy, pageOf } from "../../db/queries";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import type { RequestScope } from "../../http/scope";
import { sha256Hex } from "../../lib/crypto";
import { Big } from "../../lib/decimal";
import { AppError, fieldError, fieldErrorsFromZod, notFound } from "../../lib/errors";
import { decimal2, timestamp } from "../../lib/format";
import { normalizeIdentification } from "../../lib/identification";
import type { SchemaName } from "../../lib/xsd";
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
import { signXml } from "../ecf/signature";
import { CreatePurchaseBody, type CreatePurchaseInput } from "../purchases/schemas";
import { createPurchase, type WrittenPurchase } from "../purchases/service";
import type { DeliveryStatus, ReceivedEcfFilter, ReceivedEcfPurchaseInput, ReceivedEcfSort } from "./schemas";
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
  const column = { received_at: received.receivedAt, issue_date: received.issueDate, encf: received.encf, updated_at: received.updatedAt }[query.sort.field];
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
  const [ecfTotal, field] = currency && lines.currency?.total ? [lines.currency.total, "MontoTotalOtraMoneda"] : [decimal2(row.totalAmount)!, "MontoTotal"];
  if (!new Big(written.purchase.total_amount).eq(ecfTotal)) {
    written.warnings.push({
      code: "total_differs_from_ecf",
      field: input.items ? "items" : "id",
      message: `The purchase's total ${written.purchase.total_amount} differs from the e-CF's ${field} ${ecfTotal}.`,
    });
  }
  return written;
}
