import type { AnyDb } from "../../db/client";
import * as schema from "../../db/schema";

/** An email as the outbox stores it; delivery (Resend, retries) is the outbox consumer's job. */
interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** What caused it, for logs and tests: "invitation", "invoice_created", … */
  template: string;
}

/**
 * Writes the message in the caller's transaction, so it exists exactly when the change that
 * caused it commits. Returns the outbox row id.
 */
export async function enqueueEmail(db: AnyDb, tenantId: number, message: EmailMessage): Promise<number> {
  const [row] = await db.insert(schema.outboxMessages).values({ tenantId, kind: "email", payload: message }).returning({ id: schema.outboxMessages.id });
  noteOutboxMessage(db, row!.id);
  return row!.id;
}

// Ids written in a transaction, keyed by its drizzle handle: after the request commits, the
// outboxDispatch middleware (src/jobs/outbox.ts) pushes them onto the OUTBOX_QUEUE at once. A
// writer that inserts outbox rows by hand may note them too; rows nobody notes (or whose queue
// send failed) are picked up by the cron sweep.
const noted = new WeakMap<object, number[]>();

function noteOutboxMessage(db: object, id: number): void {
  const ids = noted.get(db) ?? [];
  ids.push(id);
  noted.set(db, ids);
}

/** The ids noted on `db`, forgotten once taken. */
export function takeNotedOutboxMessages(db: object): number[] {
  const ids = noted.get(db) ?? [];
  noted.delete(db);
  return ids;
}
