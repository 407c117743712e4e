import { describe, expect, it } from "vitest";
import { createClient, RequestTransaction } from "../../src/db/client";
import type { Env } from "../../src/env";
import { env } from "../support/env";
import { serviceInvoice } from "../support/sales";
import { ownerRows, sql, uniqueName } from "../support/seed";
import { storedEvents } from "./helpers";

/**
 * A route's event is written by the request's COMMIT message (RequestTransaction.deferUntilCommit,
 * webhooks/events.ts emitEvent): its values are inlined into that one simple-query message, and it
 * commits with the change or not at all.
 */

/**
 * A transaction of a fresh tenant-less connection as the application role, as a request has.
 * `before` runs on the connection first (a session setting of the test's).
 */
async function transaction(options: { before?: string; connectionString?: string; env?: Env } = {}) {
  const txEnv = options.env ?? env;
  const client = createClient(txEnv, options.connectionString);
  // The transaction connects its client (once), as a request's does.
  const tx = new RequestTransaction(() => client, txEnv);
  await tx.connect();
  if (options.before) await client.query(options.before);
  await tx.begin(null);
  return {
    tx,
    close: async () => {
      await tx.rollback().catch(() => undefined);
      await tx.close();
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

  /**
   * Hostile to a server reading '...' with backslash escapes (standard_conforming_strings off):
   * there `\\'` would end the literal and the rest would run as SQL.
   */
  const backslashes = `O'Brien \\ \\' ); DELETE FROM x; -- \\n \\\\ end\\`;

  /** Commits `backslashes` through a deferred statement and checks what was stored. */
  async function commitBackslashes(table: string, options: Parameters<typeof transaction>[0]) {
    const { tx, close } = await transaction(options);
    try {
      tx.deferUntilCommit(sql`INSERT INTO ${sql.raw(table)} VALUES (${1}, ${backslashes})`);
      await tx.commit();
    } finally {
      await close();
    }
    expect(await ownerRows(sql.raw(`SELECT id, note FROM ${table}`))).toEqual([{ id: 1, note: backslashes }]);
  }

  it("keep backslashes and quotes exactly on a connection whose standard_conforming_strings is off", async () => {
    await commitBackslashes(await scratchTable(), { before: "SET standard_conforming_strings = off" });
  });

  // Logging in as a role of our own needs the local server's trust authentication.
  it.skipIf(env.TEST_DATABASE_KIND !== "local")("keep backslashes and quotes exactly for a role whose standard_conforming_strings is off", async () => {
    const table = await scratchTable();
    const role = uniqueName("scs_off_");
    await ownerRows(sql.raw(`CREATE ROLE ${role} LOGIN`));
    try {
      await ownerRows(sql.raw(`ALTER ROLE ${role} SET standard_conforming_strings = off`));
      await ownerRows(sql.raw(`GRANT ALL ON ${table} TO ${role}`));
      const url = new URL(env.DATABASE_URL);
      url.username = role;
      const asRole = { connectionString: url.toString(), env: { ...env, DB_SET_ROLE: "" } };
      await commitBackslashes(table, asRole);
      // The role's sessions do run with it off: only the transaction turned it on.
      const { tx, close } = await transaction(asRole);
      try {
        await tx.rollback();
        expect((await tx.client.query("SHOW standard_conforming_strings")).rows).toEqual([{ standard_conforming_strings: "off" }]);
      } finally {
        await close();
      }
    } finally {
      await ownerRows(sql.raw(`DROP OWNED BY ${role}`));
      await ownerRows(sql.raw(`DROP ROLE ${role}`));
    }
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
