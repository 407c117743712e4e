import { type SQL, sql } from "drizzle-orm";
import { fieldError } from "../../http/errors";
import { Big } from "../../lib/decimal";
import type { LineAmounts, TaxBreakdown } from "../sales/lines";
import type { LoadedEcfSettings, ResolvedLine } from "../sales/references";
import type { DocumentSnapshot } from "../sales/schemas";
import { openedCertificate } from "./service";
import { signXml } from "./signature";
import { buildEcf, type EcfDocument, type EcfLine } from "./xml";

/**
 * Issuing an e-CF (docs/ecf.md, "Issuing"): inside the issuing transaction, after the number was
 * taken under the sequence's row lock and before the one write statement, the document is built
 * as XML from its snapshot, lines and tax breakdown and signed with the tenant's certificate; the
 * write statement stores the signed XML byte for byte with the document, so a document that exists
 * has its signed e-CF (and a refusal rolls back both, the number included). Signing adds no round
 * trip: it is CPU between two statements the issue makes anyway.
 */

/** The e-CF types whose XML this build writes (Formato e-CF v1.0); others are refused as not configured. */
const BUILT_TYPES = new Set<EcfDocument["type"]>(["31"]);

/** The tenant's e-CF setup must be complete before an e-NCF is handed out (Ley 32-23: an e-NCF without its e-CF is an infraction). */
export function assertEcfReady(prefix: string, settings: LoadedEcfSettings | null): asserts settings is LoadedEcfSettings & { certificate_encrypted: string } {
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

export interface EcfSource {
  tenantId: number;
  encf: string;
  issueDate: string;
  /** The sequence's expiry (FechaVencimientoSecuencia). */
  sequenceExpiry: string | null;
  /** 1 contado, 2 crédito (TipoPago). */
  paymentType: 1 | 2;
  snapshot: DocumentSnapshot;
  lines: ResolvedLine[];
  amounts: LineAmounts[];
  breakdown: TaxBreakdown;
  total: string;
}

/** An e-CF signed, as ecf_documents stores it. */
export interface SignedEcf {
  ecfType: string;
  encf: string;
  environment: string;
  xml: string;
  securityCode: string;
  signedAt: Date;
  issuerRnc: string;
  buyerRnc: string | null;
  issueDate: string;
  totalAmount: string;
}

/** Builds and signs the e-CF of a document being issued. */
export async function signEcf(
  settings: LoadedEcfSettings & { certificate_encrypted: string },
  encryptionKey: string | undefined,
  source: EcfSource,
): Promise<SignedEcf> {
  const signer = await openedCertificate(source.tenantId, settings.certificate_encrypted, encryptionKey);
  const signedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const type = source.encf.slice(1, 3) as EcfDocument["type"];
  const xml = buildEcf({
    type,
    encf: source.encf,
    // The sequence's expiry is mandatory in the e-CF; a sequence without one is taken to run to the end of the following year.
    sequenceExpiry: source.sequenceExpiry ?? `${Number(source.issueDate.slice(0, 4)) + 1}-12-31`,
    issueDate: source.issueDate,
    paymentType: source.paymentType,
    incomeType: "01",
    snapshot: source.snapshot,
    lines: source.lines.map((line, i) => {
      const amounts = source.amounts[i]!;
      return {
        name: line.description,
        goodsOrService: line.isService ? 2 : 1,
        quantity: line.quantity,
        unitPrice: line.unitPrice,
        discountAmount: amounts.discountAmount,
        amount: new Big(amounts.subtotal).minus(amounts.discountAmount).toFixed(2),
        billingIndicator: billingIndicator(amounts),
      };
    }),
    breakdown: source.breakdown,
    total: source.total,
    signedAt,
  });
  const signed = signXml(xml, signer);
  const buyer = source.snapshot.buyer;
  return {
    ecfType: type,
    encf: source.encf,
    environment: settings.environment,
    xml: signed.xml,
    securityCode: signed.securityCode,
    signedAt,
    issuerRnc: source.snapshot.issuer.rnc ?? "",
    buyerRnc: buyer.identification_type === "rnc" || buyer.identification_type === "cedula" ? buyer.identification : null,
    issueDate: source.issueDate,
    totalAmount: source.total,
  };
}

/** The INSERT of a signed e-CF for the issuing statement's WITH list (`documentId`: the invoice's or the note's id, in SQL). */
export function insertEcfStatement(tenantId: number, workspaceId: number, kind: "invoice" | "note", documentId: SQL, ecf: SignedEcf): SQL {
  return sql`INSERT INTO ecf_documents (tenant_id, workspace_id, invoice_id, note_id, ecf_type, encf, environment, xml, security_code, signed_at,
      issuer_rnc, buyer_rnc, issue_date, total_amount)
    SELECT ${tenantId}, ${workspaceId}, ${kind === "invoice" ? documentId : null}, ${kind === "note" ? documentId : null}, ${ecf.ecfType}, ${ecf.encf},
      ${ecf.environment}, ${ecf.xml}, ${ecf.securityCode}, ${ecf.signedAt.toISOString()}::timestamptz, ${ecf.issuerRnc}, ${ecf.buyerRnc},
      ${ecf.issueDate}::date, ${ecf.totalAmount}::numeric
    WHERE ${documentId} IS NOT NULL
    RETURNING id`;
}
