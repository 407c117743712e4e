import { beforeAll, describe, expect, it } from "vitest";
import type { AnyDb } from "../../src/db/client";
import { rowsOf } from "../../src/db/rows";
import { addDays, dominicanToday } from "../../src/lib/dates";
import type { FiscalPeriod } from "../../src/modules/fiscal-periods/schemas";
import type { ApiResponse, Data } from "../support/api";
import { env } from "../support/env";
import { catalogIds, createContact } from "../support/sales";
import { asOwner, type SeededTenant, seedTenant, sql } from "../support/seed";
import { createProduct } from "../support/stock";

/**
 * A close and a write into the same month, at the same time (issue 47; docs/reports.md, "How the
 * lock is enforced"): each on its own connection, their order set by a barrier rather than by luck
 * or sleeps. The test's own connection holds the month's lock (the one a close takes exclusively and
 * every write into the month takes shared, drizzle/0058_period_lock.sql) while both requests arrive
 * and queue behind it, in the order wanted (pg_locks shows each one waiting); then it lets go, and
 * Postgres grants them in that order. Whichever comes first, what the close kept is what the month
 * holds: a write that came first is in the snapshot, one that came after is refused 409.
 *
 * Skipped on the embedded database (PGlite runs every connection on one backend: nothing waits).
 */

const REPORTS = ["606", "607", "608"] as const;

let tenant: SeededTenant;
let period: string;
let saleBody: Record<string, unknown>;

/** The month's lock, as assert_period_open (0058) and closePeriod take it: (tenant, hashtext('fiscal-period:YYYYMM')). */
const monthLock = (db: AnyDb) => db.execute(sql`SELECT pg_advisory_xact_lock(${tenant.tenantId}::integer, hashtext(${`fiscal-period:${period}`}))`);

/**
 * Waits until `count` requests wait for the tenant's month lock: read from pg_locks (the two-key
 * advisory lock: classid the tenant, objsubid 2) on a connection of the test's own, again and again,
 * without sleeping. A request that never comes to wait fails the test instead of hanging it.
 */
async function untilWaiting(poller: AnyDb, count: number) {
  for (let attempt = 0; attempt < 5_000; attempt++) {
    const [row] = rowsOf<{ waiting: number }>(
      await poller.execute(sql`SELECT count(*)::int AS waiting FROM pg_locks
        WHERE locktype = 'advisory' AND classid = ${tenant.tenantId}::oid AND objsubid = 2 AND NOT granted`),
    );
    if (row?.waiting === count) return;
  }
  throw new Error(`${count} requests never came to wait for the month's lock`);
}

/**
 * Sends `first`, then `second`, while the test holds the month's lock, each request once it is seen
 * waiting behind it; then lets go and gives both answers.
 */
async function inOrder(first: () => Promise<ApiResponse>, second: () => Promise<ApiResponse>): Promise<[ApiResponse, ApiResponse]> {
  const sent = await asOwner(async (barrier) => {
    await monthLock(barrier);
    return asOwner(async (poller) => {
      const a = first();
      await untilWaiting(poller, 1);
      const b = second();
      await untilWaiting(poller, 2);
      return { a, b };
    });
    // The barrier's transaction commits here: the lock goes to the first in the queue.
  });
  return [await sent.a, await sent.b];
}

const write = () => tenant.api.post("/invoices", saleBody);
const close = () => tenant.api.post<Data<FiscalPeriod>>(`/fiscal-periods/${period}/close`);

/**
 * The month's 606, 607 and 608 as the standing close kept them and as its books give them now (the
 * month re-opened by the owner, so the reports are read from the documents again).
 */
async function keptAndBooks() {
  const kept: Record<string, string> = {};
  for (const report of REPORTS) kept[report] = (await tenant.api.get(`/fiscal-periods/${period}/snapshot?report=${report}`)).text;
  const reopened = await tenant.api.delete(`/fiscal-periods/${period}/close`, { body: { reason: "Comparar con los libros" } });
  expect(reopened.status, reopened.text).toBe(200);
  const books: Record<string, string> = {};
  for (const report of REPORTS) books[report] = (await tenant.api.get(`/reports/${report}?period=${period}`)).text;
  return { kept, books };
}

beforeAll(async () => {
  tenant = await seedTenant();
  const ids = await catalogIds(tenant.api);
  const contact = (await createContact(tenant.api)).id;
  const product = (await createProduct(tenant.api, { product_type: "service", track_inventory: false })).id;
  // Last month: it has ended, so it may be closed.
  const lastDay = addDays(`${dominicanToday().slice(0, 7)}-01`, -1);
  period = lastDay.slice(0, 7).replace("-", "");
  saleBody = {
    contact_id: contact,
    document_subtype_id: ids.b01,
    issue_date: lastDay,
    items: [{ product_id: product, quantity: "1", unit_price: "1000.00", tax_ids: [ids.itbis18] }],
  };
  const first = await write();
  expect(first.status, first.text).toBe(201);
});

describe.skipIf(env.TEST_DATABASE_KIND === "embedded")("a close and a write into the month at the same time", () => {
  it("the write first: it goes in, and the close that waited for it keeps it", async () => {
    const [written, closed] = await inOrder(write, close);
    expect(written.status, written.text).toBe(201);
    expect(closed.status, closed.text).toBe(200);
    const { kept, books } = await keptAndBooks();
    expect(kept["607"]).toContain(written.body.data.document_number);
    expect(kept["607"]!.split("\r\n")[0]).toMatch(new RegExp(`^607\\|\\d+\\|${period}\\|2$`));
    expect(books).toEqual(kept);
  });

  it("the close first: the write that waited for it is refused 409 period_closed, and the close kept the month without it", async () => {
    const [closed, written] = await inOrder(close, write);
    expect(closed.status, closed.text).toBe(200);
    expect([written.status, written.body.code, written.body.errors], written.text).toEqual([409, "period_closed", { period: [period] }]);
    const { kept, books } = await keptAndBooks();
    expect(kept["607"]!.split("\r\n")[0]).toMatch(new RegExp(`^607\\|\\d+\\|${period}\\|2$`));
    expect(books).toEqual(kept);
  });
});
