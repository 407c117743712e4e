import { type SQL, sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow, rowsOf } from "../../db/rows";
import type { RequestScope } from "../../http/scope";
import { fieldError } from "../../lib/errors";
import { formatDocumentNumber, isElectronicPrefix } from "../../lib/ncf";
import { numberingRefusal, numberingState, numberingUnavailable, takeNumberStatement } from "../document-subtypes/numbering";
import { activeRecords } from "../rnc/queries";
import { EXCLUSIVE_TAX_TYPES, type LineInput } from "./lines";

/** The parts of an invoice or quotation request that name other records. */
export interface DocumentReferencesInput {
  contact_id: number;
  document_subtype_id: number;
  currency_id?: number | null;
  salesman_ids?: number[];
  items: { product_id: number; description?: string | null; quantity: string; unit_price: string; discount: string; tax_ids?: number[] }[];
}

export interface ResolvedLine extends LineInput {
  productId: number;
  description: string;
  trackInventory: boolean;
  /** A service rather than goods (the e-CF's IndicadorBienoServicio). */
  isService: boolean;
}

/** The tenant's e-CF setup as issuing reads it (the encrypted certificate only when an e-CF number was taken). */
export interface LoadedEcfSettings {
  enabled: boolean;
  environment: "testecf" | "certecf" | "ecf";
  certificate_encrypted: string | null;
  /** DGII's authorization to send deferred, or null (ecf_settings.deferred_sending_authorization). */
  deferred_sending_authorization: string | null;
}

export interface ResolvedDocument {
  contact: {
    id: number;
    name: string;
    email: string | null;
    identificationType: string | null;
    identification: string | null;
    address: string | null;
    /** The buyer's status in the RNC registry's current generation; null when not found or no registry was loaded. */
    registryStatus: string | null;
    /** Whether the registry was looked up (a completed sync exists and the buyer has an RNC or cédula). */
    registryChecked: boolean;
  };
  subtype: { id: number; name: string; prefix: string; validUntil: string | null; authorizationNumber: string | null; authorizedAt: string | null };
  documentNumber: string | null;
  currencyId: number | null;
  /** The currency's ISO code (null only when the tenant has no currency at all). */
  currencyCode: string | null;
  /** The currency's rate to the default currency (DOP) now: "1" for the default currency. */
  currencyRate: string;
  /** The default currency (DOP), or no currency at all. */
  currencyIsDefault: boolean;
  /** The company's fiscal profile as it is now (what a fiscal document prints). */
  issuer: LoadedIssuer | null;
  /** The request's workspace: the branch a document is issued from. */
  branch: LoadedBranch;
  salesmanIds: number[];
  lines: ResolvedLine[];
  /** With `takeElectronicNumber` and an E-series subtype: the tenant's e-CF setup (null when it has none). */
  ecf: LoadedEcfSettings | null;
}

/** The company profile as resolveDocument loads it. */
export interface LoadedIssuer {
  rnc: string | null;
  legalName: string | null;
  tradeName: string | null;
  address: string | null;
  municipalityCode: string | null;
  provinceCode: string | null;
  phone: string | null;
  email: string | null;
}

/** The request's workspace as resolveDocument loads it. */
export interface LoadedBranch {
  id: number;
  name: string;
  address: string | null;
  phone: string | null;
}

/** A product as a document's read statement loads it (JSON with column names). */
export interface LoadedProduct {
  id: number;
  name: string;
  workspace_id: number | null;
  is_active: boolean;
  track_inventory: boolean;
  product_type: string;
  default_tax_ids: number[];
}

interface Loaded {
  taken: { prefix: string; number: number } | null;
  subtype: {
    id: number;
    name: string;
    type: string;
    prefix: string;
    is_active: boolean;
    next_number: number;
    end_number: number;
    valid_until: string | null;
    authorization_number: string | null;
    authorized_at: string | null;
    contingency_workspace_id: number | null;
  } | null;
  contact: {
    id: number;
    name: string;
    email: string | null;
    workspace_id: number | null;
    identification_type: string | null;
    identification: string | null;
    address: string | null;
    registry_status: string | null;
    registry_checked: boolean;
  } | null;
  products: LoadedProduct[];
  taxes: { id: number; name: string; type: string; rate: string; is_active: boolean; dgii_code: string | null; amount_per_unit: string | null }[];
  salesmen: number[];
  currency: { id: number; code: string; exchange_rate: string; is_default: boolean } | null;
  issuer: LoadedIssuer | null;
  branch: LoadedBranch;
  ecf: LoadedEcfSettings | null;
}

const intArray = (ids: number[]) => `{${ids.map((id) => Math.trunc(id)).join(",")}}`;

/**
 * The columns `issuer` (the company profile, LoadedIssuer) and `branch` (the request's workspace,
 * LoadedBranch) of a document's read statement: what its snapshot freezes.
 */
export function issuerAndBranchColumns(tenantId: number, workspaceId: number): SQL {
  return sql`(SELECT json_build_object('rnc', rnc, 'legalName', legal_name, 'tradeName', trade_name, 'address', address,
         'municipalityCode', municipality_code, 'provinceCode', province_code, 'phone', phone, 'email', email)
       FROM company_profiles WHERE tenant_id = ${tenantId}) AS issuer,
      (SELECT json_build_object('id', id, 'name', name, 'address', address, 'phone', phone)
       FROM workspaces WHERE tenant_id = ${tenantId} AND id = ${workspaceId}) AS branch`;
}

/** The column `ecf` (LoadedEcfSettings) of a read statement that took an e-NCF (`when`): what signing needs. */
export function ecfSettingsColumn(tenantId: number, when: SQL): SQL {
  return sql`(SELECT json_build_object('enabled', enabled, 'environment', environment, 'certificate_encrypted', certificate_encrypted,
         'deferred_sending_authorization', deferred_sending_authorization)
       FROM ecf_settings WHERE tenant_id = ${tenantId} AND ${when}) AS ecf`;
}

/**
 * Loads and checks everything a document names, in ONE statement: contact, products, taxes
 * (given or the products' defaults), salesmen and currency, all visible in the request's
 * workspace; with `takeNumber`, it also takes the subtype's next number under its row lock (the
 * lock is held, and the number given back by rollback, if anything later refuses the document).
 * With `takeElectronicNumber`, it takes the number only when the subtype is an e-CF (E…) one, and
 * then also reads the tenant's e-CF setup: an e-CF is signed, number included, before the write
 * statement, inside the same transaction (docs/ecf.md, "Issuing"); other numbers are taken by the
 * write statement itself. Anything missing or unusable → 422 naming the field.
 */
export async function resolveDocument(
  db: AnyDb,
  scope: RequestScope,
  input: DocumentReferencesInput,
  options: {
    documentType: "invoice" | "quotation" | "credit_note" | "debit_note";
    takeNumber: boolean;
    takeElectronicNumber?: boolean;
    checkNumbering?: boolean;
    today: string;
  },
): Promise<ResolvedDocument> {
  const productIds = [...new Set(input.items.map((i) => i.product_id))];
  const taxIds = [...new Set(input.items.flatMap((i) => i.tax_ids ?? []))];
  const salesmanIds = [...new Set(input.salesman_ids ?? [])];
  const t = scope.tenantId;
  const takeNumber =
    options.takeNumber || options.takeElectronicNumber
      ? takeNumberStatement(t, input.document_subtype_id, options.today, options.documentType, { electronicOnly: !options.takeNumber })
      : sql`SELECT NULL::text AS prefix, NULL::bigint AS number WHERE false`;
  const result = await db.execute(sql`
    WITH taken AS (${takeNumber})
    SELECT
      (SELECT row_to_json(taken) FROM taken) AS taken,
      (SELECT json_build_object('id', id, 'name', name, 'type', type, 'prefix', prefix, 'is_active', is_active,
         'next_number', next_number, 'end_number', end_number, 'valid_until', valid_until, 'authorization_number', authorization_number,
         'authorized_at', authorized_at, 'contingency_workspace_id', contingency_workspace_id)
       FROM document_subtypes WHERE tenant_id = ${t} AND id = ${input.document_subtype_id}) AS subtype,
      (SELECT json_build_object('id', c.id, 'name', c.name, 'email', c.email, 'workspace_id', c.workspace_id,
         'identification_type', c.identification_type, 'identification', c.identification, 'address', c.address,
         'registry_checked', c.identification_type IN ('rnc', 'cedula') AND EXISTS (SELECT 1 FROM rnc_sync_runs WHERE status = 'completed'),
         'registry_status', CASE WHEN c.identification_type IN ('rnc', 'cedula')
           THEN (SELECT r.status FROM (${activeRecords(sql`identification = c.identification`)}) r) END)
       FROM contacts c WHERE c.tenant_id = ${t} AND c.id = ${input.contact_id}) AS contact,
      ${issuerAndBranchColumns(t, scope.workspaceId)},
      (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'workspace_id', workspace_id, 'is_active', is_active,
         'track_inventory', track_inventory, 'product_type', product_type, 'default_tax_ids', default_tax_ids)), '[]')
       FROM products WHERE tenant_id = ${t} AND id = ANY(${intArray(productIds)}::int[])) AS products,
      (SELECT coalesce(json_agg(json_build_object('id', id, 'name', name, 'type', type, 'rate', rate, 'is_active', is_active,
         'dgii_code', dgii_code, 'amount_per_unit', amount_per_unit::text)), '[]')
       FROM taxes WHERE tenant_id = ${t} AND (id = ANY(${intArray(taxIds)}::int[])
         OR id IN (SELECT unnest(default_tax_ids) FROM products WHERE tenant_id = ${t} AND id = ANY(${intArray(productIds)}::int[])))) AS taxes,
      (SELECT coalesce(json_agg(id), '[]') FROM salesmen WHERE tenant_id = ${t} AND is_active AND id = ANY(${intArray(salesmanIds)}::int[])) AS salesmen,
      (SELECT json_build_object('id', id, 'code', code, 'is_default', is_default, 'exchange_rate', CASE WHEN is_default THEN '1' ELSE exchange_rate::text END)
       FROM currencies WHERE tenant_id = ${t} AND
         ${input.currency_id == null ? sql`is_default` : sql`id = ${input.currency_id}`} LIMIT 1) AS currency,
      ${ecfSettingsColumn(t, sql`${options.takeElectronicNumber === true} AND EXISTS (SELECT 1 FROM taken)`)}`);
  const loaded = oneRow(rowsOf<Loaded>(result));
  const inWorkspace = (workspaceId: number | null) => workspaceId === null || workspaceId === scope.workspaceId;

  if (!loaded.contact || !inWorkspace(loaded.contact.workspace_id)) throw fieldError("contact_id", "No such contact in this workspace.");
  const subtype = loaded.subtype;
  if (!subtype || subtype.type !== options.documentType) {
    throw fieldError("document_subtype_id", `No such ${options.documentType.replace("_", " ")} document subtype.`);
  }
  let documentNumber: string | null = null;
  if (options.takeElectronicNumber && !options.takeNumber && isElectronicPrefix(subtype.prefix)) {
    if (!loaded.taken) throw numberingRefusal(numberingState(subtype), options.today) ?? numberingUnavailable();
    documentNumber = formatDocumentNumber(loaded.taken.prefix, Number(loaded.taken.number));
  } else if (options.takeNumber) {
    if (!loaded.taken) throw numberingRefusal(numberingState(subtype), options.today) ?? numberingUnavailable();
    documentNumber = formatDocumentNumber(loaded.taken.prefix, Number(loaded.taken.number));
  } else if (options.checkNumbering) {
    // The number itself is taken later, in the write statement; refuse early what cannot number.
    const refusal = numberingRefusal(numberingState(subtype), options.today);
    if (refusal) throw refusal;
  }
  if (input.currency_id != null && loaded.currency === null) throw fieldError("currency_id", "No such currency.");
  salesmanIds.forEach((id) => {
    if (!loaded.salesmen.includes(id)) throw fieldError(`salesman_ids.${(input.salesman_ids ?? []).indexOf(id)}`, "No such active salesman.");
  });

  const products = new Map(loaded.products.map((p) => [p.id, p]));
  const taxes = new Map(loaded.taxes.map((tax) => [tax.id, tax]));
  const lines = input.items.map((item, i): ResolvedLine => {
    const product = products.get(item.product_id);
    if (!product || !inWorkspace(product.workspace_id)) throw fieldError(`items.${i}.product_id`, "No such product in this workspace.");
    if (!product.is_active) throw fieldError(`items.${i}.product_id`, "This product is inactive.");
    // No tax_ids: the product's default taxes; an empty list: no taxes.
    const ids = item.tax_ids ?? product.default_tax_ids;
    const lineTaxes = ids.map((id, k) => {
      const tax = taxes.get(id);
      if (!tax || (item.tax_ids && !tax.is_active)) throw fieldError(`items.${i}.tax_ids.${k}`, "No such active tax.");
      return { id: tax.id, name: tax.name, type: tax.type, rate: String(tax.rate), dgii_code: tax.dgii_code, amount_per_unit: tax.amount_per_unit };
    });
    if (new Set(ids).size !== ids.length) throw fieldError(`items.${i}.tax_ids`, "A tax is listed twice.");
    if (lineTaxes.filter((tax) => EXCLUSIVE_TAX_TYPES.has(tax.type)).length > 1) {
      throw fieldError(`items.${i}.tax_ids`, "A line holds at most one of ITBIS, exento and no facturable (ISC and other additional taxes come on top).");
    }
    return {
      productId: product.id,
      description: item.description?.trim() || product.name,
      trackInventory: product.track_inventory,
      isService: product.product_type === "service",
      quantity: item.quantity,
      unitPrice: item.unit_price,
      discount: item.discount,
      taxes: lineTaxes,
    };
  });

  return {
    contact: {
      id: loaded.contact.id,
      name: loaded.contact.name,
      email: loaded.contact.email,
      identificationType: loaded.contact.identification_type,
      identification: loaded.contact.identification,
      address: loaded.contact.address,
      registryStatus: loaded.contact.registry_status,
      registryChecked: loaded.contact.registry_checked,
    },
    subtype: {
      id: subtype.id,
      name: subtype.name,
      prefix: subtype.prefix,
      validUntil: subtype.valid_until,
      authorizationNumber: subtype.authorization_number,
      authorizedAt: subtype.authorized_at,
    },
    documentNumber,
    currencyId: loaded.currency?.id ?? null,
    currencyCode: loaded.currency?.code ?? null,
    currencyRate: loaded.currency?.exchange_rate ?? "1",
    currencyIsDefault: loaded.currency?.is_default ?? true,
    issuer: loaded.issuer,
    branch: loaded.branch,
    salesmanIds,
    lines,
    ecf: loaded.ecf,
  };
}

/** Stored lines of an invoice or quotation as request items, to resolve them again unchanged. */
export function itemsFromStoredLines(
  lines: { productId: number; description: string; quantity: string; unitPrice: string; discount: string; taxes: unknown }[],
): DocumentReferencesInput["items"] {
  return lines.map((line) => ({
    product_id: line.productId,
    description: line.description,
    quantity: line.quantity,
    unit_price: line.unitPrice,
    discount: line.discount,
    tax_ids: (line.taxes as { id: number }[]).map((tax) => tax.id),
  }));
}
