/**
 * The full agent card through a real server on 127.0.0.1: every field an author can declare is
 * served as declared; a card that breaks the A2A rules stops the start with the field's path;
 * an invalid extended card from the author's provider is an internal error (logged with the
 * path, nothing leaked) and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearerAuth,
  createServer,
  defineAgent,
  type AgentAuth,
  type AgentCard,
  type AgentCardInfo,
  type AgentDefinition,
  type CreateServerOptions,
} from '../../src/index.js';
import scenarioAgent from '../../examples/scenario-agent.js';
import { client, rpcCall, TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';
import { startServer, type TestServer } from '../support/server.js';

const TOKEN = { authorization: 'Bearer reader-token' };
const auth: AgentAuth = {
  ...bearerAuth({ tokens: { 'reader-token': 'reader' } }),
  securitySchemes: {
    bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'opaque', description: 'a token from the operator' },
    oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://issuer.example.com/.well-known/openid-configuration' },
  },
  security: [{ bearer: [] }, { oidc: ['tasks'] }],
};

const fullCard: AgentCardInfo = {
  name: 'Full Card Agent',
  description: 'Declares every card field A2A v0.3 has.',
  version: '2.1.0',
  iconUrl: 'https://agent.example.com/icon.png',
  documentationUrl: 'https://agent.example.com/docs',
  provider: { organization: 'Example Org', url: 'https://example.com' },
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['text/plain; charset=utf-8', 'image/png'],
  skills: [
    {
      id: 'translate',
      name: 'Translate',
      description: 'Translates text',
      tags: ['language', 'text'],
      examples: ['translate "bonjour" to English'],
      inputModes: ['text/plain'],
      outputModes: ['text/plain', 'application/json'],
      security: [{ oidc: ['translate'] }],
    },
    { id: 'draw', name: 'Draw', description: 'Draws a picture', tags: ['image'], outputModes: ['image/png'] },
  ],
};

describe('a card declaring every optional field', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      agent: defineAgent({ ...scenarioAgent, card: fullCard, auth, extendedCard: (_request, card) => card }),
    });
  });
  afterAll(() => server?.stop());

  it('serves each of them as declared', async () => {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json;
    expect(card).toMatchObject({
      protocolVersion: '0.3.0',
      name: fullCard.name,
      description: fullCard.description,
      version: '2.1.0',
      iconUrl: fullCard.iconUrl,
      documentationUrl: fullCard.documentationUrl,
      provider: fullCard.provider,
      defaultInputModes: fullCard.defaultInputModes,
      defaultOutputModes: fullCard.defaultOutputModes,
      securitySchemes: auth.securitySchemes,
      security: auth.security,
      supportsAuthenticatedExtendedCard: true,
    });
    // v1.0's `securityRequirements` ride beside each skill's `security` (test/e2e/v1-card.test.ts).
    expect(card.skills).toMatchObject(fullCard.skills);
    expect(card).not.toHaveProperty('signatures');
  });

  it.each(TRANSPORTS)('the extended card over %s is the same card, checked and served', async (transport) => {
    const r = await client(server.url, transport).extendedCard(TOKEN);
    expect(r.status).toBe(200);
    expect(r.result.skills).toMatchObject(fullCard.skills);
    expect(r.result.provider).toEqual(fullCard.provider);
  });
});

describe('cards refused at start-up, naming the field', () => {
  const skill = { id: 's', name: 'S', description: 'a skill', tags: ['t'] };
  const withCard = (card: Partial<AgentCardInfo> | Json, extra: Partial<AgentDefinition> = {}): AgentDefinition => ({
    ...scenarioAgent,
    card: { ...scenarioAgent.card, ...card } as AgentCardInfo,
    ...extra,
  });
  const start = (agent: AgentDefinition, options: Partial<CreateServerOptions> = {}) =>
    createServer({ agent, port: 0, host: '127.0.0.1', store: 'memory', logLevel: 'silent', env: {}, ...options });

  it.each([
    ['an empty name', withCard({ name: '' }), /card\.name: must not be empty or blank/],
    ['a blank description', withCard({ description: '  ' }), /card\.description: must not be empty/],
    ['an empty version', withCard({ version: '' }), /card\.version: must not be empty/],
    ['a skill without tags', withCard({ skills: [{ ...skill, tags: [] }] }), /card\.skills\[0\]\.tags: a skill must list at least one tag/],
    ['a skill missing its tags', withCard({ skills: [{ id: 's', name: 'S', description: 'd' }] }), /card\.skills\[0\]\.tags: /],
    ['a skill with an empty id', withCard({ skills: [skill, { ...skill, id: '' }] }), /card\.skills\[1\]\.id: must not be empty/],
    ['two skills with one id', withCard({ skills: [skill, skill] }), /card\.skills\[1\]\.id: repeats the skill id "s"/],
    ['an empty input mode', withCard({ defaultInputModes: [''] }), /card\.defaultInputModes\[0\]: must be a MIME type/],
    ['no output modes', withCard({ defaultOutputModes: [] }), /card\.defaultOutputModes: must list at least one MIME type/],
    [
      'a mode that is no MIME type',
      withCard({ defaultOutputModes: ['text/plain', 'plain text'] }),
      /card\.defaultOutputModes\[1\]: must be a MIME type/,
    ],
    [
      'a skill mode that is no MIME type',
      withCard({ skills: [{ ...skill, inputModes: ['text'] }] }),
      /card\.skills\[0\]\.inputModes\[0\]: must be a MIME type/,
    ],
    [
      'a skill with no output modes',
      withCard({ skills: [{ ...skill, outputModes: [] }] }),
      /card\.skills\[0\]\.outputModes: must list at least one/,
    ],
    ['an ftp iconUrl', withCard({ iconUrl: 'ftp://example.com/icon.png' }), /card\.iconUrl: must be an absolute http/],
    ['an empty iconUrl', withCard({ iconUrl: '' }), /card\.iconUrl: must be an absolute http/],
    [
      'a javascript: documentationUrl',
      withCard({ documentationUrl: 'javascript:alert(1)' }),
      /card\.documentationUrl: must be an absolute http/,
    ],
    [
      'a relative provider url',
      withCard({ provider: { organization: 'Org', url: '/about' } }),
      /card\.provider\.url: must be an absolute http/,
    ],
    [
      'a provider without organization',
      withCard({ provider: { organization: '', url: 'https://example.com' } }),
      /card\.provider\.organization: /,
    ],
    [
      'a skill requirement naming an undeclared scheme',
      withCard({ skills: [{ ...skill, security: [{ mtls: [] }] }] }, { auth }),
      /card\.skills\[0\]\.security: skill "s" names the security scheme "mtls"/,
    ],
    [
      'a card requirement naming an undeclared scheme',
      withCard({}, { auth: { ...auth, security: [{ bearer: [] }, { apikey: [] }] } }),
      /auth\.security names the security scheme "apikey"/,
    ],
    [
      'an OpenID Connect scheme whose URL is no URL',
      withCard(
        {},
        { auth: { ...auth, securitySchemes: { ...auth.securitySchemes, oidc: { type: 'openIdConnect', openIdConnectUrl: 'issuer' } } } },
      ),
      /card\.securitySchemes\.oidc\.openIdConnectUrl: must be an absolute http/,
    ],
  ])('%s', async (_name, agent, message) => {
    await expect(start(agent)).rejects.toThrow(message);
  });

  it('an unknown transport is refused by its setting', async () => {
    await expect(start(scenarioAgent, { preferredTransport: 'GRPC' as 'JSONRPC' })).rejects.toThrow(/PREFERRED_TRANSPORT: .*JSONRPC/);
  });

  it('every problem is listed at once, one line each', async () => {
    const err = (await start(withCard({ name: '', iconUrl: 'x', skills: [{ ...skill, tags: [] }] })).catch((e: unknown) => e)) as Error;
    expect(err.message.split('\n')).toEqual([
      'invalid agent card:',
      expect.stringMatching(/^ {2}card\.name: /),
      expect.stringMatching(/^ {2}card\.skills\[0\]\.tags: /),
      expect.stringMatching(/^ {2}card\.iconUrl: /),
    ]);
  });
});

/** Extended cards that break a rule, picked per request by the `x-case` header. */
const BROKEN: Record<string, (card: AgentCard) => unknown> = {
  'a skill without tags': (card) => ({ ...card, skills: [...card.skills, { id: 'x', name: 'X', description: 'x', tags: [] }] }),
  'an unknown transport': (card) => ({ ...card, additionalInterfaces: [{ url: card.url, transport: 'SOAP' }] }),
  'a requirement naming an undeclared scheme': (card) => ({ ...card, security: [{ nowhere: [] }] }),
  'an empty name': (card) => ({ ...card, name: '' }),
  'no card at all': () => null,
};
const PATHS: Record<string, string> = {
  'a skill without tags': 'extendedCard.skills[1].tags',
  'an unknown transport': 'extendedCard.additionalInterfaces[0].transport',
  'a requirement naming an undeclared scheme': 'extendedCard.security[0].nowhere',
  'an empty name': 'extendedCard.name',
  'no card at all': 'extendedCard',
};

describe('an invalid extended card from the provider', () => {
  let server: TestServer;
  let logs: CapturedLogs;
  beforeAll(async () => {
    logs = captureLogs('debug');
    server = await startServer({
      logger: logs.logger,
      agent: defineAgent({
        ...scenarioAgent,
        extendedCard(request, card) {
          const broken = BROKEN[request.headers['x-case'] ?? ''];
          if (broken) return broken(card) as AgentCard;
          // Capability extensions are part of the card schema (the server does not declare them itself).
          return { ...card, capabilities: { ...card.capabilities, extensions: [{ uri: 'https://example.com/ext/v1', required: false }] } };
        },
      }),
    });
  });
  afterAll(() => server?.stop());

  describe.each(Object.keys(BROKEN))('%s', (name) => {
    it.each(TRANSPORTS)('is an internal error over %s, logged with the field path, and the server keeps serving', async (transport) => {
      const before = logs.events('card.extended_invalid').length;
      const r = await client(server.url, transport).extendedCard({ 'x-case': name });
      expect(r.status).toBe(transport === 'rest' ? 500 : 200);
      expect(r.error).toMatchObject({ code: -32603, message: 'Internal error' });
      // Nothing about the card goes to the client.
      expect(JSON.stringify(r.error)).not.toMatch(/skills|transport|nowhere|extendedCard/);
      const logged = logs.events('card.extended_invalid').slice(before);
      expect(logged).toHaveLength(1);
      expect(logged[0]?.level).toBe('error');
      expect((logged[0]?.problems as string[]).some((p) => p.startsWith(`${PATHS[name]}: `))).toBe(true);

      const card = await fetch(`${server.url}/.well-known/agent-card.json`);
      expect(card.status).toBe(200);
      const task = await client(server.url, transport).send({ message: userMessage('echo still here') });
      expect(task.result.status.state).toBe('completed');
    });
  });

  it('a valid one (with capability extensions) is served', async () => {
    const r = await rpcCall(server.url, 'agent/getAuthenticatedExtendedCard', {});
    expect(r.status).toBe(200);
    expect(r.result.capabilities.extensions).toEqual([{ uri: 'https://example.com/ext/v1', required: false }]);
  });
});
