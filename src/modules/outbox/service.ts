import * as schema from "../../db/schema";
import type { AnyDb } from "../tenants/service";

/** An email as the outbox stores it; delivery (Resend, retries) is the outbox consumer's job. */
export interface EmailMessage {
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
  const [row] = await db
    .insert(schema.outboxMessages)
    .values({ tenantId, kind: "email", payload: message })
    .returning({ id: schema.outboxMessages.id });
  return row!.id;
}
