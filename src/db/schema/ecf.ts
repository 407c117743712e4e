import { sql } from "drizzle-orm";
import { boolean, check, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { documentSubtypes, money } from "./catalog";
import { createdAt, tenantId, tenantIsolation, updatedAt } from "./common";
import { purchases } from "./purchases";
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
    /** The credit or debit note this e-CF is, or null. */
    noteId: integer("note_id").references(() => invoiceNotes.id),
    /** The purchase this e-CF is (E41, E43, E47: the buyer issues them, issue 19), or null. */
    purchaseId: integer("purchase_id").references(() => purchases.id),
    /** TipoeCF: 31, 32, 33, 34, 41, 43, 44, 45, 46, 47. */
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
    /**
     * The timeline entries the statement that writes it adds (issue 43): `[{state, code, cause,
     * attempt, track_id, user_id}]`, in order, turned into `ecf_transitions` rows by the trigger
     * `ecf_documents_transition` (drizzle/0056) when the value changes or the status does. What it
     * holds afterwards is the last entries written: what the next step reads to say what held it.
     */
    transition: jsonb("transition"),
    /**
     * Deferred sending (IndicadorEnvioDiferido 1): when the branch device made the sale offline,
     * and the time DGII must have it by, 24 hours later (DGII's help answer CA5197). Null otherwise.
     */
    offlineIssuedAt: timestamp("offline_issued_at", { withTimezone: true }),
    deferredDeadline: timestamp("deferred_deadline", { withTimezone: true }),
    /**
     * The buyer's commercial approval (ACECF) received at /fe/aprobacioncomercial/api/ecf:
     * `approved` or `rejected`; null while none came.
     */
    commercialStatus: text("commercial_status"),
    commercialReason: text("commercial_reason"),
    /** The ACECF as received, byte for byte. */
    commercialXml: text("commercial_xml"),
    commercialAt: timestamp("commercial_at", { withTimezone: true }),
    /**
     * Delivery of the accepted e-CF to the buyer's receiver (Descripción técnica, "Recepción de
     * e-CF": DGII's acceptance "habilita al emisor al envío del e-CF al receptor"): null while
     * not due (not accepted, or a buyer without RNC); `pending`, then `delivered` (its ARECF said
     * received), `not_received` (its ARECF said not, with `delivery_reason`), `refused` (a 4xx or
     * an unreadable answer), `not_electronic` (DGII's directory lists no receiver: the printed
     * representation goes instead) or `failed` (unreachable for 24 h).
     */
    deliveryStatus: text("delivery_status"),
    /** The buyer's receiver (urlRecepcion of DGII's directory), once found. */
    deliveryUrl: text("delivery_url"),
    /** The buyer's acknowledgement (ARECF), byte for byte. */
    deliveryReceipt: text("delivery_receipt"),
    /** The ARECF's CodigoMotivoNoRecibido (1-4) when the buyer did not take it. */
    deliveryReason: integer("delivery_reason"),
    deliveryAttempts: integer("delivery_attempts").notNull().default(0),
    deliveryError: text("delivery_error"),
    deliveryUnreachableSince: timestamp("delivery_unreachable_since", { withTimezone: true }),
    deliveryNextAttemptAt: timestamp("delivery_next_attempt_at", { withTimezone: true }),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("ecf_documents_encf_idx").on(t.tenantId, t.encf),
    // The minute sweeps' indexes (drizzle/0060 sweep_due) lead with the tenant: the sweep walks the
    // tenants with open work and takes a few due rows of each, so an idle tenant costs nothing.
    index("ecf_documents_delivery_due_idx").on(t.tenantId, t.deliveryNextAttemptAt).where(sql`${t.deliveryStatus} = 'pending'`),
    check("ecf_documents_delivery_status", sql`${t.deliveryStatus} IN ('pending', 'delivered', 'not_received', 'refused', 'not_electronic', 'failed')`),
    uniqueIndex("ecf_documents_invoice_idx").on(t.invoiceId),
    uniqueIndex("ecf_documents_note_idx").on(t.noteId),
    uniqueIndex("ecf_documents_purchase_idx").on(t.purchaseId),
    index("ecf_documents_due_idx").on(t.tenantId, t.nextAttemptAt).where(sql`${t.status} IN ('pending', 'in_process')`),
    index("ecf_documents_list_idx").on(t.tenantId, t.issueDate, t.id),
    index("ecf_documents_deferred_idx").on(t.tenantId, t.deferredDeadline).where(sql`${t.deferredDeadline} IS NOT NULL`),
    check("ecf_documents_one_document", sql`num_nonnulls(${t.invoiceId}, ${t.noteId}, ${t.purchaseId}) = 1`),
    check("ecf_documents_status", sql`${t.status} IN ('pending', 'in_process', 'accepted', 'accepted_conditional', 'rejected', 'failed', 'annulled')`),
    check("ecf_documents_commercial_status", sql`${t.commercialStatus} IN ('approved', 'rejected')`),
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
    /**
     * The e-NCF of the range DGII did not annul, each with DGII's words (issue 43): `[{encf,
     * reason}]`, from a partial answer ("Con excepción de las secuencias del detalle"); every other
     * number of the range was annulled. Empty when all were.
     */
    notAnnulled: jsonb("not_annulled").notNull().default([]),
    createdBy: integer("created_by"),
    createdAt: createdAt(),
  },
  (t) => [index("ecf_annulments_subtype_idx").on(t.tenantId, t.documentSubtypeId, t.id), tenantIsolation("ecf_annulments")],
);

/**
 * An e-CF a supplier sent to the tenant's receiver service (POST /fe/recepcion/api/ecf) and that
 * was acknowledged as received (ARECF Estado 0): the XML byte for byte as it came, and the header
 * fields read from it. Refused documents (ARECF Estado 1) are answered, not stored.
 */
export const receivedEcf = pgTable(
  "received_ecf",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    /** TipoeCF: 31, 33, 34, 44, 45, 46… as the supplier issued it. */
    ecfType: text("ecf_type").notNull(),
    encf: text("encf").notNull(),
    issuerRnc: text("issuer_rnc").notNull(),
    issuerName: text("issuer_name").notNull(),
    buyerRnc: text("buyer_rnc").notNull(),
    issueDate: date("issue_date").notNull(),
    totalAmount: money("total_amount").notNull(),
    itbisAmount: money("itbis_amount"),
    securityCode: text("security_code").notNull(),
    /** The subject of the certificate that signed it (its KeyInfo). */
    signer: text("signer").notNull(),
    /**
     * Whether its signer was authenticated as the issuer (an accredited authority's certificate
     * naming RNCEmisor, the one that took the receiver token: issue 30). Rows received before that
     * check are false, and never count as a duplicate of the real issuer's document.
     */
    authenticated: boolean("authenticated").notNull().default(false),
    /** SHA-256 of the signing certificate (lowercase hex), for an authenticated row. */
    signerFingerprint: text("signer_fingerprint"),
    /**
     * The tenant's DGII environment when it came (testecf, certecf, ecf): DGII's own e-CF reaching
     * the receiver while the tenant is in certecf is step 9 of the certification. Null on rows
     * received before it was recorded.
     */
    environment: text("environment"),
    /** The e-CF as received (UTF-8, byte for byte); its SHA-256 in hex. */
    xml: text("xml").notNull(),
    xmlSha256: text("xml_sha256").notNull(),
    /** The signed ARECF we answered with. */
    receiptXml: text("receipt_xml").notNull(),
    /** `received`, or `purchased` once turned into a purchase. */
    status: text("status").notNull().default("received"),
    purchaseId: integer("purchase_id"),
    /** Our commercial decision: `pending` until an approval is sent, then `approved` or `rejected`. */
    commercialStatus: text("commercial_status").notNull().default("pending"),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A duplicate (ARECF code 3) is judged among documents of the authenticated issuer only.
    uniqueIndex("received_ecf_authenticated_encf_idx").on(t.tenantId, t.issuerRnc, t.encf).where(sql`${t.authenticated}`),
    index("received_ecf_encf_idx").on(t.tenantId, t.issuerRnc, t.encf),
    index("received_ecf_list_idx").on(t.tenantId, t.receivedAt, t.id),
    check("received_ecf_status", sql`${t.status} IN ('received', 'purchased')`),
    check("received_ecf_commercial_status", sql`${t.commercialStatus} IN ('pending', 'approved', 'rejected')`),
    tenantIsolation("received_ecf"),
  ],
);

/**
 * Seeds of the receiver's authentication (/fe/autenticacion) already exchanged for a token: a seed
 * is used once (issue 30). The seed itself is stateless (its value carries its tenant, expiry and
 * an HMAC: reception/receiver-auth.ts); this table only remembers which were spent, until they
 * expire, and each use deletes its tenant's expired rows in the same statement.
 */
export const receiverSeedUses = pgTable(
  "receiver_seed_uses",
  {
    tenantId: tenantId().references(() => tenants.id),
    /** SHA-256 of the seed's value, hex. */
    seedDigest: text("seed_digest").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.seedDigest] }), tenantIsolation("receiver_seed_uses")],
);

/**
 * Our commercial approval (ACECF, Formato Aprobación Comercial v1.0) of a received e-CF: signed once,
 * then delivered twice — to DGII's aprobacioncomercial service and to the issuer's receiver found
 * through DGII's directory —, each delivery retried through ECF_QUEUE until it is answered.
 * This row is its own outbox entry, as `ecf_documents` is.
 */
export const ecfApprovals = pgTable(
  "ecf_approvals",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    receivedEcfId: integer("received_ecf_id")
      .notNull()
      .references(() => receivedEcf.id),
    approved: boolean("approved").notNull(),
    reason: text("reason"),
    environment: text("environment").notNull(),
    xml: text("xml").notNull(),
    /** Each delivery: `pending`, `delivered`, `refused` (a 4xx: not retried) or `failed` (unreachable for 24 h). */
    dgiiStatus: text("dgii_status").notNull().default("pending"),
    issuerStatus: text("issuer_status").notNull().default("pending"),
    /** The issuer's receiver URL from DGII's directory, once found. */
    issuerUrl: text("issuer_url"),
    dgiiMessages: jsonb("dgii_messages").notNull().default([]),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    unreachableSince: timestamp("unreachable_since", { withTimezone: true }),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    createdBy: integer("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("ecf_approvals_received_idx").on(t.receivedEcfId),
    index("ecf_approvals_due_idx").on(t.tenantId, t.nextAttemptAt).where(sql`${t.dgiiStatus} = 'pending' OR ${t.issuerStatus} = 'pending'`),
    check("ecf_approvals_dgii_status", sql`${t.dgiiStatus} IN ('pending', 'delivered', 'refused', 'failed')`),
    check("ecf_approvals_issuer_status", sql`${t.issuerStatus} IN ('pending', 'delivered', 'refused', 'failed')`),
    tenantIsolation("ecf_approvals"),
  ],
);

/**
 * DGII's certification steps the admin marks done, with a note (issue 32): the steps Sucursal
 * cannot observe (registration and declarations in DGII's Oficina Virtual, DGII's validation of the
 * printed representation…). A row means done; the steps Sucursal runs are read from their own
 * evidence, never marked (modules/certification/steps.ts).
 */
export const ecfCertificationMarks = pgTable(
  "ecf_certification_marks",
  {
    tenantId: tenantId().references(() => tenants.id),
    /** DGII's step number, 1-14 (Proceso de Certificación para ser Emisor Electrónico, July 2025). */
    step: integer("step").notNull(),
    note: text("note").notNull(),
    markedBy: integer("marked_by"),
    markedAt: timestamp("marked_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.step] }),
    check("ecf_certification_marks_step", sql`${t.step} BETWEEN 1 AND 14`),
    tenantIsolation("ecf_certification_marks"),
  ],
);

/**
 * DGII's services as its status service last reported them (Descripción técnica, "Estatus
 * Servicios", obtenerestatus), per environment: not tenant data, one row per service. `downSince`
 * is when the sweep first saw it unavailable in the current outage (issue 33).
 */
export const dgiiServiceStatus = pgTable(
  "dgii_service_status",
  {
    environment: text("environment").notNull(),
    /** DGII's name of the service: "Recepción", "Consulta Resultado", "Recepción FC"… */
    service: text("service").notNull(),
    available: boolean("available").notNull(),
    /** DGII's word for it ("Disponible", "No Disponible"…). */
    status: text("status").notNull(),
    downSince: timestamp("down_since", { withTimezone: true }),
    checkedAt: timestamp("checked_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.environment, t.service] })],
);

/** DGII's announced maintenance windows (obtenerventanasmantenimiento), per environment, in UTC. */
export const dgiiMaintenanceWindows = pgTable(
  "dgii_maintenance_windows",
  {
    environment: text("environment").notNull(),
    startsAt: timestamp("starts_at", { withTimezone: true }).notNull(),
    endsAt: timestamp("ends_at", { withTimezone: true }).notNull(),
    checkedAt: timestamp("checked_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.environment, t.startsAt] }), index("dgii_maintenance_windows_end_idx").on(t.endsAt)],
);

/**
 * Each change of an e-CF's state, and each exchange with DGII that changed its course, with its time
 * and cause (issues 33 and 43; GET …/ecf's `timeline`): written by the trigger
 * `ecf_documents_transition` (drizzle/0046, 0056) on every INSERT, every change of
 * `ecf_documents.status` and every new `ecf_documents.transition`, whichever code made it, so none
 * is missed. `state` is `signed` (the INSERT), `sent` (in_process), `retried` (back to pending), the
 * status itself, or a course entry that changed no status (`held`, `unanswered`, `used_number`);
 * `code` the kind of cause (null for entries written before 0056), `cause` it in words, `attempt`
 * the send attempt, `track_id` DGII's trackId involved, `user_id` who did it; `at` the database's
 * clock at the change (the row's updated_at, drizzle/0036).
 */
export const ecfTransitions = pgTable(
  "ecf_transitions",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    ecfDocumentId: integer("ecf_document_id")
      .notNull()
      .references(() => ecfDocuments.id),
    state: text("state").notNull(),
    cause: text("cause"),
    code: text("code"),
    attempt: integer("attempt"),
    trackId: text("track_id"),
    userId: integer("user_id"),
    at: timestamp("at", { withTimezone: true }).notNull(),
  },
  (t) => [index("ecf_transitions_document_idx").on(t.ecfDocumentId, t.id), tenantIsolation("ecf_transitions")],
);

/**
 * A test set DGII gave the tenant for certification (issue 32; steps 2 and 3): the e-CF set
 * (sheets ECF and RFCE) or the commercial approvals (sheet ACEECF_Generadas), as imported from
 * DGII's .xlsx (modules/certification/test-set.ts). Its e-CF never touch the books: no invoice,
 * stock or report row comes from them.
 */
export const ecfCertificationTestSets = pgTable(
  "ecf_certification_test_sets",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    /** ecf: the e-CF set (step 2); approval: the commercial approvals (step 3). */
    kind: text("kind").notNull(),
    fileName: text("file_name").notNull(),
    uploadedBy: integer("uploaded_by"),
    uploadedAt: timestamp("uploaded_at", { withTimezone: true }).notNull().defaultNow(),
    caseCount: integer("case_count").notNull(),
  },
  (t) => [
    index("ecf_certification_test_sets_tenant_idx").on(t.tenantId, t.uploadedAt),
    check("ecf_certification_test_sets_kind", sql`${t.kind} IN ('ecf', 'approval')`),
    tenantIsolation("ecf_certification_test_sets"),
  ],
);

/** One case of a test set: a row of DGII's workbook, its elements as DGII gives them. */
export const ecfCertificationTestCases = pgTable(
  "ecf_certification_test_cases",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    testSetId: integer("test_set_id")
      .notNull()
      .references(() => ecfCertificationTestSets.id, { onDelete: "cascade" }),
    /** The case's place in the set: sheet ECF's rows, then RFCE's. */
    position: integer("position").notNull(),
    sheet: text("sheet").notNull(),
    /** The row in the sheet, as a spreadsheet numbers it. */
    row: integer("row").notNull(),
    /** CasoPrueba (the e-NCF for an approval). */
    caseName: text("case_name").notNull(),
    /** What the case becomes: ecf, rfce (the summary of an E32 under RD$250,000) or acecf. */
    document: text("document").notNull(),
    ecfType: text("ecf_type").notNull(),
    encf: text("encf").notNull(),
    /** The row's elements in column order, as [name, value] pairs (a JSON object would lose the order). */
    fields: jsonb("fields").$type<[string, string][]>().notNull(),
    /**
     * How the run sends it (certification/case-sending.ts): ecf (whole, to Recepción), rfce (the
     * summary, to Recepción FC: an E32 under RD$250,000, as production issues it) or acecf.
     */
    sentAs: text("sent_as").notNull().default("ecf"),
    /** An E32 sent as its summary: the row of sheet RFCE that gives the summary's values, and them (null: derived from the E32's row). */
    summaryRow: integer("summary_row"),
    summaryFields: jsonb("summary_fields").$type<[string, string][]>(),
    /**
     * The case in the set's latest run (certification/test-set-runs.ts): pending (not sent yet), sent
     * (DGII has it, its result not final), accepted, accepted_conditional or rejected. A new run
     * starts every case over.
     */
    state: text("state").notNull().default("pending"),
    /** The run that last took the case, and the e-NCF the case carries in it (a rerun takes new numbers). */
    runId: integer("run_id"),
    runEncf: text("run_encf"),
    /** The signed document, byte for byte: as sent, or for an E32 sent as its summary the whole E32 kept for the OFV. */
    xml: text("xml"),
    /** An E32 sent as its summary: the signed RFCE as sent. */
    summaryXml: text("summary_xml"),
    securityCode: text("security_code"),
    trackId: text("track_id"),
    /** DGII's word for the case's state ("Aceptado", "Rechazado"…) and its messages. */
    dgiiState: text("dgii_state"),
    dgiiMessages: jsonb("dgii_messages").$type<{ codigo: string; valor: string }[]>(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    answeredAt: timestamp("answered_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("ecf_certification_test_cases_case_idx").on(t.testSetId, t.sheet, t.caseName),
    uniqueIndex("ecf_certification_test_cases_position_idx").on(t.testSetId, t.position),
    check("ecf_certification_test_cases_document", sql`${t.document} IN ('ecf', 'rfce', 'acecf')`),
    check("ecf_certification_test_cases_sent_as", sql`${t.sentAs} IN ('ecf', 'rfce', 'acecf')`),
    check("ecf_certification_test_cases_state", sql`${t.state} IN ('pending', 'sent', 'accepted', 'accepted_conditional', 'rejected')`),
    tenantIsolation("ecf_certification_test_cases"),
  ],
);

/**
 * An alert of a deadline at risk (issue 33, "Deadlines watched"), raised once per cause by the
 * hourly sweep (jobs/ecf-alerts.ts) and sent to the tenant's admins by email and as the webhook
 * event `ecf.alert`. `subject` names the cause itself (the document, the certificate's
 * fingerprint, the range and its end, the outage and its start), so the unique key makes the same
 * cause raise once ever, and a new cause (a new certificate, a new range, a new outage) raise again.
 * `resolved_at` is set when the sweep finds the cause gone.
 */
export const ecfAlerts = pgTable(
  "ecf_alerts",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    /** deferred_deadline, dgii_down, certificate_expiring, sequence_low, sequence_expiring (jobs/ecf-alerts.ts). */
    kind: text("kind").notNull(),
    subject: text("subject").notNull(),
    message: text("message").notNull(),
    /** What the alert is about, as the API shows it (the e-NCF and deadline, the range, the service…). */
    details: jsonb("details").notNull().default({}),
    /** Until when the cause can still be dealt with (the deadline, the expiry), when it has one. */
    dueAt: timestamp("due_at", { withTimezone: true }),
    raisedAt: timestamp("raised_at", { withTimezone: true }).notNull(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("ecf_alerts_subject_key").on(t.tenantId, t.kind, t.subject),
    index("ecf_alerts_open_idx").on(t.tenantId, t.raisedAt).where(sql`${t.resolvedAt} IS NULL`),
    tenantIsolation("ecf_alerts"),
  ],
);

/**
 * A run of a test set (issue 32, steps 2 and 3; certification/test-set-runs.ts): its cases signed
 * and sent to DGII's CerteCF one after the other, through ECF_QUEUE (jobs/certification-runs.ts),
 * each waiting for DGII's result before the next is sent. One rejection stops it (`stopped`, with
 * the case and DGII's messages); every case accepted completes it. The run is its own outbox: a
 * `running` run is due at `next_attempt_at`. Its e-CF never touch the books.
 */
export const ecfCertificationRuns = pgTable(
  "ecf_certification_runs",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    testSetId: integer("test_set_id")
      .notNull()
      .references(() => ecfCertificationTestSets.id, { onDelete: "cascade" }),
    /** 1 for the set's first run, 2 for the next… */
    number: integer("number").notNull(),
    /** The environment the run was started in: always certecf. */
    environment: text("environment").notNull(),
    /** running, completed (every case accepted) or stopped (a case rejected). */
    state: text("state").notNull().default("running"),
    startedBy: integer("started_by"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    /** The case whose rejection stopped the run, and why (DGII's messages, joined). */
    stoppedCaseId: integer("stopped_case_id"),
    stopReason: text("stop_reason"),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    attempts: integer("attempts").notNull().default(0),
    /** DGII unreachable: the last error, and since when (the step is retried with backoff). */
    lastError: text("last_error"),
    unreachableSince: timestamp("unreachable_since", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("ecf_certification_runs_number_idx").on(t.testSetId, t.number),
    // One run of a set at a time.
    uniqueIndex("ecf_certification_runs_running_idx").on(t.testSetId).where(sql`${t.state} = 'running'`),
    index("ecf_certification_runs_due_idx").on(t.tenantId, t.nextAttemptAt).where(sql`${t.state} = 'running'`),
    check("ecf_certification_runs_state", sql`${t.state} IN ('running', 'completed', 'stopped')`),
    tenantIsolation("ecf_certification_runs"),
  ],
);

/**
 * A contingency the tenant declared (Ley 32-23 art. 21; issue 33): total (every branch, DGII's
 * reception down) when `workspaceIds` is null, else the branches listed. While one covers a
 * branch, that branch's e-CF are issued and signed as always and held, not sent, until it closes
 * (jobs/ecf.ts; docs/ecf.md, "When DGII or a branch is down"). `closedHow`: `manual` (DELETE) or
 * `dgii` (a total one, when DGII's status service reports reception available again).
 */
export const ecfContingencies = pgTable(
  "ecf_contingencies",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId().references(() => tenants.id),
    /** The branches (workspace ids) in contingency, or null for a total one. */
    workspaceIds: integer("workspace_ids").array(),
    reason: text("reason").notNull(),
    openedAt: timestamp("opened_at", { withTimezone: true }).notNull().defaultNow(),
    openedBy: integer("opened_by"),
    closedAt: timestamp("closed_at", { withTimezone: true }),
    closedBy: integer("closed_by"),
    closedHow: text("closed_how"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("ecf_contingencies_open_idx").on(t.tenantId).where(sql`${t.closedAt} IS NULL`),
    index("ecf_contingencies_list_idx").on(t.tenantId, t.openedAt, t.id),
    check("ecf_contingencies_closed_how", sql`${t.closedHow} IN ('manual', 'dgii')`),
    check("ecf_contingencies_closed", sql`(${t.closedAt} IS NULL) = (${t.closedHow} IS NULL)`),
    tenantIsolation("ecf_contingencies"),
  ],
);

/**
 * DGII's pace per company (issue 48): when DGII answers one company's calls 429 (too many) or 503
 * (unavailable), that company's sending waits until `until` — its documents are not stepped and the
 * minute sweep passes the company by — while every other company's goes on. `failures` counts the
 * answers in a row (the wait doubles, jobs/ecf.ts); the row is deleted by the next answer DGII gives.
 */
export const ecfDgiiBackoff = pgTable(
  "ecf_dgii_backoff",
  {
    tenantId: tenantId()
      .primaryKey()
      .references(() => tenants.id),
    until: timestamp("until", { withTimezone: true }).notNull(),
    failures: integer("failures").notNull().default(1),
    lastError: text("last_error"),
    updatedAt: updatedAt(),
  },
  () => [tenantIsolation("ecf_dgii_backoff")],
);
