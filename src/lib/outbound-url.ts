/**
 * Which endpoint URLs a webhook may be sent to (SSRF, docs/webhooks.md): https:// to a host that is
 * not an IP literal of a private, loopback, link-local or otherwise non-public range, nor
 * `localhost`, nor a name that resolves to such an address. With WEBHOOKS_ALLOW_HTTP_LOOPBACK
 * (development) loopback is allowed, over http too.
 *
 * A Worker has no resolver of its own, so names are resolved through DNS over HTTPS (RFC 8484's
 * JSON form, WEBHOOKS_DNS_RESOLVER_URL) when an endpoint is saved and again before each attempt.
 * What stays open: a name that changes its answer between that look-up and fetch's own (DNS
 * rebinding). Cloudflare's fetch does not reach the account's private network, and redirects are
 * never followed (jobs/webhooks.ts), which limits what such a name can reach.
 */

import ipaddr from "ipaddr.js";

type HostKind = "public" | "loopback" | "private";

/**
 * Only what IANA's special-purpose registries leave as ordinary unicast is public: ipaddr.js keeps
 * those ranges (RFC 6890 and its updates: private, CGNAT, link-local, the documentation ranges,
 * benchmarking, site-local fec0::/10, discard 100::/64, NAT64, ORCHID, …), so a new reserved range
 * comes with the library rather than with a list of ours.
 */
function v4Kind(address: ipaddr.IPv4): HostKind {
  const range = address.range();
  if (range === "loopback") return "loopback";
  return range === "unicast" ? "public" : "private";
}

/** The IPv4 address in two 16-bit groups of an IPv6 address. */
const v4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** Public only when every embedded IPv4 address is: a tunnel to a private one leads there. */
const allPublic = (...addresses: ipaddr.IPv4[]): HostKind => (addresses.every((a) => v4Kind(a) === "public") ? "public" : "private");

function v6Kind(address: ipaddr.IPv6): HostKind {
  // IPv4-mapped (::ffff:a.b.c.d): the IPv4 address itself, loopback included.
  if (address.isIPv4MappedAddress()) return v4Kind(address.toIPv4Address());
  // The eight 16-bit groups (ipaddr.js always gives eight); the tunnels below carry IPv4 in some.
  const [, g1 = 0, g2 = 0, g3 = 0, , , g6 = 0, g7 = 0] = address.parts;
  switch (address.range()) {
    case "loopback":
      return "loopback";
    // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 carries a.b.c.d in its second and third groups.
    case "6to4":
      return allPublic(v4Of(g1, g2));
    // Teredo (RFC 4380): 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, the server's IPv4 address, then the
    // client's with every bit inverted.
    case "teredo":
      return allPublic(v4Of(g2, g3), v4Of(~g6 & 0xffff, ~g7 & 0xffff));
    case "unicast":
      // ::a.b.c.d, the deprecated IPv4-compatible form (RFC 4291 2.5.5.1), is unicast to the library.
      return address.parts.slice(0, 6).every((part) => part === 0) ? "private" : "public";
    default:
      return "private";
  }
}

/** `host` (a URL hostname) when it is an IP literal, else null. */
function ipLiteral(host: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    if (host.startsWith("[") && host.endsWith("]")) return ipaddr.IPv6.parse(host.slice(1, -1));
    return ipaddr.IPv4.isValidFourPartDecimal(host) ? ipaddr.IPv4.parse(host) : null;
  } catch {
    return new ipaddr.IPv6([0, 0, 0, 0, 0, 0, 0, 0]); // bracketed but not an address: judged as ::, never trusted
  }
}

const isLocalhost = (host: string) => host === "localhost" || host.endsWith(".localhost");

/** The kind of a URL's hostname as the WHATWG parser normalizes it (IPv4 in dotted decimal, IPv6 in brackets, compressed, lowercase). */
export function hostKind(hostname: string): HostKind {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (isLocalhost(host)) return "loopback";
  const address = ipLiteral(host);
  if (address === null) return "public";
  return address.kind() === "ipv4" ? v4Kind(address as ipaddr.IPv4) : v6Kind(address as ipaddr.IPv6);
}

/**
 * What endpointUrlProblem takes, as far as a pattern can say, for the OpenAPI document: an https://
 * URL, spaces around it (trimmed), no credentials before the host, no NUL. That the host is public
 * is checked when it is given (and again when resolved); http:// to a loopback host is taken only
 * where WEBHOOKS_ALLOW_HTTP_LOOPBACK is set (development), which the field's description says.
 */
export const HTTPS_URL_PATTERN = "^\\s*[Hh][Tt][Tt][Pp][Ss]://[^\\s/?#@\\u0000]+(?:[/?#][^\\u0000]*)?$";
export const HTTP_LOOPBACK_NOTE =
  "http:// to a loopback host (localhost, 127.0.0.1, [::1]) only where the setting WEBHOOKS_ALLOW_HTTP_LOOPBACK is on (development)";

/** Why `raw` may not be a webhook endpoint, or null when it may. */
export function endpointUrlProblem(raw: string, allowHttpLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Must be an absolute URL.";
  }
  if (url.username || url.password) return "Must not carry credentials.";
  const kind = hostKind(url.hostname);
  if (kind === "private") return "Must not point at a private, link-local or reserved address.";
  if (kind === "loopback" && !allowHttpLoopback) return "Must not point at localhost or a loopback address.";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && kind === "loopback") return null;
  return allowHttpLoopback ? "Must be an https:// URL (http:// only to loopback)." : "Must be an https:// URL.";
}

/** The resolver could not answer: nothing is known of the name (the caller decides: refuse, or retry later). */
export class ResolverUnavailable extends Error {
  override name = "ResolverUnavailable";
}

const RESOLVER_TIMEOUT_MS = 3000;
/** DNS record types (RFC 1035, RFC 3596) and the NXDOMAIN status (RCODE 3). */
const A = 1;
const AAAA = 28;
const NXDOMAIN = 3;

interface DohAnswer {
  Status: number;
  Answer?: { type: number; data: string }[];
}

/** One DNS-over-HTTPS JSON query: the addresses of `type` (the CNAME chain's final records), or null for NXDOMAIN. */
async function lookUp(resolverUrl: string, name: string, type: typeof A | typeof AAAA): Promise<string[] | null> {
  let answer: DohAnswer;
  try {
    const res = await fetch(`${resolverUrl}?name=${encodeURIComponent(name)}&type=${type === A ? "A" : "AAAA"}`, {
      headers: { accept: "application/dns-json" },
      signal: AbortSignal.timeout(RESOLVER_TIMEOUT_MS),
    });
    if (!res.ok) throw new ResolverUnavailable(`the resolver answered ${res.status}`);
    answer = (await res.json()) as DohAnswer;
  } catch (error) {
    if (error instanceof ResolverUnavailable) throw error;
    throw new ResolverUnavailable(`the resolver could not be asked: ${(error as Error).message}`);
  }
  if (answer.Status === NXDOMAIN) return null;
  if (answer.Status !== 0 || !Array.isArray(answer.Answer ?? [])) throw new ResolverUnavailable(`the resolver answered status ${answer.Status}`);
  return (answer.Answer ?? []).filter((record) => record.type === type && typeof record.data === "string").map((record) => record.data);
}

/** An address as the URL parser writes a host, so hostKind judges it as it judges a literal. */
function asHost(address: string): string {
  try {
    return new URL(`http://${address.includes(":") ? `[${address}]` : address}/`).hostname;
  } catch {
    return "[::]"; // not an address: judged private, never trusted
  }
}

/**
 * Why the host of `raw` (a URL endpointUrlProblem accepted) may not be sent to, judged by the
 * addresses its name resolves to now: one of them private, link-local, reserved or (unless allowed)
 * loopback; or the name does not exist. Null when every address is public, and for IP literals and
 * `localhost` (endpointUrlProblem judged them). Throws ResolverUnavailable when the resolver
 * cannot answer.
 */
export async function resolvedHostProblem(raw: string, allowHttpLoopback: boolean, resolverUrl: string): Promise<string | null> {
  const host = new URL(raw).hostname.toLowerCase().replace(/\.$/, "");
  if (ipLiteral(host) !== null || isLocalhost(host)) return null;
  const [v4, v6] = await Promise.all([lookUp(resolverUrl, host, A), lookUp(resolverUrl, host, AAAA)]);
  if (v4 === null && v6 === null) return `The host ${host} does not resolve.`;
  const addresses = [...(v4 ?? []), ...(v6 ?? [])];
  if (!addresses.length) return `The host ${host} has no address.`;
  for (const address of addresses) {
    const kind = hostKind(asHost(address));
    if (kind === "private" || (kind === "loopback" && !allowHttpLoopback)) {
      return `The host ${host} resolves to ${address}, a private, loopback, link-local or reserved address.`;
    }
  }
  return null;
}
