import { and, asc, desc, eq, ilike, inArray, isNull, ne, or, type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { inUseOnForeignKey } from "../../db/errors";
import { findRow, firstReference, likePattern, orderBy, pageOfQuery, referencedBy, updatedSince } from "../../db/queries";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import type { ListQuery } from "../../http/pagination";
import { listWorkspaceCondition, type RequestScope, visibleByIdCondition } from "../../http/scope";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { decimal2, timestamp } from "../../lib/format";
import { compactIdentification, type IdentificationType, normalizeIdentification } from "../../lib/identification";
import { assertAssignableWorkspace, assertWritableIn, contactUsers } from "../products/ownership";
import { activeRecordJson } from "../rnc/queries";
import type { CONTACT_TYPES, CreateContactInput, TAX_REGIMES, UpdateContactInput } from "./schemas";

const ct = schema.contacts;
type ContactRow = typeof ct.$inferSelect;

interface Taxpayer {
  name: string;
  comercial_name: string;
  status: string;
}

/**
 * A contact as the API shows it. `taxpayer` is what the DGII registry says of its RNC or cédula
 * (null when the registry does not know it, or for passports).
 */
function serializeContact(row: ContactRow, taxpayer: Taxpayer | null = null) {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    contact_type: row.contactType as (typeof CONTACT_TYPES)[number],
    identification_type: row.identificationType as IdentificationType | null,
    identification: row.identification,
    email: row.email,
    phone: row.phone,
    address: row.address,
    notes: row.notes,
    credit_limit: decimal2(row.creditLimit),
    tax_regime: row.taxRegime as (typeof TAX_REGIMES)[number],
    created_at: timestamp(row.createdAt),
    updated_at: timestamp(row.updatedAt),
    taxpayer,
  };
}

/**
 * What the registry says of a contact's RNC or cédula, in the contact's row (null for a passport,
 * or when the registry does not know it): reads take their contacts and the records in one
 * statement (issue 46: one round trip per read).
 */
const taxpayerOf = sql<Taxpayer | null>`CASE WHEN ${ct.identificationType} IN ('rnc', 'cedula') THEN ${activeRecordJson(ct.identification)} END`;

/** A contact read with its registry record (taxpayerOf). */
function serializeRead(row: { contact: ContactRow; taxpayer: Taxpayer | null }) {
  const t = row.taxpayer;
  return serializeContact(row.contact, t ? { name: t.name, comercial_name: t.comercial_name, status: t.status } : null);
}

type ContactFilter = "search" | "contact_type" | "identification_type" | "identification" | "workspace_id";
type ContactSort = "id" | "name" | "created_at";

export async function listContacts(
  db: AnyDb,
  scope: RequestScope,
  query: ListQuery<ContactFilter, ContactSort>,
): Promise<{ data: ReturnType<typeof serializeContact>[]; total: number }> {
  const f = query.filters;
  const search = f.search ? likePattern(f.search) : null;
  const where = and(
    eq(ct.tenantId, scope.tenantId),
    listWorkspaceCondition(ct.workspaceId, scope, f.workspace_id),
    search ? or(ilike(ct.name, search), ilike(ct.email, search), ilike(ct.identification, likePattern(compactIdentification(f.search!)))) : undefined,
    // A contact of type `both` is a customer and a supplier.
    f.contact_type ? (f.contact_type === "both" ? eq(ct.contactType, "both") : inArray(ct.contactType, [f.contact_type, "both"])) : undefined,
    f.identification_type ? eq(ct.identificationType, f.identification_type) : undefined,
    f.identification ? eq(ct.identification, compactIdentification(f.identification).toUpperCase()) : undefined,
    updatedSince(ct.updatedAt, query),
  );
  const column = { id: ct.id, name: ct.name, created_at: ct.createdAt, updated_at: ct.updatedAt }[query.sort.field];
  const { rows, total } = await pageOfQuery(db, { table: ct, id: ct.id, where, order: [orderBy(column, ct.id, query.sort.descending)], query }, (page) =>
    db
      .select({ contact: ct, taxpayer: taxpayerOf, ...page })
      .from(ct)
      .$dynamic(),
  );
  return { data: rows.map(serializeRead), total };
}

export async function getContact(db: AnyDb, scope: RequestScope, id: number, lock = false): Promise<ContactRow> {
  return findRow(db, ct, and(eq(ct.tenantId, scope.tenantId), eq(ct.id, id), visibleByIdCondition(ct.workspaceId, scope)), "Contact", lock);
}

/** Contacts as shown, each with its registry record (taxpayerOf), in one statement. */
const shownWhere = (db: AnyDb, where: SQL | undefined) => db.select({ contact: ct, taxpayer: taxpayerOf }).from(ct).where(where);

/** GET /contacts/{id}: the contact as shown, its registry record read with it (one statement). */
export async function showContact(db: AnyDb, scope: RequestScope, id: number): Promise<ReturnType<typeof serializeContact>> {
  const [row] = await shownWhere(db, and(eq(ct.tenantId, scope.tenantId), eq(ct.id, id), visibleByIdCondition(ct.workspaceId, scope)));
  if (!row) throw notFound("Contact");
  return serializeRead(row);
}

/** A contact the request has just written, as shown (its registry record read with it). */
export async function shownContact(db: AnyDb, row: ContactRow): Promise<ReturnType<typeof serializeContact>> {
  return serializeRead(oneRow(await shownWhere(db, and(eq(ct.tenantId, row.tenantId), eq(ct.id, row.id)))));
}

/** Type and number together: validated (check digits, exception lists) and stored as digits. */
function identificationOf(type: IdentificationType | null, raw: string | null): { type: IdentificationType | null; value: string | null } {
  const value = raw === null || raw.trim() === "" ? null : raw;
  if (value === null && type === null) return { type: null, value: null };
  if (value === null) throw fieldError("identification", `The identification is required when identification_type is ${type}.`);
  if (type === null) throw fieldError("identification_type", "The identification_type (rnc, cedula or passport) is required with an identification.");
  const result = normalizeIdentification(type, value);
  if (!result.ok) throw fieldError("identification", result.message);
  return { type, value: result.value };
}

/**
 * No two contacts with the same identification may be visible in the same workspace: a contact of
 * workspace W clashes with W's and shared contacts; a shared contact clashes with every contact.
 * An advisory lock on (tenant, number) serializes concurrent creations of the same number. The
 * clashing contact is named only when the caller may see it (shared, of the request's workspace,
 * or with view_all_locations): a 422 never reveals another branch's contact.
 */
async function assertUniqueIdentification(db: AnyDb, scope: RequestScope, identification: string, workspaceId: number | null, exceptId?: number) {
  const tenantId = scope.tenantId;
  await db.execute(sql`SELECT pg_advisory_xact_lock(${tenantId}::integer, hashtext(${`contact-identification:${identification}`}))`);
  const [clash] = await db
    .select({ id: ct.id, name: ct.name, workspaceId: ct.workspaceId })
    .from(ct)
    .where(
      and(
        eq(ct.tenantId, tenantId),
        eq(ct.identification, identification),
        exceptId === undefined ? undefined : ne(ct.id, exceptId),
        workspaceId === null ? undefined : or(isNull(ct.workspaceId), eq(ct.workspaceId, workspaceId)),
      ),
    )
    // Several may clash: name one the caller may see when there is one, else the oldest, so the
    // answer is the same each time.
    .orderBy(...(scope.viewAll ? [] : [desc(sql`${ct.workspaceId} IS NULL OR ${ct.workspaceId} = ${scope.workspaceId}`)]), asc(ct.id))
    .limit(1);
  if (!clash) return;
  const visible = clash.workspaceId === null || clash.workspaceId === scope.workspaceId || scope.viewAll;
  if (visible)
    throw fieldError("identification", `Another contact with this identification is visible in this workspace (contact ${clash.id}, ${clash.name}).`);
  throw fieldError("identification", "This identification is already used by another contact in this company.");
}

export async function createContact(db: AnyDb, scope: RequestScope, input: CreateContactInput): Promise<ContactRow> {
  const workspaceId = input.workspace_id === undefined ? scope.workspaceId : input.workspace_id;
  await assertAssignableWorkspace(db, scope, workspaceId, "contacts:create");
  const identification = identificationOf(input.identification_type ?? null, input.identification ?? null);
  if (identification.value) await assertUniqueIdentification(db, scope, identification.value, workspaceId);
  const row = await db
    .insert(ct)
    .values({
      tenantId: scope.tenantId,
      workspaceId,
      name: input.name,
      contactType: input.contact_type ?? "customer",
      identificationType: identification.type,
      identification: identification.value,
      email: input.email ?? null,
      phone: input.phone ?? null,
      address: input.address ?? null,
      notes: input.notes ?? null,
      creditLimit: input.credit_limit ?? null,
      taxRegime: input.tax_regime ?? "ordinary",
    })
    .returning()
    .then(oneRow);
  return row;
}

export async function updateContact(db: AnyDb, scope: RequestScope, id: number, input: UpdateContactInput): Promise<ContactRow> {
  const current = await getContact(db, scope, id, true);
  // A contact of another workspace (visible through view_all_locations) is written only under
  // contacts:edit held there.
  await assertWritableIn(db, scope, [current.workspaceId], "contacts:edit", "change this contact");
  const workspaceId = input.workspace_id === undefined ? current.workspaceId : input.workspace_id;
  if (workspaceId !== current.workspaceId) {
    await assertAssignableWorkspace(db, scope, workspaceId);
    // Moving the contact into a workspace hides it from the other workspaces that issued documents
    // to it: contacts:edit is needed in each of them and in the target.
    if (workspaceId !== null) {
      const users = await contactUsers(db, scope.tenantId, id);
      await assertWritableIn(db, scope, [...users, workspaceId], "contacts:edit", "move this contact into a workspace");
    }
  }
  const identification = identificationOf(
    input.identification_type === undefined ? (current.identificationType as IdentificationType | null) : input.identification_type,
    input.identification === undefined ? current.identification : input.identification,
  );
  if (identification.value && (identification.value !== current.identification || workspaceId !== current.workspaceId)) {
    await assertUniqueIdentification(db, scope, identification.value, workspaceId, id);
  }
  const row = await db
    .update(ct)
    .set({
      workspaceId,
      name: input.name,
      contactType: input.contact_type,
      identificationType: identification.type,
      identification: identification.value,
      email: input.email,
      phone: input.phone,
      address: input.address,
      notes: input.notes,
      creditLimit: input.credit_limit,
      taxRegime: input.tax_regime,
      updatedAt: new Date(),
    })
    .where(and(eq(ct.tenantId, scope.tenantId), eq(ct.id, id)))
    .returning()
    .then(oneRow);
  return row;
}

/**
 * Why a contact cannot be deleted because documents were issued to them (deleted invoices
 * included: they stay on record). Returns a reason or null.
 */
async function contactDocumentReferences(db: AnyDb, tenantId: number, contactId: number): Promise<string | null> {
  return firstReference(db, [
    ["invoices were issued to it", referencedBy(schema.invoices, schema.invoices.tenantId, schema.invoices.contactId, tenantId, contactId)],
    ["quotations were issued to it", referencedBy(schema.quotations, schema.quotations.tenantId, schema.quotations.contactId, tenantId, contactId)],
  ]);
}

/** Deletes the row; returns its workspace (null: shared), which the `.deleted` event names. */
export async function deleteContact(db: AnyDb, scope: RequestScope, id: number): Promise<{ workspaceId: number | null }> {
  const current = await getContact(db, scope, id, true);
  await assertWritableIn(db, scope, [current.workspaceId], "contacts:delete", "delete this contact");
  const reason = await contactDocumentReferences(db, scope.tenantId, id);
  if (reason) throw new AppError("in_use", `This contact cannot be deleted: ${reason}.`);
  await db
    .delete(ct)
    .where(and(eq(ct.tenantId, scope.tenantId), eq(ct.id, id)))
    .catch(inUseOnForeignKey("contact"));
  return { workspaceId: current.workspaceId };
}
