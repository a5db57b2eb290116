/**
 * The load generator, run as its own process so its CPU is not the server's: it receives one
 * LoadSpec over IPC, keeps `connections` requests in flight on undici Pools (one request per
 * connection at a time, keep-alive; one pool per origin when several replicas serve, the
 * connections dealt round-robin over them), checks every response, and reports a LoadResult.
 *
 * Time mode: warm up, then measure a fixed window, then stop issuing and drain. Count mode:
 * issue exactly `totalRequests`, measured from the first, capped at `durationMs`. Either way
 * it stops by itself; it tells the orchestrator when the window opens and closes, so server
 * CPU is sampled at the same edges.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import {
  MESSAGE_ID,
  PUSH_URL,
  type GeneratorCommand,
  type GeneratorMessage,
  type LoadResult,
  type LoadSpec,
  type Percentiles,
} from '../lib/types.js';
import { checkResponse, isStreaming, notAStream, streamCheck } from './checks.js';
import { pickOperation, runOperation } from './soak.js';
import { SseReader } from './sse.js';

/** In-flight requests get this long to finish after the window before the pool is torn down. */
const DRAIN_MS = 10_000;
/** W7: the receiver closes once no webhook arrived for this long. */
const RECEIVER_QUIET_MS = 1_000;

type Phase = 'warmup' | 'measure' | 'done';

const send = (message: GeneratorMessage): void => {
  process.send?.(message);
};

const percentiles = (h: RecordableHistogram): Percentiles => {
  // The histogram holds nanoseconds; reports are in milliseconds.
  const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;
  if (h.count === 0) return { p50: 0, p99: 0, mean: 0, max: 0 };
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), mean: ms(h.mean), max: ms(h.max) };
};

/** A body maker: the template with a fresh, never repeated message id per call. */
function bodyMaker(template: string | undefined): () => string | undefined {
  if (template === undefined) return () => undefined;
  const pieces = template.split(MESSAGE_ID);
  if (pieces.length === 1) return () => template;
  // Unique across runs against the same server: idempotency would return an old task.
  const tag = `b${process.pid.toString(36)}${Date.now().toString(36)}`;
  let seq = 0;
  return () => pieces.join(`${tag}-${(seq++).toString(36)}`);
}

/** W7: counts webhook POSTs; answers 204 at once so the receiver is never the bottleneck. */
async function startReceiver(onDelivery: () => void): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST') onDelivery();
      res.statusCode = 204;
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, server };
}

export async function runLoad(spec: LoadSpec, notify: (message: GeneratorMessage) => void = () => {}): Promise<LoadResult> {
  if (spec.origins.length === 0) throw new Error('no origin to send to');
  const countMode = spec.totalRequests !== undefined;
  let phase: Phase = countMode ? 'measure' : 'warmup';
  let ok = 0;
  let errors = 0;
  let deliveries = 0;
  const samples = new Set<string>();
  const latency = createHistogram();
  const firstEvent = createHistogram();
  const streaming = isStreaming(spec.check);

  let deliveriesTotal = 0;
  let lastDeliveryAt = 0;
  let lastDeliveryHr: bigint | undefined;
  const receiver = spec.pushReceiver
    ? await startReceiver(() => {
        deliveriesTotal++;
        lastDeliveryAt = Date.now();
        lastDeliveryHr = process.hrtime.bigint();
        if (phase === 'measure') deliveries++;
      })
    : undefined;
  const template = receiver ? spec.request.body?.split(PUSH_URL).join(receiver.url) : spec.request.body;
  const nextBody = bodyMaker(template);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...spec.request.headers, ...spec.headers };
  if (streaming) headers.accept = 'text/event-stream';

  // One pool per origin (replica); worker i keeps to pools[i % n], so each pool needs only its
  // share of the connections and every connection carries one request at a time.
  const pools = spec.origins.map(
    (origin) =>
      new Pool(origin, {
        connections: Math.ceil(spec.connections / spec.origins.length),
        pipelining: 1,
        keepAliveTimeout: 60_000,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      }),
  );

  /** One request; resolves to an error reason or undefined, and the first event time if streamed. */
  const once = async (pool: Pool): Promise<{ error?: string; firstEventNs?: bigint }> => {
    if (spec.mix === 'soak') {
      const error = await runOperation(pool, pickOperation(Math.random()));
      return error === undefined ? {} : { error };
    }
    const body = nextBody();
    const started = process.hrtime.bigint();
    const res = await pool.request({
      method: spec.request.method,
      path: spec.request.path,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    if (!streaming) {
      const error = checkResponse(spec.check, res.statusCode, await res.body.text(), spec.pageSize);
      return error === undefined ? {} : { error };
    }
    if (res.statusCode !== 200) return { error: `HTTP ${res.statusCode}: ${(await res.body.text()).slice(0, 120)}` };
    if (!String(res.headers['content-type']).startsWith('text/event-stream'))
      return { error: notAStream(spec.check, await res.body.text()) };
    const reader = new SseReader();
    const verdict = streamCheck(spec.check);
    let firstEventNs: bigint | undefined;
    res.body.setEncoding('utf8');
    for await (const chunk of res.body as AsyncIterable<string>) {
      for (const data of reader.push(chunk)) {
        firstEventNs ??= process.hrtime.bigint() - started;
        verdict.event(data);
      }
    }
    const error = verdict.end();
    return { ...(error === undefined ? {} : { error }), ...(firstEventNs === undefined ? {} : { firstEventNs }) };
  };

  let issued = 0;
  let completedTotal = 0;
  const worker = async (pool: Pool): Promise<void> => {
    while (phase !== 'done') {
      if (countMode) {
        if (issued >= (spec.totalRequests ?? 0)) return;
        issued++;
      }
      const started = process.hrtime.bigint();
      let outcome: { error?: string; firstEventNs?: bigint };
      try {
        outcome = await once(pool);
      } catch (err) {
        outcome = { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
      }
      if (outcome.error === undefined) completedTotal++;
      // Only what completes inside the window counts, successes and failures alike.
      if (phase !== 'measure') continue;
      if (outcome.error === undefined) {
        ok++;
        latency.record(Math.max(1, Number(process.hrtime.bigint() - started)));
        if (outcome.firstEventNs !== undefined) firstEvent.record(Math.max(1, Number(outcome.firstEventNs)));
      } else {
        errors++;
        if (samples.size < 5) samples.add(outcome.error);
      }
    }
  };

  const workers: Promise<void>[] = [];
  for (let i = 0; i < spec.connections; i++) {
    const pool = pools[i % pools.length];
    if (pool) workers.push(worker(pool));
  }
  const allDone = Promise.all(workers);

  if (!countMode) {
    await sleep(spec.warmupMs);
    phase = 'measure';
  }
  const windowStart = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  notify({ type: 'window-start' });

  if (countMode) await Promise.race([allDone, sleep(spec.durationMs)]);
  else await sleep(spec.durationMs);
  let windowNs = process.hrtime.bigint() - windowStart;
  if (receiver && countMode) {
    // W7: deliveries trail the sends. The window runs until the last webhook of the batch
    // arrived (nothing more for RECEIVER_QUIET_MS), within the same overall cap.
    const capAt = Number(windowStart / 1_000_000n) + spec.durationMs;
    const nowMs = () => Number(process.hrtime.bigint() / 1_000_000n);
    let quietSince = nowMs();
    while (nowMs() < capAt) {
      if (lastDeliveryHr !== undefined) quietSince = Math.max(quietSince, Number(lastDeliveryHr / 1_000_000n));
      if (nowMs() - quietSince >= RECEIVER_QUIET_MS) break;
      await sleep(50);
    }
    if (lastDeliveryHr !== undefined && lastDeliveryHr > windowStart) windowNs = lastDeliveryHr - windowStart;
  }
  const cpu = process.cpuUsage(cpuStart);
  notify({ type: 'window-end' });
  const counted = { ok, errors, deliveries };
  phase = 'done';

  await Promise.race([allDone, sleep(DRAIN_MS)]);
  await Promise.all(pools.map((pool) => pool.destroy()));
  if (receiver) {
    // Webhooks trail the sends: keep receiving until they stop, so a delivery backlog (and its
    // retries against a closed port) does not spill into the next workload's measurement.
    const quietSince = Date.now();
    while (Date.now() - Math.max(lastDeliveryAt, quietSince) < RECEIVER_QUIET_MS && Date.now() - quietSince < DRAIN_MS) {
      await sleep(100);
    }
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()).closeAllConnections());
  }

  const windowMs = Number(windowNs) / 1e6;
  return {
    requests: counted.ok,
    errors: counted.errors,
    errorSamples: [...samples],
    windowMs: Math.round(windowMs),
    rps: Math.round((counted.ok / windowMs) * 1000),
    latencyMs: percentiles(latency),
    ...(streaming ? { firstEventMs: percentiles(firstEvent) } : {}),
    ...(receiver ? { deliveries: counted.deliveries, deliveriesTotal } : {}),
    generatorCpuPercent: Math.round(((cpu.user + cpu.system) / (windowMs * 1000)) * 100),
    completedTotal,
  };
}

// As a child process: runs one command after another (the orchestrator waits for each result)
// and exits when the orchestrator closes the channel.
if (process.send) {
  process.on('message', (command: GeneratorCommand) => {
    runLoad(command.spec, send)
      .then((result) => send({ type: 'result', result }))
      .catch((err: unknown) => send({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
  });
  process.on('disconnect', () => process.exit(0));
}
