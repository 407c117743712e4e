import { describe, expect, it, vi } from "vitest";
import type { ReceivedEcf } from "../../src/modules/reception/schemas";
import { inDirectory, receiveFromSupplier } from "../reception/helpers";
import type { Data } from "../support/api";
import { today } from "../support/dates";
import { createContact, freshRnc } from "../support/sales";
import { ownerRow, sql } from "../support/seed";
import { type EcfTenant, ecfTenant, fakeDgii, received, waitForStatus } from "./helpers";

/**
 * Issue 30, "Never sign what another party hands us": when we authenticate at another taxpayer's
 * receiver (delivering our e-CF, or our ACECF), what it serves as a seed is signed only when it is a
 * seed and nothing else; any other answer fails the delivery with a clear last_error, signs nothing
 * and sends nothing. The receiver is the fake DGII playing that taxpayer, scripted to be hostile.
 */

type Hostile = { seed?: string; answer?: string };

async function hostile(rnc: string, script: Hostile): Promise<void> {
  const res = await fetch(`${fakeDgii}/_control/receiver-hostile`, { method: "POST", body: JSON.stringify({ rnc, ...script }) });
  expect(res.status).toBe(200);
}

/** What the receiver got: signed seeds posted to its validacioncertificado, e-CF posted to its recepcion. */
async function receiverLog(rnc: string, kind: "seeds" | "received" | "approvals"): Promise<{ xml: string }[]> {
  return (await (await fetch(`${fakeDgii}/_control/receiver-${kind}?rnc=${rnc}`)).json()) as { xml: string }[];
}

interface Delivery {
  delivery_status: string | null;
  delivery_error: string | null;
  delivery_receipt: string | null;
}

async function deliveryOf(invoiceId: number): Promise<Delivery> {
  let row: Delivery | undefined;
  await vi.waitFor(
    async () => {
      row = await ownerRow<Delivery>(sql`SELECT delivery_status, delivery_error, delivery_receipt FROM ecf_documents WHERE invoice_id = ${invoiceId}`);
      expect(row.delivery_status).not.toBe("pending");
      expect(row.delivery_status).not.toBeNull();
    },
    { timeout: 30_000, interval: 100 },
  );
  return row!;
}

/** An accepted E31 to a buyer of RNC `rnc`, whose receiver DGII's directory lists (at `url`, or on the fake). */
async function acceptedE31To(t: EcfTenant, rnc: string) {
  const contact = await createContact(t.tenant.api, { identification: rnc });
  const res = await t.tenant.api.post("/invoices", {
    contact_id: contact.id,
    document_subtype_id: await t.subtype("E31"),
    issue_date: today(),
    items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
  });
  expect(res.status, res.text).toBe(201);
  await waitForStatus(t, `/invoices/${res.body.data.id}`, "accepted");
  return res.body.data as { id: number; document_number: string };
}

// Each test issues e-CF and follows their sending and delivery through the queue.
describe("delivering to a hostile receiver", { timeout: 90_000 }, () => {
  it("a receiver serving DGII's seed shape is signed (a seed), but one serving an e-CF, an ANECF, a DOCTYPE, an extra element, an oversized seed or a redirect gets nothing signed nor sent", async () => {
    const t = await ecfTenant();
    const cases: [string, string][] = [
      // A seed is two levels deep and has three elements: an e-CF or an ANECF is refused by the bounds before it is even parsed.
      ["ecf", "did not serve a seed, so nothing was signed: Not a seed: Elements are nested deeper than 2 levels."],
      ["anecf", "did not serve a seed, so nothing was signed: Not a seed: Elements are nested deeper than 2 levels."],
      ["doctype", "did not serve a seed, so nothing was signed: Not a seed: A DOCTYPE or other declaration (<!…>) is not allowed."],
      ["extra-element", "did not serve a seed, so nothing was signed: Not a seed: More than 3 elements."],
      ["oversized", "is larger than 4096 bytes."],
      ["redirect", "answered a redirect (302) to http://127.0.0.1:1/testecf/autenticacion/api/autenticacion/semilla; redirects are not followed."],
    ];
    const buyers = cases.map(() => freshRnc());
    for (const [i, [kind]] of cases.entries()) {
      await inDirectory(buyers[i]!, `Receptor hostil ${kind}`);
      await hostile(buyers[i]!, { seed: kind });
    }
    await t.subtype("E31");
    const invoices = await Promise.all(buyers.map((rnc) => acceptedE31To(t, rnc)));
    for (const [i, [kind, reason]] of cases.entries()) {
      const row = await deliveryOf(invoices[i]!.id);
      expect(row.delivery_status, kind).toBe("refused");
      expect(row.delivery_error, kind).toContain(reason);
      expect(row.delivery_receipt, kind).toBeNull();
      // Nothing signed reached the receiver, and the e-CF was not sent to it.
      expect(await receiverLog(buyers[i]!, "seeds"), kind).toEqual([]);
      expect(await receiverLog(buyers[i]!, "received"), kind).toEqual([]);
    }
  });

  it("an acknowledgement that is oversized, signed by someone other than the buyer, or a redirect: refused, never taken as delivered", async () => {
    const t = await ecfTenant();
    const cases: [string, string][] = [
      ["oversized", `is larger than ${64 * 1024} bytes.`],
      ["wrong-signer", "whose certificate does not name the buyer"],
      ["redirect", "redirects are not followed."],
    ];
    const buyers = cases.map(() => freshRnc());
    for (const [i, [answer]] of cases.entries()) {
      await inDirectory(buyers[i]!);
      await hostile(buyers[i]!, { answer });
    }
    await t.subtype("E31");
    const invoices = await Promise.all(buyers.map((rnc) => acceptedE31To(t, rnc)));
    for (const [i, [answer, reason]] of cases.entries()) {
      const row = await deliveryOf(invoices[i]!.id);
      expect(row.delivery_status, answer).toBe("refused");
      expect(row.delivery_error, answer).toContain(reason);
    }
  });

  it("a receiver URL from DGII's directory that is not https to a public host is never called", async () => {
    const t = await ecfTenant();
    const cases: [string, string][] = [
      ["http://10.0.0.7", "Must not point at a private, link-local or reserved address."],
      ["http://169.254.169.254", "Must not point at a private, link-local or reserved address."],
      // The test Worker lets webhooks reach the local fakes over http (WEBHOOKS_ALLOW_HTTP_LOOPBACK), and says so.
      ["http://receptor.example.do", "Must be an https:// URL (http:// only to loopback)."],
      ["https://user:secret@receptor.example.do", "Must not carry credentials."],
    ];
    const buyers = cases.map(() => freshRnc());
    for (const [i, [url]] of cases.entries()) {
      const res = await fetch(`${fakeDgii}/_control/directory`, { method: "POST", body: JSON.stringify({ rnc: buyers[i], name: "Receptor", url }) });
      expect(res.status).toBe(200);
    }
    await t.subtype("E31");
    const invoices = await Promise.all(buyers.map((rnc) => acceptedE31To(t, rnc)));
    for (const [i, [url, reason]] of cases.entries()) {
      const row = await deliveryOf(invoices[i]!.id);
      expect(row.delivery_status, url).toBe("refused");
      expect(row.delivery_error, url).toBe(`The receiver URL ${url} (DGII's directory) is refused: ${reason}`);
    }
  });

  it("our ACECF to a supplier whose receiver serves an e-CF as its seed: the issuer delivery is refused, nothing signed reaches it; DGII's is delivered", async () => {
    const t = await ecfTenant();
    const supplierRnc = freshRnc();
    await inDirectory(supplierRnc);
    const doc = await receiveFromSupplier(t, supplierRnc);
    await hostile(supplierRnc, { seed: "ecf" });
    const res = await t.tenant.api.post<Data<ReceivedEcf>>(`/received-ecf/${doc.id}/approval`, { approved: true });
    expect(res.status, res.text).toBe(200);
    await vi.waitFor(
      async () => {
        const row = await ownerRow<{ dgii_status: string; issuer_status: string; last_error: string | null }>(
          sql`SELECT dgii_status, issuer_status, last_error FROM ecf_approvals WHERE received_ecf_id = ${doc.id}`,
        );
        expect([row.dgii_status, row.issuer_status]).toEqual(["delivered", "refused"]);
        expect(row.last_error).toContain("did not serve a seed, so nothing was signed: Not a seed: Elements are nested deeper than 2 levels.");
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(await receiverLog(supplierRnc, "seeds")).toEqual([]);
    expect(await receiverLog(supplierRnc, "approvals")).toEqual([]);
  });
});

describe("DGII's own seed", { timeout: 90_000 }, () => {
  it("our client signs only a seed, whoever serves it: DGII's service serving an e-CF leaves the e-CF unsent and retried, nothing signed", async () => {
    const t = await ecfTenant();
    // In CerteCF, which no other test uses, so the scripted seed meets this tenant's first call only.
    expect((await t.tenant.api.put("/ecf/settings", { environment: "certecf", enabled: true })).status).toBe(200);
    const scripted = await fetch(`${fakeDgii}/_control/dgii-hostile-seed`, {
      method: "POST",
      body: JSON.stringify({ kind: "ecf", calls: 1, environment: "certecf" }),
    });
    expect(scripted.status).toBe(200);
    const contact = await createContact(t.tenant.api);
    const res = await t.tenant.api.post("/invoices", {
      contact_id: contact.id,
      document_subtype_id: await t.subtype("E31"),
      issue_date: today(),
      items: [{ product_id: t.service.id, quantity: "1", unit_price: "100", tax_ids: [t.ids.itbis18] }],
    });
    expect(res.status).toBe(201);
    let row: { status: string; attempts: number; last_error: string | null } | undefined;
    await vi.waitFor(
      async () => {
        row = await ownerRow(sql`SELECT status, attempts, last_error FROM ecf_documents WHERE invoice_id = ${res.body.data.id}`);
        expect(row!.attempts).toBeGreaterThanOrEqual(1);
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(row!.status).toBe("pending");
    expect(row!.last_error).toBe(
      `${fakeDgii}/certecf/autenticacion/api/autenticacion/semilla did not serve a seed, so nothing was signed: Not a seed: Elements are nested deeper than 2 levels.`,
    );
    expect(await received(t.signer)).toEqual([]);
  });
});
