import type { Env } from "../env";
import { log } from "../lib/log";
import { handleApprovalMessage } from "./approvals";
import { handleCertificationRunMessage } from "./certification-runs";
import { handleEcfMessage } from "./ecf";
import { handleAlertSweepMessage } from "./ecf-alerts";
import { handleDeliveryMessage } from "./ecf-delivery";
import { isAlertSweepRef, isApprovalRef, isCertificationRunRef, isDeliveryRef, isEcfRef, isOutboxRef, isWebhookRef } from "./messages";
import { handleOutboxMessage } from "./outbox";
import { handleRncSyncBatch } from "./rnc-sync";
import { handleWebhookMessage } from "./webhooks";

/** A kind of message a queue carries (jobs/messages.ts) and the job that consumes one. */
interface Job<Ref> {
  accepts: (body: unknown) => body is Ref;
  consume: (message: Message<Ref>, env: Env) => Promise<void>;
}

const job = <Ref>(accepts: Job<Ref>["accepts"], consume: Job<Ref>["consume"]) => ({ accepts, consume }) as Job<unknown>;

/**
 * The registry of queue consumers: each queue's jobs, one message at a time, the first whose kind
 * accepts the message consuming it (a delivery names its e-CF as an e-CF step does: it is asked
 * first); a message of no kind is logged and dropped. The RNC sync consumes its batches whole.
 */
const QUEUES: Record<string, (batch: MessageBatch<unknown>, env: Env) => Promise<void>> = {
  outbox: byMessage("outbox", [job(isWebhookRef, handleWebhookMessage), job(isOutboxRef, handleOutboxMessage)]),
  ecf: byMessage("ecf", [
    job(isAlertSweepRef, handleAlertSweepMessage),
    job(isCertificationRunRef, handleCertificationRunMessage),
    job(isApprovalRef, handleApprovalMessage),
    job(isDeliveryRef, handleDeliveryMessage),
    job(isEcfRef, handleEcfMessage),
  ]),
  "rnc-sync": handleRncSyncBatch,
};

function byMessage(queue: string, jobs: Job<unknown>[]) {
  return async (batch: MessageBatch<unknown>, env: Env): Promise<void> => {
    for (const message of batch.messages) {
      const found = jobs.find((candidate) => candidate.accepts(message.body));
      if (found) {
        await found.consume(message, env);
      } else {
        log.warn(`${queue}: unknown message dropped`, { id: message.id });
        message.ack();
      }
    }
  };
}

/** The Worker's queue handler: `outbox` (email and webhook deliveries), `ecf` (e-CF to DGII, buyer deliveries, approvals, runs of DGII's test sets, each company's hourly alert sweep) and `rnc-sync` (registry batches). */
export async function handleQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const consume = QUEUES[batch.queue];
  if (consume) return consume(batch, env);
  log.info("queue batch", { queue: batch.queue, messages: batch.messages.length });
  batch.ackAll();
}
