import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import { type AppError, fieldError } from "../../lib/errors";
import { documentNumberSql } from "../../lib/ncf";

/**
 * Taking a document number from a subtype's sequence: the one home of the statement that advances
 * `document_subtypes.next_number`, used inside the invoice insert and the document read (one round
 * trip each) and by takeDocumentNumber.
 */

const ds = schema.documentSubtypes;

/**
 * UPDATE … RETURNING prefix, number: advances next_number only while the subtype is active,
 * unexpired and not exhausted (and of `type`, when given), and holds the row lock until the
 * transaction ends, so numbers are never given twice and a rolled-back document gives its number
 * back: DGII's comprobantes fiscales regulation (Decreto 254-06) wants NCFs issued in sequence, never twice.
 * No row: the subtype cannot number now (numberingRefusal says why). `electronicOnly` takes a number
 * only from an e-CF (E…) sequence: an e-CF is signed before its write statement, so its number must
 * be known first (docs/ecf.md, "Issuing").
 */
export function takeNumberStatement(tenantId: number, subtypeId: number, today: string, type?: string, options: { electronicOnly?: boolean } = {}): SQL {
  return sql`UPDATE ${ds} SET ${sql.identifier(ds.nextNumber.name)} = ${ds.nextNumber} + 1, ${sql.identifier(ds.updatedAt.name)} = now()
    WHERE ${ds.tenantId} = ${tenantId} AND ${ds.id} = ${subtypeId}${type === undefined ? sql`` : sql` AND ${ds.type} = ${type}`} AND ${ds.isActive}${
      options.electronicOnly ? sql` AND ${ds.prefix} LIKE 'E%'` : sql``
    }
      AND ${ds.contingencyWorkspaceId} IS NULL AND ${ds.nextNumber} <= ${ds.endNumber} AND (${ds.validUntil} IS NULL OR ${ds.validUntil} >= ${today}::date)
    RETURNING ${ds.prefix} AS prefix, ${ds.nextNumber} - 1 AS number`;
}

/**
 * The WITH entries that give a write statement its document number as `num(document_number)`:
 * taken now from the sequence (takeNumberStatement, in the same statement), or the number a read
 * took already under the row lock — an e-CF's, signed in its XML before the write (docs/ecf.md,
 * "Issuing"). No `num` row: the sequence could not number (refusalAfterTaking says why).
 */
export function numberCtes(tenantId: number, subtypeId: number, today: string, type: string, taken: string | null): SQL {
  if (taken !== null) return sql`num AS (SELECT ${taken}::text AS document_number)`;
  return sql`taken AS (${takeNumberStatement(tenantId, subtypeId, today, type)}    ), num AS (
      SELECT ${sql.raw(documentNumberSql("prefix", "number"))} AS document_number FROM taken)`;
}

/** A subtype as a statement reads it (JSON with column names) → the fields numberingRefusal reads. */
export const numberingState = (subtype: {
  is_active: boolean;
  next_number: number | string;
  end_number: number | string;
  valid_until: string | null;
  contingency_workspace_id?: number | null;
}) => ({
  contingencyWorkspaceId: subtype.contingency_workspace_id ?? null,
  isActive: subtype.is_active,
  nextNumber: subtype.next_number,
  endNumber: subtype.end_number,
  validUntil: subtype.valid_until,
});

/** Why a subtype cannot give a number today (422 on document_subtype_id), or null when it can. */
export function numberingRefusal(
  subtype: { isActive: boolean; nextNumber: number | string; endNumber: number | string; validUntil: string | null; contingencyWorkspaceId?: number | null },
  today: string,
): AppError | null {
  // A paper contingency range's numbers are written by hand at its branch; Sucursal never hands them out (issue 33).
  if (subtype.contingencyWorkspaceId != null) {
    return fieldError(
      "document_subtype_id",
      "This is a paper contingency range: its numbers are written by hand while the branch cannot issue e-CF, then entered as replacements (POST /invoices with replaces).",
    );
  }
  if (!subtype.isActive) return fieldError("document_subtype_id", "This document subtype is inactive.");
  if (Number(subtype.nextNumber) > Number(subtype.endNumber)) {
    return fieldError("document_subtype_id", "No numbers are left in this sequence.", "ncf_sequence_exhausted");
  }
  if (subtype.validUntil !== null && subtype.validUntil < today) {
    return fieldError("document_subtype_id", `This sequence expired on ${subtype.validUntil}.`, "ncf_sequence_expired");
  }
  return null;
}

/** The sequence changed under us between reading it and taking its number (a concurrent change). */
export const numberingUnavailable = (): AppError => fieldError("document_subtype_id", "This sequence cannot give a number right now; try again.");

/**
 * Why takeNumberStatement gave no number, read after the fact: the subtype's refusal, or
 * numberingUnavailable when it could number (it changed meanwhile) or is gone.
 */
export async function refusalAfterTaking(db: AnyDb, tenantId: number, subtypeId: number, today: string): Promise<AppError> {
  const [subtype] = await db
    .select()
    .from(ds)
    .where(and(eq(ds.tenantId, tenantId), eq(ds.id, subtypeId)));
  return (subtype && numberingRefusal(subtype, today)) ?? numberingUnavailable();
}
