/**
 * npm run tenant:create -- --subdomain acme --name "Acme SRL" --admin-email a@acme.do --admin-password … [--admin-name …]
 *   [--rnc 131246796] [--legal-name "Acme SRL"] [--address "…"] [--demo-sequences] [--json]
 *
 * Without --demo-sequences the tenant has no NCF sequence: its admin types in the ranges DGII
 * authorized (POST /document-subtypes). --demo-sequences seeds small made-up ranges for trying it.
 */

import { TenantInputError } from "../src/modules/tenants/service";
import { command, commandLine, isMain, runMain } from "./lib/args";
import { openOperatorDatabase } from "./lib/local-database";
import { localJwtSecret } from "./lib/secrets";
import { createTenantWithToken } from "./lib/tenants";

export const COMMAND = command({
  usage: `Usage: npm run tenant:create -- --subdomain acme --name "Acme SRL" --admin-email a@acme.do --admin-password …
         [--admin-name …] [--rnc 131246796] [--legal-name "Acme SRL"] [--address "…"] [--demo-sequences] [--json]

A tenant with its admin, first workspace and defaults, in the database of npm run dev (.dev-data/)
or DATABASE_URL's; prints the admin's token (--json: the whole result as JSON). Without
--demo-sequences the tenant has no NCF sequence: its admin types in the ranges DGII authorized.`,
  options: {
    subdomain: { type: "string" },
    name: { type: "string" },
    "admin-email": { type: "string" },
    "admin-password": { type: "string" },
    "admin-name": { type: "string" },
    rnc: { type: "string" },
    "legal-name": { type: "string" },
    address: { type: "string" },
    "demo-sequences": { type: "boolean" },
    json: { type: "boolean" },
  },
});

async function main(): Promise<number> {
  const options = commandLine(COMMAND).values;
  const missing = ["subdomain", "name", "admin-email", "admin-password"].filter((k) => !options[k as keyof typeof options]);
  if (missing.length) {
    console.error(`Missing: ${missing.map((m) => `--${m}`).join(", ")}`);
    console.error('Usage: npm run tenant:create -- --subdomain acme --name "Acme SRL" --admin-email a@acme.do --admin-password … [--json]');
    return 1;
  }
  const database = await openOperatorDatabase();
  try {
    const created = await createTenantWithToken(database.ownerUrl, localJwtSecret(), {
      subdomain: options.subdomain!,
      name: options.name!,
      adminEmail: options["admin-email"]!,
      adminPassword: options["admin-password"]!,
      adminName: options["admin-name"],
      rnc: options.rnc,
      legalName: options["legal-name"],
      address: options.address,
      demoSequences: options["demo-sequences"] ?? false,
    });
    if (options.json) {
      console.log(JSON.stringify({ tenant: created.tenant, user: created.user, workspace: created.workspace, token: created.token }));
    } else {
      console.log(`Tenant "${created.tenant.name}" created at subdomain ${created.tenant.subdomain} (id ${created.tenant.id}).`);
      console.log(`Admin: ${created.user.email} (id ${created.user.id}); first workspace: ${created.workspace.name} (id ${created.workspace.id}).`);
      console.log(`Token (expires ${created.expiresAt.toISOString()}):\n${created.token}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof TenantInputError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await database.stop();
  }
}

if (isMain(import.meta.url)) runMain(main);
