/**
 * `npm run bench:grpc [-- --seconds <s> --rounds <n> --concurrency <n>]`: blocking v1.0
 * `SendMessage` over gRPC to the echo agent, a2actor's gRPC listener beside the official
 * @a2a-js/sdk 1.3.0 gRPC server (bench/servers/peer-grpc.ts), each in its own process, on this
 * machine. Both get the same request bytes from one raw @grpc/grpc-js client in this process,
 * `concurrency` calls in flight; rounds alternate which server goes first, and the table gives
 * each server's median throughput, call latency as the client sees it (each round's p50 and p99,
 * the median over rounds) and its own CPU per request (what stays honest when the client,
 * sharing the cores, is the bottleneck), then ours as a ratio of the peer's.
 *
 * As in `npm run bench`, our server runs its tsc build under plain node, as production runs
 * dist/ (tsx would wrap every function of ours in a keep-names helper on the hot path), and the
 * peer's entry, a thin wrapper over its precompiled package, runs through tsx.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { credentials, makeGenericClientConstructor, Metadata, type Client, type ServiceError } from '@grpc/grpc-js';
import { SendMessageRequestSchema } from '../src/grpc/gen/a2a/v1_0/a2a_pb.js';
import { buildServer, type ServerBuild } from './lib/build.js';
import { ROOT } from './lib/children.js';
import { cpuMicros } from './lib/proc.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
/** A bound on any one window's calls, whatever the machine does. */
const MAX_CALLS_PER_WINDOW = 1_000_000;

interface BenchServer {
  label: string;
  child: ChildProcess;
  client: Client & { SendMessage(req: Buffer, metadata: Metadata, cb: (err: ServiceError | null) => void): void };
}

const bytes = (b: Buffer): Buffer => b;
const RawClient = makeGenericClientConstructor(
  {
    SendMessage: {
      path: '/lf.a2a.v1.A2AService/SendMessage',
      requestStream: false,
      responseStream: false,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
    },
  },
  'A2AService',
);

/** A blocking send of `hello` with a fresh message id (a repeated id would be deduplicated). */
const request = (): Buffer =>
  Buffer.from(
    toBinary(
      SendMessageRequestSchema,
      fromJson(SendMessageRequestSchema, { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] } }),
    ),
  );

/** What a v1.0 client sends with every call; the peer takes a call without it as v0.3. */
const v1Metadata = (): Metadata => {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  return metadata;
};

/** `argv`: node's arguments, the entry file last. */
async function start(label: string, argv: string[]): Promise<BenchServer> {
  const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const [target] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new Error(`${label} exited before announcing its target`);
    }),
  ])) as [string];
  const client = new RawClient(target, credentials.createInsecure()) as unknown as BenchServer['client'];
  return { label, child, client };
}

interface Window {
  calls: number;
  failed: number;
  seconds: number;
  cpuUs: number;
  /** Milliseconds from send to answer, completed calls only. */
  p50Ms: number;
  p99Ms: number;
}

/** The `q` quantile (0..1) of sorted numbers. */
const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

const median = (xs: number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

/** Calls for `seconds`, `CONCURRENCY` in flight: completed calls, failures, their latency, and the server's CPU. */
async function window(server: BenchServer, seconds: number): Promise<Window> {
  const pid = server.child.pid!;
  const cpuBefore = cpuMicros(pid);
  const started = performance.now();
  const end = started + seconds * 1000;
  let calls = 0;
  let failed = 0;
  const latencies: number[] = [];
  const worker = async (): Promise<void> => {
    while (performance.now() < end && calls + failed < MAX_CALLS_PER_WINDOW) {
      const sent = performance.now();
      await new Promise<void>((resolve) =>
        server.client.SendMessage(request(), v1Metadata(), (err) => {
          if (err) {
            if (failed++ === 0) process.stderr.write(`${server.label}: ${err.message}\n`);
          } else {
            calls++;
            latencies.push(performance.now() - sent);
          }
          resolve();
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const cpuUs = cpuMicros(pid) - cpuBefore;
  latencies.sort((a, b) => a - b);
  return {
    calls,
    failed,
    seconds: (performance.now() - started) / 1000,
    cpuUs,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
  };
}

async function main(): Promise<void> {
  const build: ServerBuild = await buildServer();
  const servers: BenchServer[] = [];
  try {
    servers.push(await start('a2actor (gRPC)', [build.file('bench/servers/ours-grpc.ts')]));
    servers.push(await start('@a2a-js/sdk 1.3.0 (gRPC)', ['--import', 'tsx', 'bench/servers/peer-grpc.ts']));
    for (const s of servers) await window(s, 1); // warm-up
    const results = new Map(
      servers.map((s) => [s.label, { rps: [] as number[], cpu: [] as number[], p50: [] as number[], p99: [] as number[], failed: 0 }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) {
        const w = await window(s, SECONDS);
        const r = results.get(s.label)!;
        r.rps.push(w.calls / w.seconds);
        r.cpu.push(w.calls > 0 ? w.cpuUs / w.calls : Number.NaN);
        r.p50.push(w.p50Ms);
        r.p99.push(w.p99Ms);
        r.failed += w.failed;
        process.stderr.write(`round ${round + 1} ${s.label}: ${Math.round(w.calls / w.seconds)} req/s\n`);
      }
    }
    const peer = results.get(servers[1]!.label)!;
    const peerRps = median(peer.rps);
    const peerCpu = median(peer.cpu);
    const peerP50 = median(peer.p50);
    process.stdout.write(
      `\nG1 blocking SendMessage over gRPC, ${CONCURRENCY} in flight, ${ROUNDS} x ${SECONDS} s, node ${process.version}\n` +
        `| server | req/s (median) | p50 ms | p99 ms | server CPU µs/req | failed | vs peer (req/s, p50, CPU) |\n` +
        `|---|---:|---:|---:|---:|---:|---:|\n`,
    );
    for (const [label, r] of results) {
      const rps = median(r.rps);
      const cpu = median(r.cpu);
      const p50 = median(r.p50);
      process.stdout.write(
        `| ${label} | ${Math.round(rps)} | ${p50.toFixed(2)} | ${median(r.p99).toFixed(2)} | ${Math.round(cpu)} | ${r.failed} | ` +
          `${(rps / peerRps).toFixed(2)}x, ${(p50 / peerP50).toFixed(2)}x, ${(cpu / peerCpu).toFixed(2)}x |\n`,
      );
    }
  } finally {
    for (const s of servers) {
      s.client.close();
      s.child.stdin?.end();
      s.child.kill('SIGTERM');
    }
    build.remove();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:grpc: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
