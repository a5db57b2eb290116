/**
 * Push notification configs per task (spec "Push notification config endpoints"): stored with
 * the task store, in creation order. URLs are accepted as long as they are well formed; whether
 * a webhook may be called is decided at delivery time (SSRF rules), not here.
 */
import { a2aError, shown } from '../a2a/errors.js';
import type { PushNotificationConfig, TaskPushNotificationConfig } from '../a2a/schemas.js';
import { newId } from '../a2a/ids.js';
import type { ProtocolVersion } from '../a2a/versions.js';
import type { TaskStore } from '../store/types.js';

import type { StoredPushConfig } from '../store/types.js';

export type { StoredPushConfig };

/** Clients that create a config without an id later ask for "default" (wire reference §2.2). */
export const DEFAULT_CONFIG_ID = 'default';

/**
 * A config as clients may read it back: `authentication.credentials` is write-only (it is a
 * secret the server sends to the webhook, and anyone who can read the task could read it).
 */
export function readableConfig(stored: StoredPushConfig): PushNotificationConfig {
  // The version is the server's note on the config, not a field of any wire shape.
  const { protocolVersion: _version, ...config } = stored;
  const auth = config.authentication;
  if (auth?.credentials === undefined) return config;
  const { credentials: _secret, ...rest } = auth;
  return { ...config, authentication: rest };
}

/** A config to store, with the version it was registered in (v0.3's is the default, left out). */
export type VersionedPushConfig = PushNotificationConfig & { protocolVersion?: ProtocolVersion };

export class PushConfigs {
  private readonly listeners = new Set<(taskId: string) => void>();
  /** Per task, the last create/update: one at a time, so the cap cannot be raced past here. */
  private readonly setting = new Map<string, Promise<unknown>>();

  /** `maxPerTask`: configs one task may hold (SERVICE_PUSH_MAX_CONFIGS_PER_TASK). */
  constructor(
    private readonly store: TaskStore,
    private readonly maxPerTask = Number.POSITIVE_INFINITY,
  ) {}

  /** Called after every change of a task's configs (delivery caches them while the task runs). */
  onChange(listener: (taskId: string) => void): void {
    this.listeners.add(listener);
  }

  private changed(taskId: string): void {
    for (const listener of this.listeners) listener(taskId);
  }

  /**
   * Creates or updates (same id) a config; an omitted id is generated. A new config past the
   * task's cap is refused: every transition is delivered to every config, so without a cap one
   * client could make each follow-up fan out into thousands of requests.
   */
  set(taskId: string, config: VersionedPushConfig): Promise<TaskPushNotificationConfig> {
    const result = (this.setting.get(taskId) ?? Promise.resolve()).then(() => this.setNow(taskId, config));
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.setting.set(taskId, settled);
    void settled.then(() => {
      if (this.setting.get(taskId) === settled) this.setting.delete(taskId);
    });
    return result;
  }

  private async setNow(taskId: string, config: VersionedPushConfig): Promise<TaskPushNotificationConfig> {
    const existing = await this.store.listPushConfigs(taskId);
    const id = config.id ?? (existing.some((c) => c.id === DEFAULT_CONFIG_ID) ? newId() : DEFAULT_CONFIG_ID);
    if (existing.length >= this.maxPerTask && !existing.some((c) => c.id === id)) {
      throw a2aError(
        'pushConfigLimit',
        `the task has ${existing.length} already, the most allowed (SERVICE_PUSH_MAX_CONFIGS_PER_TASK); update or delete one`,
      );
    }
    const stored: StoredPushConfig = { ...config, id };
    await this.store.savePushConfig(taskId, stored);
    this.changed(taskId);
    return { taskId, pushNotificationConfig: readableConfig(stored) };
  }

  /** One config; without an id (or "default" when none has that id) the task's first one. */
  async get(taskId: string, configId: string | undefined): Promise<TaskPushNotificationConfig> {
    const configs = await this.store.listPushConfigs(taskId);
    const found =
      configs.find((c) => c.id === configId) ?? (configId === undefined || configId === DEFAULT_CONFIG_ID ? configs[0] : undefined);
    if (!found) throw a2aError('pushConfigNotFound', configId === undefined ? '(first)' : shown(configId));
    return { taskId, pushNotificationConfig: readableConfig(found) };
  }

  async list(taskId: string): Promise<TaskPushNotificationConfig[]> {
    const configs = await this.store.listPushConfigs(taskId);
    return configs.map((c) => ({ taskId, pushNotificationConfig: readableConfig(c) }));
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
