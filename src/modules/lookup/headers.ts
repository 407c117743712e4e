import { createHash } from "node:crypto";
import type { Context } from "hono";
import { lookupPage } from "./page";

/*
 * What the lookup's answers let a browser do (issue 41; docs/security.md, "The consumer's
 * lookup"). The page is server-rendered HTML: its <style> elements, an inline SVG (the QR, which
 * fetches nothing), a GET form to itself and links — no script, image, font, frame or request of
 * its own. So its policy allows nothing by default and names only that: the styles by their
 * SHA-256 (a hash-source: 'unsafe-inline' would let an injected <style> or style attribute in too),
 * the form's target, and no framing at all (clickjacking: frame-ancestors, and X-Frame-Options for
 * browsers without CSP 2). The downloads (PDF, XML) need nothing. `Referrer-Policy: no-referrer`:
 * the page's address carries the security code, which no link may pass on.
 */

/** The page's <style> contents, from a render without any input: its styles are fixed, never the request's. */
function pageStyles(): string[] {
  const page = lookupPage("", { encf: "", code: "" }, null, false);
  return [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
}

const styleSources = pageStyles()
  .map((style) => `'sha256-${createHash("sha256").update(style, "utf8").digest("base64")}'`)
  .join(" ");

const COMMON = {
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
} as const;

/** The Content-Security-Policy of the lookup page. */
export const PAGE_POLICY = `default-src 'none'; style-src ${styleSources}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
/** The policy of the downloads: nothing at all. */
export const DOWNLOAD_POLICY = "default-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Sets the lookup's security headers on the answer being built (its error answers keep them: http/on-error.ts). */
export function lookupHeaders(c: Context, answer: "page" | "download"): void {
  c.header("Content-Security-Policy", answer === "page" ? PAGE_POLICY : DOWNLOAD_POLICY);
  for (const [name, value] of Object.entries(COMMON)) c.header(name, value);
}
