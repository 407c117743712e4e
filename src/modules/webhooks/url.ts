/**
 * Which endpoint URLs a webhook may be sent to (SSRF, docs/webhooks.md): https:// to a host that is
 * not an IP literal of a private, loopback, link-local or otherwise non-public range, nor
 * `localhost`. With WEBHOOKS_ALLOW_HTTP_LOOPBACK (development) loopback is allowed, over http too.
 *
 * A Worker cannot resolve DNS before fetch, so a public name that resolves to a private address is
 * not caught here; Cloudflare's fetch does not reach the account's private network, and redirects
 * are never followed (jobs/webhooks.ts), which limits what such a name can reach.
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
