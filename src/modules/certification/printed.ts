import { and, asc, eq, inArray } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import type { Config } from "../../env";
import type { RequestScope } from "../../http/scope";
import { AppError } from "../../lib/errors";
import { printedEcf } from "../ecf/documents";
import { invoicePdfData } from "../invoices/service";
import { notePdfData } from "../notes/service";
import { purchasePdfData } from "../purchases/service";
import { type PdfDocumentData, renderDocumentPdf } from "../sales/pdf";

/** DGII's limit for each PDF uploaded in step 5 (Proceso de Certificación, "Simulación representación impresa"). */
export const PRINTED_REPRESENTATION_MAX_BYTES = 10 * 1024 * 1024;

/** A printed representation's PDF, refused past DGII's 10 MB: better a broken download that says why than a PDF the OFV rejects. */
export async function renderPrintedRepresentation(data: PdfDocumentData): Promise<Uint8Array> {
  const bytes = await renderDocumentPdf(data);
  if (bytes.length > PRINTED_REPRESENTATION_MAX_BYTES) throw new Error(`The PDF of ${data.documentNumber} is over DGII's 10 MB.`);
  return bytes;
}

/**
 * At most this many PDFs in one ZIP: a simulation is a handful of documents per type; past this the
 * admin is not simulating any more but invoicing (the request would hold too long).
 */
export const PRINTED_REPRESENTATIONS_MAX = 500;

export interface PrintedEntry {
  id: number;
  documentNumber: string;
  updatedAt: Date;
  pdf: PdfDocumentData;
}

/**
 * Step 5 (Simulación representación impresa): the PDF data of each e-CF of the simulation (step 4),
 * i.e. each of the tenant's documents whose e-CF DGII accepted in certecf, oldest first, whichever
 * workspace issued it. Each prints its timbre QR, security code and signature time, as each
 * document's own PDF does. Test-set e-CF (steps 2 and 3) have no document and are not part of it.
 */
export async function simulationPrintedEntries(
  db: AnyDb,
  tenantId: number,
  userId: number,
  cfg: Pick<Config, "DGII_ECF_BASE_URL" | "DGII_FC_BASE_URL">,
  origin?: string,
  /** Only this workspace's e-CF (a branch's printed representations); undefined: every workspace's. */
  workspaceId?: number,
): Promise<PrintedEntry[]> {
  const e = schema.ecfDocuments;
  const rows = await db
    .select({ id: e.id, encf: e.encf, workspaceId: e.workspaceId, invoiceId: e.invoiceId, noteId: e.noteId, purchaseId: e.purchaseId, updatedAt: e.updatedAt })
    .from(e)
    .where(
      and(
        eq(e.tenantId, tenantId),
        eq(e.environment, "certecf"),
        inArray(e.status, ["accepted", "accepted_conditional"]),
        workspaceId === undefined ? undefined : eq(e.workspaceId, workspaceId),
      ),
    )
    .orderBy(asc(e.signedAt), asc(e.id))
    .limit(PRINTED_REPRESENTATIONS_MAX + 1);
  if (rows.length > PRINTED_REPRESENTATIONS_MAX) {
    throw new AppError(
      "conflict",
      `The simulation has more than ${PRINTED_REPRESENTATIONS_MAX} accepted e-CF: download each one's PDF from its document instead.`,
    );
  }
  if (rows.length === 0) {
    throw new AppError("conflict", "No e-CF of the tenant has been accepted in certecf yet: the simulation (step 4) comes first.");
  }
  const entries: PrintedEntry[] = [];
  for (const row of rows) {
    // The admin's certification spans the tenant's workspaces: each document read in its own.
    const scope: RequestScope = { tenantId, userId, workspaceId: row.workspaceId, viewAll: true };
    let pdf: PdfDocumentData;
    if (row.invoiceId !== null) {
      pdf = (await invoicePdfData(db, scope, row.invoiceId)).pdf;
      pdf.ecf = (await printedEcf(db, { invoiceId: row.invoiceId }, cfg, origin)) ?? undefined;
    } else if (row.noteId !== null) {
      const [note] = await db.select({ kind: schema.invoiceNotes.kind }).from(schema.invoiceNotes).where(eq(schema.invoiceNotes.id, row.noteId));
      if (!note) continue;
      pdf = (await notePdfData(db, scope, note.kind as "credit" | "debit", row.noteId)).pdf;
      pdf.ecf = (await printedEcf(db, { noteId: row.noteId }, cfg)) ?? undefined;
    } else if (row.purchaseId !== null) {
      pdf = (await purchasePdfData(db, scope, row.purchaseId)).pdf;
      pdf.ecf = (await printedEcf(db, { purchaseId: row.purchaseId }, cfg)) ?? undefined;
    } else {
      continue;
    }
    entries.push({ id: row.id, documentNumber: row.encf, updatedAt: row.updatedAt, pdf });
  }
  return entries;
}
