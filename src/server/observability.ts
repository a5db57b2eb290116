/**
 * Stage 2 of createServer: what watches the server. The /chat page and the Stately inspector
 * (an `inspector` given to createServer wins over the `inspect` setting), and the metrics
 * registry unless `metrics` is off.
 */
import type { InspectionEvent, Observer } from 'xstate';
import type { Settings } from '../config.js';
import { setupDebug, type DebugSurfaces } from '../debug/index.js';
import type { Logger } from '../log.js';
import { createMetrics, type ServerMetrics } from '../observe/metrics.js';

/** An observer of every task actor: an XState observer, or a function taking each inspection event. */
export type Inspector = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

export interface ObservabilityStage {
  readonly debug: DebugSurfaces;
  readonly inspect: Inspector | undefined;
  readonly metrics: ServerMetrics | undefined;
}

export async function observabilityStage(
  settings: Settings,
  logger: Logger,
  inspector: Inspector | undefined,
): Promise<ObservabilityStage> {
  const debug = await setupDebug({ ...settings, inspect: settings.inspect && !inspector }, logger);
  return {
    debug,
    inspect: inspector ?? debug.inspect,
    metrics: settings.metrics === false ? undefined : createMetrics(),
  };
}
