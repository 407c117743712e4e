import { and, eq, isNotNull } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import type { Config } from "../../env";
import { printedEcf } from "../ecf/documents";
import { invoicePdfData } from "../invoices/service";
import type { PdfDocumentData } from "../sales/pdf";

/**
 * The consumer's lookup of an E32 (Formato RFCE v1.0, introduction: for a consumer invoice under
 * RD$250,000 DGII receives only the summary, and "el emisor deberá disponer de un mecanismo
 * electrónico para fines de consulta por parte de sus clientes"). A customer holds the e-NCF and the
 * security code printed on the receipt: both must match, and any mismatch is the same "not found".
 */

export interface ConsumerInvoice {
  encf: string;
  issuerRnc: string;
  xml: string;
  pdf: PdfDocumentData;
}

/** At most this long: an e-NCF is 13 characters, a security code 6 (Formato e-CF, CodigoSeguridadeCF). */
export const LOOKUP_INPUT_MAX = 20;

/** Equal strings, compared in time that depends on their lengths only (no early exit on the first difference). */
function sameCode(given: string, stored: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(stored);
  let difference = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

/** The e-NCF as looked up (trimmed, upper case) when it is an E32's, else null: only an E32 can be found. */
export function lookupNumber(encf: string): string | null {
  const number = encf.trim().toUpperCase();
  return /^E32\d{10}$/.test(number) ? number : null;
}

/**
 * The tenant's E32 of `encf` when `code` is its security code, else null. One query either way; the
 * code is compared even when no E32 has that number, so an unknown e-NCF and a wrong code take the
 * same path up to the answer. `locked` (too many failures for this e-NCF, http/rate-limit.ts
 * guardLookup): the same query and comparison, then null whatever they found — a locked e-NCF
 * answers as an unknown one, in the same steps.
 */
export async function findConsumerInvoice(
  db: AnyDb,
  tenantId: number,
  encf: string,
  code: string,
  cfg: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">,
  origin: string,
  locked = false,
): Promise<ConsumerInvoice | null> {
  const e = schema.ecfDocuments;
  const number = lookupNumber(encf);
  const [row] = number
    ? await db
        .select({ invoiceId: e.invoiceId, workspaceId: e.workspaceId, securityCode: e.securityCode, issuerRnc: e.issuerRnc, xml: e.xml })
        .from(e)
        .where(and(eq(e.tenantId, tenantId), eq(e.ecfType, "32"), eq(e.encf, number), isNotNull(e.invoiceId)))
    : [];
  const matches = sameCode(code.trim(), row?.securityCode ?? "\u0000".repeat(6));
  if (!row || !matches || row.invoiceId === null || locked || !number) return null;
  // The customer sees what the printed receipt shows: the invoice's snapshot, read in its workspace.
  const scope = { tenantId, userId: 0, workspaceId: row.workspaceId, viewAll: true };
  const { pdf } = await invoicePdfData(db, scope, row.invoiceId);
  pdf.ecf = (await printedEcf(db, { invoiceId: row.invoiceId }, cfg, origin)) ?? undefined;
  return { encf: number, issuerRnc: row.issuerRnc, xml: row.xml, pdf };
}
