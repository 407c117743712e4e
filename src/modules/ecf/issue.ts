import { type SQL, sql } from "drizzle-orm";
import { Big } from "../../lib/decimal";
import { AppError, fieldError } from "../../lib/errors";
import type { LineAmounts, TaxBreakdown } from "../sales/lines";
import type { LoadedEcfSettings } from "../sales/references";
import type { DocumentSnapshot } from "../sales/schemas";
import { DEFERRED_SENDING_LIMIT_MS } from "./dating";
import { buildRfce } from "./rfce";
import { openedCertificate } from "./service";
import { signXml } from "./signature";
import { userEntryValue } from "./timeline";
import { buildEcf, CONSUMER_THRESHOLD_DOP, EcfBuildError, type EcfDocument, type EcfLine, ecfAmounts } from "./xml";

/**
 * Issuing an e-CF (docs/ecf.md, "Issuing"): inside the issuing transaction, after the number was
 * taken under the sequence's row lock and before the one write statement, the document is built
 * as XML from its snapshot, lines and tax breakdown and signed with the tenant's certificate; the
 * write statement stores the signed XML byte for byte with the document, so a document that exists
 * has its signed e-CF (and a refusal rolls back both, the number included). Signing adds no round
 * trip: it is CPU between two statements the issue makes anyway.
 */

/** The e-CF types issued: sales invoices and notes, and the buyer's own 41, 43, 47 (purchases). */
const BUILT_TYPES = new Set<EcfDocument["type"]>(["31", "32", "33", "34", "41", "43", "44", "45", "46", "47"]);

/** The tenant's e-CF setup must be complete before an e-NCF is handed out (Ley 32-23: an e-NCF without its e-CF is an infraction). */
/** e-CF settings that assertEcfReady accepted: on, with a certificate. */
export type ReadyEcfSettings = LoadedEcfSettings & { certificate_encrypted: string };

export function assertEcfReady(prefix: string, settings: LoadedEcfSettings | null): asserts settings is ReadyEcfSettings {
  if (!settings?.enabled || !settings.certificate_encrypted) {
    throw fieldError(
      "document_subtype_id",
      "Electronic invoicing (e-CF) is not enabled for this company: upload the certificate (PUT /api/v1/ecf/certificate) and enable it (PUT /api/v1/ecf/settings) before issuing E-series documents.",
      "ecf_not_configured",
    );
  }
  if (!BUILT_TYPES.has(prefix.slice(1) as EcfDocument["type"])) {
    throw fieldError("document_subtype_id", `Issuing e-CF type ${prefix} is not available yet.`, "ecf_not_configured");
  }
}

/** IndicadorFacturacion (Formato e-CF v1.0): 1 ITBIS 18 %, 2 ITBIS 16 %, 3 ITBIS 0 %, 4 exento, 0 no facturable; a line without an ITBIS tax is exempt, as the tax breakdown counts it. */
function billingIndicator(amounts: LineAmounts): EcfLine["billingIndicator"] {
  const indicator = amounts.taxes.find((tax) => tax.type === "itbis" || tax.type === "exento" || tax.type === "no_facturable");
  if (indicator?.type === "no_facturable") return 0;
  if (indicator?.type !== "itbis") return 4;
  const rate = new Big(indicator.rate);
  return rate.eq(18) ? 1 : rate.eq(16) ? 2 : 3;
}

/** A document line as the e-CF needs it (invoice lines and note lines both fit). */
export interface EcfSourceLine {
  description: string;
  isService: boolean;
  quantity: string;
  unitPrice: string;
  /** What the buyer withheld on the line (Retencion; E41, E47), in the document's currency. */
  withholding?: { itbis?: string; isr?: string };
}

export interface EcfSource {
  tenantId: number;
  encf: string;
  issueDate: string;
  /** The sequence's expiry (FechaVencimientoSecuencia). */
  sequenceExpiry: string | null;
  /** The due date: a later one makes the sale on credit (TipoPago 2, FechaLimitePago). */
  dueDate: string | null;
  snapshot: DocumentSnapshot;
  lines: EcfSourceLine[];
  amounts: LineAmounts[];
  breakdown: TaxBreakdown;
  total: string;
  /** A document in a currency other than the default (DOP): OtraMoneda. */
  currency?: { code: string; exchangeRate: string };
  /** A note: the e-CF or NCF it modifies (InformacionReferencia) and, for E34, IndicadorNotaCredito. */
  reference?: EcfDocument["reference"];
  creditNoteIndicator?: 0 | 1;
  /**
   * TipoIngresos (Formato e-CF v1.0, field 8: "según clasificación del formato de envío de ventas",
   * the 607's column 5): the invoice's income_type, a note's invoice's, so the e-CF and the 607 say
   * the same. The buyer's types (41, 43, 47) carry none (field 8: 0); buildEcf leaves it out.
   */
  incomeType: EcfDocument["incomeType"];
  /** A sale made offline by a branch device, sent deferred (IndicadorEnvioDiferido 1): when it was made. */
  offlineIssuedAt?: Date;
}

/** An e-CF signed, as ecf_documents stores it. */
export interface SignedEcf {
  ecfType: string;
  encf: string;
  environment: string;
  xml: string;
  /** An E32 under RD$250,000: its signed summary (RFCE), what DGII receives. */
  summaryXml: string | null;
  securityCode: string;
  signedAt: Date;
  issuerRnc: string;
  buyerRnc: string | null;
  issueDate: string;
  totalAmount: string;
  /** Deferred sending: the offline sale's time and the 24 hours DGII must have it within. */
  offlineIssuedAt: Date | null;
  deferredDeadline: Date | null;
  /** What the issue was, for its timeline's `signed` entry: a replacement of a paper NCF, a note, a deferred sale (", replacing …"), or "". */
  issuedAs: string;
}

/** The words after "Issued by X" in an e-CF's timeline (issue 43). */
function issuedAs(source: EcfSource): string {
  const parts: string[] = [];
  const ref = source.reference;
  if (ref?.modificationCode === 4) parts.push(`replacing the paper NCF ${ref.ncf} of ${ref.date}, written during a contingency`);
  else if (ref) parts.push(`modifying ${ref.ncf} of ${ref.date}`);
  if (source.offlineIssuedAt) parts.push(`from the sale a branch device made offline at ${source.offlineIssuedAt.toISOString()} (deferred sending)`);
  return parts.length ? `, ${parts.join(", ")}` : "";
}

/** Tabla I codes of a line's additional taxes (ISC, propina, others), as its TablaImpuestoAdicional lists them. */
function additionalCodes(amounts: LineAmounts): string[] | undefined {
  const codes = amounts.taxes.flatMap((tax) =>
    tax.type !== "itbis" && tax.type !== "exento" && tax.type !== "no_facturable" && tax.dgii_code ? [tax.dgii_code] : [],
  );
  return codes.length ? codes : undefined;
}

/**
 * Builds and signs the e-CF of a document being issued; an E32 under RD$250,000 also gets its
 * signed RFCE (Formato RFCE v1.0: DGII receives the summary, the buyer the whole e-CF). What the
 * type cannot carry (the XML builder's EcfBuildError) is a 422 on the document, never a 500: the
 * caller's transaction rolls back, the number with it.
 */
/**
 * ISC on alcohol and tobacco (Tabla I 006-039) is computed by DGII from each line's reference
 * quantity, sub-quantity, alcohol degrees or reference retail price and its own quarterly rates
 * (Formato e-CF v1.0, fields 107-108); the product model does not hold those yet, so an e-CF
 * carrying it would be refused by DGII with its number spent. Refused here, before anything is
 * signed (docs/ecf.md, "The XML").
 */
function assertNoDgiiComputedIsc(amounts: LineAmounts[]) {
  const errors: Record<string, string[]> = {};
  amounts.forEach((line, i) => {
    const isc = line.taxes.find((tax) => tax.type === "isc" && tax.dgii_code !== undefined && tax.dgii_code >= "006" && tax.dgii_code <= "039");
    if (isc) {
      errors[`items.${i}.tax_ids`] = [
        `ISC ${isc.dgii_code} (alcohol and tobacco) cannot go on an e-CF yet: DGII computes it from reference quantities, degrees and prices the products do not record.`,
      ];
    }
  });
  if (Object.keys(errors).length) throw new AppError("validation_failed", "This document cannot be an e-CF yet.", errors);
}

export async function signEcf(settings: ReadyEcfSettings, encryptionKey: string | undefined, source: EcfSource): Promise<SignedEcf> {
  assertNoDgiiComputedIsc(source.amounts);
  const signer = await openedCertificate(source.tenantId, settings.certificate_encrypted, encryptionKey);
  const signedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const type = source.encf.slice(1, 3) as EcfDocument["type"];
  const credit = source.dueDate !== null && source.dueDate > source.issueDate;
  const doc: EcfDocument = {
    type,
    encf: source.encf,
    // The sequence's expiry is mandatory in most types; a sequence without one is taken to run to the end of the following year.
    sequenceExpiry: source.sequenceExpiry ?? `${Number(source.issueDate.slice(0, 4)) + 1}-12-31`,
    issueDate: source.issueDate,
    paymentType: credit ? 2 : 1,
    ...(credit ? { dueDate: source.dueDate! } : {}),
    incomeType: source.incomeType,
    snapshot: source.snapshot,
    lines: source.lines.map((line, i) => {
      const amounts = source.amounts[i]!;
      const codes = additionalCodes(amounts);
      return {
        name: line.description,
        goodsOrService: line.isService ? 2 : 1,
        quantity: line.quantity,
        unitPrice: line.unitPrice,
        discountAmount: amounts.discountAmount,
        amount: new Big(amounts.subtotal).minus(amounts.discountAmount).toFixed(2),
        billingIndicator: billingIndicator(amounts),
        ...(codes ? { additionalTaxCodes: codes } : {}),
        ...(line.withholding ? { withholding: line.withholding } : {}),
      };
    }),
    breakdown: source.breakdown,
    total: source.total,
    signedAt,
    ...(source.currency ? { currency: source.currency } : {}),
    ...(source.reference ? { reference: source.reference } : {}),
    ...(source.creditNoteIndicator !== undefined ? { creditNoteIndicator: source.creditNoteIndicator } : {}),
    ...(source.offlineIssuedAt ? { deferredSending: true } : {}),
  };
  let signed: ReturnType<typeof signXml>;
  let summaryXml: string | null = null;
  try {
    signed = signXml(buildEcf(doc), signer);
    if (type === "32" && ecfAmounts(doc).dop.total.lt(CONSUMER_THRESHOLD_DOP)) summaryXml = signXml(buildRfce(doc, signed.securityCode), signer).xml;
  } catch (error) {
    if (error instanceof EcfBuildError) throw fieldError("items", `This document cannot be an e-CF of type ${type}: ${error.message}`);
    throw error;
  }
  const buyer = source.snapshot.buyer;
  return {
    ecfType: type,
    encf: source.encf,
    environment: settings.environment,
    xml: signed.xml,
    summaryXml,
    securityCode: signed.securityCode,
    signedAt,
    issuerRnc: source.snapshot.issuer.rnc ?? "",
    buyerRnc: buyer.identification_type === "rnc" || buyer.identification_type === "cedula" ? (buyer.identification?.replace(/\D/g, "") ?? null) : null,
    issueDate: source.issueDate,
    // MontoTotal as signed: in pesos (the document's total at its rate), what the QR repeats.
    totalAmount: ecfAmounts(doc).dop.total.toFixed(2),
    offlineIssuedAt: source.offlineIssuedAt ?? null,
    deferredDeadline: source.offlineIssuedAt ? new Date(source.offlineIssuedAt.getTime() + DEFERRED_SENDING_LIMIT_MS) : null,
    issuedAs: issuedAs(source),
  };
}

/**
 * The INSERT of a signed e-CF for the issuing statement's WITH list (`documentId`: the invoice's,
 * note's or purchase's id, in SQL), with its timeline's first entry: signed, issued by `userId`.
 */
export function insertEcfStatement(
  tenantId: number,
  workspaceId: number,
  kind: "invoice" | "note" | "purchase",
  documentId: SQL,
  ecf: SignedEcf,
  userId: number,
): SQL {
  const owner = (which: typeof kind) => (kind === which ? documentId : null);
  const signed = userEntryValue({ state: "signed", code: "issued", attempt: null, track_id: null }, userId, "Issued by ", `${ecf.issuedAs}.`);
  return sql`INSERT INTO ecf_documents (tenant_id, workspace_id, invoice_id, note_id, purchase_id, ecf_type, encf, environment, xml, summary_xml, security_code, signed_at,
      issuer_rnc, buyer_rnc, issue_date, total_amount, offline_issued_at, deferred_deadline, transition)
    SELECT ${tenantId}, ${workspaceId}, ${owner("invoice")}, ${owner("note")}, ${owner("purchase")}, ${ecf.ecfType}, ${ecf.encf},
      ${ecf.environment}, ${ecf.xml}, ${ecf.summaryXml}, ${ecf.securityCode}, ${ecf.signedAt.toISOString()}::timestamptz, ${ecf.issuerRnc}, ${ecf.buyerRnc},
      ${ecf.issueDate}::date, ${ecf.totalAmount}::numeric, ${ecf.offlineIssuedAt?.toISOString() ?? null}::timestamptz,
      ${ecf.deferredDeadline?.toISOString() ?? null}::timestamptz, ${signed}
    WHERE ${documentId} IS NOT NULL
    RETURNING id`;
}
