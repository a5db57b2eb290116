/** The logger every layer uses; it lives in src/observe/ beside the tracing it shares a scope with. */
export { createLogger, errorFields, silentLogger, type Logger, type LogLevel } from './observe/logger.js';
