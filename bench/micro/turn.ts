/**
 * The runtime's share of a W1 task, without HTTP: TaskService.sendMessage (blocking) with the
 * bench's echo agent, a memory store and event log, and a push dispatcher listening like the
 * bench server's. `turn.js <tasks> <concurrency>`: prints CPU µs per task (median of 5 rounds).
 */
import { silentLogger } from '../../src/log.js';
import { PushDispatcher } from '../../src/push/dispatcher.js';
import { PushConfigs } from '../../src/push/configs.js';
import type { Message } from '../../src/a2a/schemas.js';
import { echoService } from './echo-service.js';

const tasks = Number(process.argv[2] ?? '20000');
const concurrency = Number(process.argv[3] ?? '16');
const { service, store, settings } = echoService();
const push = new PushConfigs(store);
const pushDelivery = new PushDispatcher({ configs: push, settings, logger: silentLogger });
push.onChange((taskId) => pushDelivery.invalidate(taskId));
service.setInlinePushRegistrar(async (taskId, config) => {
  pushDelivery.registeredInline(taskId);
  await push.set(taskId, config);
});
service.onTransition((task) => pushDelivery.notify(task), { handledWithoutCopy: (task) => pushDelivery.handledWithoutCopy(task) });
await service.init();

let n = 0;
// In the schema's key order, as the request path hands a message on (send-fast-path.ts): the
// store's fast packer knows that shape, and W1's tasks take it.
const message = (): Message => ({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hello world' }], messageId: `m${n++}` });
async function worker(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const r = await service.sendMessage({ message: message() });
    if (r.kind !== 'task' || r.task.status.state !== 'completed') throw new Error('not completed');
  }
}
async function round(count: number): Promise<number> {
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, () => worker(count / concurrency)));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / count;
}
await round(tasks / 2);
const rounds: number[] = [];
for (let i = 0; i < 5; i++) rounds.push(await round(tasks));
rounds.sort((a, b) => a - b);
process.stdout.write(`${JSON.stringify({ median: rounds[2]?.toFixed(2), low: rounds[0]?.toFixed(2) })}\n`);
await service.close();
process.exit(0);
