/**
 * Generators for A2A v1.0 input (README "Protocol versions"): PascalCase JSON-RPC methods with
 * proto-JSON params, and the root REST routes, also behind an odd `/{tenant}`. Valid, nearly
 * valid and hostile, from the same odd values as the v0.3 generators: field names in their JSON
 * or proto (snake_case) spelling, enums by name or number, parts that break their oneof, keys
 * written twice, prototype names as keys.
 */
import fc from 'fast-check';
import { freeFormText, oddNumber, oddString, PROTOTYPE_NAMES, type JsonText, type RestRequest } from './arbitraries.js';
import { V1_RPC_METHODS } from '../support/a2a-v1.js';

export { V1_RPC_METHODS };

const str = (s: string): JsonText => JSON.stringify(s);

/** A field name in its JSON spelling, now and then in its proto one (`messageId`, `message_id`). */
const named = (json: string): fc.Arbitrary<string> => {
  const proto = json.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return proto === json
    ? fc.constant(json)
    : fc.oneof({ weight: 3, arbitrary: fc.constant(json) }, { weight: 1, arbitrary: fc.constant(proto) });
};

/** An object as JSON text from [name, value] pairs; an undefined value leaves its member out. */
const objectText = (members: readonly (readonly [string, JsonText | undefined])[]): JsonText =>
  `{${members
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${str(k)}:${v}`)
    .join(',')}}`;

/** An optional member: its name (maybe snake_case) and value, or nothing. */
const member = (json: string, value: fc.Arbitrary<JsonText>) => fc.option(fc.tuple(named(json), value), { nil: undefined, freq: 2 });

const oddJsonString = oddString.map(str);
const commandText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('echo fuzz', 'direct hi', 'fail x', 'reject x', 'data', 'file', 'ask which?').map(str) },
  { weight: 1, arbitrary: oddJsonString },
);
/** Metadata: mostly an object with odd (maybe deep) content, now and then not an object at all. */
const metadataText = fc.oneof(
  { weight: 3, arbitrary: freeFormText.map((v) => `{"x":${v}}`) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES).map((k) => `{${str(k)}:{"x":1}}`) },
  { weight: 1, arbitrary: freeFormText },
);

/** A v1.0 part: one of text, raw, url or data, or a part that breaks the oneof. */
const partText: fc.Arbitrary<JsonText> = fc.oneof(
  commandText.map((t) => `{"text":${t}}`),
  fc
    .record({
      raw: fc.oneof(fc.constantFrom('aGVsbG8=', '', '!!not base64!!'), oddString).map(str),
      mediaType: fc.option(fc.oneof(fc.constantFrom('text/plain', ''), oddString).map(str), { nil: undefined }),
      filename: fc.option(oddJsonString, { nil: undefined }),
    })
    .map(({ raw, mediaType, filename }) =>
      objectText([
        ['raw', raw],
        ['mediaType', mediaType],
        ['filename', filename],
      ]),
    ),
  fc.oneof(fc.constantFrom('http://127.0.0.1:1/f', 'not a url', ''), oddString).map((u) => `{"url":${str(u)},"media_type":"text/plain"}`),
  freeFormText.map((d) => `{"data":${d}}`),
  freeFormText.map((m) => `{"text":"echo m","metadata":${m}}`),
  fc.constantFrom(
    '{"text":"a","raw":"aGk="}',
    '{"text":"a","text":"echo twice"}',
    '{"url":"http://127.0.0.1:1/f","data":{}}',
    '{}',
    '{"kind":"text","text":"echo v0.3 part"}',
    '{"__proto__":{"text":"x"}}',
    '{"text":null}',
    '{"text":7}',
    '{"data":"not an object"}',
    '{"data":[1,2]}',
    '"a string part"',
    'null',
  ),
);

/** A v1.0 `Message`: valid, nearly valid (a member missing, twice or of the wrong type) or odd. */
export const v1MessageText: fc.Arbitrary<JsonText> = fc
  .record({
    messageId: fc.tuple(
      named('messageId'),
      fc.oneof(
        { weight: 4, arbitrary: fc.uuid().map(str) },
        { weight: 1, arbitrary: fc.constantFrom('""', '7', 'null') },
        { weight: 1, arbitrary: oddJsonString },
      ),
    ),
    role: fc.oneof(
      { weight: 6, arbitrary: fc.constant('"ROLE_USER"') },
      { weight: 2, arbitrary: fc.constantFrom('"ROLE_AGENT"', '"ROLE_UNSPECIFIED"', '"user"', '1', '2', '0', '99', '-1', '1.5', 'null') },
      { weight: 1, arbitrary: oddJsonString },
    ),
    parts: fc.oneof(
      { weight: 5, arbitrary: fc.array(partText, { minLength: 0, maxLength: 3 }).map((p) => `[${p.join(',')}]`) },
      { weight: 1, arbitrary: freeFormText },
    ),
    taskId: member('taskId', fc.oneof(fc.constantFrom('"unknown-task"', '""', 'null', '1'), oddJsonString)),
    contextId: member('contextId', fc.oneof(fc.constant('""'), oddJsonString)),
    metadata: fc.option(metadataText, { nil: undefined }),
    extensions: fc.option(fc.constantFrom('[]', '["urn:x"]', '"urn:x"', '[1]'), { nil: undefined }),
    drop: fc.option(fc.constantFrom('role', 'messageId', 'parts'), { nil: undefined }),
    twice: fc.option(fc.constantFrom('role', 'messageId'), { nil: undefined, freq: 8 }),
  })
  .map((m) => {
    const members: [string, JsonText | undefined][] = [
      m.messageId,
      ['role', m.role],
      ['parts', m.parts],
      ['metadata', m.metadata],
      ['extensions', m.extensions],
    ];
    if (m.taskId) members.push(m.taskId);
    if (m.contextId) members.push(m.contextId);
    const kept = members.filter(([k]) => k.replace('_id', 'Id') !== m.drop);
    // A member written twice: JSON.parse keeps the last one, which may be a different type.
    if (m.twice === 'role') kept.push(['role', '"ROLE_AGENT"']);
    if (m.twice === 'messageId') kept.push(['messageId', '""']);
    return objectText(kept);
  });

const pushConfigText: fc.Arbitrary<JsonText> = fc.oneof(
  fc
    .record({
      url: fc.oneof(fc.constantFrom('http://127.0.0.1:1/hook', 'not a url', '', 'ftp://127.0.0.1/x'), oddString).map(str),
      token: member('token', fc.oneof(fc.constantFrom('"t"', '"a\\nb"', '""'), oddJsonString)),
      authentication: fc.option(
        fc.constantFrom('{"scheme":"Bearer","credentials":"c"}', '{"scheme":""}', '{"schemes":["Bearer"]}', '{"scheme":7}', '"Bearer"'),
        { nil: undefined },
      ),
      id: member('id', fc.oneof(fc.constantFrom('"cfg-1"', '""'), oddJsonString)),
      taskId: member('taskId', fc.oneof(fc.constantFrom('"unknown-task"', '""'), oddJsonString)),
    })
    .map((c) =>
      objectText([
        ['url', c.url],
        ...(c.token ? [c.token] : []),
        ['authentication', c.authentication],
        ...(c.id ? [c.id] : []),
        ...(c.taskId ? [c.taskId] : []),
      ]),
    ),
  freeFormText,
);

const configurationText: fc.Arbitrary<JsonText> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        returnImmediately: member('returnImmediately', fc.constantFrom('true', 'false', '"yes"', '1', 'null')),
        historyLength: member('historyLength', fc.oneof(fc.constantFrom('0', '1', '-1', '"2"', 'null'), oddNumber.map(String))),
        acceptedOutputModes: member(
          'acceptedOutputModes',
          fc.constantFrom('["text/plain"]', '["application/json"]', '[]', '"text/plain"', '[7]'),
        ),
        push: member('taskPushNotificationConfig', pushConfigText),
      })
      .map((c) => objectText([c.returnImmediately, c.historyLength, c.acceptedOutputModes, c.push].filter((m) => m !== undefined))),
  },
  { weight: 1, arbitrary: freeFormText },
  // v0.3's names, which v1.0 does not read.
  { weight: 1, arbitrary: fc.constantFrom('{"blocking":false}', '{"pushNotificationConfig":{"url":"http://127.0.0.1:1/hook"}}') },
);

/**
 * A send that passes validation, in either spelling, with odd content only where any is allowed
 * (text, metadata, data parts): the shape that reaches the runtime and comes back as v1.0.
 */
const validV1SendText: fc.Arbitrary<JsonText> = fc
  .record({
    id: fc.tuple(named('messageId'), fc.uuid().map(str)),
    role: fc.constantFrom('"ROLE_USER"', '1'),
    parts: fc
      .array(
        fc.oneof(
          { weight: 3, arbitrary: commandText.map((t) => `{"text":${t}}`) },
          { weight: 1, arbitrary: freeFormText.map((m) => `{"text":"echo meta","metadata":{"m":${m}}}`) },
          { weight: 1, arbitrary: freeFormText.map((d) => `{"data":{"d":${d}}}`) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('{"raw":"aGVsbG8=","mediaType":"text/plain","filename":"h.txt"}', '{"url":"http://127.0.0.1:1/f"}'),
          },
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((p) => `[${p.join(',')}]`),
    configuration: fc.option(
      fc
        .record({
          returnImmediately: member('returnImmediately', fc.boolean().map(String)),
          historyLength: member('historyLength', fc.constantFrom('0', '1', '5')),
          acceptedOutputModes: member('acceptedOutputModes', fc.constantFrom('["text/plain"]', '["text/plain","application/json"]')),
          push: member('taskPushNotificationConfig', fc.constant('{"url":"http://127.0.0.1:1/hook","token":"t"}')),
        })
        .map((c) => objectText([c.returnImmediately, c.historyLength, c.acceptedOutputModes, c.push].filter((m) => m !== undefined))),
      { nil: undefined },
    ),
    metadata: fc.option(
      freeFormText.map((v) => `{"x":${v}}`),
      { nil: undefined, freq: 3 },
    ),
  })
  .map((p) =>
    objectText([
      ['message', objectText([p.id, ['role', p.role], ['parts', p.parts]])],
      ['configuration', p.configuration],
      ['metadata', p.metadata],
    ]),
  );

/** `SendMessageRequest` params (also the body of `POST /message:send` and `/message:stream`). */
export const v1SendParamsText: fc.Arbitrary<JsonText> = fc.oneof(
  { weight: 2, arbitrary: validV1SendText },
  {
    weight: 3,
    arbitrary: fc
      .record({
        message: fc.oneof({ weight: 8, arbitrary: v1MessageText }, { weight: 1, arbitrary: freeFormText }),
        configuration: fc.option(configurationText, { nil: undefined }),
        metadata: fc.option(metadataText, { nil: undefined }),
        tenant: fc.option(fc.oneof(fc.constantFrom('"acme"', '""', '7'), oddJsonString), { nil: undefined, freq: 6 }),
      })
      .map((p) =>
        objectText([
          ['message', p.message],
          ['configuration', p.configuration],
          ['metadata', p.metadata],
          ['tenant', p.tenant],
        ]),
      ),
  },
);

/** A v1.0 `status` filter: a state's name, its number, our v0.3 name or junk. */
const statusFilter = fc.oneof(
  fc.constantFrom(
    'TASK_STATE_WORKING',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_UNSPECIFIED',
    'TASK_STATE_CANCELLED',
  ),
  fc.constantFrom('0', '3', '6', '8', '9', '-1', 'working', 'completed'),
  fc.string({ maxLength: 12 }),
);

/** Params of every other v1.0 method: a task id (maybe one we know), a config id, odd fields. */
export const v1IdParamsText = (knownIds: string[]): fc.Arbitrary<JsonText> => {
  const id = fc.oneof(fc.constantFrom(...knownIds.map(str)), oddJsonString, oddNumber.map(String), fc.constantFrom('null', '""'));
  return fc
    .record({
      taskId: id,
      configId: fc.option(fc.oneof(fc.constantFrom('"cfg-1"', '""'), id), { nil: undefined }),
      idName: named('taskId'),
      extra: fc.array(
        fc.oneof(
          fc.tuple(named('historyLength'), fc.oneof(fc.constantFrom('-1', '0', '3', '"3"'), oddNumber.map(String))),
          fc.tuple(named('pageSize'), fc.oneof(fc.constantFrom('0', '1', '100', '101', '"10"', 'null'), oddNumber.map(String))),
          fc.tuple(
            fc.constant('status'),
            statusFilter.map((s) => (/^-?\d+$/.test(s) ? s : str(s))),
          ),
          fc.tuple(named('statusTimestampAfter'), fc.constantFrom('"2026-11-23T00:00:00Z"', '"not-a-date"', '0', '""')),
          fc.tuple(named('includeArtifacts'), fc.constantFrom('true', '"true"', '1')),
          fc.tuple(named('contextId'), oddJsonString),
          fc.tuple(named('pageToken'), fc.oneof(fc.constantFrom('"bm9wZQ"', '""'), oddJsonString)),
          fc.tuple(fc.constant('tenant'), fc.oneof(fc.constantFrom('"acme"', '""'), oddJsonString)),
          fc.tuple(fc.constant('metadata'), metadataText),
          fc.tuple(fc.constant('url'), fc.constantFrom('"http://127.0.0.1:1/h"', '"not a url"')),
          fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES), freeFormText),
        ),
        { maxLength: 3 },
      ),
    })
    .map((p) =>
      // `id` is the task on task methods and the config on config methods, which name the task `taskId`.
      objectText([['id', p.configId ?? p.taskId], [p.idName, p.taskId], ...p.extra]),
    );
};

/** JSON-RPC params for a v1.0 method. */
export const v1ParamsText = (knownIds: string[]): fc.Arbitrary<JsonText> =>
  fc.oneof(
    { weight: 4, arbitrary: v1SendParamsText },
    { weight: 4, arbitrary: v1IdParamsText(knownIds) },
    { weight: 1, arbitrary: freeFormText },
  );

/** A query string for v1.0's GET routes. */
const v1Query = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'pageSize',
        'page_size',
        'status',
        'historyLength',
        'statusTimestampAfter',
        'contextId',
        'pageToken',
        'includeArtifacts',
        'tenant',
        '__proto__',
      ),
      fc.oneof(
        fc.constantFrom(
          '-1',
          '0',
          '1',
          '100',
          '101',
          '1e3',
          '2.5',
          'true',
          'TASK_STATE_WORKING',
          '3',
          '2026-11-23T00:00:00Z',
          'not-a-date',
          '',
        ),
        statusFilter,
        fc.string({ maxLength: 20 }),
      ),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : ''));

/** A v1.0 REST request: a root route (or a near miss), at the root or behind an odd `/{tenant}`. */
export const v1RestRequest = (knownIds: string[]): fc.Arbitrary<RestRequest> => {
  const id = fc.oneof(
    fc.constantFrom(...knownIds),
    fc.constantFrom('unknown', '%00', '%zz', 'a:b', '..', '%3Acancel', 'tasks', ...PROTOTYPE_NAMES),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
  );
  const tenant = fc.option(
    fc.oneof(
      fc.constantFrom('acme', 'v1', 'v2', 'tasks', 'message:send', '%zz', '%2F', 'a%20b', ...PROTOTYPE_NAMES),
      fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent),
    ),
    { nil: undefined },
  );
  const pushBody = fc.oneof(
    pushConfigText,
    fc.constantFrom(
      '{"url":"http://127.0.0.1:1/h"}',
      '{"url":"http://127.0.0.1:1/h","taskId":"other"}',
      '{"push_notification_config":{"url":"x"}}',
    ),
  );
  const route: fc.Arbitrary<RestRequest> = fc.oneof(
    v1SendParamsText.map((body) => ({ method: 'POST', path: '/message:send', body })),
    v1SendParamsText.map((body) => ({ method: 'POST', path: '/message:stream', body })),
    fc.tuple(id, v1Query).map(([i, q]) => ({ method: 'GET', path: `/tasks/${i}${q}`, body: undefined })),
    v1Query.map((q) => ({ method: 'GET', path: `/tasks${q}`, body: undefined })),
    fc
      .tuple(
        id,
        fc.option(
          fc.oneof(
            metadataText.map((m) => `{"metadata":${m}}`),
            freeFormText,
          ),
          { nil: undefined },
        ),
      )
      .map(([i, body]) => ({ method: 'POST', path: `/tasks/${i}:cancel`, body })),
    fc.tuple(fc.constantFrom('GET', 'POST'), id).map(([method, i]) => ({ method, path: `/tasks/${i}:subscribe`, body: undefined })),
    fc.tuple(id, pushBody).map(([i, body]) => ({ method: 'POST', path: `/tasks/${i}/pushNotificationConfigs`, body })),
    id.map((i) => ({ method: 'GET', path: `/tasks/${i}/pushNotificationConfigs`, body: undefined })),
    fc
      .tuple(fc.constantFrom('GET', 'DELETE'), id, fc.oneof(fc.constant('cfg-1'), id))
      .map(([method, i, c]) => ({ method, path: `/tasks/${i}/pushNotificationConfigs/${c}`, body: undefined })),
    fc.constant({ method: 'GET', path: '/extendedAgentCard', body: undefined }),
    // Near misses: a route with another method, a path v1.0 does not serve.
    fc
      .tuple(
        fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'POST'),
        fc.constantFrom(
          '/message:send',
          '/tasks',
          '/tasks/x:cancel',
          '/extendedAgentCard',
          '/tasks/x/y/z/w',
          '/message',
          '/tasks:list',
          '/card',
        ),
      )
      .map(([method, path]) => ({ method, path, body: method === 'POST' || method === 'PUT' ? '{}' : undefined })),
  );
  return fc.tuple(tenant, route).map(([t, r]) => (t === undefined ? r : { ...r, path: `/${t}${r.path}` }));
};
