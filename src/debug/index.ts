/**
 * The debug surfaces, switched by settings: the /chat page (`debug`) and the Stately inspector
 * (`inspect`). Both are loaded by dynamic import, so with both off none of their code, and
 * none of `@statelyai/inspect`, is ever loaded.
 */
import type { InspectionEvent, Observer } from 'xstate';
import type { Settings } from '../config.js';
import type { RawRoute } from '../http/exchange.js';
import type { Logger } from '../log.js';

export interface DebugSurfaces {
  rawRoutes: RawRoute[];
  /** The inspector's observer for every task actor, when inspection is on. */
  inspect?: Observer<InspectionEvent>;
  close(): void;
}

export async function setupDebug(settings: Pick<Settings, 'debug' | 'inspect' | 'inspectUrl'>, logger: Logger): Promise<DebugSurfaces> {
  const rawRoutes: RawRoute[] = [];
  if (settings.debug) {
    const { chatRoute, CHAT_PATH } = await import('./routes.js');
    rawRoutes.push(chatRoute());
    logger.info('debug.chat_enabled', { path: CHAT_PATH });
  }
  if (!settings.inspect) return { rawRoutes, close() {} };
  const { connectInspector } = await import('./inspector.js');
  const inspector = await connectInspector(settings.inspectUrl, logger);
  logger.info('debug.inspector_enabled', { url: settings.inspectUrl });
  return { rawRoutes, inspect: inspector.inspect, close: () => inspector.stop() };
}
