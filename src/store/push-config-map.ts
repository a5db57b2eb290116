/**
 * Push configs held in this process, for both memory stores: few per task, so a list per task
 * id, each config copied in and out so no caller shares a stored object.
 */
import type { StoredPushConfig } from './types.js';

export class PushConfigMap {
  private readonly byTask = new Map<string, StoredPushConfig[]>();

  save(taskId: string, config: StoredPushConfig): void {
    const list = this.byTask.get(taskId) ?? [];
    const at = list.findIndex((c) => c.id === config.id);
    if (at >= 0) list[at] = { ...config };
    else list.push({ ...config });
    this.byTask.set(taskId, list);
  }

  list(taskId: string): StoredPushConfig[] {
    return (this.byTask.get(taskId) ?? []).map((c) => ({ ...c }));
  }

  delete(taskId: string, configId: string): boolean {
    const list = this.byTask.get(taskId);
    const at = list?.findIndex((c) => c.id === configId) ?? -1;
    if (!list || at < 0) return false;
    list.splice(at, 1);
    return true;
  }
}
