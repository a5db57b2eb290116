/**
 * Prometheus metrics at GET /metrics (issue #16): a scripted workload against a real server
 * (SQLite store, a real webhook receiver on 127.0.0.1), then the exact numbers the scrape must
 * show; the exposition passes `promtool check metrics`; the endpoint is off with
 * SERVICE_METRICS=false, on a port of its own with SERVICE_METRICS_PORT, and public with auth on.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth } from '../../src/index.js';
import scenarioAgent from '../../examples/scenario-agent.js';
import { client, eventually, rpcCall, userMessage } from '../support/a2a.js';
import { startServer, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

const PROMTOOL = '/usr/bin/promtool';
/** Lint remarks about prom-client's own default metric names (not ours, not a parse error). */
const PROM_CLIENT_LINT = /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

/** One sample's value from an exposition, by its name and exact label text; undefined when absent. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const prefix = `${name}${labels ? `{${labels}}` : ''} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

const scrape = async (url: string): Promise<{ status: number; type: string | null; text: string }> => {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

/** promtool with `args`, `stdin` on its standard input: its exit code and what it said. */
function promtoolRun(args: string[], stdin = ''): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(stdin);
  });
}

/** `promtool check metrics` on the text. */
const promtoolCheck = (text: string) => promtoolRun(['check', 'metrics'], text);

describe('metrics after a scripted workload (SQLite store, webhooks to 127.0.0.1)', () => {
  let server: TestServer;
  let rx: Receiver;
  let text: string;
  let streamEvents = 0;

  beforeAll(async () => {
    rx = await startReceiver();
    server = await startServer({ storeKind: 'sqlite', pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] });
    const rpc = client(server.url, 'jsonrpc');
    const rest = client(server.url, 'rest');
    for (let i = 0; i < 3; i++) expect((await rpc.send({ message: userMessage(`echo rpc ${i}`) })).result.status.state).toBe('completed');
    for (let i = 0; i < 2; i++) expect((await rest.send({ message: userMessage(`echo rest ${i}`) })).result.status.state).toBe('completed');
    expect((await rpc.get('no-such-task')).error?.code).toBe(-32001);
    expect((await rpcCall(server.url, 'no/such/method', {})).error?.code).toBe(-32601);
    expect((await fetch(`${server.url}/.well-known/agent-card.json`)).status).toBe(200);

    const stream = await openSse(server.url, {
      body: { jsonrpc: '2.0', id: 'stream-1', method: 'message/stream', params: { message: userMessage('stream 3') } },
    });
    streamEvents = (await stream.events).length;

    const asked = await rpc.send({ message: userMessage('ask your name') });
    expect(asked.result.status.state).toBe('input-required');
    const answered = await rpc.send({ message: userMessage('Ada', { taskId: asked.result.id, contextId: asked.result.contextId }) });
    expect(answered.result.status.state).toBe('completed');

    const slow = await rpc.send({ message: userMessage('slow 5000'), configuration: { blocking: false } });
    expect((await rpc.cancel(slow.result.id)).result.status.state).toBe('canceled');

    const pushed = await rpc.send({ message: userMessage('echo push'), configuration: { pushNotificationConfig: { url: rx.url } } });
    expect(pushed.result.status.state).toBe('completed');
    await eventually(() => (rx.bodiesOf(pushed.result.id).some((b) => b.status.state === 'completed') ? true : undefined));
    // Nothing left running: the gauges read 0 only once every turn and delivery has ended.
    await eventually(() => {
      const s = server.stats();
      return s.liveTasks === 0 && s.runningActors === 0 && s.openStreams === 0 && s.push.queued === 0 && s.push.inFlight === 0
        ? true
        : undefined;
    });
    const got = await scrape(`${server.url}/metrics`);
    expect(got.status).toBe(200);
    expect(got.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    text = got.text;
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
  });

  it('counts every request by transport, operation and outcome, with a latency histogram each', () => {
    const requests = (labels: string) => sample(text, 'a2actor_requests_total', labels);
    const latencyCount = (labels: string) => sample(text, 'a2actor_request_duration_seconds_count', labels);
    // 3 echo, ask, its follow-up, slow, push.
    expect(requests('transport="jsonrpc",operation="message/send",outcome="ok"')).toBe(7);
    expect(requests('transport="rest",operation="message/send",outcome="ok"')).toBe(2);
    expect(requests('transport="jsonrpc",operation="tasks/get",outcome="-32001"')).toBe(1);
    expect(requests('transport="jsonrpc",operation="tasks/get",outcome="ok"')).toBe(0);
    expect(requests('transport="jsonrpc",operation="unknown",outcome="-32601"')).toBe(1);
    expect(requests('transport="jsonrpc",operation="message/stream",outcome="ok"')).toBe(1);
    expect(requests('transport="jsonrpc",operation="tasks/cancel",outcome="ok"')).toBe(1);
    expect(requests('transport="card",operation="agent/card",outcome="ok"')).toBe(1);
    expect(latencyCount('transport="jsonrpc",operation="message/send"')).toBe(7);
    expect(latencyCount('transport="rest",operation="message/send"')).toBe(2);
    expect(latencyCount('transport="jsonrpc",operation="tasks/get"')).toBe(1);
    expect(latencyCount('transport="jsonrpc",operation="unknown"')).toBe(1);
    expect(sample(text, 'a2actor_request_duration_seconds_bucket', 'transport="rest",operation="message/send",le="+Inf"')).toBe(2);
    // The invented method name is never a label value.
    expect(text).not.toContain('no/such/method');
  });

  it('counts task transitions by state and turns, and the live gauges are back to 0', () => {
    const entered = (state: string) => sample(text, 'a2actor_task_transitions_total', `state="${state}"`);
    // 7 one-turn tasks (3+2 echo, the stream, the push), the ask, the canceled slow task.
    expect(entered('submitted')).toBe(9);
    // The ask's follow-up is a second turn in `working`.
    expect(entered('working')).toBe(10);
    expect(entered('completed')).toBe(8);
    expect(entered('input-required')).toBe(1);
    expect(entered('canceled')).toBe(1);
    expect(entered('failed')).toBe(0);
    expect(sample(text, 'a2actor_task_turn_duration_seconds_count')).toBe(10);
    expect(sample(text, 'a2actor_tasks_live')).toBe(0);
    expect(sample(text, 'a2actor_actors_running')).toBe(0);
  });

  it('counts SSE events written and shows no stream open after the work', () => {
    expect(streamEvents).toBeGreaterThanOrEqual(4);
    expect(sample(text, 'a2actor_sse_events_total')).toBe(streamEvents);
    expect(sample(text, 'a2actor_sse_streams_open')).toBe(0);
    expect(sample(text, 'a2actor_sse_streams_cut_total')).toBe(0);
  });

  it('counts webhook deliveries and their attempts; nothing in flight or queued after', () => {
    const delivered = rx.received.length;
    // The push task's transitions after the inline config was stored: working, completed.
    expect(delivered).toBe(2);
    expect(sample(text, 'a2actor_push_deliveries_total', 'outcome="delivered"')).toBe(delivered);
    expect(sample(text, 'a2actor_push_deliveries_total', 'outcome="retried"')).toBe(0);
    expect(sample(text, 'a2actor_push_deliveries_total', 'outcome="failed"')).toBe(0);
    expect(sample(text, 'a2actor_push_attempt_duration_seconds_count')).toBe(delivered);
    expect(sample(text, 'a2actor_push_in_flight')).toBe(0);
    expect(sample(text, 'a2actor_push_queued')).toBe(0);
  });

  it('times SQLite store operations and reports the backends ready', () => {
    const count = (op: string) => sample(text, 'a2actor_store_operation_duration_seconds_count', `store="sqlite",operation="${op}"`) ?? 0;
    // Every turn's end is written: 10 turns at least (progress flushes may add some).
    expect(count('saveTask')).toBeGreaterThanOrEqual(10);
    expect(count('getTask')).toBeGreaterThanOrEqual(1);
    expect(count('tasksInStates')).toBe(1);
    expect(text).not.toContain('store="memory"');
    expect(sample(text, 'a2actor_backend_ready', 'backend="store"')).toBe(1);
    expect(sample(text, 'a2actor_backend_ready', 'backend="events"')).toBe(1);
  });

  it("includes the process's CPU, event loop and heap metrics", () => {
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it('passes promtool check metrics', async () => {
    if (!existsSync(PROMTOOL)) {
      if (process.env.CI) throw new Error(`${PROMTOOL} is missing: install Debian's prometheus package`);
      console.log(`promtool check skipped: ${PROMTOOL} is missing (Debian package "prometheus")`);
      return;
    }
    const { code, output } = await promtoolCheck(text);
    // prom-client's defaults name three gauges `nodejs_active_*_total`, which the linter flags
    // (it says nothing else only once the whole text parsed). Ours must draw no remark at all.
    const remarks = output.split('\n').filter((l) => l && !PROM_CLIENT_LINT.test(l));
    expect(remarks).toEqual([]);
    if (output === '') expect(code).toBe(0);
  });

  it('every query of the Grafana dashboard (docs/) is valid PromQL over families this server exposes', async () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(queries.length).toBeGreaterThan(10);
    // Families are named by their `# TYPE` lines, so the ones with no sample yet here (the
    // replicas' lease and event-log families) count too; a histogram's series add a suffix.
    const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    for (const query of queries) {
      for (const name of query.match(/\b(?:a2actor|process|nodejs)_[a-z0-9_]+/g) ?? []) {
        const family = families.has(name) ? name : name.replace(/_(bucket|count|sum)$/, '');
        expect(families, `${name} in ${query}`).toContain(family);
      }
    }
    if (!existsSync(PROMTOOL)) {
      if (process.env.CI) throw new Error(`${PROMTOOL} is missing: install Debian's prometheus package`);
      console.log(`promtool check skipped: ${PROMTOOL} is missing (Debian package "prometheus")`);
      return;
    }
    // Each query as a recording rule: `promtool check rules` parses every expression.
    const dir = mkdtempSync(join(tmpdir(), 'a2actor-grafana-'));
    try {
      // Grafana fills in its range variables before Prometheus sees a query.
      const promql = (q: string) => q.replaceAll('$__rate_interval', '1m').replaceAll('$__interval', '1m').replaceAll('$__range', '1h');
      const rules = queries.map((q, i) => `      - record: dashboard_query_${i}\n        expr: ${JSON.stringify(promql(q))}`).join('\n');
      writeFileSync(join(dir, 'rules.yml'), `groups:\n  - name: dashboard\n    rules:\n${rules}\n`);
      const { code, output } = await promtoolRun(['check', 'rules', join(dir, 'rules.yml')]);
      expect(output).toContain(`SUCCESS: ${queries.length} rules found`);
      expect(code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('where /metrics is served', () => {
  it('SERVICE_METRICS=false: no /metrics (404)', async () => {
    const server = await startServer({ env: { SERVICE_METRICS: 'false' } });
    try {
      expect(server.metricsUrl).toBeUndefined();
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('SERVICE_METRICS_PORT: its own listener serves /metrics, the A2A port does not', async () => {
    const server = await startServer({ env: { SERVICE_METRICS_PORT: '0' } });
    try {
      expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const own = await scrape(server.metricsUrl ?? '');
      expect(own.status).toBe(200);
      expect(own.text).toContain('# TYPE a2actor_requests_total counter');
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
      expect((await fetch((server.metricsUrl ?? '').replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it('createServer({ metrics: { port } }) does the same', async () => {
    const server = await startServer({ metrics: { port: 0 } });
    try {
      expect(server.metricsUrl).not.toBe(`${server.url}/metrics`);
      expect((await scrape(server.metricsUrl ?? '')).status).toBe(200);
    } finally {
      await server.stop();
    }
    // Closed with the server.
    await expect(fetch(server.metricsUrl ?? '')).rejects.toThrow();
  });

  it('with authentication on, /metrics stays public while A2A calls need credentials', async () => {
    const server = await startServer({
      agent: { ...scenarioAgent, auth: bearerAuth({ tokens: { 'metrics-test-token': 'alice' } }) },
    });
    try {
      expect((await rpcCall(server.url, 'tasks/get', { id: 'x' })).status).toBe(401);
      const got = await scrape(`${server.url}/metrics`);
      expect(got.status).toBe(200);
      // The refused call is counted with its error code.
      expect(got.text).toMatch(/a2actor_requests_total\{transport="jsonrpc",operation="tasks\/get",outcome="-?\d+"\} 1/);
    } finally {
      await server.stop();
    }
  });
});
