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

/** CIDR prefixes as [base address, prefix length] over the 32-bit address. */
const PRIVATE_V4: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8 "this network"
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0xa9fe0000, 16], // 169.254/16 link-local (cloud metadata)
  [0xac100000, 12], // 172.16/12
  [0xc0000000, 24], // 192.0.0/24 IETF protocol assignments
  [0xc0a80000, 16], // 192.168/16
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xe0000000, 3], // 224/4 multicast and 240/4 reserved, 255.255.255.255
];
const LOOPBACK_V4: [number, number] = [0x7f000000, 8];

const inPrefix = (address: number, [base, bits]: [number, number]) => (bits === 0 ? true : address >>> (32 - bits) === base >>> (32 - bits));

function ipv4(host: string): number | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

type HostKind = "public" | "loopback" | "private";

function v4Kind(address: number): HostKind {
  if (inPrefix(address, LOOPBACK_V4)) return "loopback";
  return PRIVATE_V4.some((range) => inPrefix(address, range)) ? "private" : "public";
}

/** The kind of a URL's hostname as the WHATWG parser normalizes it (IPv4 in dotted decimal, IPv6 in brackets, compressed, lowercase). */
export function hostKind(hostname: string): HostKind {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  const v4 = ipv4(host);
  if (v4 !== null) return v4Kind(v4);
  if (!host.startsWith("[")) return "public";
  const v6 = host.slice(1, -1);
  if (v6 === "::1") return "loopback";
  if (v6 === "::") return "private";
  // IPv4-mapped (::ffff:a.b.c.d, which the parser writes as ::ffff:xxxx:xxxx): judged as the IPv4 address.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (mapped) return v4Kind(Number.parseInt(mapped[1]!, 16) * 65536 + Number.parseInt(mapped[2]!, 16));
  // fc00::/7 unique local, fe80::/10 link-local, ff00::/8 multicast, ::/96 IPv4-compatible and 64:ff9b::/96 NAT64.
  if (/^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || v6.startsWith("ff") || /^::[0-9a-f]/.test(v6) || v6.startsWith("64:ff9b:")) return "private";
  return "public";
}

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
  if (host.startsWith("[") || ipv4(host) !== null || host === "localhost" || host.endsWith(".localhost")) return null;
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
