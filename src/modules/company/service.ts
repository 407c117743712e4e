import { eq } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import { AppError, fieldError } from "../../lib/errors";
import { timestamp } from "../../lib/format";
import { normalizeIdentification } from "../../lib/identification";
import { isMunicipalityCode, isProvinceCode, provinceOfMunicipality } from "../../lib/territory";
import type { UpdateCompanyInput } from "./schemas";

const cp = schema.companyProfiles;
type ProfileRow = typeof cp.$inferSelect;

/**
 * What an issuer must show on every fiscal document (Norma General 06-2018, art. 5 and 6: RNC,
 * razón social and address of the issuer). Without them no fiscal document is issued.
 */
const REQUIRED = [
  ["rnc", "rnc"],
  ["legal_name", "legalName"],
  ["address", "address"],
] as const;

/** The fields of the profile a fiscal document needs (see REQUIRED). */
export type IssuerFields = Pick<ProfileRow, "rnc" | "legalName" | "address">;

export function missingFiscalFields(row: IssuerFields | null | undefined): string[] {
  return REQUIRED.filter(([, column]) => !row?.[column]).map(([field]) => field);
}

export async function getProfile(db: AnyDb, tenantId: number): Promise<ProfileRow | undefined> {
  const [row] = await db.select().from(cp).where(eq(cp.tenantId, tenantId));
  return row;
}

export function serializeCompany(row: ProfileRow | undefined) {
  const missing = missingFiscalFields(row);
  return {
    rnc: row?.rnc ?? null,
    legal_name: row?.legalName ?? null,
    trade_name: row?.tradeName ?? null,
    address: row?.address ?? null,
    municipality_code: row?.municipalityCode ?? null,
    province_code: row?.provinceCode ?? null,
    phone: row?.phone ?? null,
    email: row?.email ?? null,
    website: row?.website ?? null,
    economic_activity: row?.economicActivity ?? null,
    is_complete: missing.length === 0,
    missing_fields: missing,
    updated_at: row ? timestamp(row.updatedAt) : null,
  };
}

type ProfileValues = Omit<typeof cp.$inferInsert, "tenantId" | "createdAt" | "updatedAt">;

/** The API's fields as columns: RNC normalized, territorial codes checked against DGII's Tabla III. */
export function profileValues(input: Partial<UpdateCompanyInput>, current?: ProfileRow): ProfileValues {
  const values: ProfileValues = {};
  if (input.rnc !== undefined) {
    if (input.rnc === null || input.rnc === "") values.rnc = null;
    else {
      const rnc = normalizeIdentification("rnc", input.rnc);
      if (!rnc.ok) throw fieldError("rnc", rnc.message);
      values.rnc = rnc.value;
    }
  }
  if (input.legal_name !== undefined) values.legalName = input.legal_name;
  if (input.trade_name !== undefined) values.tradeName = input.trade_name;
  if (input.address !== undefined) values.address = input.address;
  if (input.phone !== undefined) values.phone = input.phone;
  if (input.email !== undefined) values.email = input.email === null ? null : input.email.toLowerCase();
  if (input.website !== undefined) values.website = input.website;
  if (input.economic_activity !== undefined) values.economicActivity = input.economic_activity;
  if (input.province_code !== undefined) {
    if (input.province_code !== null && !isProvinceCode(input.province_code)) {
      throw fieldError("province_code", "Not a province code of DGII's Tabla III (PP0000, 010000 to 320000).");
    }
    values.provinceCode = input.province_code;
  }
  if (input.municipality_code !== undefined) {
    if (input.municipality_code !== null && !isMunicipalityCode(input.municipality_code)) {
      throw fieldError("municipality_code", "Not a municipality code of DGII's Tabla III.");
    }
    values.municipalityCode = input.municipality_code;
  }
  const province = values.provinceCode === undefined ? (current?.provinceCode ?? null) : values.provinceCode;
  const municipality = values.municipalityCode === undefined ? (current?.municipalityCode ?? null) : values.municipalityCode;
  if (municipality !== null && province !== null && provinceOfMunicipality(municipality) !== province) {
    throw fieldError("municipality_code", `This municipality is not in the province ${province}.`);
  }
  return values;
}

/** Writes the fields given (an upsert: a tenant without a profile row gets one). */
export async function updateProfile(db: AnyDb, tenantId: number, input: UpdateCompanyInput): Promise<ProfileRow> {
  const current = await getProfile(db, tenantId);
  const values = profileValues(input, current);
  const row = await db
    .insert(cp)
    .values({ tenantId, ...values })
    .onConflictDoUpdate({ target: cp.tenantId, set: { ...values, updatedAt: new Date() } })
    .returning()
    .then(oneRow);
  return row;
}

/**
 * Refuses a fiscal document while the issuer lacks what it must print (Norma 06-2018): 422
 * `fiscal_profile_incomplete` naming each missing field. The invoice reads the fields in its one
 * resolving statement (sales/references.ts) and checks them here without another query.
 */
export function assertFiscalProfile(issuer: IssuerFields | null | undefined): void {
  const missing = missingFiscalFields(issuer);
  if (missing.length) {
    const message = "Complete the company's fiscal profile (PATCH /api/v1/company) before issuing fiscal documents.";
    throw new AppError(
      "fiscal_profile_incomplete",
      `${message} Missing: ${missing.join(", ")}.`,
      Object.fromEntries(missing.map((field) => [field, ["Required to issue fiscal documents."]])),
    );
  }
}
