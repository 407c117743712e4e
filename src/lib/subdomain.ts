/**
 * A tenant's subdomain: one DNS label (RFC 1035: letters, digits and inner dashes, at most 63
 * characters), lowercase, and not all digits (so that an IP address is never read as a tenant).
 * The tenant middleware reads hosts with it and tenant creation refuses other names with it.
 */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isSubdomainLabel(label: string): boolean {
  return LABEL.test(label) && !/^\d+$/.test(label);
}
