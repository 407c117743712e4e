import { sql } from "drizzle-orm";
import { boolean, check, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { documentSubtypes, money } from "./catalog";
import { createdAt, tenantId, tenantIsolation, updatedAt } from "./common";
import { invoiceNotes, invoices } from "./sales";
import { tenants, workspaces } from "./tenancy";

/**
 * One electronic fiscal document (e-CF, issue 18) as it was signed and as DGII treats it: the
 * signed XML stored byte for byte at issue (inside the issuing transaction; never rebuilt), and
 * its transmission, which this row also drives as its own outbox: `pending` rows due at
 * `next_attempt_at` are sent after commit through ECF_QUEUE and by the minute sweep.
 */
export const ecfDocuments = pgTable(
  "ecf_documents",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    /** The invoice this e-CF is, or null for a note's. */
    invoiceId: integer("invoice_id").references(() => invoices.id),
    /** The credit or debit note this e-CF is, or null for an invoice's. */
    noteId: integer("note_id").references(() => invoiceNotes.id),
    /** TipoeCF: 31, 32, 33, 34, 44, 45, 46. */
    ecfType: text("ecf_type").notNull(),
    encf: text("encf").notNull(),
    /** The DGII environment it was signed for (testecf, certecf, ecf). */
    environment: text("environment").notNull(),
    status: text("status").notNull().default("pending"),
    /** The signed e-CF, byte for byte as it is sent. */
    xml: text("xml").notNull(),
    /** E32 under RD$250,000: the signed summary (RFCE) that is sent instead of the e-CF. */
    summaryXml: text("summary_xml"),
    securityCode: text("security_code").notNull(),
    signedAt: timestamp("signed_at", { withTimezone: true }).notNull(),
    /** What the printed representation's QR carries (DGII, Descripción técnica, "Consulta timbre"). */
    issuerRnc: text("issuer_rnc").notNull(),
    buyerRnc: text("buyer_rnc"),
    issueDate: date("issue_date").notNull(),
    totalAmount: money("total_amount").notNull(),
    trackId: text("track_id"),
    /** DGII's messages of the last answer: [{codigo, valor}]. */
    dgiiMessages: jsonb("dgii_messages").notNull().default([]),
    /** DGII's secuenciaUtilizada on a rejection: false means the number may be sent again. */
    sequenceUsed: boolean("sequence_used"),
    attempts: integer("attempts").notNull().default(0),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    lastError: text("last_error"),
    /** When DGII first could not be reached in the current outage; `failed` after 24 h of it. */
    unreachableSince: timestamp("unreachable_since", { withTimezone: true }),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("ecf_documents_encf_idx").on(t.tenantId, t.encf),
    uniqueIndex("ecf_documents_invoice_idx").on(t.invoiceId),
    uniqueIndex("ecf_documents_note_idx").on(t.noteId),
    index("ecf_documents_due_idx").on(t.nextAttemptAt).where(sql`${t.status} IN ('pending', 'in_process')`),
    index("ecf_documents_list_idx").on(t.tenantId, t.issueDate, t.id),
    check("ecf_documents_one_document", sql`(${t.invoiceId} IS NULL) <> (${t.noteId} IS NULL)`),
    check("ecf_documents_status", sql`${t.status} IN ('pending', 'in_process', 'accepted', 'accepted_conditional', 'rejected', 'failed', 'annulled')`),
    tenantIsolation("ecf_documents"),
  ],
);

/**
 * An annulment of unused e-NCF sent to DGII (ANECF, Formato Anulación de e-NCF v1.0): the signed
 * XML as sent and DGII's answer. Recorded only once DGII accepted it; the sequence then skips
 * those numbers.
 */
export const ecfAnnulments = pgTable(
  "ecf_annulments",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    documentSubtypeId: integer("document_subtype_id")
      .notNull()
      .references(() => documentSubtypes.id),
    ecfType: text("ecf_type").notNull(),
    fromEncf: text("from_encf").notNull(),
    toEncf: text("to_encf").notNull(),
    count: integer("count").notNull(),
    environment: text("environment").notNull(),
    xml: text("xml").notNull(),
    dgiiMessages: jsonb("dgii_messages").notNull().default([]),
    createdBy: integer("created_by"),
    createdAt: createdAt(),
  },
  (t) => [index("ecf_annulments_subtype_idx").on(t.tenantId, t.documentSubtypeId, t.id), tenantIsolation("ecf_annulments")],
);
