/**
 * The DNS lookup the webhook client's sockets use (undici `connect.lookup`, passed on to
 * `net.connect`). It resolves the host once, checks every address it got, and hands exactly
 * those addresses to the socket: the connection goes to what was checked, so a second,
 * different DNS answer (rebinding) never reaches a socket.
 *
 * IP literals never come through a lookup (net connects to them directly); checkWebhookUrl
 * judges those before the request.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { checkResolvedAddresses, hostListed, type AddressPolicy } from './address-policy.js';

/** Resolves a host to all its addresses (dns.lookup with `all: true` unless a test gives another). */
export type Resolver = (hostname: string, options: { family?: number; hints?: number }) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname, options) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

/** A webhook address the policy refuses. Its `code` lets the client tell it from network errors. */
export class UnsafeWebhookAddressError extends Error {
  readonly code = 'ERR_PUSH_UNSAFE_ADDRESS';
  constructor(readonly reason: string) {
    super(`webhook address refused: ${reason}`);
  }
}

export function guardedLookup(policy: AddressPolicy, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    if (hostListed(hostname, policy.blockedHosts)) {
      callback(new UnsafeWebhookAddressError('blocked-host'), '');
      return;
    }
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family || undefined;
    resolve(hostname, { ...(family ? { family } : {}), ...(options.hints !== undefined ? { hints: options.hints } : {}) }).then(
      (addresses) => {
        const refused = checkResolvedAddresses(
          hostname,
          addresses.map((a) => a.address),
          policy,
        );
        if (refused) return callback(new UnsafeWebhookAddressError(refused), '');
        // `all` is set when the socket tries several addresses (autoSelectFamily): give it every checked one.
        if (options.all) return callback(null, addresses);
        const first = addresses[0] as LookupAddress;
        return callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
