/**
 * Stages 4 and 5 of createServer: webhook delivery, then the task runtime that feeds it. Push
 * comes first because the runtime waits on it when a task changes hands between replicas.
 */
import type { AgentDefinition } from '../agent.js';
import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import type { ServerMetrics } from '../observe/metrics.js';
import { V1_PUSH_BODY } from '../protocol/v1/push.js';
import { PushConfigs } from '../push/configs.js';
import { PushDispatcher } from '../push/dispatcher.js';
import { DeliveryOutbox } from '../push/outbox.js';
import { inProcessOutbox } from '../store/outbox-memory.js';
import { TaskService } from '../runtime/task-service.js';
import type { OutboxTable } from '../store/outbox-table.js';
import type { TaskStore } from '../store/types.js';
import type { BackendsStage } from './backends.js';
import type { Inspector } from './observability.js';

export interface PushStage {
  readonly configs: PushConfigs;
  /** Webhook delivery; undefined when the card does not offer push notifications. */
  readonly delivery: PushDispatcher | undefined;
}

/**
 * Deliveries a stopped process left in the outbox are queued here, before the runtime starts:
 * they go out before any new delivery of the same config.
 */
export async function pushStage(
  backends: BackendsStage,
  pushNotifications: boolean,
  settings: Settings,
  logger: Logger,
  metrics: ServerMetrics | undefined,
): Promise<PushStage> {
  const configs = new PushConfigs(backends.timedStore, settings.pushMaxConfigsPerTask);
  if (!pushNotifications) return { configs, delivery: undefined };
  const outbox = settings.pushDurable ? new DeliveryOutbox(await outboxTableOf(backends.store, settings), logger) : undefined;
  const delivery = new PushDispatcher({ configs, settings, logger, metrics, bodies: { '1.0': V1_PUSH_BODY }, outbox });
  configs.onChange((taskId) => delivery.invalidate(taskId));
  await delivery.resumeRecorded();
  return { configs, delivery };
}

/** The store's own outbox table; a store that keeps nothing across a restart gets one in this process. */
function outboxTableOf(store: TaskStore, settings: Settings): Promise<OutboxTable> {
  return store.deliveryOutbox?.(settings.leaseTtl * 1000) ?? Promise.resolve(inProcessOutbox(store));
}

/** With replicas, a turn's webhooks go out (for this long at most) before another replica may run the next. */
const HAND_OVER_PUSH_WAIT_MS = 2000;

export function runtimeStage(
  agent: AgentDefinition,
  backends: BackendsStage,
  push: PushStage,
  settings: Settings,
  logger: Logger,
  metrics: ServerMetrics | undefined,
  inspect: Inspector | undefined,
): TaskService {
  const { delivery } = push;
  const service = new TaskService({
    agent,
    store: backends.timedStore,
    metrics,
    events: backends.events,
    settings,
    logger,
    coordinator: backends.coordinator,
    leaseTtl: settings.leaseTtl,
    sizeLimits: {
      maxMessageBytes: settings.maxMessageBytes,
      maxArtifactBytes: settings.maxArtifactBytes,
      maxTaskBytes: settings.maxTaskBytes,
    },
    beforeHandOver: (taskId) => delivery?.drained(taskId, HAND_OVER_PUSH_WAIT_MS) ?? Promise.resolve(),
    ...(inspect ? { inspect } : {}),
  });
  // Webhook delivery: every transition of an exposed task goes to the task's configs.
  if (delivery) {
    service.setInlinePushRegistrar(async (taskId, config) => {
      delivery.registeredInline(taskId);
      await push.configs.set(taskId, config);
    });
    // The task is live while its transitions are told: its owner decides whose share it takes.
    service.onTransition((task) => delivery.notify(task, service.liveTask(task.id)?.owner), {
      handledWithoutCopy: (task) => delivery.handledWithoutCopy(task),
      // A turn's answer goes out once the deliveries of its transitions are recorded.
      recorded: (taskId) => delivery.recorded(taskId),
    });
  }
  return service;
}
