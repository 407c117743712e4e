import { afterEach, describe, expect, it, vi } from "vitest";
import { FAILURE_WINDOW, LOOKUP_FAILURES } from "../../src/http/rate-limit";
import { NOT_FOUND_TEXT } from "../../src/modules/lookup/page";
import { type ApiResponse, type CallOptions, call } from "../support/api";
import { today } from "../support/dates";
import { seedTenant } from "../support/seed";
import { type EcfTenant, ecfTenant } from "./helpers";

/**
 * The consumer's lookup page under attack (issue 41; docs/security.md, "The consumer's lookup"):
 * the headers every answer carries, the per-IP limit counting an IPv6 client by its /64, and the
 * lock of an e-NCF after LOOKUP_FAILURES wrong codes from anywhere — answered as an unknown
 * e-NCF, the right code included, until its window ends (the clock driven, never slept).
 */

const browser = { headers: { accept: "text/html,application/xhtml+xml" } };

/** An E32 of the tenant to a consumer, with its security code. */
async function consumerE32(t: EcfTenant): Promise<{ encf: string; code: string }> {
  const consumer = (await t.tenant.api.post("/contacts", { name: "Consumidor final" })).body.data;
  const res = await t.tenant.api.post("/invoices", {
    contact_id: consumer.id,
    document_subtype_id: await t.subtype("E32"),
    issue_date: today(),
    items: [{ product_id: t.service.id, description: "Corte de cabello", quantity: "1", unit_price: "250", tax_ids: [t.ids.itbis18] }],
  });
  expect(res.status, res.text).toBe(201);
  const ecf = (await t.tenant.api.get(`/invoices/${res.body.data.id}/ecf`)).body.data;
  return { encf: ecf.encf, code: ecf.security_code };
}

const base64 = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

/** The policy the page must send: its own <style> elements by their SHA-256, and nothing else. */
async function expectedPagePolicy(html: string): Promise<string> {
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
  expect(styles.length).toBeGreaterThan(0);
  const hashes = await Promise.all(styles.map(async (style) => `'sha256-${base64(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style)))}'`));
  return `default-src 'none'; style-src ${hashes.join(" ")}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

function expectHardened(res: ApiResponse, policy: string, what: string) {
  expect(res.headers.get("content-security-policy"), what).toBe(policy);
  expect(res.headers.get("x-frame-options"), what).toBe("DENY");
  expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(res.headers.get("referrer-policy"), what).toBe("no-referrer");
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the lookup's headers", () => {
  it("page, miss and downloads: a CSP of default-src 'none' with the page's styles by hash, no framing, nosniff, no referrer", async () => {
    const t = await ecfTenant();
    const { encf, code } = await consumerE32(t);
    const sub = t.tenant.subdomain;
    const found = await call(sub, `/consulta?encf=${encf}&codigo=${encodeURIComponent(code)}`, browser);
    expect(found.status, found.text).toBe(200);
    expect(found.text).toContain(`<dd id="encf">${encf}</dd>`);
    const policy = await expectedPagePolicy(found.text);
    // What the policy forbids, the page does not use: it would break without a word in the browser.
    expect(found.text).not.toMatch(/<script|<img|<iframe|<link|<object|<embed|\sstyle=|\son[a-z]+=/i);
    const pages: [string, ApiResponse][] = [
      ["the found E32", found],
      ["the empty form", await call(sub, "/consulta", browser)],
      ["a wrong code (HTML)", await call(sub, `/consulta?encf=${encf}&codigo=zzzzzz`, browser)],
      ["a wrong code (JSON)", await call(sub, `/consulta?encf=${encf}&codigo=zzzzzz`)],
    ];
    expect(pages.map(([, res]) => res.status)).toEqual([200, 200, 404, 404]);
    for (const [what, res] of pages) expectHardened(res, policy, what);
    expect(pages[2]![1].text).toContain(NOT_FOUND_TEXT);

    const downloads: [string, ApiResponse][] = [
      ["the PDF", await call(sub, `/consulta/${encf}/pdf?codigo=${encodeURIComponent(code)}`)],
      ["the XML", await call(sub, `/consulta/${encf}/xml?codigo=${encodeURIComponent(code)}`)],
      ["a download's miss", await call(sub, `/consulta/${encf}/xml?codigo=zzzzzz`)],
    ];
    expect(downloads.map(([, res]) => res.status)).toEqual([200, 200, 404]);
    for (const [what, res] of downloads) expectHardened(res, "default-src 'none'; base-uri 'none'; frame-ancestors 'none'", what);
  });
});

describe("the lookup's limits", () => {
  it("counts an IPv6 client by its /64: eleven wrong codes from eleven addresses of one /64 are limited, another /64 is not; an IPv4-mapped address is its IPv4", async () => {
    // Frozen mid-minute: the per-IP window (a minute) never turns inside the test.
    vi.useFakeTimers({ toFake: ["Date"], now: Math.floor(Date.now() / 60_000) * 60_000 + 30_000 });
    const tenant = await seedTenant();
    const net = "2001:db8:41:64";
    const statuses: number[] = [];
    for (let i = 1; i <= 10; i++)
      statuses.push((await call(tenant.subdomain, `/consulta?encf=E32000000000${i % 10}&codigo=x`, { ip: `${net}:${i.toString(16)}::1` })).status);
    expect(statuses).toEqual(Array(10).fill(404));
    const eleventh = await call(tenant.subdomain, "/consulta?encf=E320000000001&codigo=y", { ip: `${net}:ffff:ffff:ffff:fffe` });
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toEqual({ message: "Too many requests.", code: "rate_limited" });
    // The next /64 is another client.
    expect((await call(tenant.subdomain, "/consulta", { ip: "2001:db8:41:65::1" })).status).toBe(200);

    for (let i = 0; i < 10; i++) expect((await call(tenant.subdomain, "/consulta", { ip: "::ffff:198.51.100.41" })).status).toBe(200);
    expect((await call(tenant.subdomain, "/consulta", { ip: "198.51.100.41" })).status).toBe(429);
  });

  it(`locks an e-NCF after ${LOOKUP_FAILURES} wrong codes from any addresses: every lookup of it, the right code included, answers as an unknown e-NCF until the window ends`, async () => {
    // Frozen a minute into a failure window (in the past): a lock then lasts 14 minutes.
    const start = Math.floor((Date.now() - 120_000) / FAILURE_WINDOW.ms) * FAILURE_WINDOW.ms;
    vi.useFakeTimers({ toFake: ["Date"], now: start + 60_000 });
    const t = await ecfTenant();
    const sub = t.tenant.subdomain;
    const target = await consumerE32(t);
    const other = await consumerE32(t);
    // Each call from its own random address: the per-IP limit plays no part.
    const page = (encf: string, code: string, options: CallOptions = browser) =>
      call(sub, `/consulta?encf=${encf}&codigo=${encodeURIComponent(code)}`, options);
    const unknown = await page("E329999999999", target.code);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain(NOT_FOUND_TEXT);

    for (let i = 1; i < LOOKUP_FAILURES; i++) expect((await page(target.encf, `wrong${i}`)).text).toBe(unknown.text);
    // Below the limit the right code still finds it (and a success resets nothing).
    expect((await page(target.encf, target.code)).status).toBe(200);
    expect((await page(target.encf.toLowerCase(), "wrong5")).text).toBe(unknown.text);

    // Locked: the right code, from a fresh address, gets the unknown e-NCF's answer byte for byte, on every path.
    const locked = await page(target.encf, target.code);
    expect([locked.status, locked.text]).toEqual([404, unknown.text]);
    const json = await page(target.encf, target.code, { headers: {} });
    expect([json.status, json.body]).toEqual([404, { message: "No consumer invoice (E32) with this e-NCF and security code.", code: "not_found" }]);
    for (const kind of ["pdf", "xml"]) {
      const download = await call(sub, `/consulta/${target.encf}/${kind}?codigo=${encodeURIComponent(target.code)}`);
      expect([download.status, download.body.code], kind).toEqual([404, "not_found"]);
    }
    // Another e-NCF of the tenant is not locked.
    expect((await page(other.encf, other.code)).status).toBe(200);

    // The window ends: the right code finds it again.
    vi.setSystemTime(start + FAILURE_WINDOW.ms + 1_000);
    const back = await page(target.encf, target.code);
    expect(back.status, back.text).toBe(200);
    expect(back.text).toContain(`<dd id="encf">${target.encf}</dd>`);
    expect((await call(sub, `/consulta/${target.encf}/xml?codigo=${encodeURIComponent(target.code)}`)).status).toBe(200);
  });
});
