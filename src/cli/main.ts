#!/usr/bin/env node
/**
 * a2actor CLI: `a2actor serve <agent module> [--port N] [--host H] [--store memory|sqlite:<path>|postgres://…] [--events memory|redis://…]
 * [--debug] [--inspect] [--inspect-url ws://host:port] [--log-level L]`. Every flag also has a
 * SERVICE_* variable; flags win.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { AgentDefinition } from '../agent.js';
import { createLogger } from '../log.js';
import { guardProcess } from '../process-guard.js';
import { createServer } from '../server.js';

const USAGE = `usage: a2actor serve <agent module> [--port N] [--host H] [--store memory|sqlite:<path>|postgres://…] [--events memory|redis://…] [--debug] [--inspect] [--inspect-url ws://host:port] [--log-level debug|info|warn|error]`;

function isAgent(value: unknown): value is AgentDefinition {
  return typeof value === 'object' && value !== null && typeof (value as { handler?: unknown }).handler === 'function';
}

async function loadAgent(modulePath: string): Promise<AgentDefinition> {
  const mod: Record<string, unknown> = await import(pathToFileURL(resolve(modulePath)).href);
  const candidate = [mod.default, mod.agent].find(isAgent);
  if (!candidate) throw new Error(`${modulePath} exports no agent: export default defineAgent({...})`);
  return candidate;
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      store: { type: 'string' },
      events: { type: 'string' },
      debug: { type: 'boolean' },
      inspect: { type: 'boolean' },
      'inspect-url': { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, modulePath] = positionals;
  if (values.help || command !== 'serve' || !modulePath) {
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const agent = await loadAgent(modulePath);
  const server = await createServer({
    agent,
    port: values.port,
    host: values.host,
    store: values.store,
    events: values.events,
    debug: values.debug,
    inspect: values.inspect,
    inspectUrl: values['inspect-url'],
    logLevel: values['log-level'] as never,
  });
  if (server.frontEnd === 'none') {
    await server.close();
    throw new Error('SERVICE_FRONT_END=none starts no listener (it is for apps that mount server.nodeHandler()); the CLI serves on a port');
  }
  process.stdout.write(`a2actor: ${agent.card.name} listening on ${server.url} (store ${server.store.description}, front end ${server.frontEnd})\n`);
  guardProcess({ logger: createLogger(server.settings.logLevel), onFatal: () => server.close() });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // A second signal: the operator does not want to wait.
      process.stdout.write(`a2actor: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(
      `a2actor: ${signal}, shutting down (running tasks get ${server.settings.shutdownGrace} s to finish; send it again to exit now)\n`,
    );
    void server.shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`a2actor: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
