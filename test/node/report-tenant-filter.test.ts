import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";

/**
 * docs/security.md: "every query filters by tenant, and Postgres row-level security does it
 * again". The reports' raw SQL (src/modules/reports/) is checked here, by text: each tenant-owned
 * table a statement reads (FROM or JOIN) has an alias, and that alias's `tenant_id` is compared at
 * least once per time the table is read under it. A query that forgets the filter still returns
 * only its tenant's rows under RLS, which is why no HTTP test could see it.
 */
const tenantTables = new Set(
  (Object.values(schema) as unknown[])
    .filter((value): value is PgTable => value instanceof PgTable)
    .map((table) => getTableConfig(table))
    .filter((config) => config.columns.some((column) => column.name === "tenant_id"))
    .map((config) => config.name),
);

const NOT_ALIASES = new Set(["WHERE", "ON", "JOIN", "LEFT", "RIGHT", "INNER", "CROSS", "GROUP", "ORDER", "UNION", "LIMIT", "USING"]);

/** What breaks the rule in `text`: reads without an alias, and aliases read more often than filtered. */
function unfilteredReads(text: string): string[] {
  const problems: string[] = [];
  const reads = new Map<string, number>();
  for (const match of text.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)\b(?:\s+(?:AS\s+)?([A-Za-z_]+)\b)?/g)) {
    const [, table, alias] = match;
    if (!tenantTables.has(table!)) continue;
    if (!alias || NOT_ALIASES.has(alias.toUpperCase())) {
      problems.push(`${table} is read without an alias`);
      continue;
    }
    reads.set(alias, (reads.get(alias) ?? 0) + 1);
  }
  for (const [alias, count] of reads) {
    const filters = text.match(new RegExp(`\\b${alias}\\.tenant_id\\b`, "g"))?.length ?? 0;
    if (filters < count) problems.push(`${alias}: read ${count} times, ${alias}.tenant_id compared ${filters} times`);
  }
  return problems;
}

describe("report queries filter by tenant, not by row-level security alone", () => {
  const folder = "src/modules/reports";

  it("the tenant tables are known", () => {
    for (const table of ["purchases", "invoices", "invoice_notes", "contacts", "company_profiles", "workspaces", "ncf_annulments"]) {
      expect(tenantTables.has(table), table).toBe(true);
    }
  });

  it.each(readdirSync(folder).filter((file) => file.endsWith(".ts")))("%s", (file) => {
    expect(unfilteredReads(readFileSync(path.join(folder, file), "utf8"))).toEqual([]);
  });

  it("the check sees a missing filter", () => {
    expect(unfilteredReads("SELECT (SELECT rnc FROM company_profiles) AS rnc")).toEqual(["company_profiles is read without an alias"]);
    expect(unfilteredReads("FROM invoices i JOIN contacts c ON c.id = i.contact_id WHERE i.tenant_id = $1")).toEqual([
      "c: read 1 times, c.tenant_id compared 0 times",
    ]);
    expect(unfilteredReads("FROM invoices i JOIN contacts c ON c.id = i.contact_id AND c.tenant_id = $1 WHERE i.tenant_id = $1")).toEqual([]);
  });
});
