import type { AnyDb } from "../../db/client";
import { oneRow } from "../../db/rows";
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
 * caused it commits. Returns the outbox row id: a route handler pushes it onto `c.var.outbox`, and
 * afterCommitDispatch (src/jobs/dispatch.ts) puts it on the Queue once the request has committed. Rows
 * nobody pushes (or whose queue send failed) are picked up by the cron sweep.
 */
export async function enqueueEmail(db: AnyDb, tenantId: number, message: EmailMessage): Promise<number> {
  const row = await db
    .insert(schema.outboxMessages)
    .values({ tenantId, kind: "email", payload: message })
    .returning({ id: schema.outboxMessages.id })
    .then(oneRow);
  return row.id;
}
