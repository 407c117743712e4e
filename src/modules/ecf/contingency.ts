import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { assertHeldForBranches, type CompanyGrant } from "../../db/grants";
import { oneRow, rowsOf } from "../../db/rows";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import type { CreateContingencyInput, EcfContingency } from "./schemas";

/**
 * Contingency (Ley 32-23 art. 21; Formato e-CF v1.0 section F; issue 33), declared by the admin for
 * the whole tenant (total) or for some branches. While one covers a branch, its e-CF are issued
 * and signed as always (the customer gets the printed representation with QR and security code)
 * and held: not sent to DGII, no attempt spent, no backoff growing, until the contingency closes
 * (jobs/ecf.ts asks `sendingPausedUntil`, which reads this table in the step's one statement).
 * Closing (DELETE, or DGII's reception reported available again for a total one: drizzle/0053
 * close_total_ecf_contingencies) makes the held e-CF due at once. A branch that cannot reach
 * Sucursal at all invoices on paper from its contingency range; those are replaced later
 * (invoices/issue.ts, `replaces`).
 */

const c = schema.ecfContingencies;
type ContingencyRow = typeof c.$inferSelect;

export function serializeContingency(row: ContingencyRow): EcfContingency {
  return {
    id: row.id,
    scope: row.workspaceIds === null ? "total" : "branches",
    workspace_ids: row.workspaceIds,
    reason: row.reason,
    open: row.closedAt === null,
    opened_at: timestamp(row.openedAt),
    opened_by: row.openedBy,
    closed_at: timestamp(row.closedAt),
    closed_by: row.closedBy,
    closed_how: row.closedHow as EcfContingency["closed_how"],
  };
}

/**
 * Opens a contingency; one that would cover a branch an open one covers already (a total one covers
 * all) is 409 contingency_overlap. Who may (issue 41): a total one acts on the whole company and
 * needs ecf:manage at company level (403 company_forbidden); one of some branches needs it there or
 * as a member of every branch listed (403 forbidden naming the first that fails, before anything
 * else is said about the branches listed).
 */
export async function openContingency(db: AnyDb, scope: RequestScope, company: CompanyGrant | null, input: CreateContingencyInput): Promise<ContingencyRow> {
  const ids = input.scope === "branches" ? [...new Set(input.workspace_ids ?? [])].sort((a, b) => a - b) : null;
  if (input.scope === "branches" && !ids?.length) throw fieldError("workspace_ids", "A contingency of some branches lists them.");
  if (input.scope === "total" && input.workspace_ids !== undefined) throw fieldError("workspace_ids", "A total contingency covers every branch: list none.");
  await assertHeldForBranches(
    db,
    { userId: scope.userId, company },
    "ecf:manage",
    ids,
    ids ? "open a contingency for these branches" : "open a total contingency",
  );
  if (ids) {
    const found = await db.select({ id: schema.workspaces.id }).from(schema.workspaces).where(inArray(schema.workspaces.id, ids));
    const missing = ids.filter((id) => !found.some((w) => w.id === id));
    if (missing.length) throw fieldError("workspace_ids", `No such workspace: ${missing.join(", ")}.`);
  }
  // Two concurrent opens for the same branch: the second waits here, then sees the first.
  await db.execute(sql`SELECT pg_advisory_xact_lock(${scope.tenantId}::integer, hashtext('ecf-contingency-writes'))`);
  const overlapping = await db
    .select()
    .from(c)
    .where(
      and(
        eq(c.tenantId, scope.tenantId),
        isNull(c.closedAt),
        ids ? sql`(${c.workspaceIds} IS NULL OR ${c.workspaceIds} && ${`{${ids.join(",")}}`}::int[])` : undefined,
      ),
    )
    .orderBy(c.id)
    .limit(1);
  if (overlapping[0]) {
    const other = overlapping[0];
    throw new AppError(
      "contingency_overlap",
      other.workspaceIds === null
        ? `A total contingency (#${other.id}) is open since ${timestamp(other.openedAt)}: it covers every branch.`
        : `Contingency #${other.id}, open since ${timestamp(other.openedAt)}, already covers branch ${other.workspaceIds.filter((id) => !ids || ids.includes(id)).join(", ")}.`,
    );
  }
  const row = await db.insert(c).values({ tenantId: scope.tenantId, workspaceIds: ids, reason: input.reason, openedBy: scope.userId }).returning().then(oneRow);
  return row;
}

/**
 * Closes an open contingency (closedHow manual) and makes its held e-CF due now, except those of a
 * branch another open contingency still covers. Returns the row and the released e-CF ids (queued
 * after the commit). Closing one sends its branches' held e-CF: a total one needs ecf:manage at
 * company level, one of some branches there or as a member of each of them (as opening it).
 */
export async function closeContingency(
  db: AnyDb,
  scope: RequestScope,
  company: CompanyGrant | null,
  id: number,
  now: Date,
): Promise<{ row: ContingencyRow; released: number[] }> {
  await db.execute(sql`SELECT pg_advisory_xact_lock(${scope.tenantId}::integer, hashtext('ecf-contingency-writes'))`);
  const [current] = await db
    .select()
    .from(c)
    .where(and(eq(c.tenantId, scope.tenantId), eq(c.id, id)));
  if (!current) throw notFound("Contingency");
  await assertHeldForBranches(
    db,
    { userId: scope.userId, company },
    "ecf:manage",
    current.workspaceIds,
    current.workspaceIds ? "close a contingency of these branches" : "close a total contingency",
  );
  if (current.closedAt !== null) throw new AppError("contingency_closed", `This contingency was closed at ${timestamp(current.closedAt)}.`);
  const row = await db.update(c).set({ closedAt: now, closedBy: scope.userId, closedHow: "manual" }).where(eq(c.id, id)).returning().then(oneRow);
  const covered = current.workspaceIds === null ? sql`true` : sql`d.workspace_id = ANY (${`{${current.workspaceIds.join(",")}}`}::int[])`;
  const released = rowsOf<{ id: number }>(
    await db.execute(sql`
      UPDATE ecf_documents d SET next_attempt_at = ${now.toISOString()}::timestamptz
      WHERE d.tenant_id = ${scope.tenantId} AND d.status IN ('pending', 'in_process') AND d.next_attempt_at > ${now.toISOString()}::timestamptz AND ${covered}
        AND NOT EXISTS (SELECT 1 FROM ecf_contingencies o WHERE o.tenant_id = d.tenant_id AND o.closed_at IS NULL
          AND (o.workspace_ids IS NULL OR d.workspace_id = ANY (o.workspace_ids)))
      RETURNING d.id`),
  );
  return { row: row, released: released.map((r) => Number(r.id)) };
}

/** GET /ecf/contingency: the tenant's contingencies, the latest first (the last 200). */
export async function listContingencies(db: AnyDb, tenantId: number): Promise<ContingencyRow[]> {
  return db.select().from(c).where(eq(c.tenantId, tenantId)).orderBy(desc(c.openedAt), desc(c.id)).limit(200);
}

/**
 * The open contingencies of the tenant, oldest first: what a deadline watch reads (issue 33's
 * "contingency near its limit" alert) to compare `openedAt` with its configured limit.
 */
export async function openContingencies(db: AnyDb, tenantId: number): Promise<{ id: number; workspaceIds: number[] | null; reason: string; openedAt: Date }[]> {
  return db
    .select({ id: c.id, workspaceIds: c.workspaceIds, reason: c.reason, openedAt: c.openedAt })
    .from(c)
    .where(and(eq(c.tenantId, tenantId), isNull(c.closedAt)))
    .orderBy(c.openedAt, c.id);
}

/** The open contingency covering a branch, or undefined. */
export async function contingencyCovering(db: AnyDb, tenantId: number, workspaceId: number): Promise<ContingencyRow | undefined> {
  const [row] = await db
    .select()
    .from(c)
    .where(and(eq(c.tenantId, tenantId), isNull(c.closedAt), sql`(${c.workspaceIds} IS NULL OR ${workspaceId} = ANY (${c.workspaceIds}))`))
    .limit(1);
  return row;
}
