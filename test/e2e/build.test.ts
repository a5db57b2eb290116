/**
 * `npm run build` emits JavaScript with type declarations, and the built CLI (what `npx a2actor`
 * runs) serves a built agent: send, stream, subscribe and push.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { client, eventually, userMessage } from '../support/a2a.js';
import { spawnBuiltServer } from '../support/process.js';
import { streamMessage, subscribe, summarize } from '../support/streams.js';
import { startReceiver } from '../support/webhook.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('the build', () => {
  // Inside the project (git-ignored), so the built files resolve the project's node_modules.
  mkdirSync(join(ROOT, 'test/.artifacts'), { recursive: true });
  const out = { dir: mkdtempSync(join(ROOT, 'test/.artifacts/build-')) };
  afterAll(() => rmSync(out.dir, { recursive: true, force: true }));

  it('emits declarations and a CLI that serves the built echo agent', async () => {
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', out.dir], {
      cwd: ROOT,
    });
    for (const file of ['src/index.js', 'src/index.d.ts', 'machines/task.machine.d.ts', 'src/cli/main.js', 'examples/echo-agent.js']) {
      expect(existsSync(join(out.dir, file)), file).toBe(true);
    }
    // The package ships dist/ only: its source maps carry their sources, so they resolve.
    const map = JSON.parse(readFileSync(join(out.dir, 'src/server.js.map'), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
    expect(map.sourcesContent?.[0]).toContain('export async function createServer');
    const server = await spawnBuiltServer(join(out.dir, 'src/cli/main.js'), [join(out.dir, 'examples/echo-agent.js'), '--store', 'memory']);
    try {
      const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as { name: string };
      expect(card.name).toBe('Echo Agent');
      const res = await fetch(`${server.url}/v1/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: { role: 'user', messageId: 'b1', parts: [{ kind: 'text', text: 'built and running' }] } }),
      });
      const task = (await res.json()) as { status: { state: string }; artifacts: { parts: { text: string }[] }[] };
      expect(task.status.state).toBe('completed');
      expect(task.artifacts[0]?.parts.map((p) => p.text).join('')).toBe('built and running');
    } finally {
      await server.kill('SIGTERM');
    }

    // Send, stream, subscribe and push through the built CLI (.ci/run repeats this on Node 22
    // and 24, where node:http serves).
    const rx = await startReceiver();
    const scenario = await spawnBuiltServer(
      join(out.dir, 'src/cli/main.js'),
      [join(out.dir, 'examples/scenario-agent.js'), '--store', 'memory'],
      {
        SERVICE_PUSH_ALLOW_HTTP: 'true',
        SERVICE_PUSH_ALLOWED_HOSTS: '127.0.0.1',
      },
    );
    try {
      const a2a = client(scenario.url, 'jsonrpc');
      const pushed = await a2a.send({
        message: userMessage('echo pushed'),
        configuration: { pushNotificationConfig: { url: rx.url, token: 'tok' } },
      });
      expect(pushed.result.status.state).toBe('completed');
      const delivered = await eventually(() => rx.bodiesOf(pushed.result.id).find((b) => b.status.state === 'completed'));
      expect(delivered.id).toBe(pushed.result.id);

      const streamed = await (await streamMessage(scenario.url, 'rest', { message: userMessage('stream 3') })).items;
      expect(summarize(streamed.at(-1)?.data)).toBe('status:completed:final');

      const running = await a2a.send({ message: userMessage('slow 400'), configuration: { blocking: false } });
      const followed = await (await subscribe(scenario.url, 'jsonrpc', running.result.id)).items;
      expect(summarize(followed.at(-1)?.data)).toBe('status:completed:final');
    } finally {
      await scenario.kill('SIGTERM');
      await rx.close();
    }

    // The built CLI under plain node (as `npx a2actor` runs it) loads a TypeScript agent itself.
    // That agent imports the library's sources: two copies of the library, and an
    // `unauthenticated()` from the agent's copy is still a 401, not a 500.
    const twoCopies = await spawnBuiltServer(join(out.dir, 'src/cli/main.js'), ['examples/scenario-agent.ts', '--store', 'memory']);
    try {
      const refused = await fetch(`${twoCopies.url}/v1/card`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const card = await fetch(`${twoCopies.url}/v1/card`, { headers: { authorization: 'Bearer scenario-token' } });
      expect(card.status).toBe(200);
    } finally {
      await twoCopies.kill('SIGTERM');
    }
  }, 120_000);
});
