#!/usr/bin/env node
/**
 * a2actor CLI: `a2actor serve <agent module> [options]`, `a2actor --version`, `a2actor help`
 * (USAGE below). Every flag also has a SERVICE_* variable; flags win.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { AgentDefinition } from '../agent.js';
import type { SettingsInput } from '../config.js';
import { initProject } from './init.js';
import { importAgentModule } from './load-agent-module.js';
import { hideExpectedExperimentalWarnings } from './quiet-warnings.js';

const USAGE = `usage: a2actor serve <agent module> [options]
       a2actor init [dir]          write a TypeScript agent project (package.json, agent.ts, a test)
       a2actor --version | help

options (each also a SERVICE_* variable; flags win):
  --port N                 port to listen on (0 = any free port; default 8080)
  --host H                 address to listen on (default 127.0.0.1)
  --store S                memory | memory-plain | sqlite:<path> | postgres://user@host:5432/db (default sqlite:./data/a2actor.db)
  --events E               memory | redis://host:6379 (replicas)
  --debug                  serve the /chat debug page
  --inspect                send task machines to the Stately inspector
  --inspect-url URL        where the inspector listens (default ws://127.0.0.1:8081)
  --log-level L            debug | info | warn | error | silent

traces: OTEL_TRACES_EXPORTER=otlp|console turns OpenTelemetry on (README "Observability")`;

/** Each flag and the setting it sets: errors name the flag the user typed. */
const FLAG_OF: Readonly<Record<string, string>> = {
  port: '--port',
  host: '--host',
  store: '--store',
  events: '--events',
  debug: '--debug',
  inspect: '--inspect',
  inspectUrl: '--inspect-url',
  logLevel: '--log-level',
};

/** This package's version, from the package.json above this file (in src/ or in dist/). */
function version(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'a2actor') return pkg.version ?? 'unknown';
  }
  return 'unknown';
}

function isAgent(value: unknown): value is AgentDefinition {
  return typeof value === 'object' && value !== null && typeof (value as { handler?: unknown }).handler === 'function';
}

/** `file:line[:column]` of the agent module in an error's stack, if it is there. */
function locationIn(err: unknown, path: string): string | undefined {
  const text = err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : '';
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?:${escape(pathToFileURL(path).href)}|${escape(path)}):(\\d+)(?::(\\d+))?`).exec(text);
  return m ? `${path}:${m[1]}${m[2] ? `:${m[2]}` : ''}` : undefined;
}

/** Where `node --check` finds a JavaScript file's syntax error (`file:line`), if it does. */
function syntaxErrorAt(path: string): string | undefined {
  if (!/\.[cm]?js$/.test(path)) return undefined;
  const check = spawnSync(process.execPath, ['--check', path], { encoding: 'utf8', timeout: 10_000 });
  const first = check.stderr?.split('\n', 1)[0] ?? '';
  return first.startsWith(path) && /:\d+$/.test(first) ? first : undefined;
}

async function loadAgent(modulePath: string): Promise<AgentDefinition> {
  const path = resolve(modulePath);
  if (!existsSync(path)) throw new Error(`no agent module at ${path}`);
  let mod: Record<string, unknown>;
  try {
    mod = (await importAgentModule(path)).module;
  } catch (err) {
    // Node's SyntaxError for an ES module carries no place at all: `node --check` finds it.
    const where = locationIn(err, path) ?? (err instanceof SyntaxError ? syntaxErrorAt(path) : undefined);
    throw new Error(`cannot load the agent module ${where ?? path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  // A TypeScript or ESM-syntax module compiled as CommonJS (a `"type": "commonjs"` project)
  // arrives with its exports one level down, under `default`.
  const inner = (mod.default ?? {}) as Record<string, unknown>;
  const candidate = [mod.default, mod.agent, inner.default, inner.agent].find(isAgent);
  if (!candidate) throw new Error(`${modulePath} exports no agent: export default defineAgent({...})`);
  return candidate;
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
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
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    process.stderr.write(`a2actor: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const { values, positionals } = parsed;
  const [command, modulePath] = positionals;
  if (values.version || command === 'version') {
    process.stdout.write(`${version()}\n`);
    return;
  }
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === 'init') {
    const dir = modulePath ?? '.';
    const { written, kept } = initProject(dir, version());
    const root = resolve(dir);
    const lines = [
      `a2actor: a TypeScript agent project in ${root}`,
      ...written.map((file) => `  wrote ${relative(root, file)}`),
      ...kept.map((note) => `  ${note}`),
      `next: ${dir === '.' ? '' : `cd ${dir} && `}npm install && npm start (npm test runs its test, npx tsc type-checks)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  if (command !== 'serve' || !modulePath) {
    process.stderr.write(`${command && command !== 'serve' ? `a2actor: unknown command "${command}"\n` : ''}${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  // Loaded only to serve: --version, help and init answer without the server's modules.
  const [{ envNameOf, resolveSettings }, { createLogger }, { guardProcess }, { createServer }, { setupTracingFromEnv }] = await Promise.all(
    [
      import('../config.js'),
      import('../log.js'),
      import('../process-guard.js'),
      import('../server.js'),
      import('../observe/otel-setup.js'),
    ],
  );
  const flags: Partial<SettingsInput> = {
    port: values.port,
    host: values.host,
    store: values.store,
    events: values.events,
    debug: values.debug,
    inspect: values.inspect,
    inspectUrl: values['inspect-url'],
    logLevel: values['log-level'] as SettingsInput['logLevel'],
  };
  // Checked first, so a bad value is reported by the flag that set it.
  resolveSettings(flags, process.env, (key) => FLAG_OF[key] ?? envNameOf(key));
  const agent = await loadAgent(modulePath);
  // Before the server: its spans go to this provider from the first request on.
  const tracing = await setupTracingFromEnv(process.env, version());
  // The CLI owns its process: it tunes V8's heap for serving (docs/configuration.md, "What the server does to its
  // process"), which a library mounted in someone else's process may not do unasked.
  const server = await createServer({ agent, ...flags, tuneHeap: true });
  if (server.frontEnd === 'none') {
    await server.close();
    throw new Error('SERVICE_FRONT_END=none starts no listener (it is for apps that mount server.nodeHandler()); the CLI serves on a port');
  }
  // Spans still batched are exported before the process goes (OTEL_BSP_EXPORT_TIMEOUT bounds it).
  const flushTraces = () => tracing?.shutdown().catch(() => undefined);
  guardProcess({ logger: createLogger(server.settings.logLevel), onFatal: () => server.close().finally(flushTraces) });
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
    void server
      .shutdown()
      .finally(flushTraces)
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Printed once the handlers are in place: a signal sent on seeing this line is handled, not fatal.
  const debugPage = server.settings.debug ? `; debug page ${server.url}/chat` : '';
  process.stdout.write(
    `a2actor: ${agent.card.name} listening on ${server.url} (store ${server.store.description}, front end ${server.frontEnd})${debugPage}\n`,
  );
}

hideExpectedExperimentalWarnings();
main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`a2actor: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
