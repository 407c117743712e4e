import { eq } from "drizzle-orm";
import { withTenantTransaction } from "../db/client";
import * as schema from "../db/schema";
import { config, type Env } from "../env";
import { log } from "../lib/log";
import { DgiiRefused, DgiiUnavailable, directoryReceiver, sendEcfToReceiver, withDgiiToken } from "../modules/ecf/dgii";
import { dgiiPaceOf, secondsUntil } from "../modules/ecf/dgii-pace";
import { EcfReadError, readArecf } from "../modules/ecf/receipts";
import type { EcfEnvironment } from "../modules/ecf/schemas";
import { dgiiUrls, receiverPolicy, tenantSigningMaterial } from "../modules/ecf/service";
import { parseUntrustedXml, UntrustedXmlError } from "../modules/ecf/signature";
import { namesAuthor, type TrustStore, trustStoreOf } from "../modules/ecf/signers";
import { verifySignedDocument } from "../modules/reception/verify";
import { dueRows, ECF_MAX_OUTAGE_MS, endLease, handleStepMessage, lockedEcfRow, outageDelaySeconds, type SweepOptions } from "./due";
import { type DeliveryRef, enqueueDeliveries } from "./messages";

/**
 * Delivery of our accepted e-CF to the buyer (Descripción técnica, "Recepción de e-CF": DGII's
 * trackId and a satisfactory validation "habilita al emisor al envío del e-CF al receptor y en caso
 * de que este no sea electrónico, la entrega de la correspondiente representación impresa"; the
 * receiver's service and its answer, an ARECF, in "Estándar de comunicación Emisor-Receptor").
 *
 * When DGII accepts an e-CF naming a buyer's RNC (jobs/ecf.ts), its row gets `delivery_status`
 * `pending`; one queue message is one attempt under the row's lock, as for the other e-CF steps,
 * and the minute sweep re-enqueues what is due (drizzle/0061 sweep_due). An attempt finds
 * the buyer's receiver in DGII's directory (none: `not_electronic`, the printed representation is
 * the delivery), sends the signed XML as stored, and keeps the ARECF it answers: `delivered`
 * when it says received (Estado 0), `not_received` with its CodigoMotivoNoRecibido otherwise. A
 * 4xx, or an answer that is not a signed ARECF about this e-NCF, is `refused` (sending it again
 * would not help); the receiver unreachable is retried with the e-CF backoff (30 s doubling to 15 min) for 24 hours, then
 * `failed`.
 */

const e = schema.ecfDocuments;
type EcfRow = typeof e.$inferSelect;

export interface DeliveryStep {
  /** backoff: DGII asked the company to wait (a 429 or 503, modules/ecf/dgii-pace.ts): nothing tried, the sweep takes it after the wait. */
  outcome: "done" | "retry" | "unavailable" | "not_due" | "backoff";
  status?: string;
  retryInSeconds?: number;
}

/** Thrown when the receiver's answer is not a signed acknowledgement of this document. */
class UnusableReceipt extends Error {}

/**
 * The ARECF's verdict, checked: bounded and parsed once, signed by the buyer it names (an accepted
 * certificate naming RNCComprador: signers.ts), readable, about this e-NCF from us to this buyer.
 */
function receiptOf(row: EcfRow, xml: string, trust: TrustStore, now: Date): { received: boolean; reason: number | null } {
  try {
    const document = parseUntrustedXml(xml);
    const signature = verifySignedDocument(document, xml, trust, now);
    if (!signature.valid) throw new UnusableReceipt(`The receiver's acknowledgement is not validly signed: ${signature.reason}`);
    const receipt = readArecf(document);
    if (receipt.encf !== row.encf || receipt.issuerRnc !== row.issuerRnc || receipt.receiverRnc !== row.buyerRnc) {
      throw new UnusableReceipt(`The receiver's acknowledgement is about ${receipt.issuerRnc} ${receipt.encf} to ${receipt.receiverRnc}, not this e-CF.`);
    }
    if (!namesAuthor(signature.signer, receipt.receiverRnc)) {
      throw new UnusableReceipt(
        `The receiver's acknowledgement is signed by ${signature.signer.subject}, whose certificate does not name the buyer ${receipt.receiverRnc}.`,
      );
    }
    return { received: receipt.received, reason: receipt.reasonCode ?? null };
  } catch (error) {
    if (error instanceof EcfReadError || error instanceof UntrustedXmlError)
      throw new UnusableReceipt(`The receiver's answer is not an ARECF: ${error.message}`);
    throw error;
  }
}

export async function stepEcfDelivery(env: Env, ref: DeliveryRef, options: { now?: Date } = {}): Promise<DeliveryStep> {
  const now = options.now ?? new Date();
  return withTenantTransaction(env, ref.tenant_id, async (db) => {
    await endLease(db, "ecf_deliveries", ref.ecf_id);
    const row = await lockedEcfRow(db, ref);
    if (!row) return { outcome: "unavailable" };
    if (row.deliveryStatus !== "pending" || !row.buyerRnc) return { outcome: "done", status: row.deliveryStatus ?? undefined };
    const dueIn = Math.ceil(((row.deliveryNextAttemptAt ?? now).getTime() - now.getTime()) / 1000);
    if (dueIn > 0) return { outcome: "not_due", retryInSeconds: dueIn };
    // DGII asked the company to wait: no call of its to DGII (the directory) until then (issue 48).
    const pace = await dgiiPaceOf(db, row.tenantId, now);
    if (pace.waitingUntil) return { outcome: "backoff", status: "pending", retryInSeconds: secondsUntil(pace.waitingUntil, now) };

    const settings = config(env);
    const environment = row.environment as EcfEnvironment;
    const urls = dgiiUrls(settings, environment);
    const material = await tenantSigningMaterial(db, row.tenantId, settings.APP_ENCRYPTION_KEY);
    const context = { tenantId: row.tenantId, ecfId: row.id, encf: row.encf, buyerRnc: row.buyerRnc };
    const attempts = row.deliveryAttempts + 1;
    const save = (values: Partial<EcfRow>) =>
      db
        .update(e)
        .set({ deliveryAttempts: attempts, updatedAt: now, ...values })
        .where(eq(e.id, row.id));
    const settle = async (status: string, values: Partial<EcfRow>): Promise<DeliveryStep> => {
      await save({ deliveryStatus: status, deliveryUnreachableSince: null, ...values });
      log.info("ecf delivery: settled", { ...context, status });
      return { outcome: "done", status };
    };

    try {
      // The buyer's acknowledgement can be judged only against the accredited authorities: without
      // them nothing is sent (a second sending would be answered as a duplicate), and it is retried.
      const trust = trustStoreOf(settings.ECF_TRUSTED_CA_PEM);
      if (!trust)
        throw new DgiiUnavailable("ECF_TRUSTED_CA_PEM is not configured: the buyer's acknowledgement could not be verified, so the e-CF was not sent.");
      let receiverUrl = row.deliveryUrl;
      if (!receiverUrl) {
        const buyerRnc = row.buyerRnc;
        const found = await pace.call(() =>
          withDgiiToken(row.tenantId, environment, urls.ecf, material, (token) => directoryReceiver(urls.ecf, token, buyerRnc)),
        );
        if (!found?.receptionUrl) return await settle("not_electronic", { deliveryError: null });
        receiverUrl = found.receptionUrl;
      }
      const answer = await sendEcfToReceiver(receiverUrl, receiverPolicy(settings), material, row.xml, `${row.issuerRnc}${row.encf}.xml`);
      const receipt = receiptOf(row, answer, trust, now);
      return await settle(receipt.received ? "delivered" : "not_received", {
        deliveryUrl: receiverUrl,
        deliveryReceipt: answer,
        deliveryReason: receipt.reason,
        deliveryError: null,
        deliveredAt: now,
      });
    } catch (error) {
      if (error instanceof UnusableReceipt || error instanceof DgiiRefused) {
        return settle("refused", { deliveryError: error.message.slice(0, 2000) });
      }
      if (!(error instanceof DgiiUnavailable)) throw error;
      const since = row.deliveryUnreachableSince ?? now;
      if (now.getTime() - since.getTime() >= ECF_MAX_OUTAGE_MS) {
        await save({ deliveryStatus: "failed", deliveryError: error.message.slice(0, 2000), deliveryUnreachableSince: since });
        log.error("ecf delivery: the buyer's receiver unreachable for 24 hours; failed", { ...context, error: error.message });
        return { outcome: "done", status: "failed" };
      }
      const failures = row.deliveryUnreachableSince ? attempts : 1;
      const delay = outageDelaySeconds(failures);
      await save({
        deliveryError: error.message.slice(0, 2000),
        deliveryUnreachableSince: since,
        deliveryNextAttemptAt: new Date(now.getTime() + delay * 1000),
      });
      log.warn("ecf delivery: will be retried", { ...context, retryInSeconds: delay, error: error.message });
      return { outcome: "retry", status: "pending", retryInSeconds: delay };
    }
  });
}

/** One delivery message of ECF_QUEUE (which carries e-CF steps, approvals and deliveries). */
export const handleDeliveryMessage = (message: Message<DeliveryRef>, env: Env) =>
  handleStepMessage(
    message,
    "ecf delivery",
    (ref) => stepEcfDelivery(env, ref),
    (refs, delay) => enqueueDeliveries(env, refs, delay),
  );

/**
 * The minute sweep: deliveries pending and due, across tenants, back on the queue; none of a
 * company DGII asked to wait, and within the company's pace (ECF_SENDS_PER_MINUTE, shared with its
 * other DGII steps: jobs/scheduled.ts).
 */
export async function sweepDeliveries(env: Env, options: SweepOptions = {}): Promise<number> {
  const refs: DeliveryRef[] = (await dueRows(env, "ecf_deliveries", { ...options, perTenant: options.perTenant ?? config(env).ECF_SENDS_PER_MINUTE })).map(
    (row) => ({ tenant_id: row.tenantId, ecf_id: row.id, delivery: true }),
  );
  if (refs.length) log.info("ecf delivery sweep", { due: refs.length, enqueued: await enqueueDeliveries(env, refs) });
  return refs.length;
}
