import { and, eq, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";
import type { RequestScope } from "../../http/scope";
import { AppError, fieldError } from "../../lib/errors";
import { PAPER_REPLACEABLE_PREFIXES, REPLACEMENT_ECF_PREFIX } from "../../lib/ncf";
import { assertReplacementDate } from "../ecf/dating";
import type { EcfReference } from "../ecf/xml";

/**
 * A contingency replacement (issue 33; docs/ecf.md, "When DGII or a branch is down"): while a
 * branch could not issue e-CF at all it invoiced on paper, from the B-series range kept for its
 * contingency (document_subtypes.contingency_workspace_id). Back online, each paper NCF is entered
 * as a new invoice whose e-CF, of the equivalent type, names it in InformacionReferencia with
 * CodigoModificacion 4 "Reemplazo NCF emitido en contingencia" (Formato e-CF v1.0, section F). The
 * sale is recorded once, by the replacement: the paper sale never reached Sucursal, so its stock
 * moves and its 607 row comes only from the replacement (docs/reports.md).
 */

export interface Replacement {
  ncf: string;
  issueDate: string;
}

const ds = schema.documentSubtypes;

/**
 * The paper NCF `replaces` names must be of the type the e-CF replaces (B01 for an E31, B04 for an
 * E34…), inside the request branch's contingency range of that type, dated within the range's
 * authorization and validity and not in the future, and not replaced before (409
 * contingency_ncf_used; the unique index invoices_tenant_replaced_ncf_key, or
 * invoice_notes_tenant_replaced_ncf_key for a note, decides under concurrency). The e-CF bears the
 * paper's date, the day of the sale (ecf/dating.ts).
 */
export async function checkReplacement(
  db: AnyDb,
  scope: RequestScope,
  ecfPrefix: string,
  issueDate: string,
  replaces: Replacement,
  today: string,
  by: "invoice" | "note" = "invoice",
): Promise<EcfReference> {
  const paperPrefix = replaces.ncf.slice(0, 3);
  const equivalent = REPLACEMENT_ECF_PREFIX[paperPrefix];
  if (!equivalent) {
    throw fieldError("replaces.ncf", `Only paper NCF written in contingency are replaced: ${PAPER_REPLACEABLE_PREFIXES.join(", ")}.`);
  }
  if (equivalent !== ecfPrefix) {
    throw fieldError(
      "replaces.ncf",
      `A ${paperPrefix} is replaced by an ${equivalent} (Formato e-CF v1.0: the replaced NCF's type is the equivalent of the e-CF's); this ${by}'s subtype is ${ecfPrefix}.`,
    );
  }
  const number = Number(replaces.ncf.slice(3));
  const [range] = await db
    .select({ id: ds.id, validUntil: ds.validUntil, authorizedAt: ds.authorizedAt })
    .from(ds)
    .where(
      and(
        eq(ds.tenantId, scope.tenantId),
        eq(ds.contingencyWorkspaceId, scope.workspaceId),
        eq(ds.prefix, paperPrefix),
        sql`${ds.startNumber} <= ${number} AND ${ds.endNumber} >= ${number}`,
      ),
    )
    .limit(1);
  if (!range) throw fieldError("replaces.ncf", `${replaces.ncf} is not in this branch's contingency range of ${paperPrefix}.`);
  if (range.validUntil !== null && replaces.issueDate > range.validUntil) {
    throw fieldError("replaces.issue_date", `The contingency range of ${replaces.ncf} expired on ${range.validUntil}.`);
  }
  assertReplacementDate(issueDate, replaces.issueDate, range.authorizedAt, today);
  const table = by === "invoice" ? schema.invoices : schema.invoiceNotes;
  const [used] = await db
    .select({ documentNumber: table.documentNumber })
    .from(table)
    .where(and(eq(table.tenantId, scope.tenantId), eq(table.replacedNcf, replaces.ncf)))
    .limit(1);
  if (used)
    throw new AppError("contingency_ncf_used", `${replaces.ncf} was replaced already, by ${used.documentNumber}.`, { "replaces.ncf": ["Replaced already."] });
  return { ncf: replaces.ncf, date: replaces.issueDate, modificationCode: 4 };
}
