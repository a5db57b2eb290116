/**
 * Webhook URL safety (spec "Limits", webhook URL rules; architecture "webhook allowlist"), as
 * pure functions over data: no DNS, no sockets. The delivery side calls `checkWebhookUrl` before
 * a request and `checkResolvedAddresses` from its DNS lookup, so every address a connection can
 * reach has passed through here.
 *
 * "Public" is decided positively: an IPv4 address outside every special-purpose block, or an
 * IPv6 address in global unicast (2000::/3) outside the special blocks. Forms that embed an
 * IPv4 address (mapped, compatible, translated, NAT64, 6to4) are judged by the embedded
 * address, so ::ffff:127.0.0.1 is as blocked as 127.0.0.1.
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Settings } from '../config.js';

export interface AddressPolicy {
  /** `push_allow_http`: plain http is for development only. */
  readonly allowHttp: boolean;
  /** Hosts the operator vouched for: they skip the private-address check. */
  readonly allowedHosts: readonly string[];
  /** Hosts (or addresses) never called, allowlisted or not. */
  readonly blockedHosts: readonly string[];
}

export const policyFromSettings = (settings: Pick<Settings, 'pushAllowHttp' | 'pushAllowedHosts' | 'pushBlockedHosts'>): AddressPolicy => ({
  allowHttp: settings.pushAllowHttp,
  allowedHosts: settings.pushAllowedHosts,
  blockedHosts: settings.pushBlockedHosts,
});

// ------------------------------------------------------------------ IPv4

/** Special-purpose IPv4 blocks (IANA registry, RFC 6890): none of them is a public webhook. */
const V4_BLOCKED: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared-address-space'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'ietf-protocol-assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  // 240/4 includes the limited broadcast address 255.255.255.255.
  ['240.0.0.0', 4, 'reserved'],
];

/** Dotted-decimal IPv4 as an unsigned 32-bit number; undefined for anything else. */
export function parseIPv4(text: string): number | undefined {
  if (!isIPv4(text)) return undefined;
  return text.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

const v4Blocks = V4_BLOCKED.map(([base, bits, name]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { net: ((parseIPv4(base) as number) & mask) >>> 0, mask, name };
});

function blockedV4(n: number): string | undefined {
  return v4Blocks.find((b) => (n & b.mask) >>> 0 === b.net)?.name;
}

const v4Text = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 0xff).join('.');

// ------------------------------------------------------------------ IPv6

/** An IPv6 address as eight 16-bit groups; accepts `::`, a dotted IPv4 tail, brackets and a zone id. */
export function parseIPv6(text: string): number[] | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!isIPv6(bare)) return undefined;
  let body = bare.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (tail) {
    const v4 = parseIPv4(tail[1] as string) as number;
    body = `${body.slice(0, -(tail[1] as string).length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = body.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const fill = rest === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(fill).fill('0'), ...right].map((g) => parseInt(g, 16));
  return groups.length === 8 ? groups : undefined;
}

const g = (groups: readonly number[], i: number): number => groups[i] ?? 0;
const zeroUpTo = (groups: readonly number[], end: number): boolean => groups.slice(0, end).every((x) => x === 0);
const v4At = (groups: readonly number[], i: number): number => ((g(groups, i) << 16) >>> 0) + g(groups, i + 1);

/** The IPv4 address an IPv6 form carries, and the name of that form. */
function embeddedV4(groups: readonly number[]): { form: string; v4: number } | undefined {
  if (zeroUpTo(groups, 5) && g(groups, 5) === 0xffff) return { form: 'ipv4-mapped', v4: v4At(groups, 6) };
  if (zeroUpTo(groups, 4) && g(groups, 4) === 0xffff && g(groups, 5) === 0) return { form: 'ipv4-translated', v4: v4At(groups, 6) };
  if (zeroUpTo(groups, 6)) return { form: 'ipv4-compatible', v4: v4At(groups, 6) };
  if (g(groups, 0) === 0x64 && g(groups, 1) === 0xff9b && zeroUpTo(groups.slice(2), 4)) return { form: 'nat64', v4: v4At(groups, 6) };
  if (g(groups, 0) === 0x2002) return { form: '6to4', v4: v4At(groups, 1) };
  return undefined;
}

/** Blocks inside 2000::/3 that are still not public (IANA IPv6 special-purpose registry). */
function blockedGlobalV6(groups: readonly number[]): string | undefined {
  const [a = 0, b = 0] = groups;
  if (a === 0x2001 && b === 0x0db8) return 'documentation';
  if (a === 0x2001 && b === 0) return 'teredo';
  if (a === 0x2001 && b < 0x0200) return 'ietf-protocol-assignments';
  if (a === 0x3fff && b < 0x1000) return 'documentation';
  return undefined;
}

function blockedV6(groups: readonly number[]): string | undefined {
  if (zeroUpTo(groups, 8)) return 'unspecified';
  if (zeroUpTo(groups, 7) && g(groups, 7) === 1) return 'loopback';
  const embedded = embeddedV4(groups);
  if (embedded) {
    const inner = blockedV4(embedded.v4);
    if (inner) return `${embedded.form} ${inner}`;
    // Mapped (a dual-stack socket's view of IPv4), NAT64 and 6to4 reach the embedded public
    // address; compatible and translated forms are deprecated and never a real route.
    if (embedded.form === 'ipv4-compatible' || embedded.form === 'ipv4-translated') return embedded.form;
    return undefined;
  }
  const first = g(groups, 0);
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xffc0) === 0xfec0) return 'site-local';
  if ((first & 0xfe00) === 0xfc00) return 'unique-local';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  if ((first & 0xe000) !== 0x2000) return 'not-global-unicast';
  return blockedGlobalV6(groups);
}

/**
 * Why an IP address may not receive webhooks (the name of its range), or undefined when it is
 * public. Text that is not an IP address is refused as `not-an-ip-address` (fail closed).
 */
export function blockedRangeOf(address: string): string | undefined {
  const v4 = parseIPv4(address);
  if (v4 !== undefined) return blockedV4(v4);
  const v6 = parseIPv6(address);
  if (v6 !== undefined) return blockedV6(v6);
  return 'not-an-ip-address';
}

export const isPublicAddress = (address: string): boolean => blockedRangeOf(address) === undefined;

// ------------------------------------------------------------------ host lists

/**
 * One spelling per host, so lists cannot be dodged: lower case, no brackets, no trailing dot;
 * IPv6 fully expanded, and an IPv4-mapped IPv6 address written as its IPv4 address.
 */
export function canonicalHost(host: string): string {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  const v6 = parseIPv6(h);
  if (!v6) return h;
  const embedded = embeddedV4(v6);
  if (embedded?.form === 'ipv4-mapped') return v4Text(embedded.v4);
  return v6.map((x) => x.toString(16)).join(':');
}

/** An entry matches its host exactly; `*.example.com` matches every subdomain of example.com. */
export function hostListed(host: string, list: readonly string[]): boolean {
  const h = canonicalHost(host);
  return list.some((entry) => {
    const e = entry.trim().toLowerCase();
    if (e.startsWith('*.')) return h.endsWith(e.slice(1));
    return e !== '' && canonicalHost(e) === h;
  });
}

// ------------------------------------------------------------------ verdicts

export type UrlVerdict = { ok: true; url: URL; host: string; allowlisted: boolean } | { ok: false; reason: string };

/**
 * Everything that can be decided from the URL alone: scheme, host lists, and the range of an
 * IP literal (a literal is never looked up, so this is its only check). Host names are checked
 * again, address by address, when they are resolved.
 */
export function checkWebhookUrl(raw: string, policy: AddressPolicy): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'malformed-url' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    return { ok: false, reason: url.protocol === 'http:' ? 'http-not-allowed' : 'unsupported-scheme' };
  }
  const host = url.hostname;
  if (host === '') return { ok: false, reason: 'no-host' };
  if (hostListed(host, policy.blockedHosts)) return { ok: false, reason: 'blocked-host' };
  const allowlisted = hostListed(host, policy.allowedHosts);
  const literal = parseIPv4(host) !== undefined || parseIPv6(host) !== undefined;
  if (literal && !allowlisted) {
    const range = blockedRangeOf(host);
    if (range) return { ok: false, reason: `blocked-address: ${range}` };
  }
  return { ok: true, url, host, allowlisted };
}

/**
 * The verdict on what a host name resolved to: refused when there is no address, when any
 * address is on the blocklist, or (unless the host is allowlisted) when any is not public. One
 * bad address refuses them all, so a resolver cannot slip a private address in beside a public one.
 */
export function checkResolvedAddresses(host: string, addresses: readonly string[], policy: AddressPolicy): string | undefined {
  if (addresses.length === 0) return 'no-address';
  for (const address of addresses) {
    if (hostListed(address, policy.blockedHosts)) return 'blocked-host';
  }
  if (hostListed(host, policy.allowedHosts)) return undefined;
  for (const address of addresses) {
    const range = blockedRangeOf(address);
    if (range) return `blocked-address: ${range}`;
  }
  return undefined;
}
