import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/context";
import { takeRecordedDeliveries } from "../modules/events/service";
import { enqueueApprovals, enqueueCertificationRuns, enqueueEcf, enqueueOutbox, enqueueWebhooks } from "./messages";

/**
 * What a request wrote for the background goes on its Queue once the request has committed:
 * outbox rows (`c.var.outbox`: emails, bot messages), signed e-CF (`c.var.ecf`), commercial
 * approvals (`c.var.approvals`), runs of DGII's test sets (`c.var.certificationRuns`) and the webhook deliveries recorded on the request's transaction
 * (modules/events/service.ts). Mounted outside
 * `databaseSession`, so when `next()` returns the commit (or rollback) has happened; a failed
 * request sends nothing. A send that fails is logged and left to the minute sweeps.
 */
export const afterCommitDispatch = createMiddleware<AppEnv>(async (c, next) => {
  const outbox: number[] = [];
  const ecf: number[] = [];
  const approvals: number[] = [];
  const certificationRuns: number[] = [];
  c.set("outbox", outbox);
  c.set("certificationRuns", certificationRuns);
  c.set("ecf", ecf);
  c.set("approvals", approvals);
  await next();
  const webhooks = takeRecordedDeliveries(c.var.db);
  if ((!outbox.length && !ecf.length && !approvals.length && !certificationRuns.length && !webhooks.length) || c.error || c.res.status >= 400) return;
  const tenantId = c.get("tenant").id;
  if (outbox.length) {
    c.executionCtx.waitUntil(
      enqueueOutbox(
        c.env,
        outbox.map((id) => ({ tenant_id: tenantId, outbox_id: id })),
        c.get("requestId"),
      ),
    );
  }
  if (ecf.length)
    c.executionCtx.waitUntil(
      enqueueEcf(
        c.env,
        ecf.map((id) => ({ tenant_id: tenantId, ecf_id: id })),
      ),
    );
  if (approvals.length)
    c.executionCtx.waitUntil(
      enqueueApprovals(
        c.env,
        approvals.map((id) => ({ tenant_id: tenantId, approval_id: id })),
      ),
    );
  if (certificationRuns.length)
    c.executionCtx.waitUntil(
      enqueueCertificationRuns(
        c.env,
        certificationRuns.map((id) => ({ tenant_id: tenantId, certification_run_id: id })),
      ),
    );
  if (webhooks.length)
    c.executionCtx.waitUntil(
      enqueueWebhooks(
        c.env,
        webhooks.map((id) => ({ tenant_id: tenantId, webhook_delivery_id: id })),
        c.get("requestId"),
      ),
    );
});
