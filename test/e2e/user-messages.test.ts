/**
 * What a user reads when a setting is wrong: durations take units (a bare number stays seconds),
 * and a value outside a fixed set is answered with the values that are accepted, by the flag or
 * the variable that set it.
 */
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/config.js';
import { runCli, spawnServer } from '../support/process.js';

describe('messages about settings', () => {
  it('a duration takes ms, s, m or h, and a bare number is seconds as before', () => {
    const settings = resolveSettings(
      {},
      {
        SERVICE_SHUTDOWN_GRACE: '10s',
        SERVICE_PUSH_TIMEOUT: '500ms',
        SERVICE_EVENT_RETENTION: '2m',
        SERVICE_PUSH_IDLE_TIMEOUT: '1h',
        SERVICE_LEASE_TTL: '15',
        SERVICE_PROGRESS_FLUSH_INTERVAL: '0.5',
        SERVICE_CANCEL_GRACE: '1.5 s',
      },
    );
    expect(settings).toMatchObject({
      shutdownGrace: 10,
      pushTimeout: 0.5,
      eventRetention: 120,
      pushIdleTimeout: 3600,
      leaseTtl: 15,
      progressFlushInterval: 0.5,
      cancelGrace: 1.5,
    });
    expect(resolveSettings({ shutdownGrace: '250ms', blockingTimeout: 5 }, {})).toMatchObject({ shutdownGrace: 0.25, blockingTimeout: 5 });
    expect(() => resolveSettings({}, { SERVICE_BLOCKING_TIMEOUT: '0s' })).toThrow(/SERVICE_BLOCKING_TIMEOUT: Too small/);
  });

  it('SERVICE_SHUTDOWN_GRACE=10s serves, and the shutdown line says the grace', async () => {
    const server = await spawnServer(['examples/echo-agent.ts', '--store', 'memory'], { SERVICE_SHUTDOWN_GRACE: '10s' });
    let out = '';
    server.child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    // Sent as soon as the start line is seen: the handlers are in place by then.
    expect(await server.kill('SIGTERM')).toBe(0);
    expect(out).toMatch(/running tasks get 10 s to finish/);
  });

  it('a duration that is not one names the units, never NaN', async () => {
    const run = await runCli(['serve', 'examples/echo-agent.ts', '--store', 'memory'], { SERVICE_SHUTDOWN_GRACE: '10 seconds' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /SERVICE_SHUTDOWN_GRACE: use seconds \(10, 0\.5\) or a number with ms, s, m or h \(500ms, 10s, 2m, 1h\), not "10 seconds"/,
    );
    expect(run.stderr).not.toMatch(/NaN/);
  });

  it('--store foo lists the stores, before the agent is loaded', async () => {
    const run = await runCli(['serve', 'no-such-agent.ts', '--store', 'foo']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /--store: use memory, memory-plain, sqlite:<path> \(or a path ending in \.db or \.sqlite\), or postgres:\/\//,
    );
  });

  it.each([
    ['SERVICE_HEAP_GROWTH_PERCENT', 'lots', /use auto, 0 \(V8's own\) or 10-300/],
    ['SERVICE_METRICS', 'maybe', /use true or false/],
    ['SERVICE_DEBUG', 'maybe', /use true or false \(or 1\/0, yes\/no, on\/off\), not "maybe"/],
    ['SERVICE_FRONT_END', 'apache', /Invalid option: expected one of "auto"\|"uws"\|"node"\|"node-http"\|"none"/],
    ['SERVICE_MAX_BODY_BYTES', '10MB', /must be a whole number/],
  ])('%s=%s names what is accepted', async (name, value, message) => {
    const run = await runCli(['serve', 'examples/echo-agent.ts', '--store', 'memory'], { [name]: value });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`${name}: ${message.source}`));
    expect(run.stderr).not.toMatch(/Invalid input|NaN/);
  });
});
