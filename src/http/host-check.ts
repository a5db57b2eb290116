/**
 * The host names a request may name, and whose forwarded headers are believed (README "Security
 * notes"). Both run before routing, on both front ends and in mounted handlers:
 *
 * - A peer outside SERVICE_TRUSTED_PROXIES has its `X-Forwarded-Proto`/`X-Forwarded-Host`
 *   dropped, so nothing downstream (the card's URL) reads them.
 * - `Host` (and a believed `X-Forwarded-Host`) must pass SERVICE_ALLOWED_HOSTS. Its default
 *   guards a server on a loopback address against DNS rebinding: a web page whose name has been
 *   pointed at 127.0.0.1 reaches the server as same-origin, but its browser still sends the page's
 *   name as `Host`, so only loopback names and IP literals are let through there.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';
import { a2aError, shown, type A2AError } from '../a2a/errors.js';
import type { WireRequest } from './wire.js';

export interface HostPolicy {
  /** SERVICE_ALLOWED_HOSTS: `['auto']`, `['any']`, or host names (`*.example.com` for subdomains). */
  allowedHosts: readonly string[];
  /** SERVICE_TRUSTED_PROXIES: unset = every peer; `loopback`, `none`, IPs and CIDRs. */
  trustedProxies?: readonly string[] | undefined;
  /**
   * The address the listener is bound to; undefined for a handler mounted in a host app, which
   * cannot know what its app listens on and decides `auto` by each connection's local address.
   */
  listenHost?: string;
}

/** Refuses a request before routing (the error names the setting), or lets it through. */
export type HostGuard = (req: WireRequest) => A2AError | undefined;

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const familyOf = (address: string): 'ipv4' | 'ipv6' => (isIPv4(address) ? 'ipv4' : 'ipv6');

/** Whether an address (IPv4, IPv6, IPv4-mapped IPv6 in any spelling) is a loopback one. */
export const isLoopbackAddress = (address: string): boolean => isIP(address) !== 0 && LOOPBACK.check(address, familyOf(address));

/** A listen host that only loopback clients can reach (`localhost` resolves to one). */
const isLoopbackHost = (host: string): boolean => host === 'localhost' || isLoopbackAddress(host.replace(/^\[|\]$/g, ''));

/** The peers SERVICE_TRUSTED_PROXIES names, as one address set. */
function trustedPeers(entries: readonly string[]): BlockList {
  const peers = new BlockList();
  for (const entry of entries) {
    if (entry === 'none') continue;
    if (entry === 'loopback') {
      peers.addSubnet('127.0.0.0', 8, 'ipv4');
      peers.addAddress('::1', 'ipv6');
      continue;
    }
    const [address = '', prefix] = entry.split('/');
    if (prefix === undefined) peers.addAddress(address, familyOf(address));
    else peers.addSubnet(address, Number(prefix), familyOf(address));
  }
  return peers;
}

/** A `Host` value's name: lower-cased, without port or trailing dot; IPv6 keeps its brackets. */
export function hostName(value: string): string {
  const host = value.trim().toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** A name no DNS answer can move: rebinding needs a name to point elsewhere. */
const isIpLiteral = (name: string): boolean => isIPv4(name) || (name.startsWith('[') && isIP(name.slice(1, -1)) === 6);

/** RFC 6761 §6.3: `localhost` and its subdomains are loopback, and browsers resolve them so. */
const isLocalhostName = (name: string): boolean => name === 'localhost' || name.endsWith('.localhost');

/** Whether `name` is one of the listed names (`*.example.com`: any subdomain of example.com). */
function listed(names: readonly string[], name: string): boolean {
  for (const allowed of names) {
    if (allowed === name) return true;
    if (allowed.startsWith('*.') && name.endsWith(allowed.slice(1))) return true;
  }
  return false;
}

const notAllowed = (header: string, value: string): A2AError =>
  a2aError('forbidden', `the ${header} ${shown(value)} is not an allowed host (SERVICE_ALLOWED_HOSTS)`);

/** The guard for a policy; undefined when it checks nothing (every host, every peer believed). */
export function createHostGuard(policy: HostPolicy): HostGuard | undefined {
  const [first] = policy.allowedHosts;
  const mode = policy.allowedHosts.length === 1 && (first === 'auto' || first === 'any') ? first : 'list';
  const peers = policy.trustedProxies ? trustedPeers(policy.trustedProxies) : undefined;
  // `auto` on a listener that is not on loopback: reachable from elsewhere anyway, nothing to check.
  const loopbackListener = policy.listenHost === undefined ? undefined : isLoopbackHost(policy.listenHost);
  if (!peers && (mode === 'any' || (mode === 'auto' && loopbackListener === false))) return undefined;

  // The last value let through, per header: clients send the same one request after request,
  // and a string compare spares them the parsing.
  let passedHost: string | undefined;
  let passedForwarded: string | undefined;

  /** `auto` guards only `Host`: a page cannot choose it, and it is what a rebinding page sends. */
  const autoRefuses = (req: WireRequest, host: string | undefined): A2AError | undefined => {
    if (host === undefined || host === passedHost) return undefined;
    const onLoopback = loopbackListener ?? isLoopbackAddress(req.localAddress?.() ?? '');
    if (!onLoopback) return undefined;
    const name = hostName(host);
    if (!isLocalhostName(name) && !isIpLiteral(name)) return notAllowed('Host', host);
    passedHost = host;
    return undefined;
  };

  const listRefuses = (value: string | undefined, header: 'Host' | 'X-Forwarded-Host'): A2AError | undefined => {
    if (value === undefined || value === (header === 'Host' ? passedHost : passedForwarded)) return undefined;
    // A proxy that appends to X-Forwarded-Host puts the client's host first, as the card reads it.
    const raw = value.split(',')[0] ?? '';
    const name = hostName(raw);
    if (!isIpLiteral(name) && !listed(policy.allowedHosts, name)) return notAllowed(header, raw.trim());
    if (header === 'Host') passedHost = value;
    else passedForwarded = value;
    return undefined;
  };

  return (req) => {
    const { headers } = req;
    // The request's own headers object (each front end builds a fresh one): dropping the
    // forwarded headers here keeps every later reader from seeing what this peer cannot claim.
    if (peers && !peers.check(req.remoteAddress(), familyOf(req.remoteAddress()))) {
      delete headers['x-forwarded-host'];
      delete headers['x-forwarded-proto'];
    }
    if (mode === 'any') return undefined;
    if (mode === 'auto') return autoRefuses(req, headers.host);
    return listRefuses(headers.host, 'Host') ?? listRefuses(headers['x-forwarded-host'], 'X-Forwarded-Host');
  };
}
