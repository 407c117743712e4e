import { and, asc, eq, ilike, or, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { inUseOnForeignKey, postgresError } from "../../db/errors";
import { findRow, firstReference, likePattern, orderBy, type Page, pageOf, referencedBy } from "../../db/queries";
import { oneRow, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import { addDays, dominicanToday } from "../../lib/dates";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import {
  describeFormat,
  FREE_PREFIX,
  formatDocumentNumber,
  isElectronicPrefix,
  maxSequence,
  NOTE_PREFIXES,
  PAPER_REPLACEABLE_PREFIXES,
  PREFIXES_BY_TYPE,
  parseDocumentNumber,
  SALES_INVOICE_PREFIXES,
  sequenceDigits,
} from "../../lib/ncf";
import { refusalAfterTaking, takeNumberStatement } from "./numbering";
import type { CreateDocumentSubtypeInput, DocumentType, UpdateDocumentSubtypeInput } from "./schemas";

const ds = schema.documentSubtypes;
const prefs = schema.workspaceDocumentPreferences;
type SubtypeRow = typeof ds.$inferSelect;

const EXPIRY_WARNING_DAYS = 30;
const LOW_REMAINING_THRESHOLD = 100;

function remainingOf(row: Pick<SubtypeRow, "endNumber" | "nextNumber">): number {
  return Math.max(0, row.endNumber - row.nextNumber + 1);
}

type Warning = { code: "expired" | "expiring_soon" | "exhausted" | "running_low"; message: string };

function warningsOf(row: SubtypeRow, today = dominicanToday()): Warning[] {
  const warnings: Warning[] = [];
  if (row.validUntil !== null) {
    if (row.validUntil < today) warnings.push({ code: "expired", message: `The sequence expired on ${row.validUntil}.` });
    else if (row.validUntil <= addDays(today, EXPIRY_WARNING_DAYS)) {
      warnings.push({ code: "expiring_soon", message: `The sequence expires on ${row.validUntil}, within ${EXPIRY_WARNING_DAYS} days.` });
    }
  }
  const remaining = remainingOf(row);
  if (remaining === 0) warnings.push({ code: "exhausted", message: "No numbers are left in the sequence." });
  else if (remaining < LOW_REMAINING_THRESHOLD) warnings.push({ code: "running_low", message: `Only ${remaining} numbers are left in the sequence.` });
  return warnings;
}

export function serializeSubtype(row: SubtypeRow) {
  const remaining = remainingOf(row);
  return {
    id: row.id,
    name: row.name,
    type: row.type as DocumentType,
    prefix: row.prefix,
    start_number: row.startNumber,
    end_number: row.endNumber,
    next_number: row.nextNumber,
    next_document_number: remaining > 0 ? formatDocumentNumber(row.prefix, row.nextNumber) : null,
    remaining,
    valid_until: row.validUntil,
    authorization_number: row.authorizationNumber,
    authorized_at: row.authorizedAt,
    is_demo: row.isDemo,
    is_default: row.isDefault,
    is_active: row.isActive,
    is_electronic: row.isElectronic,
    contingency_workspace_id: row.contingencyWorkspaceId,
    warnings: warningsOf(row),
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
  };
}

type SubtypeFilter = "search" | "type" | "prefix" | "is_active" | "is_default";
type SubtypeSort = "id" | "name" | "prefix" | "valid_until" | "created_at";

export async function listSubtypes(db: AnyDb, tenantId: number, query: ListQuery<SubtypeFilter, SubtypeSort>): Promise<Page<SubtypeRow>> {
  const f = query.filters;
  const where = and(
    eq(ds.tenantId, tenantId),
    f.search ? or(ilike(ds.name, likePattern(f.search)), ilike(ds.prefix, likePattern(f.search))) : undefined,
    f.type ? eq(ds.type, f.type) : undefined,
    f.prefix ? eq(ds.prefix, f.prefix.toUpperCase()) : undefined,
    f.is_active ? eq(ds.isActive, f.is_active === "true") : undefined,
    f.is_default ? eq(ds.isDefault, f.is_default === "true") : undefined,
  );
  const column = { id: ds.id, name: ds.name, prefix: ds.prefix, valid_until: ds.validUntil, created_at: ds.createdAt, updated_at: ds.updatedAt }[
    query.sort.field
  ];
  return pageOf(db, ds, where, orderBy(column, ds.id, query.sort.descending), query);
}

export async function getSubtype(db: AnyDb, tenantId: number, id: number, lock = false): Promise<SubtypeRow> {
  return findRow(db, ds, and(eq(ds.tenantId, tenantId), eq(ds.id, id)), "Document subtype", lock);
}

/** Invoice prefixes are DGII NCF types; credit notes B04/E34, debit notes B03/E33; quotations any short code but an NCF type. */
const TYPE_LABELS = { invoice: "invoices", credit_note: "credit notes", debit_note: "debit notes" } as const;

function checkPrefix(type: DocumentType, prefix: string) {
  if (type === "quotation") {
    if (!FREE_PREFIX.test(prefix)) throw fieldError("prefix", "A quotation prefix has 1 to 10 letters, digits or dashes.");
    if (/^[BE]\d{2}$/.test(prefix)) throw fieldError("prefix", "NCF prefixes are reserved for fiscal documents.");
    return;
  }
  const allowed: readonly string[] = PREFIXES_BY_TYPE[type];
  if (!allowed.includes(prefix)) {
    throw fieldError("prefix", `Not a DGII NCF type for ${TYPE_LABELS[type]}: use one of ${allowed.join(", ")}.`);
  }
}

interface Numbering {
  type: DocumentType;
  prefix: string;
  start: number;
  end: number;
  next: number;
  validUntil: string | null;
  isDefault: boolean;
  isActive: boolean;
  isElectronic: boolean;
}

function checkNumbering(n: Numbering) {
  checkPrefix(n.type, n.prefix);
  const max = maxSequence(n.prefix);
  if (n.end > max) throw fieldError("end_number", `Numbers of ${n.prefix} have ${sequenceDigits(n.prefix)} digits: at most ${max}.`);
  if (n.end < n.start) throw fieldError("end_number", "The end_number must be at least the start_number.");
  if (n.next < n.start) throw fieldError("start_number", "The start_number cannot be above the next number to issue.");
  if (n.next > n.end + 1) throw fieldError("end_number", "The end_number cannot be below the last number issued.");
  if (n.type !== "quotation" && n.validUntil === null) throw fieldError("valid_until", "Fiscal sequences (NCF) have an expiry date.");
  if (n.isElectronic !== isElectronicPrefix(n.prefix)) {
    throw fieldError("is_electronic", n.isElectronic ? "Only E-series (e-CF) prefixes are electronic." : "E-series (e-CF) prefixes are electronic.");
  }
  if (n.isDefault && !n.isActive) throw fieldError("is_default", "An inactive subtype cannot be the default.");
}

/**
 * The exclusion constraint of drizzle/0015 (ranges of one NCF prefix never overlap in a tenant)
 * → 409 ncf_range_overlap; the constraint, not a prior read, decides under concurrent writes.
 */
function rangeOverlap(error: unknown): never {
  if (postgresError(error)?.code === "23P01") {
    throw new AppError(
      "ncf_range_overlap",
      "This range overlaps another sequence of the same prefix: DGII authorizes each NCF once, so ranges of one prefix never overlap.",
      { start_number: ["Overlaps another sequence of this prefix."] },
    );
  }
  throw error;
}

/**
 * Refuses, on a sales invoice, a subtype whose NCF type is not a sale's (Norma 06-2018, art. 4):
 * notes have their own endpoints, 11/13/17 and 41/43/47 belong to purchases. Whether an e-CF (E…)
 * can be issued is the e-CF setup's question (ecf/issue.ts assertEcfReady).
 */
export function assertSalesInvoicePrefix(prefix: string) {
  if (!SALES_INVOICE_PREFIXES.includes(prefix)) {
    const why = NOTE_PREFIXES.includes(prefix) ? "is for debit and credit notes" : "belongs to purchases, not to sales";
    throw fieldError("document_subtype_id", `The NCF type ${prefix} ${why}; a sales invoice uses ${SALES_INVOICE_PREFIXES.join(", ")}.`);
  }
}

/** An e-NCF handed out without its e-CF sent to DGII is an infraction (Ley 32-23): refused until e-CF exists. */
export function assertNotElectronic(prefix: string) {
  if (isElectronicPrefix(prefix)) {
    throw fieldError("document_subtype_id", "Electronic invoicing (e-CF) is not configured: E-series NCF cannot be issued yet.", "ecf_not_configured");
  }
}

/**
 * Writes of a tenant's sequences take one lock first, always before any row lock: two concurrent
 * creations of overlapping ranges (each clearing its type's default, each waiting on the other's
 * exclusion-constraint check) could otherwise deadlock, and the loser got 503 instead of 409
 * ncf_range_overlap (issue 33). Sequences are written seldom; numbering documents does not take it.
 */
async function lockSequenceWrites(db: AnyDb, tenantId: number) {
  await db.execute(sql`SELECT pg_advisory_xact_lock(${tenantId}::integer, hashtext('document-subtype-writes'))`);
}

async function clearDefault(db: AnyDb, tenantId: number, type: string, exceptId?: number) {
  await db
    .update(ds)
    .set({ isDefault: false, updatedAt: new Date() })
    .where(and(eq(ds.tenantId, tenantId), eq(ds.type, type), eq(ds.isDefault, true), exceptId === undefined ? undefined : sql`${ds.id} <> ${exceptId}`));
}

export async function createSubtype(db: AnyDb, tenantId: number, input: CreateDocumentSubtypeInput): Promise<SubtypeRow> {
  const start = input.start_number ?? 1;
  const n: Numbering = {
    type: input.type,
    prefix: input.prefix,
    start,
    end: input.end_number,
    next: input.next_number ?? start,
    validUntil: input.valid_until ?? null,
    isDefault: input.is_default ?? false,
    isActive: input.is_active ?? true,
    isElectronic: input.is_electronic ?? isElectronicPrefix(input.prefix),
  };
  if (n.end < n.start) throw fieldError("end_number", "The end_number must be at least the start_number.");
  if (n.next > n.end + 1) throw fieldError("next_number", "The next_number must be within the range (or end_number + 1).");
  if (n.next < n.start) throw fieldError("next_number", "The next_number must be within the range.");
  checkNumbering(n);
  const contingencyWorkspaceId = input.contingency_workspace_id ?? null;
  if (contingencyWorkspaceId !== null) await checkContingencyRange(db, n, contingencyWorkspaceId);
  await lockSequenceWrites(db, tenantId);
  if (n.isDefault) await clearDefault(db, tenantId, n.type);
  const row = await db
    .insert(ds)
    .values({
      tenantId,
      name: input.name,
      type: n.type,
      prefix: n.prefix,
      startNumber: n.start,
      endNumber: n.end,
      nextNumber: n.next,
      validUntil: n.validUntil,
      authorizationNumber: input.authorization_number ?? null,
      authorizedAt: input.authorized_at ?? null,
      isDefault: n.isDefault,
      isActive: n.isActive,
      isElectronic: n.isElectronic,
      contingencyWorkspaceId,
    })
    .returning()
    .catch(rangeOverlap)
    .then(oneRow);
  return row;
}

const CONTINGENCY_NOT_DEFAULT = "A contingency range is never the default: Sucursal does not number from it.";

/**
 * A paper contingency range (issue 33; Formato e-CF v1.0 section F: the replaced NCF is a paper
 * one of the equivalent type): a B-series sales invoice or note type, of an existing branch, never
 * the default (Sucursal never numbers from it).
 */
async function checkContingencyRange(db: AnyDb, n: Numbering, workspaceId: number) {
  if (n.type === "quotation" || isElectronicPrefix(n.prefix) || !PAPER_REPLACEABLE_PREFIXES.includes(n.prefix)) {
    throw fieldError(
      "contingency_workspace_id",
      `A contingency range is a paper B-series range replaced by an e-CF: ${PAPER_REPLACEABLE_PREFIXES.join(", ")}.`,
    );
  }
  if (n.isDefault) throw fieldError("is_default", CONTINGENCY_NOT_DEFAULT);
  const [workspace] = await db.select({ id: schema.workspaces.id }).from(schema.workspaces).where(eq(schema.workspaces.id, workspaceId));
  if (!workspace) throw fieldError("contingency_workspace_id", "No such workspace.");
}

export async function updateSubtype(db: AnyDb, tenantId: number, id: number, input: UpdateDocumentSubtypeInput): Promise<SubtypeRow> {
  await lockSequenceWrites(db, tenantId);
  const current = await getSubtype(db, tenantId, id, true);
  if (input.type !== undefined && input.type !== current.type) throw fieldError("type", "The type of a subtype cannot change; create another subtype.");
  const prefix = input.prefix ?? current.prefix;
  // An issued NCF stays inside its authorized range: once a number was used the range is fixed.
  const moved = (
    [
      ["prefix", prefix !== current.prefix],
      ["start_number", input.start_number !== undefined && input.start_number !== current.startNumber],
      ["end_number", input.end_number !== undefined && input.end_number !== current.endNumber],
    ] as const
  ).filter(([, changed]) => changed);
  if (moved.length && (await subtypeIssuedNumbers(db, tenantId, current))) {
    const message = "The prefix and range cannot change once numbers were issued from this sequence; create another subtype for a new authorization.";
    throw new AppError("ncf_range_in_use", message, Object.fromEntries(moved.map(([field]) => [field, [message]])));
  }
  const n: Numbering = {
    type: current.type as DocumentType,
    prefix,
    start: input.start_number ?? current.startNumber,
    end: input.end_number ?? current.endNumber,
    next: current.nextNumber,
    validUntil: input.valid_until === undefined ? current.validUntil : input.valid_until,
    isDefault: input.is_default ?? current.isDefault,
    isActive: input.is_active ?? current.isActive,
    // Changing between a B and an E prefix moves is_electronic along unless it is given.
    isElectronic: input.is_electronic ?? (input.prefix !== undefined ? isElectronicPrefix(prefix) : current.isElectronic),
  };
  checkNumbering(n);
  // A contingency range stays what its creation made it (checkContingencyRange): a PATCH made one
  // the default, from which Sucursal would then have numbered paper NCF (issue 44).
  if (current.contingencyWorkspaceId !== null) {
    if (!PAPER_REPLACEABLE_PREFIXES.includes(n.prefix)) {
      throw fieldError("prefix", `A contingency range is a paper B-series range replaced by an e-CF: ${PAPER_REPLACEABLE_PREFIXES.join(", ")}.`);
    }
    if (n.isDefault) throw fieldError("is_default", CONTINGENCY_NOT_DEFAULT);
  }
  if (n.isDefault && !current.isDefault) await clearDefault(db, tenantId, n.type, id);
  const row = await db
    .update(ds)
    .set({
      name: input.name,
      prefix: n.prefix,
      startNumber: n.start,
      endNumber: n.end,
      validUntil: n.validUntil,
      authorizationNumber: input.authorization_number,
      authorizedAt: input.authorized_at,
      isDefault: n.isDefault,
      isActive: n.isActive,
      isElectronic: n.isElectronic,
      updatedAt: new Date(),
    })
    .where(and(eq(ds.tenantId, tenantId), eq(ds.id, id)))
    .returning()
    .catch(rangeOverlap)
    .then(oneRow);
  return row;
}

/**
 * Whether documents were numbered from this subtype (invoices, deleted ones included, and
 * quotations). Returns a reason or null. Used by delete (409 in_use) and prefix changes (422).
 */
async function subtypeDocumentReferences(db: AnyDb, tenantId: number, subtypeId: number): Promise<string | null> {
  return firstReference(db, [
    ["invoices were numbered from it", referencedBy(schema.invoices, schema.invoices.tenantId, schema.invoices.documentSubtypeId, tenantId, subtypeId)],
    ["quotations were numbered from it", referencedBy(schema.quotations, schema.quotations.tenantId, schema.quotations.documentSubtypeId, tenantId, subtypeId)],
    [
      "notes were numbered from it",
      referencedBy(schema.invoiceNotes, schema.invoiceNotes.tenantId, schema.invoiceNotes.documentSubtypeId, tenantId, subtypeId),
    ],
  ]);
}

async function subtypeIssuedNumbers(db: AnyDb, tenantId: number, row: SubtypeRow): Promise<boolean> {
  return (await subtypeDocumentReferences(db, tenantId, row.id)) !== null;
}

export async function deleteSubtype(db: AnyDb, tenantId: number, id: number): Promise<void> {
  const current = await getSubtype(db, tenantId, id, true);
  const preferred = await db
    .select({ workspaceId: prefs.workspaceId })
    .from(prefs)
    .where(and(eq(prefs.tenantId, tenantId), eq(prefs.documentSubtypeId, id)));
  let reason: string | null = null;
  if (current.isDefault) reason = `it is the default ${current.type.replace("_", " ")} subtype; make another one the default first`;
  else if (preferred.length) reason = `it is the preferred subtype of ${preferred.length} workspace(s)`;
  else reason = await subtypeDocumentReferences(db, tenantId, id);
  if (reason) throw new AppError("in_use", `This document subtype cannot be deleted: ${reason}. Deactivate it instead (is_active: false).`);
  await db
    .delete(ds)
    .where(and(eq(ds.tenantId, tenantId), eq(ds.id, id)))
    .catch(inUseOnForeignKey("document subtype"));
}

/**
 * Takes the next number of a subtype for a new document, atomically: one UPDATE that advances
 * next_number only while the subtype is active, unexpired and not exhausted, holding its row lock
 * until the transaction ends (no duplicates under concurrency; a rolled-back document gives the
 * number back). For the invoice, quotation and credit note modules.
 */
export async function takeDocumentNumber(
  db: AnyDb,
  tenantId: number,
  subtypeId: number,
  today = dominicanToday(),
): Promise<{ number: number; documentNumber: string }> {
  const [taken] = rowsOf<{ prefix: string; number: number | string }>(await db.execute(takeNumberStatement(tenantId, subtypeId, today)));
  if (!taken) {
    await getSubtype(db, tenantId, subtypeId); // 404 for a subtype that is not there
    throw await refusalAfterTaking(db, tenantId, subtypeId, today);
  }
  const number = Number(taken.number);
  return { number, documentNumber: formatDocumentNumber(taken.prefix, number) };
}

/** Whether an invoice (deleted ones included: their NCF stays used) or a note of the tenant carries this number. */
async function isDocumentNumberUsed(db: AnyDb, tenantId: number, documentNumber: string): Promise<boolean> {
  const used = (table: typeof schema.invoices | typeof schema.invoiceNotes) =>
    sql`EXISTS (SELECT 1 FROM ${table} WHERE ${table.tenantId} = ${tenantId} AND ${table.documentNumber} = ${documentNumber})`;
  const result = await db.execute(sql`SELECT ${used(schema.invoices)} OR ${used(schema.invoiceNotes)} AS used`);
  return oneRow(rowsOf<{ used: boolean }>(result)).used;
}

/** Whether `ncf` may be used with the subtype: format, prefix, range, expiry, not already used. */
export async function validateNcf(
  db: AnyDb,
  tenantId: number,
  rawNcf: string,
  subtypeId: number,
  today = dominicanToday(),
): Promise<{ valid: boolean; message: string }> {
  const [subtype] = await db
    .select()
    .from(ds)
    .where(and(eq(ds.tenantId, tenantId), eq(ds.id, subtypeId)));
  if (!subtype) throw fieldError("document_subtype_id", "No such document subtype.");
  const ncf = rawNcf.trim().toUpperCase();
  const invalid = (message: string) => ({ valid: false, message });
  if (!subtype.isActive) return invalid(`The document subtype ${subtype.name} is inactive.`);
  const fiscal = /^[BE]\d{2}$/.test(subtype.prefix);
  if (fiscal) {
    const series = subtype.prefix[0]!;
    const length = subtype.prefix.length + sequenceDigits(subtype.prefix);
    if (!new RegExp(`^${series}\\d{${length - 1}}$`).test(ncf)) {
      return invalid(`${rawNcf.trim()} is not a valid ${series}-series NCF: expected ${series} and ${length - 1} digits (${length} characters).`);
    }
    if (!ncf.startsWith(subtype.prefix)) return invalid(`The NCF type ${ncf.slice(0, 3)} does not match the subtype's prefix ${subtype.prefix}.`);
  } else if (!ncf.startsWith(subtype.prefix)) {
    return invalid(`The number does not start with the subtype's prefix ${subtype.prefix}.`);
  }
  const number = parseDocumentNumber(subtype.prefix, ncf);
  if (number === null) return invalid(`Expected ${describeFormat(subtype.prefix)}.`);
  if (number < subtype.startNumber || number > subtype.endNumber) {
    return invalid(`The number ${number} is outside the authorized range ${subtype.startNumber}-${subtype.endNumber}.`);
  }
  if (subtype.validUntil !== null && subtype.validUntil < today) return invalid(`The sequence expired on ${subtype.validUntil}.`);
  if (await isDocumentNumberUsed(db, tenantId, ncf)) return invalid(`The NCF ${ncf} is already used by a document.`);
  return { valid: true, message: `The NCF ${ncf} is valid for ${subtype.name}.` };
}

/** PUT /workspaces/{id}/preferred-document-subtype: owner only; null clears the preference. */
export async function setPreferredSubtype(
  db: AnyDb,
  tenantId: number,
  userId: number,
  workspaceId: number,
  type: DocumentType,
  subtypeId: number | null,
): Promise<SubtypeRow | null> {
  const [workspace] = await db
    .select({ id: schema.workspaces.id, ownerId: schema.workspaces.ownerId })
    .from(schema.workspaces)
    .where(and(eq(schema.workspaces.tenantId, tenantId), eq(schema.workspaces.id, workspaceId)));
  if (!workspace) throw notFound("Workspace");
  if (workspace.ownerId !== userId) throw new AppError("forbidden", "Only the owner of the workspace may change its settings.");
  if (subtypeId === null) {
    await db.delete(prefs).where(and(eq(prefs.tenantId, tenantId), eq(prefs.workspaceId, workspaceId), eq(prefs.type, type)));
    return null;
  }
  const [subtype] = await db
    .select()
    .from(ds)
    .where(and(eq(ds.tenantId, tenantId), eq(ds.id, subtypeId)))
    .for("share");
  if (!subtype) throw fieldError("document_subtype_id", "No such document subtype.");
  if (subtype.type !== type)
    throw fieldError("document_subtype_id", `This subtype numbers ${subtype.type.replace("_", " ")}s, not ${type.replace("_", " ")}s.`);
  if (!subtype.isActive) throw fieldError("document_subtype_id", "This document subtype is inactive.");
  await db
    .insert(prefs)
    .values({ tenantId, workspaceId, type, documentSubtypeId: subtypeId })
    .onConflictDoUpdate({ target: [prefs.workspaceId, prefs.type], set: { documentSubtypeId: subtypeId } });
  return subtype;
}

/** The preferences of a workspace the caller may see (member, or view_all_locations). */
export async function listPreferredSubtypes(
  db: AnyDb,
  tenantId: number,
  userId: number,
  viewAll: boolean,
  workspaceId: number,
): Promise<{ type: string; id: number; name: string; prefix: string }[]> {
  // Both issued together, one round trip (issue 46): the preferences, read by the workspace id the
  // caller gave, are answered only once the workspace turned out visible to the caller.
  const [[workspace], preferences] = await Promise.all([
    db
      .select({ id: schema.workspaces.id })
      .from(schema.workspaces)
      .where(
        and(
          eq(schema.workspaces.tenantId, tenantId),
          eq(schema.workspaces.id, workspaceId),
          viewAll
            ? undefined
            : sql`EXISTS (SELECT 1 FROM ${schema.workspaceMembers} m WHERE m.workspace_id = ${schema.workspaces.id} AND m.user_id = ${userId})`,
        ),
      ),
    db
      .select({ type: prefs.type, id: ds.id, name: ds.name, prefix: ds.prefix })
      .from(prefs)
      .innerJoin(ds, eq(ds.id, prefs.documentSubtypeId))
      .where(and(eq(prefs.tenantId, tenantId), eq(prefs.workspaceId, workspaceId)))
      .orderBy(asc(prefs.type)),
  ]);
  if (!workspace) throw notFound("Workspace");
  return preferences;
}
