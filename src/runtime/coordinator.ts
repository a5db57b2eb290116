/**
 * The Coordinator port: which replica runs a task's actor (a lease), and cancel requests that
 * must reach the replica running the handler. One process needs nothing more than a set; many
 * replicas use Redis (redis-coordinator.ts). No home-made protocol: leases are Redis keys with
 * a TTL, cancel requests are Redis pub/sub messages.
 */
export interface Coordinator {
  /** This process's id in leases and logs. */
  readonly replicaId: string;
  /** Takes the task's lease for this replica (renewed until released); false if another holds it. */
  acquire(taskId: string): Promise<boolean>;
  /** Gives the lease up (the task paused, ended, or was handed over). */
  release(taskId: string): Promise<void>;
  /** Whether any replica holds the task's lease right now. */
  isOwned(taskId: string): Promise<boolean>;
  /** Asks whichever replica runs the task to cancel it. */
  requestCancel(taskId: string): Promise<void>;
  /** Cancel requests for tasks (the receiver checks whether it runs them). */
  onCancelRequest(listener: (taskId: string) => void): void;
  /** Whether the backend's connection is up right now (no round trip: what it last saw). */
  readonly connected: boolean;
  /** Readiness: throws when the coordination backend is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
  readonly description: string;
}

/** A single process: it owns every task it runs and hears its own cancel requests. */
export class LocalCoordinator implements Coordinator {
  readonly replicaId = 'local';
  readonly description = 'local';
  readonly connected = true;
  private readonly held = new Set<string>();
  private readonly listeners = new Set<(taskId: string) => void>();

  async acquire(taskId: string): Promise<boolean> {
    this.held.add(taskId);
    return true;
  }

  async release(taskId: string): Promise<void> {
    this.held.delete(taskId);
  }

  async isOwned(taskId: string): Promise<boolean> {
    return this.held.has(taskId);
  }

  async requestCancel(taskId: string): Promise<void> {
    for (const l of this.listeners) l(taskId);
  }

  onCancelRequest(listener: (taskId: string) => void): void {
    this.listeners.add(listener);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.held.clear();
    this.listeners.clear();
  }
}
