import { describe, expect, it, vi } from "vitest";
import { stepEcfDelivery } from "../../src/jobs/ecf-delivery";
import { readArecf } from "../../src/modules/ecf/receipts";
import { inDirectory, receiverDown } from "../reception/helpers";
import type { Data } from "../support/api";
import { env } from "../support/env";
import { ownerRow, ownerRows, sql } from "../support/seed";
import { type EcfTenant, ecfTenant, fakeDgii, issueE31, script, waitForStatus } from "./helpers";

/**
 * Issue 19's leftover: an accepted e-CF goes to the buyer's receiver (Descripción técnica,
 * "Recepción de e-CF"; the receiver is the fake DGII playing that taxpayer).
 */

interface DeliveryRow {
  id: number;
  delivery_status: string | null;
  delivery_attempts: number;
  delivery_next_attempt_at: string | null;
  delivery_receipt: string | null;
  xml: string;
}

const deliveryRow = (invoiceId: number) =>
  ownerRow<DeliveryRow>(
    sql`SELECT id, delivery_status, delivery_attempts, delivery_next_attempt_at, delivery_receipt, xml FROM ecf_documents WHERE invoice_id = ${invoiceId}`,
  );

async function waitForDelivery(invoiceId: number, status: string): Promise<DeliveryRow> {
  await vi.waitFor(async () => expect((await deliveryRow(invoiceId)).delivery_status).toBe(status), { timeout: 20_000, interval: 100 });
  return deliveryRow(invoiceId);
}

/** The e-CF the buyer's receiver (the fake as that taxpayer) took. */
async function receiverGot(rnc: string): Promise<{ xml: string; errors: string[] }[]> {
  return (await (await fetch(`${fakeDgii}/_control/receiver-received?rnc=${rnc}`)).json()) as { xml: string; errors: string[] }[];
}

async function buyerRnc(t: EcfTenant): Promise<string> {
  const res = await t.tenant.api.get<Data<{ identification: string }>>(`/contacts/${t.contact.id}`);
  expect(res.status).toBe(200);
  return res.body.data.identification;
}

describe("delivery of an accepted e-CF to the buyer's receiver", () => {
  it("a buyer DGII's directory lists gets the signed XML as stored; its signed ARECF is kept and shown", async () => {
    const t = await ecfTenant();
    const rnc = await buyerRnc(t);
    await inDirectory(rnc, "Comprador Electrónico SRL");
    const invoice = await issueE31(t, t.tenant.api, "2500");
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    const row = await waitForDelivery(invoice.id, "delivered");

    const got = await receiverGot(rnc);
    expect(got).toHaveLength(1);
    expect(got[0]!.errors).toEqual([]);
    expect(got[0]!.xml).toBe(row.xml);
    const receipt = readArecf(row.delivery_receipt!);
    expect(receipt).toMatchObject({ issuerRnc: t.rnc, receiverRnc: rnc, encf: invoice.document_number, received: true });
    expect(receipt.reasonCode).toBeUndefined();

    const view = await t.tenant.api.get<Data<{ buyer_delivery: Record<string, unknown> }>>(`/invoices/${invoice.id}/ecf`);
    expect(view.body.data.buyer_delivery).toMatchObject({
      status: "delivered",
      receiver_url: `${fakeDgii}/testecf/receptor/${rnc}`,
      reason_code: null,
      attempts: 1,
      last_error: null,
      next_attempt_at: null,
    });
    expect(view.body.data.buyer_delivery.delivered_at).toEqual(expect.any(String));
  });

  it("a buyer DGII's directory does not list is not electronic: nothing is sent, the printed representation is the delivery", async () => {
    const t = await ecfTenant();
    const rnc = await buyerRnc(t);
    const invoice = await issueE31(t);
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    await waitForDelivery(invoice.id, "not_electronic");
    expect(await receiverGot(rnc)).toEqual([]);
    const view = await t.tenant.api.get<Data<{ buyer_delivery: Record<string, unknown> }>>(`/invoices/${invoice.id}/ecf`);
    expect(view.body.data.buyer_delivery).toMatchObject({ status: "not_electronic", receiver_url: null, attempts: 1 });
  });

  it("a rejected e-CF is not delivered", async () => {
    const t = await ecfTenant();
    const rnc = await buyerRnc(t);
    await inDirectory(rnc);
    await script(t.signer, { results: ["rejected"] });
    const invoice = await issueE31(t);
    const view = await waitForStatus(t, `/invoices/${invoice.id}`, "rejected");
    expect((view as unknown as { buyer_delivery: unknown }).buyer_delivery).toBeNull();
    expect((await deliveryRow(invoice.id)).delivery_status).toBeNull();
    expect(await receiverGot(rnc)).toEqual([]);
  });

  it("a receiver that is down is tried again with backoff and gets the e-CF once; the sweep finds it when due", async () => {
    const t = await ecfTenant();
    const rnc = await buyerRnc(t);
    await inDirectory(rnc);
    await receiverDown(rnc, 1);
    const invoice = await issueE31(t);
    await waitForStatus(t, `/invoices/${invoice.id}`, "accepted");
    await vi.waitFor(async () => expect((await deliveryRow(invoice.id)).delivery_attempts).toBe(1), { timeout: 20_000, interval: 100 });
    const failed = await deliveryRow(invoice.id);
    expect(failed.delivery_status).toBe("pending");
    const view = await t.tenant.api.get<Data<{ buyer_delivery: { last_error: string; next_attempt_at: string } }>>(`/invoices/${invoice.id}/ecf`);
    expect(view.body.data.buyer_delivery.last_error).toContain("503");

    const due = new Date(failed.delivery_next_attempt_at!);
    const dueIds = async (at: Date) =>
      (
        await ownerRows<{ id: number }>(
          sql`SELECT id FROM sweep_due('ecf_deliveries', 1000, 1000, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz, NULL)`,
        )
      ).map((r) => Number(r.id));
    expect(await dueIds(new Date(due.getTime() - 1000))).not.toContain(failed.id);
    expect(await dueIds(due)).toContain(failed.id);

    const ref = { tenant_id: t.tenant.tenantId, ecf_id: failed.id, delivery: true as const };
    expect(await stepEcfDelivery(env, ref, { now: new Date(due.getTime() - 5_000) })).toMatchObject({ outcome: "not_due" });
    expect(await stepEcfDelivery(env, ref, { now: due })).toEqual({ outcome: "done", status: "delivered" });
    expect(await stepEcfDelivery(env, ref, { now: due })).toEqual({ outcome: "done", status: "delivered" });
    expect(await receiverGot(rnc)).toHaveLength(1);
    expect((await deliveryRow(invoice.id)).delivery_attempts).toBe(2);
  });
});
