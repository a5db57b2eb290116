/** The host guard's rules, request by request (the e2e suite drives them through both front ends). */
import { describe, expect, it } from 'vitest';
import { createHostGuard, hostName, isLoopbackAddress, type HostPolicy } from '../../src/http/host-check.js';
import type { WireRequest } from '../../src/http/wire.js';

function request(headers: Record<string, string>, peer = '127.0.0.1', local?: string): WireRequest {
  return {
    method: 'GET',
    path: '/',
    query: '',
    headers: Object.assign(Object.create(null) as Record<string, string>, headers),
    contentLengths: 0,
    readBody: () => undefined,
    holdBody: () => undefined,
    remoteAddress: () => peer,
    ...(local ? { localAddress: () => local } : {}),
  };
}

const verdict = (policy: HostPolicy, req: WireRequest): string => createHostGuard(policy)?.(req)?.message ?? 'allowed';

describe('host guard', () => {
  it('reads a Host value as its name: no port, no trailing dot, IPv6 in brackets, lower case', () => {
    expect(hostName('Example.COM:8080')).toBe('example.com');
    expect(hostName('localhost.')).toBe('localhost');
    expect(hostName('[::1]:443')).toBe('[::1]');
    expect(hostName('[::1]')).toBe('[::1]');
    expect(hostName('127.0.0.1')).toBe('127.0.0.1');
  });

  it('knows loopback addresses in every spelling the front ends give', () => {
    for (const address of ['127.0.0.1', '127.9.0.1', '::1', '::ffff:127.0.0.2', '0000:0000:0000:0000:0000:ffff:7f00:0002']) {
      expect(isLoopbackAddress(address), address).toBe(true);
    }
    for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '', 'localhost']) expect(isLoopbackAddress(address), address).toBe(false);
  });

  it('checks nothing when nothing is asked: `any`, or `auto` on a public address, with every peer believed', () => {
    expect(createHostGuard({ allowedHosts: ['any'] })).toBeUndefined();
    expect(createHostGuard({ allowedHosts: ['auto'], listenHost: '0.0.0.0' })).toBeUndefined();
    expect(createHostGuard({ allowedHosts: ['auto'], listenHost: '127.0.0.1' })).toBeDefined();
  });

  it('`auto` on loopback: localhost names and IP literals pass, other names do not; a rebinding page cannot hide behind X-Forwarded-Host', () => {
    const policy: HostPolicy = { allowedHosts: ['auto'], listenHost: '::1' };
    for (const host of ['localhost:1', 'a.localhost', '127.0.0.1:8080', '[::1]:8080', '192.168.1.5']) {
      expect(verdict(policy, request({ host })), host).toBe('allowed');
    }
    expect(verdict(policy, request({ host: 'evil.example', 'x-forwarded-host': 'localhost' }))).toMatch(/SERVICE_ALLOWED_HOSTS/);
    expect(verdict(policy, request({ host: '127.0.0.1.nip.io' }))).toMatch(/not an allowed host/);
    expect(verdict(policy, request({}))).toBe('allowed');
  });

  it('one guard, request after request: a name let through once does not let another through', () => {
    const guard = createHostGuard({ allowedHosts: ['app.example'], trustedProxies: ['loopback'] });
    const seen = ['app.example', 'evil.example', 'app.example', 'app.example'].map(
      (host) => guard?.(request({ host, 'x-forwarded-host': host }))?.message ?? 'allowed',
    );
    expect(seen).toEqual(['allowed', expect.stringMatching(/Host "evil.example"/), 'allowed', 'allowed']);
    const auto = createHostGuard({ allowedHosts: ['auto'], listenHost: '127.0.0.1' });
    const autoSeen = ['localhost', 'evil.example', 'localhost'].map((host) => auto?.(request({ host }))?.message ?? 'allowed');
    expect(autoSeen).toEqual(['allowed', expect.stringMatching(/SERVICE_ALLOWED_HOSTS/), 'allowed']);
  });

  it('`auto` in a mounted handler decides by the local address of each connection', () => {
    const mounted: HostPolicy = { allowedHosts: ['auto'] };
    expect(verdict(mounted, request({ host: 'evil.example' }, '127.0.0.1', '127.0.0.1'))).toMatch(/SERVICE_ALLOWED_HOSTS/);
    expect(verdict(mounted, request({ host: 'agents.example.com' }, '10.0.0.9', '10.0.0.1'))).toBe('allowed');
  });

  it('drops the forwarded headers of a peer that is not a trusted proxy, before anything reads them', () => {
    const guard = createHostGuard({ allowedHosts: ['any'], trustedProxies: ['10.0.0.0/8', '::1'] });
    const direct = request({ host: 'x', 'x-forwarded-host': 'a.example', 'x-forwarded-proto': 'https' }, '192.168.0.1');
    expect(guard?.(direct)).toBeUndefined();
    expect(direct.headers).toEqual({ host: 'x' });
    const proxied = request({ host: 'x', 'x-forwarded-host': 'a.example' }, '::ffff:10.1.2.3');
    guard?.(proxied);
    expect(proxied.headers['x-forwarded-host']).toBe('a.example');
    const none = request({ host: 'x', 'x-forwarded-host': 'a.example' }, '127.0.0.1');
    createHostGuard({ allowedHosts: ['any'], trustedProxies: ['none'] })?.(none);
    expect(none.headers['x-forwarded-host']).toBeUndefined();
  });

  it('a list checks the believed X-Forwarded-Host too, and not one an untrusted peer sent', () => {
    const policy: HostPolicy = { allowedHosts: ['agents.example.com'], trustedProxies: ['loopback'] };
    expect(verdict(policy, request({ host: '127.0.0.1', 'x-forwarded-host': 'evil.example' }))).toMatch(/X-Forwarded-Host "evil.example"/);
    expect(verdict(policy, request({ host: '127.0.0.1', 'x-forwarded-host': 'evil.example' }, '10.0.0.1'))).toBe('allowed');
  });
});
