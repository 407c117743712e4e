import { sql } from "drizzle-orm";
import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
import * as schema from "../../db/schema";
import { hashPassword } from "../../lib/password";
import { builtinRoles } from "../../lib/permissions";
import { isSubdomainLabel } from "../../lib/subdomain";
import { profileValues } from "../company/service";

const RESERVED_SUBDOMAINS = new Set(["www", "api", "app", "admin", "localhost", "mail", "status"]);

export class TenantInputError extends Error {}

export interface NewTenant {
  subdomain: string;
  name: string;
  adminEmail: string;
  adminPassword: string;
  adminName?: string;
  /** The fiscal profile's first fields (optional: the admin completes it through PATCH /company). */
  rnc?: string;
  legalName?: string;
  address?: string;
  /**
   * Seed small made-up NCF ranges (`is_demo`) for trying the API. Never for a real company: its
   * ranges are the ones DGII authorized, typed in through POST /document-subtypes.
   */
  demoSequences?: boolean;
}

/** Size of each demo range: small, so it never covers a whole prefix. */
export const DEMO_RANGE_END = 5_000;

/**
 * Creates a tenant with what every new tenant gets: built-in roles, an admin user who owns the
 * company, a first workspace "Principal" owned by that admin, taxes, currencies and NCF document subtypes.
 * Runs as the database owner (operator CLI, test seeding), inside the caller's transaction.
 */
export interface CreatedTenant {
  tenant: { id: number; subdomain: string; name: string };
  user: { id: number; name: string; email: string };
  workspace: { id: number; name: string };
}

export async function createTenant(db: AnyDb, input: NewTenant): Promise<CreatedTenant> {
  const subdomain = input.subdomain.trim().toLowerCase();
  if (!isSubdomainLabel(subdomain) || RESERVED_SUBDOMAINS.has(subdomain)) {
    throw new TenantInputError(`"${input.subdomain}" is not a valid subdomain (lowercase letters, digits and dashes).`);
  }
  if (input.adminPassword.length < 8) throw new TenantInputError("The admin password must have at least 8 characters.");
  // Checked before anything is written: a bad RNC refuses the tenant, as the API would.
  let profile: ReturnType<typeof profileValues>;
  try {
    profile = profileValues({ rnc: input.rnc, legal_name: input.legalName?.trim() || undefined, address: input.address?.trim() || undefined });
  } catch (error) {
    throw new TenantInputError(`--rnc: ${(error as Error).message}`);
  }
  const taken = await db.select({ id: schema.tenants.id }).from(schema.tenants).where(sql`subdomain = ${subdomain}`);
  if (taken.length) throw new TenantInputError(`The subdomain "${subdomain}" is already taken.`);

  const tenant = await db.insert(schema.tenants).values({ subdomain, name: input.name }).returning().then(oneRow);
  const tenantId = tenant.id;
  // The owner bypasses RLS, but setting the tenant keeps these inserts valid under the policies too.
  await db.execute(sql`SELECT set_config('app.tenant_id', ${String(tenantId)}, true)`);

  const roleRows = await db
    .insert(schema.roles)
    .values(builtinRoles.map((r) => ({ tenantId, name: r.name, displayName: r.displayName, permissions: [...r.permissions], isBuiltin: true })))
    .returning({ id: schema.roles.id, name: schema.roles.name });
  const adminRoleId = roleRows.find((r) => r.name === "admin")!.id;

  const user = await db
    .insert(schema.users)
    .values({
      tenantId,
      name: input.adminName ?? "Administrador",
      email: input.adminEmail.trim().toLowerCase(),
      passwordHash: await hashPassword(input.adminPassword),
    })
    .returning()
    .then(oneRow);
  const workspace = await db.insert(schema.workspaces).values({ tenantId, name: "Principal", ownerId: user.id }).returning().then(oneRow);
  await db.insert(schema.workspaceMembers).values({ tenantId, workspaceId: workspace.id, userId: user.id, roleId: adminRoleId });
  // The first admin owns the company too: the one who grants company roles (docs/permissions.md).
  await db.insert(schema.companyMembers).values({ tenantId, userId: user.id, roleId: adminRoleId, isOwner: true });
  await db.update(schema.users).set({ currentWorkspaceId: workspace.id }).where(sql`id = ${user.id}`);

  await db.insert(schema.taxes).values([
    { tenantId, name: "ITBIS 18%", type: "itbis", rate: "18.00", isDefault: true },
    { tenantId, name: "ITBIS 16%", type: "itbis", rate: "16.00" },
    { tenantId, name: "Exento", type: "exento", rate: "0.00" },
    { tenantId, name: "Propina Legal 10%", type: "propina_legal", rate: "10.00", dgiiCode: "001" },
  ]);
  await db.insert(schema.currencies).values([
    { tenantId, code: "DOP", name: "Peso dominicano", symbol: "RD$", exchangeRate: "1", isDefault: true },
    { tenantId, code: "USD", name: "Dólar estadounidense", symbol: "US$", exchangeRate: "60" },
  ]);
  await db.insert(schema.companyProfiles).values({ tenantId, ...profile });
  const nextYearEnd = `${new Date().getUTCFullYear() + 1}-12-31`;
  const fiscal = (name: string, prefix: string, isDefault = false, type = "invoice") => ({
    tenantId,
    name,
    type,
    prefix,
    startNumber: 1,
    endNumber: DEMO_RANGE_END,
    nextNumber: 1,
    validUntil: nextYearEnd,
    isDemo: true,
    isDefault,
  });
  const demo = input.demoSequences
    ? [
        fiscal("Crédito Fiscal", "B01", true),
        fiscal("Consumo", "B02"),
        fiscal("Regímenes Especiales", "B14"),
        fiscal("Gubernamental", "B15"),
        fiscal("Nota de Crédito", "B04", true, "credit_note"),
        fiscal("Nota de Débito", "B03", true, "debit_note"),
      ]
    : [];
  await db.insert(schema.documentSubtypes).values([
    ...demo,
    {
      tenantId,
      name: "Cotización",
      type: "quotation",
      prefix: "COT",
      startNumber: 1,
      endNumber: 99_999_999,
      nextNumber: 1,
      validUntil: null,
      isDefault: true,
    },
  ]);

  return {
    tenant: { id: tenantId, subdomain, name: tenant.name },
    user: { id: user.id, name: user.name, email: user.email },
    workspace: { id: workspace.id, name: workspace.name },
  };
}
