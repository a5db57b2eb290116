/**
 * The webhook address classifier and URL policy, as data. No address in this file is ever
 * contacted: these are strings given to pure functions (and to a lookup with a fake resolver).
 */
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  blockedRangeOf,
  canonicalHost,
  checkResolvedAddresses,
  checkWebhookUrl,
  hostListed,
  isPublicAddress,
  parseIPv6,
  type AddressPolicy,
} from '../../src/push/address-policy.js';
import { guardedLookup, UnsafeWebhookAddressError, type Resolver } from '../../src/push/guarded-lookup.js';

const policy = (over: Partial<AddressPolicy> = {}): AddressPolicy => ({ allowHttp: false, allowedHosts: [], blockedHosts: [], ...over });

describe('IPv4 classification', () => {
  it.each([
    ['0.0.0.0', 'this-network'],
    ['0.255.255.255', 'this-network'],
    ['10.0.0.0', 'private'],
    ['10.1.2.3', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.0', 'shared-address-space'],
    ['100.127.255.255', 'shared-address-space'],
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['172.16.0.0', 'private'],
    ['172.20.10.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'ietf-protocol-assignments'],
    ['192.0.2.1', 'documentation'],
    ['192.168.0.0', 'private'],
    ['192.168.1.1', 'private'],
    ['192.168.255.255', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
  ])('%s is blocked as %s', (address, range) => {
    expect(blockedRangeOf(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
  ])('%s, just outside every blocked range, is public', (address) => {
    expect(blockedRangeOf(address)).toBeUndefined();
  });
});

describe('IPv6 classification', () => {
  it.each([
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'link-local'],
    ['FE80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['fc00::1', 'unique-local'],
    ['fd00::2', 'unique-local'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'not-global-unicast'],
    ['64:ff9b:1::1', 'not-global-unicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'teredo'],
    ['2001:2::1', 'ietf-protocol-assignments'],
  ])('%s is blocked as %s', (address, range) => {
    expect(blockedRangeOf(address)).toBe(range);
  });

  it.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:80b::200e'])('%s (global unicast) is public', (address) => {
    expect(blockedRangeOf(address)).toBeUndefined();
  });

  // Every blocked IPv4 range, reached through each IPv6 form that embeds an IPv4 address.
  const embeddedSamples: [string, string][] = [
    ['0.0.0.0', 'this-network'],
    ['10.0.0.1', 'private'],
    ['100.64.0.1', 'shared-address-space'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
  ];
  const hex = (v4: string) => {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
    return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  };
  it.each(embeddedSamples)('IPv4-mapped ::ffff:%s is blocked, dotted and hex', (v4, range) => {
    const [hi, lo] = hex(v4);
    expect(blockedRangeOf(`::ffff:${v4}`)).toBe(`ipv4-mapped ${range}`);
    expect(blockedRangeOf(`::ffff:${hi}:${lo}`)).toBe(`ipv4-mapped ${range}`);
    expect(blockedRangeOf(`0:0:0:0:0:ffff:${v4}`)).toBe(`ipv4-mapped ${range}`);
  });
  it.each(embeddedSamples.filter(([v4]) => v4 !== '0.0.0.0'))('IPv4-compatible ::%s is blocked', (v4, range) => {
    expect(blockedRangeOf(`::${v4}`)).toBe(`ipv4-compatible ${range}`);
  });
  it.each(embeddedSamples)('IPv4-translated, NAT64 and 6to4 forms of %s are blocked', (v4, range) => {
    const [hi, lo] = hex(v4);
    expect(blockedRangeOf(`::ffff:0:${v4}`)).toBe(`ipv4-translated ${range}`);
    expect(blockedRangeOf(`64:ff9b::${v4}`)).toBe(`nat64 ${range}`);
    expect(blockedRangeOf(`2002:${hi}:${lo}::1`)).toBe(`6to4 ${range}`);
  });

  it('a public IPv4 address stays public when mapped, behind NAT64 or in 6to4', () => {
    expect(blockedRangeOf('::ffff:8.8.8.8')).toBeUndefined();
    expect(blockedRangeOf('64:ff9b::8.8.8.8')).toBeUndefined();
    expect(blockedRangeOf('2002:808:808::1')).toBeUndefined();
  });

  it('the deprecated compatible and translated forms are never public', () => {
    expect(blockedRangeOf('::8.8.8.8')).toBe('ipv4-compatible');
    expect(blockedRangeOf('::ffff:0:8.8.8.8')).toBe('ipv4-translated');
  });

  it('parses every spelling to eight groups', () => {
    expect(parseIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6('[2001:db8::8:800:200c:417a]')).toEqual([0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a]);
    expect(parseIPv6('fe80::1%lo')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('1.2.3.4')).toBeUndefined();
    expect(parseIPv6('1:2:3')).toBeUndefined();
  });
});

describe('text that is not an IP address fails closed', () => {
  it.each(['', 'localhost', 'example.com', '1.2.3', '256.1.1.1', '::gggg', '1.2.3.4.5'])('%j is refused', (text) => {
    expect(blockedRangeOf(text)).toBe('not-an-ip-address');
  });
});

describe('host lists', () => {
  it('match one host however it is spelled', () => {
    expect(canonicalHost('[::1]')).toBe(canonicalHost('0:0:0:0:0:0:0:1'));
    expect(hostListed('[::1]', ['::1'])).toBe(true);
    expect(hostListed('LOCALHOST.', ['localhost'])).toBe(true);
    expect(hostListed('::ffff:7f00:1', ['127.0.0.1'])).toBe(true);
    expect(hostListed('127.0.0.2', ['127.0.0.1'])).toBe(false);
  });

  it('a *. entry covers subdomains only', () => {
    expect(hostListed('hooks.example.com', ['*.example.com'])).toBe(true);
    expect(hostListed('a.b.example.com', ['*.example.com'])).toBe(true);
    expect(hostListed('example.com', ['*.example.com'])).toBe(false);
    expect(hostListed('badexample.com', ['*.example.com'])).toBe(false);
  });
});

describe('checkWebhookUrl', () => {
  it('accepts https to a host name or a public literal', () => {
    expect(checkWebhookUrl('https://hooks.example.com/a2a', policy())).toMatchObject({
      ok: true,
      host: 'hooks.example.com',
      allowlisted: false,
    });
    expect(checkWebhookUrl('https://8.8.8.8/hook', policy())).toMatchObject({ ok: true });
  });

  it('refuses http unless push_allow_http, and every other scheme', () => {
    expect(checkWebhookUrl('http://hooks.example.com/', policy())).toEqual({ ok: false, reason: 'http-not-allowed' });
    expect(checkWebhookUrl('http://hooks.example.com/', policy({ allowHttp: true }))).toMatchObject({ ok: true });
    expect(checkWebhookUrl('ftp://hooks.example.com/', policy({ allowHttp: true }))).toEqual({ ok: false, reason: 'unsupported-scheme' });
    expect(checkWebhookUrl('file:///etc/passwd', policy({ allowHttp: true }))).toEqual({ ok: false, reason: 'unsupported-scheme' });
    expect(checkWebhookUrl('not a url', policy())).toEqual({ ok: false, reason: 'malformed-url' });
  });

  it.each([
    ['https://127.0.0.1/', 'loopback'],
    ['https://[::1]/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'ipv4-mapped loopback'],
    ['https://[::ffff:169.254.169.254]/', 'ipv4-mapped link-local'],
    ['https://2130706433/', 'loopback'],
    ['https://0x7f.1/', 'loopback'],
    ['https://0/', 'this-network'],
    ['https://10.0.0.1/', 'private'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[fd00::1]/', 'unique-local'],
  ])('refuses the literal in %s (%s), however it is written', (url, range) => {
    expect(checkWebhookUrl(url, policy())).toEqual({ ok: false, reason: `blocked-address: ${range}` });
  });

  it('an allowlisted host skips the private-address check; the blocklist always applies', () => {
    expect(checkWebhookUrl('http://127.0.0.1:9/hook', policy({ allowHttp: true, allowedHosts: ['127.0.0.1'] }))).toMatchObject({
      ok: true,
      allowlisted: true,
    });
    expect(checkWebhookUrl('https://127.0.0.2/', policy({ allowedHosts: ['127.0.0.1'] }))).toMatchObject({ ok: false });
    expect(checkWebhookUrl('https://127.0.0.1/', policy({ allowedHosts: ['127.0.0.1'], blockedHosts: ['127.0.0.1'] }))).toEqual({
      ok: false,
      reason: 'blocked-host',
    });
    expect(checkWebhookUrl('https://Hooks.Example.com./x', policy({ blockedHosts: ['hooks.example.com'] }))).toEqual({
      ok: false,
      reason: 'blocked-host',
    });
  });
});

describe('checkResolvedAddresses', () => {
  it('one non-public address among public ones refuses the host', () => {
    expect(checkResolvedAddresses('hooks.example.com', ['8.8.8.8'], policy())).toBeUndefined();
    expect(checkResolvedAddresses('hooks.example.com', ['8.8.8.8', '10.0.0.1'], policy())).toBe('blocked-address: private');
    expect(checkResolvedAddresses('hooks.example.com', ['2606:4700:4700::1111', '::1'], policy())).toBe('blocked-address: loopback');
    expect(checkResolvedAddresses('hooks.example.com', [], policy())).toBe('no-address');
  });

  it('an allowlisted host may resolve to private addresses, but never to a blocklisted one', () => {
    const p = policy({ allowedHosts: ['hooks.internal'], blockedHosts: ['169.254.169.254'] });
    expect(checkResolvedAddresses('hooks.internal', ['10.0.0.7'], p)).toBeUndefined();
    expect(checkResolvedAddresses('hooks.internal', ['10.0.0.7', '169.254.169.254'], p)).toBe('blocked-host');
  });
});

describe('guardedLookup (with a fake resolver: nothing is resolved or contacted)', () => {
  type LookupResult = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number | undefined };
  const run = (p: AddressPolicy, resolver: Resolver, host: string, all: boolean) =>
    new Promise<LookupResult>((resolve) => {
      guardedLookup(p, resolver)(host, { all }, (err, address, family) => resolve({ err, address, family }));
    });
  const answers = (...lists: LookupAddress[][]) => {
    const calls: string[] = [];
    const resolver: Resolver = async (host) => {
      calls.push(host);
      return lists[Math.min(calls.length - 1, lists.length - 1)] ?? [];
    };
    return { resolver, calls };
  };

  it('hands the socket exactly the addresses it checked', async () => {
    const { resolver, calls } = answers([
      { address: '8.8.8.8', family: 4 },
      { address: '2001:4860:4860::8888', family: 6 },
    ]);
    const all = await run(policy(), resolver, 'hooks.example.com', true);
    expect(all.err).toBeNull();
    expect(all.address).toEqual([
      { address: '8.8.8.8', family: 4 },
      { address: '2001:4860:4860::8888', family: 6 },
    ]);
    const one = await run(policy(), resolver, 'hooks.example.com', false);
    expect(one).toEqual({ err: null, address: '8.8.8.8', family: 4 });
    expect(calls).toEqual(['hooks.example.com', 'hooks.example.com']);
  });

  it('refuses a host when any resolved address is private (no rebinding through a second answer)', async () => {
    const { resolver, calls } = answers(
      [
        { address: '8.8.8.8', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
      [{ address: '8.8.8.8', family: 4 }],
    );
    const r = await run(policy(), resolver, 'rebind.example.com', true);
    expect(r.err).toBeInstanceOf(UnsafeWebhookAddressError);
    expect((r.err as UnsafeWebhookAddressError).reason).toBe('blocked-address: loopback');
    // One resolution per connection: the socket never asks again after the check.
    expect(calls).toHaveLength(1);
  });

  it('refuses a blocklisted host without resolving it, and lets an allowlisted one reach loopback', async () => {
    const { resolver, calls } = answers([{ address: '127.0.0.1', family: 4 }]);
    const blocked = await run(policy({ blockedHosts: ['evil.example.com'] }), resolver, 'evil.example.com', true);
    expect((blocked.err as UnsafeWebhookAddressError).reason).toBe('blocked-host');
    expect(calls).toHaveLength(0);
    const allowed = await run(policy({ allowedHosts: ['localhost'] }), resolver, 'localhost', true);
    expect(allowed).toMatchObject({ err: null, address: [{ address: '127.0.0.1', family: 4 }] });
  });

  it('passes resolver errors on as network errors', async () => {
    const resolver: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    const r = await run(policy(), resolver, 'nowhere.invalid', true);
    expect(r.err?.code).toBe('ENOTFOUND');
  });
});
