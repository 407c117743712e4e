/**
 * Bulk seeding for `npm run bench`, as the owner, not through the API: the tenant (createTenant,
 * the same function the CLI uses), then INSERT … SELECT generate_series for the volume:
 * 4 workspaces, 1,000 products with stock levels and their initial_stock movements, 10,000
 * contacts, 100,000 invoices of 3 lines (line and invoice totals consistent, ITBIS 18 %), the sale
 * movements of the invoices not cancelled (so every level = Σ its movements), consecutive B02
 * NCFs with the subtype's next_number past them, 1,000 quotations of 3 lines, and a completed RNC generation of synthetic rows.
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import { inOwnerTransaction } from "../scripts/lib/tenants";
import * as schema from "../src/db/schema";
import { inTransaction } from "../src/db/transaction";
import { documentNumberSql } from "../src/lib/ncf";
import { issueAccessToken } from "../src/modules/auth/service";
import { foldForSearch } from "../src/modules/rnc/sync/parse";
import { createTenant } from "../src/modules/tenants/service";
import { syntheticId, syntheticRecord } from "./rnc-generator";

export interface SeedSizes {
  products: number;
  contacts: number;
  invoices: number;
  rncRecords: number;
}

export interface Seeded {
  tenantId: number;
  subdomain: string;
  userId: number;
  token: string;
  workspaceIds: number[];
  productIds: [number, number];
  contactIds: [number, number];
  b02SubtypeId: number;
  /** Invoices of the first workspace (the token user's current workspace), for GET /invoices/{id}. */
  sampleInvoiceIds: number[];
  /** Invoices of the first workspace pending payment, for POST /invoices/{id}/payments. */
  payableInvoiceIds: number[];
  /** Payments of 0.01 on other invoices of that workspace, one per DELETE …/payments/{payment_id}. */
  removablePayments: { invoiceId: number; paymentId: number }[];
  sampleQuotationIds: number[];
  rncTerms: string[];
  seconds: number;
}

export const INITIAL_STOCK = 1_000_000;

export async function seed(ownerUrl: string, jwtSecret: string, sizes: SeedSizes): Promise<Seeded> {
  const started = performance.now();
  const subdomain = "bench";
  const created = await inOwnerTransaction(ownerUrl, async (db) => {
    const c = await createTenant(db, {
      subdomain,
      name: "Bench SRL",
      adminEmail: "admin@bench.test",
      adminPassword: "bench-password",
      adminName: "Bench Admin",
      rnc: "131246796",
      legalName: "Bench SRL",
      address: "Calle El Conde 1, Santo Domingo",
      demoSequences: true,
    });
    const { token } = await issueAccessToken(db, jwtSecret, { tenantId: c.tenant.id, userId: c.user.id, name: "bench" });
    const [b02] = await db.select().from(schema.documentSubtypes).where(sql`tenant_id = ${c.tenant.id} AND prefix = 'B02'`);
    const [itbis] = await db.select().from(schema.taxes).where(sql`tenant_id = ${c.tenant.id} AND name = 'ITBIS 18%'`);
    const [admin] = await db.select().from(schema.roles).where(sql`tenant_id = ${c.tenant.id} AND name = 'admin'`);
    return { tenantId: c.tenant.id, userId: c.user.id, token, b02Id: b02!.id, taxId: itbis!.id, adminRoleId: admin!.id };
  });
  const T = created.tenantId;
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  const q = (text: string, params: unknown[] = []) => client.query(text, params);
  try {
    const { workspaceIds, pMin, pMax, cMin, rncTerms } = await inTransaction(client, async () => {
      await q(`SELECT set_config('app.tenant_id', $1, true)`, [String(T)]);
      const [first] = (await q(`SELECT id FROM workspaces WHERE tenant_id = $1 ORDER BY id`, [T])).rows;
      const extra = await q(`INSERT INTO workspaces (tenant_id, name, owner_id) SELECT $1, 'Sucursal ' || g, $2 FROM generate_series(2, 4) g RETURNING id`, [
        T,
        created.userId,
      ]);
      const workspaceIds = [Number(first.id), ...extra.rows.map((r) => Number(r.id))];
      await q(`INSERT INTO workspace_members (tenant_id, workspace_id, user_id, role_id) SELECT $1, w, $2, $3 FROM unnest($4::int[]) w`, [
        T,
        created.userId,
        created.adminRoleId,
        workspaceIds.slice(1),
      ]);

      const products = await q(
        `INSERT INTO products (tenant_id, name, sku, price, cost, default_tax_ids)
         SELECT $1, 'Producto ' || g, 'SKU-' || lpad(g::text, 5, '0'), 100 + (g % 50) * 10, 60 + (g % 50) * 6, ARRAY[$2::int]
         FROM generate_series(1, $3::int) g ORDER BY g RETURNING id`,
        [T, created.taxId, sizes.products],
      );
      const productIds = products.rows.map((r) => Number(r.id));
      const pMin = Math.min(...productIds);
      const pMax = Math.max(...productIds);
      if (pMax - pMin + 1 !== sizes.products) throw new Error("product ids are not consecutive");

      const contacts = await q(
        `INSERT INTO contacts (tenant_id, name, contact_type, identification_type, identification, email, phone)
         SELECT $1, 'Cliente ' || g, 'customer', 'rnc', (100000000 + g)::text, 'cliente' || g || '@bench.test', '809-555-' || lpad((g % 10000)::text, 4, '0')
         FROM generate_series(1, $2::int) g ORDER BY g RETURNING id`,
        [T, sizes.contacts],
      );
      const contactIds = contacts.rows.map((r) => Number(r.id));
      const cMin = Math.min(...contactIds);

      // The lines of invoice n (1-based): 3 products, quantities 1-5, the product's price, ITBIS 18 %.
      await q(
        `CREATE TEMP TABLE bench_lines ON COMMIT DROP AS
         SELECT n, k AS position, $1::int + ((n * 3 + k) % $2::int) AS product_id, (1 + (n + k) % 5)::numeric AS quantity,
                (100 + ((($1::int + ((n * 3 + k) % $2::int)) - $1::int + 1) % 50) * 10)::numeric(14,2) AS unit_price
         FROM generate_series(1, $3::int) n, generate_series(0, 2) k`,
        [pMin, sizes.products, sizes.invoices],
      );
      await q(`ALTER TABLE bench_lines ADD COLUMN subtotal numeric(14,2), ADD COLUMN tax numeric(14,2), ADD COLUMN total numeric(14,2)`);
      await q(
        `UPDATE bench_lines SET subtotal = quantity * unit_price, tax = round(quantity * unit_price * 0.18, 2), total = quantity * unit_price + round(quantity * unit_price * 0.18, 2)`,
      );
      // Spread over the 4 workspaces (half in the first), the last 365 days; status by n % 10.
      await q(
        `INSERT INTO invoices (tenant_id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, due_date, status,
           subtotal_amount, discount_amount, tax_amount, total_amount, amount_paid, currency_id, created_by, created_at, updated_at)
         SELECT $1, (ARRAY[$2::int, $2::int, $3::int, $4::int, $2::int, $2::int, $3::int, $5::int])[1 + n % 8], $6::int + (n % $7::int), $8,
           ${documentNumberSql("'B02'", "n")}, current_date - (n % 365), current_date - (n % 365) + 30,
           CASE WHEN n % 10 < 6 THEN 'pending_payment' WHEN n % 10 < 8 THEN 'paid' WHEN n % 10 = 8 THEN 'partially_paid' ELSE 'cancelled' END,
           l.subtotal, 0, l.tax, l.total,
           CASE WHEN n % 10 IN (6, 7) THEN l.total WHEN n % 10 = 8 THEN round(l.total / 2, 2) ELSE 0 END,
           (SELECT id FROM currencies WHERE tenant_id = $1 AND is_default), $9, now() - (n % 365) * interval '1 day', now() - (n % 365) * interval '1 day'
         FROM (SELECT n, sum(subtotal) AS subtotal, sum(tax) AS tax, sum(total) AS total FROM bench_lines GROUP BY n) l ORDER BY n`,
        [T, workspaceIds[0], workspaceIds[1], workspaceIds[2], workspaceIds[3], cMin, sizes.contacts, created.b02Id, created.userId],
      );
      await q(
        `INSERT INTO invoice_items (tenant_id, invoice_id, position, product_id, description, quantity, unit_price, discount,
           discount_amount, subtotal, tax_amount, total, taxes)
         SELECT $1, i.id, l.position, l.product_id, 'Producto ' || (l.product_id - $3::int + 1), l.quantity, l.unit_price, 0, 0, l.subtotal, l.tax, l.total,
           jsonb_build_array(jsonb_build_object('id', $2::int, 'name', 'ITBIS 18%', 'type', 'itbis', 'rate', '18.00', 'amount', l.tax::text))
         FROM bench_lines l JOIN invoices i ON i.tenant_id = $1 AND i.document_number = ${documentNumberSql("'B02'", "l.n")}
         ORDER BY l.n, l.position`,
        [T, created.taxId, pMin],
      );
      await q(`INSERT INTO invoice_item_taxes (tenant_id, invoice_item_id, tax_id) SELECT $1, id, $2 FROM invoice_items WHERE tenant_id = $1`, [
        T,
        created.taxId,
      ]);
      // The bench outgrows a demo range (5,000 numbers): its B02 is widened to the whole prefix.
      await q(`UPDATE document_subtypes SET next_number = $2, end_number = 99999999 WHERE id = $1`, [created.b02Id, sizes.invoices + 1]);

      // Quotations (for GET /quotations/{id}/pdf): the first 1,000 line sets again, COT numbers, in the first workspace.
      const quotationCount = Math.min(1000, sizes.invoices);
      const cot = (await q(`SELECT id FROM document_subtypes WHERE tenant_id = $1 AND prefix = 'COT'`, [T])).rows[0];
      await q(
        `INSERT INTO quotations (tenant_id, workspace_id, contact_id, document_subtype_id, document_number, issue_date, due_date, status,
           subtotal_amount, discount_amount, tax_amount, total_amount, currency_id, created_by)
         SELECT $1, $2, $3::int + (n % $4::int), $5, ${documentNumberSql("'COT'", "n")}, current_date - (n % 30), current_date - (n % 30) + 15, 'sent',
           sum(subtotal), 0, sum(tax), sum(total), (SELECT id FROM currencies WHERE tenant_id = $1 AND is_default), $6
         FROM bench_lines WHERE n <= $7 GROUP BY n ORDER BY n`,
        [T, workspaceIds[0], cMin, sizes.contacts, cot.id, created.userId, quotationCount],
      );
      await q(
        `INSERT INTO quotation_items (tenant_id, quotation_id, position, product_id, description, quantity, unit_price, discount,
           discount_amount, subtotal, tax_amount, total, taxes)
         SELECT $1, qt.id, l.position, l.product_id, 'Producto ' || (l.product_id - $3::int + 1), l.quantity, l.unit_price, 0, 0, l.subtotal, l.tax, l.total,
           jsonb_build_array(jsonb_build_object('id', $2::int, 'name', 'ITBIS 18%', 'type', 'itbis', 'rate', '18.00', 'amount', l.tax::text))
         FROM bench_lines l JOIN quotations qt ON qt.tenant_id = $1 AND qt.document_number = ${documentNumberSql("'COT'", "l.n")}
         WHERE l.n <= $4 ORDER BY l.n, l.position`,
        [T, created.taxId, pMin, quotationCount],
      );
      await q(`UPDATE document_subtypes SET next_number = $2 WHERE id = $1`, [cot.id, quotationCount + 1]);

      // Stock: initial movements in every workspace, the sales of invoices not cancelled, levels = Σ.
      await q(
        `INSERT INTO stock_movements (tenant_id, product_id, workspace_id, type, quantity, reference, created_by, created_at)
         SELECT $1, p, w, 'initial_stock', $2, 'Inventario inicial', $3, now() - interval '400 days'
         FROM generate_series($4::int, $5::int) p, unnest($6::int[]) w`,
        [T, INITIAL_STOCK, created.userId, pMin, pMax, workspaceIds],
      );
      await q(
        `INSERT INTO stock_movements (tenant_id, product_id, workspace_id, type, quantity, reference, invoice_id, created_by, created_at)
         SELECT $1, it.product_id, i.workspace_id, 'sale', -it.quantity, i.document_number, i.id, $2, i.created_at
         FROM invoice_items it JOIN invoices i ON i.id = it.invoice_id
         WHERE i.tenant_id = $1 AND i.status <> 'cancelled' ORDER BY i.id, it.position`,
        [T, created.userId],
      );
      await q(
        `INSERT INTO stock_levels (tenant_id, product_id, workspace_id, quantity, minimum_quantity)
         SELECT $1, product_id, workspace_id, sum(quantity), 10 FROM stock_movements WHERE tenant_id = $1 GROUP BY product_id, workspace_id`,
        [T],
      );

      // RNC registry: one completed run with synthetic DGII-shaped rows (bench/rnc-generator.ts).
      const run = await q(
        `INSERT INTO rnc_sync_runs (source, trigger, status, finished_at, records_written) VALUES ('bench', 'bench', 'completed', now(), $1) RETURNING id`,
        [sizes.rncRecords],
      );
      const records = Array.from({ length: sizes.rncRecords }, (_, i) => {
        const r = syntheticRecord(i);
        const id = syntheticId(i);
        return { id, name: r.name, comercial: r.comercialName ?? "", status: r.status, search: foldForSearch(`${id}\n${r.name}\n${r.comercialName ?? ""}`) };
      });
      await q(
        `INSERT INTO rnc_records (run_id, identification, name, comercial_name, status, search)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])`,
        [
          run.rows[0].id,
          records.map((r) => r.id),
          records.map((r) => r.name),
          records.map((r) => r.comercial),
          records.map((r) => r.status),
          records.map((r) => r.search),
        ],
      );
      const words = new Set<string>();
      for (const r of records.slice(0, 200)) for (const w of r.name.split(/\s+/)) if (w.length >= 4) words.add(w.toLowerCase());
      const rncTerms = [...words].slice(0, 20);
      return { workspaceIds, pMin, pMax, cMin, rncTerms };
    });
    // What autovacuum does soon after a bulk load (its insert threshold): statistics, and the
    // visibility map that lets counts and lists use index-only scans.
    await q("VACUUM (ANALYZE)");
    const quotationSample = await q(`SELECT id FROM quotations WHERE tenant_id = $1 ORDER BY id LIMIT 1000`, [T]);
    const sample = await q(`SELECT id FROM invoices WHERE tenant_id = $1 AND workspace_id = $2 ORDER BY id LIMIT 2000`, [T, workspaceIds[0]]);
    const payable = await q(`SELECT id FROM invoices WHERE tenant_id = $1 AND workspace_id = $2 AND status = 'pending_payment' ORDER BY id LIMIT 2000`, [
      T,
      workspaceIds[0],
    ]);
    // The last 300 invoices pending payment get a payment of a cent each, for the removal scenario
    // (amount_paid and status as POST …/payments would leave them).
    const removable = await q(
      `WITH target AS (SELECT unnest($2::bigint[]) AS id),
         paid AS (INSERT INTO invoice_payments (tenant_id, invoice_id, amount, payment_date, payment_method)
           SELECT $1, id, 0.01, current_date, 'cash' FROM target RETURNING id, invoice_id),
         moved AS (UPDATE invoices SET amount_paid = amount_paid + 0.01, status = 'partially_paid' WHERE id IN (SELECT id FROM target))
       SELECT invoice_id, id FROM paid ORDER BY id`,
      [T, payable.rows.slice(-300).map((r) => r.id)],
    );
    return {
      tenantId: T,
      subdomain,
      userId: created.userId,
      token: created.token,
      workspaceIds,
      productIds: [pMin, pMax],
      contactIds: [cMin, cMin + sizes.contacts - 1],
      b02SubtypeId: created.b02Id,
      sampleInvoiceIds: sample.rows.map((r) => Number(r.id)),
      payableInvoiceIds: payable.rows.slice(0, -300).map((r) => Number(r.id)),
      removablePayments: removable.rows.map((r) => ({ invoiceId: Number(r.invoice_id), paymentId: Number(r.id) })),
      sampleQuotationIds: quotationSample.rows.map((r) => Number(r.id)),
      rncTerms,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await client.end();
  }
}
