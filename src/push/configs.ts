/**
 * Push notification configs per task (spec "Push notification config endpoints"): stored with
 * the task store, in creation order. URLs are accepted as long as they are well formed; whether
 * a webhook may be called is decided at delivery time (SSRF rules), not here.
 */
import { a2aError } from '../protocol/errors.js';
import type { PushNotificationConfig, TaskPushNotificationConfig } from '../protocol/schemas.js';
import { newId } from '../runtime/task-views.js';
import type { TaskStore } from '../store/types.js';

export type StoredPushConfig = PushNotificationConfig & { id: string };

/** Clients that create a config without an id later ask for "default" (wire reference §2.2). */
export const DEFAULT_CONFIG_ID = 'default';

export class PushConfigs {
  private readonly listeners = new Set<(taskId: string) => void>();

  constructor(private readonly store: TaskStore) {}

  /** Called after every change of a task's configs (delivery caches them while the task runs). */
  onChange(listener: (taskId: string) => void): void {
    this.listeners.add(listener);
  }

  private changed(taskId: string): void {
    for (const listener of this.listeners) listener(taskId);
  }

  /** Creates or updates (same id) a config; an omitted id is generated. */
  async set(taskId: string, config: PushNotificationConfig): Promise<TaskPushNotificationConfig> {
    const existing = await this.store.listPushConfigs(taskId);
    const id = config.id ?? (existing.some((c) => c.id === DEFAULT_CONFIG_ID) ? newId() : DEFAULT_CONFIG_ID);
    const stored: StoredPushConfig = { ...config, id };
    await this.store.savePushConfig(taskId, stored);
    this.changed(taskId);
    return { taskId, pushNotificationConfig: stored };
  }

  /** One config; without an id (or "default" when none has that id) the task's first one. */
  async get(taskId: string, configId: string | undefined): Promise<TaskPushNotificationConfig> {
    const configs = await this.store.listPushConfigs(taskId);
    const found =
      configs.find((c) => c.id === configId) ??
      (configId === undefined || configId === DEFAULT_CONFIG_ID ? configs[0] : undefined);
    if (!found) throw a2aError('pushConfigNotFound', configId ?? '(first)');
    return { taskId, pushNotificationConfig: found };
  }

  async list(taskId: string): Promise<TaskPushNotificationConfig[]> {
    const configs = await this.store.listPushConfigs(taskId);
    return configs.map((c) => ({ taskId, pushNotificationConfig: c }));
  }

  /** Stored configs of a task, for delivery. */
  configsOf(taskId: string): Promise<StoredPushConfig[]> {
    return this.store.listPushConfigs(taskId);
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    const deleted = await this.store.deletePushConfig(taskId, configId);
    if (deleted) this.changed(taskId);
    return deleted;
  }
}
