import { describe, expect, it } from "vitest";
import { createPool, RequestTransaction } from "../../src/db/client";
import { env } from "../support/env";
import { serviceInvoice } from "../support/sales";
import { ownerRows, sql, uniqueName } from "../support/seed";
import { storedEvents } from "./helpers";

/**
 * A route's event is written by the request's COMMIT message (RequestTransaction.deferUntilCommit,
 * webhooks/events.ts emitEvent): its values are inlined into that one simple-query message, and it
 * commits with the change or not at all.
 */

/** A transaction of a fresh tenant-less connection as the application role, as a request has. */
async function transaction() {
  const pool = createPool(env);
  const client = await pool.connect();
  const tx = new RequestTransaction(client, env);
  await tx.begin(null);
  return {
    tx,
    close: async () => {
      await tx.rollback().catch(() => undefined);
      client.release();
      await pool.end();
    },
  };
}

/** A scratch table of the owner's, which the application role may write (the test's own, not the schema's). */
async function scratchTable(): Promise<string> {
  const name = uniqueName("deferred_");
  await ownerRows(sql.raw(`CREATE TABLE ${name} (id int PRIMARY KEY, note text NOT NULL)`));
  await ownerRows(sql.raw(`GRANT ALL ON ${name} TO sucursal_app`));
  return name;
}

describe("events written by the commit", () => {
  it("keep quotes, backslashes and non-ASCII text of the data exactly (credit_note.created)", async () => {
    const { tenant, id } = await serviceInvoice("100.00");
    const reason = `Devolución de O'Brien \\ "caja" \\' -- '); DROP TABLE invoices; -- ñ €`;
    const note = await tenant.api.post(`/invoices/${id}/credit-notes`, {
      modification_code: 3,
      reason,
      items: [{ description: "Descuento", amount: "10.00" }],
    });
    expect(note.status, note.text).toBe(201);
    const [event] = await storedEvents(tenant.tenantId, "credit_note.created");
    const shown = await tenant.api.get(`/credit-notes/${note.body.data.id}`);
    expect(event!.data).toEqual(shown.body.data);
    expect(event!.data.reason).toBe(reason);
    // The invoice's own event, read by SQL inside the event's statement, equals its GET too.
    const [created] = await storedEvents(tenant.tenantId, "invoice.created");
    expect(created!.data.id).toBe(id);
    expect(created!.data.document_number).toMatch(/^B02\d{8}$/);
  });

  it("commit the deferred statement with the transaction's work, and hand its rows over", async () => {
    const table = await scratchTable();
    const { tx, close } = await transaction();
    try {
      await tx.db.execute(sql.raw(`INSERT INTO ${table} VALUES (1, 'the change')`));
      let returned: Record<string, unknown>[] = [];
      tx.deferUntilCommit(sql`INSERT INTO ${sql.raw(table)} VALUES (${2}, ${"it's \\ deferred"}) RETURNING id, note`, (rows) => {
        returned = rows;
      });
      await tx.commit();
      expect(returned).toEqual([{ id: 2, note: "it's \\ deferred" }]);
    } finally {
      await close();
    }
    expect(await ownerRows(sql.raw(`SELECT id, note FROM ${table} ORDER BY id`))).toEqual([
      { id: 1, note: "the change" },
      { id: 2, note: "it's \\ deferred" },
    ]);
  });

  it("fail the commit, and leave nothing, when the deferred statement fails", async () => {
    const table = await scratchTable();
    const { tx, close } = await transaction();
    try {
      await tx.db.execute(sql.raw(`INSERT INTO ${table} VALUES (1, 'the change')`));
      tx.deferUntilCommit(sql`INSERT INTO ${sql.raw(table)} VALUES (${1}, ${"a duplicate key"})`);
      await expect(tx.commit()).rejects.toThrow(/duplicate key/);
    } finally {
      await close();
    }
    expect(await ownerRows(sql.raw(`SELECT id FROM ${table}`))).toEqual([]);
  });

  it("drop the deferred statement on a rollback, and refuse a Date it could not inline faithfully", async () => {
    const table = await scratchTable();
    const { tx, close } = await transaction();
    try {
      tx.deferUntilCommit(sql`INSERT INTO ${sql.raw(table)} VALUES (${1}, ${"rolled back"})`);
      expect(() => tx.deferUntilCommit(sql`INSERT INTO ${sql.raw(table)} VALUES (${2}, ${new Date()}::text)`)).toThrow(/Date/);
      await tx.rollback();
    } finally {
      await close();
    }
    expect(await ownerRows(sql.raw(`SELECT id FROM ${table}`))).toEqual([]);
  });
});
