import { config, type Env } from "../env";
import { sendToQueue } from "./enqueue";

/**
 * The messages our queues carry, one kind per job: the reference to the row the job works on, how
 * a consumer tells it from the other kinds on the same queue, and how it is sent. A job hands work
 * to another through these (an accepted e-CF's delivery to the buyer, a step's webhook deliveries,
 * the email of a disabled webhook endpoint), the request's after-commit dispatch sends them
 * (dispatch.ts), and the consumers are listed once in the queue registry (queue.ts): no job
 * imports another.
 */

/** `outbox` queue: an outbox row (email) to deliver (jobs/outbox.ts). */
export interface OutboxRef {
  tenant_id: number;
  outbox_id: number;
}

/** `outbox` queue: a webhook delivery to attempt (jobs/webhooks.ts). */
export interface WebhookRef {
  tenant_id: number;
  webhook_delivery_id: number;
}

/** `ecf` queue: a step of an e-CF's transmission to DGII (jobs/ecf.ts). */
export interface EcfRef {
  tenant_id: number;
  ecf_id: number;
}

/** `ecf` queue: an accepted e-CF's delivery to the buyer's receiver (jobs/ecf-delivery.ts). It names the e-CF as an EcfRef does. */
export interface DeliveryRef {
  tenant_id: number;
  ecf_id: number;
  delivery: true;
}

/** `ecf` queue: a commercial approval (ACECF) to deliver (jobs/approvals.ts). */
export interface ApprovalRef {
  tenant_id: number;
  approval_id: number;
}

/** `ecf` queue: a step of a run of DGII's test set (jobs/certification-runs.ts). */
export interface CertificationRunRef {
  tenant_id: number;
  certification_run_id: number;
}

/** `ecf` queue: one company's hourly alert sweep, at the cron's time (jobs/ecf-alerts.ts). */
export interface AlertSweepRef {
  tenant_id: number;
  /** The cron's scheduled time (ms): the deadlines are judged at it, however late the message is consumed. */
  alerts_at: number;
}

const ids = (body: unknown, ...names: string[]): boolean => {
  const b = body as Record<string, unknown> | null;
  return !!b && names.every((name) => Number.isSafeInteger(b[name]));
};

export const isOutboxRef = (body: unknown): body is OutboxRef => ids(body, "tenant_id", "outbox_id");
export const isWebhookRef = (body: unknown): body is WebhookRef => ids(body, "tenant_id", "webhook_delivery_id");
/** Also true of a DeliveryRef, which names its e-CF: a consumer asks isDeliveryRef first. */
export const isEcfRef = (body: unknown): body is EcfRef => ids(body, "tenant_id", "ecf_id");
export const isDeliveryRef = (body: unknown): body is DeliveryRef => isEcfRef(body) && (body as Partial<DeliveryRef>).delivery === true;
export const isCertificationRunRef = (body: unknown): body is CertificationRunRef => ids(body, "tenant_id", "certification_run_id");
export const isApprovalRef = (body: unknown): body is ApprovalRef => ids(body, "tenant_id", "approval_id");
export const isAlertSweepRef = (body: unknown): body is AlertSweepRef => ids(body, "tenant_id", "alerts_at");

/** Sends outbox references to the Queue; false (logged) when the send failed. */
export const enqueueOutbox = (env: Env, refs: OutboxRef[], requestId?: string) => sendToQueue(config(env).OUTBOX_QUEUE, refs, "outbox", { requestId });

export const enqueueWebhooks = (env: Env, refs: WebhookRef[], requestId?: string) => sendToQueue(config(env).OUTBOX_QUEUE, refs, "webhooks", { requestId });

/** Sends e-CF references to ECF_QUEUE (delayed by `delaySeconds`); false (logged) when the send failed. */
export const enqueueEcf = (env: Env, refs: EcfRef[], delaySeconds = 0) => sendToQueue(config(env).ECF_QUEUE, refs, "ecf", { delaySeconds });

export const enqueueDeliveries = (env: Env, refs: DeliveryRef[], delaySeconds = 0) =>
  sendToQueue(config(env).ECF_QUEUE, refs, "ecf deliveries", { delaySeconds });

export const enqueueApprovals = (env: Env, refs: ApprovalRef[], delaySeconds = 0) => sendToQueue(config(env).ECF_QUEUE, refs, "approvals", { delaySeconds });

export const enqueueCertificationRuns = (env: Env, refs: CertificationRunRef[], delaySeconds = 0) =>
  sendToQueue(config(env).ECF_QUEUE, refs, "certification runs", { delaySeconds });

export const enqueueAlertSweeps = (env: Env, refs: AlertSweepRef[]) => sendToQueue(config(env).ECF_QUEUE, refs, "alert sweeps");
