/**
 * Packing a retained event log (runtime/packed-log.ts), alone: the log of a W4 echo stream
 * (working, one artifact, completed; each event's JSON text already made, as the stream's frames
 * leave it), packed as the event log does when the stream ends. A small working set reused
 * round after round, as at the end of a stream the texts are fresh in cache.
 *
 * `node --import tsx bench/micro/packed-log.ts [logs] [rounds]`: five measured runs after a
 * warm-up; prints the median and lowest ns per log, and the packed text's length (which a
 * change of cost alone must leave as it is).
 */
import { newId } from '../../src/a2a/ids.js';
import type { StreamEvent } from '../../src/a2a/schemas.js';
import { pack, type LoggedEvent } from '../../src/runtime/packed-log.js';

const logs = Number(process.argv[2] ?? '2000');
const rounds = Number(process.argv[3] ?? '100');

/** A W4 echo stream's log, as the runtime writes its events (kind, then the ids). */
function echoLog(): { taskId: string; ring: LoggedEvent[] } {
  const taskId = newId();
  const contextId = newId();
  const timestamp = new Date().toISOString();
  const events: StreamEvent[] = [
    { kind: 'status-update', taskId, contextId, status: { state: 'working', timestamp }, final: false },
    {
      kind: 'artifact-update',
      taskId,
      contextId,
      artifact: { artifactId: 'echo', parts: [{ kind: 'text', text: 'hello from the bench' }], name: 'echo' },
      lastChunk: true,
    },
    { kind: 'status-update', taskId, contextId, status: { state: 'completed', timestamp }, final: true },
  ];
  return { taskId, ring: events.map((event, i) => ({ seq: i + 1, event, json: JSON.stringify(event) })) };
}

const inputs = Array.from({ length: logs }, echoLog);
let chars = 0;

function run(): number {
  chars = 0;
  const start = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) {
    for (const { taskId, ring } of inputs) chars += pack(taskId, ring.length, ring, 0).text.length;
  }
  return Number(process.hrtime.bigint() - start) / (logs * rounds);
}

run();
const runs = Array.from({ length: 5 }, run).sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({ logs, rounds, medianNs: Math.round(runs[2] as number), lowestNs: Math.round(runs[0] as number), charsPerLog: chars / (logs * rounds) })}\n`,
);
