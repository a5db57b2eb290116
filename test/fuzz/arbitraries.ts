/**
 * Generators for the fuzz suite: requests that are valid, nearly valid and hostile, for both
 * transports. Hostile values: deep nesting (written as JSON text, so generating it cannot
 * overflow our own stack), huge strings, odd unicode, prototype-named keys and methods, wrong
 * types, odd numbers, odd headers.
 */
import fc from 'fast-check';

export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

export const RPC_METHODS = [
  'message/send',
  'message/stream',
  'message/sendStream',
  'tasks/get',
  'tasks/list',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
];

/** JSON text: the text of a generated value, or a value nested `levels` deep around it. */
export type JsonText = string;

export const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '\udfff', '\u202e', '💥', 'ﬀ', '\r\n', '"', '\\', '../..', '%00', ...PROTOTYPE_NAMES),
  fc.integer({ min: 1000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);

export const oddNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 1e308, -1e308, 2 ** 53, 0.5, 101, 100, 1),
);

/** Any JSON value, with prototype-named keys among the ordinary ones. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    oddString,
    oddNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTOTYPE_NAMES)), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** JSON text nested `levels` deep (arrays or objects), built as text. */
export const deepText = fc
  .record({ levels: fc.integer({ min: 60, max: 20_000 }), objects: fc.boolean() })
  .map(({ levels, objects }) => (objects ? '{"a":'.repeat(levels) + '1' + '}'.repeat(levels) : '['.repeat(levels) + ']'.repeat(levels)));

/** JSON text of a free-form value: ordinary, or nested deeply. */
export const freeFormText = fc.oneof(
  { weight: 3, arbitrary: jsonValue.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: deepText },
);

const textPart = fc.record({
  kind: fc.constant('text'),
  text: fc.oneof(fc.constantFrom('echo fuzz', 'direct hi', 'fail x', 'reject x', 'data', 'file'), oddString),
});
const partText = fc.oneof(
  textPart.map((p) => JSON.stringify(p)),
  freeFormText.map((d) => `{"kind":"data","data":{"d":${d}}}`),
  freeFormText.map((m) => `{"kind":"text","text":"echo m","metadata":{"m":${m}}}`),
  oddString.map((b) => JSON.stringify({ kind: 'file', file: { bytes: b, mimeType: 'text/plain' } })),
  fc.constantFrom(
    '{"__proto__":{"kind":"text"},"text":"x"}',
    '{"text":"proto-style part"}',
    '{"kind":"unsupported_type","text":"x"}',
    '{"kind":"file","file":{"uri":"http://127.0.0.1/x"}}',
    '"a string part"',
    'null',
  ),
);

/** A message as JSON text: valid, nearly valid (a field missing or of the wrong type) or odd. */
export const messageText = fc
  .record({
    role: fc.oneof(
      fc.constantFrom('"user"', '"agent"', '"ROLE_USER"', '1', 'null'),
      oddString.map((s) => JSON.stringify(s)),
    ),
    messageId: fc.oneof(
      fc.uuid().map((u) => JSON.stringify(u)),
      fc.constantFrom('""', '7', 'null'),
      oddString.map((s) => JSON.stringify(s)),
    ),
    parts: fc.oneof(
      { weight: 4, arbitrary: fc.array(partText, { minLength: 0, maxLength: 3 }).map((p) => `[${p.join(',')}]`) },
      { weight: 1, arbitrary: freeFormText },
    ),
    taskId: fc.option(
      fc.oneof(
        fc.constantFrom('"unknown-task"', 'null', '1'),
        oddString.map((s) => JSON.stringify(s)),
      ),
      { nil: undefined },
    ),
    contextId: fc.option(
      oddString.map((s) => JSON.stringify(s)),
      { nil: undefined },
    ),
    metadata: fc.option(freeFormText, { nil: undefined }),
    drop: fc.option(fc.constantFrom('role', 'messageId', 'parts'), { nil: undefined }),
  })
  .map((m) => {
    const fields = [
      ['kind', '"message"'],
      ['role', m.role],
      ['messageId', m.messageId],
      ['parts', m.parts],
      ['taskId', m.taskId],
      ['contextId', m.contextId],
      ['metadata', m.metadata],
    ].filter(([k, v]) => v !== undefined && k !== m.drop);
    return `{${fields.map(([k, v]) => `"${k}":${v}`).join(',')}}`;
  });

/**
 * A send that passes validation but for its free-form content: the shape that reaches the
 * runtime, where deep or odd JSON used to be serialized long after it was accepted.
 */
export const validSendWithOddContent = fc
  .record({
    where: fc.constantFrom('metadata', 'message', 'part', 'data'),
    content: freeFormText,
    id: fc.uuid(),
    text: fc.constantFrom('echo odd', 'direct odd', 'fail odd', 'data'),
  })
  .map(({ where, content, id, text }) => {
    const part = where === 'part' ? `{"kind":"text","text":"${text}","metadata":{"x":${content}}}` : `{"kind":"text","text":"${text}"}`;
    const parts = where === 'data' ? `[${part},{"kind":"data","data":{"x":${content}}}]` : `[${part}]`;
    const message = `{"role":"user","messageId":"${id}","parts":${parts}${where === 'message' ? `,"metadata":{"x":${content}}` : ''}}`;
    return `{"message":${message}${where === 'metadata' ? `,"metadata":{"x":${content}}` : ''}}`;
  });

/** message/send params (also the REST send body). */
export const sendParamsText = fc
  .record({
    message: fc.oneof({ weight: 6, arbitrary: messageText }, { weight: 1, arbitrary: freeFormText }),
    configuration: fc.option(
      fc.oneof(
        fc.constantFrom('{"blocking":false}', '{"blocking":true,"historyLength":0}', '{"historyLength":-1}', '{"blocking":"yes"}'),
        freeFormText,
        fc.constantFrom(
          '{"pushNotificationConfig":{"url":"http://127.0.0.1:1/hook","authentication":{"schemes":["Bearer"],"credentials":"c"}}}',
        ),
      ),
      { nil: undefined },
    ),
    metadata: fc.option(freeFormText, { nil: undefined }),
  })
  .map(
    (p) =>
      `{"message":${p.message}${p.configuration ? `,"configuration":${p.configuration}` : ''}${p.metadata ? `,"metadata":${p.metadata}` : ''}}`,
  );

/** Params for every other method: an id (maybe one we know), odd fields. */
export const idParamsText = (knownIds: string[]) =>
  fc
    .record({
      id: fc.oneof(
        fc.constantFrom(...knownIds.map((i) => JSON.stringify(i))),
        oddString.map((s) => JSON.stringify(s)),
        oddNumber.map(String),
        fc.constant('null'),
      ),
      extra: fc.option(
        fc.oneof(
          fc.constantFrom(
            '"historyLength":-1',
            '"historyLength":3',
            '"pageSize":0',
            '"pageSize":101',
            '"status":"bogus"',
            '"pushNotificationConfigId":"x"',
          ),
          freeFormText.map((m) => `"metadata":${m}`),
          fc.constantFrom(
            '"pushNotificationConfig":{"url":"not a url"}',
            '"pushNotificationConfig":{"url":"http://127.0.0.1:1/h","token":"a\\nb"}',
          ),
        ),
        { nil: undefined },
      ),
    })
    .map((p) => `{"id":${p.id},"taskId":${p.id}${p.extra ? `,${p.extra}` : ''}}`);

/** Another protocol version's JSON-RPC: its method names and its params. */
export interface RpcDialect {
  methods: readonly string[];
  params: fc.Arbitrary<JsonText>;
}

/**
 * A JSON-RPC request body as text: envelopes valid or not, any method, any params. With
 * `other`, half the bodies are that version's, now and then with the other version's params.
 */
export const rpcBodyText = (knownIds: string[], other?: RpcDialect) => {
  const v03Params = fc.oneof(
    { weight: 4, arbitrary: sendParamsText },
    { weight: 3, arbitrary: validSendWithOddContent },
    { weight: 4, arbitrary: idParamsText(knownIds) },
    { weight: 1, arbitrary: freeFormText },
  );
  const v03Call = fc.record({
    method: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...RPC_METHODS) },
      { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
      { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
    ),
    params: v03Params,
  });
  const call = other
    ? fc.oneof(
        v03Call,
        fc.record({
          method: fc.constantFrom(...other.methods),
          params: fc.oneof({ weight: 5, arbitrary: other.params }, { weight: 1, arbitrary: v03Params }),
        }),
      )
    : v03Call;
  return fc
    .record({
      // Mostly a valid envelope, so that most bodies reach their method.
      jsonrpc: fc.oneof({ weight: 6, arbitrary: fc.constant('"2.0"') }, { weight: 1, arbitrary: fc.constantFrom('"1.0"', '2', undefined) }),
      id: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('1', '"abc"', 'null', undefined) },
        { weight: 1, arbitrary: fc.constantFrom('{}', '[1]', '1.5', 'true') },
      ),
      call,
    })
    .map(({ jsonrpc, id, call: { method, params } }) => ({ jsonrpc, id, method, params }))
    .chain((r) =>
      fc.oneof(
        {
          weight: 9,
          arbitrary: fc.constant(
            `{${[
              r.jsonrpc === undefined ? undefined : `"jsonrpc":${r.jsonrpc}`,
              r.id === undefined ? undefined : `"id":${r.id}`,
              `"method":${JSON.stringify(r.method)}`,
              `"params":${r.params}`,
            ]
              .filter(Boolean)
              .join(',')}}`,
          ),
        },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '[]',
            '[{"jsonrpc":"2.0","id":1,"method":"tasks/list"}]',
            '[{"jsonrpc":"2.0","id":1,"method":"ListTasks"}]',
            '{',
            'null',
            '"str"',
            '{"jsonrpc":"2.0"',
            '{"jsonrpc":"2.0","id":1,"method":"SendMessage"',
          ),
        },
      ),
    );
};

export interface RestRequest {
  method: string;
  path: string;
  body: string | undefined;
}

/** A REST request: a real route (or a near miss) with odd ids, queries and bodies. */
export const restRequest = (knownIds: string[]): fc.Arbitrary<RestRequest> => {
  const id = fc.oneof(
    fc.constantFrom(...knownIds),
    fc.constantFrom('unknown', '%00', '%zz', 'a:b', '..', '%3Acancel', ...PROTOTYPE_NAMES),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
  );
  const query = fc
    .array(
      fc.tuple(
        fc.constantFrom(
          'pageSize',
          'historyLength',
          'page_size',
          'status',
          'contextId',
          'pageToken',
          'includeArtifacts',
          'statusTimestampAfter',
          '__proto__',
          'constructor',
        ),
        fc.oneof(
          fc.constantFrom('-1', '0', '101', '1e3', 'true', 'maybe', 'working', '2026-11-23T00:00:00Z', 'not-a-date'),
          fc.string({ maxLength: 20 }),
        ),
      ),
      { maxLength: 3 },
    )
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : ''));
  return fc.oneof(
    fc.oneof(sendParamsText, validSendWithOddContent).map((body) => ({ method: 'POST', path: '/v1/message:send', body })),
    fc.oneof(sendParamsText, validSendWithOddContent).map((body) => ({ method: 'POST', path: '/v1/message:stream', body })),
    fc.tuple(id, query).map(([i, q]) => ({ method: 'GET', path: `/v1/tasks/${i}${q}`, body: undefined })),
    query.map((q) => ({ method: 'GET', path: `/v1/tasks${q}`, body: undefined })),
    id.map((i) => ({ method: 'POST', path: `/v1/tasks/${i}:cancel`, body: undefined })),
    id.map((i) => ({ method: 'POST', path: `/v1/tasks/${i}:subscribe`, body: undefined })),
    fc.tuple(id, freeFormText).map(([i, b]) => ({ method: 'POST', path: `/v1/tasks/${i}/pushNotificationConfigs`, body: b })),
    fc
      .tuple(
        id,
        fc.constantFrom(
          '{"url":"http://127.0.0.1:1/h"}',
          '{"url":"nope"}',
          '{"config":{"pushNotificationConfig":{"url":"http://127.0.0.1:1/h"}}}',
        ),
      )
      .map(([i, b]) => ({
        method: 'POST',
        path: `/v1/tasks/${i}/pushNotificationConfigs`,
        body: b,
      })),
    fc.tuple(id, id).map(([i, c]) => ({ method: 'GET', path: `/v1/tasks/${i}/pushNotificationConfigs/${c}`, body: undefined })),
    fc.tuple(id, id).map(([i, c]) => ({ method: 'DELETE', path: `/v1/tasks/${i}/pushNotificationConfigs/${c}`, body: undefined })),
    fc
      .tuple(
        fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'POST'),
        fc.constantFrom(
          '/v1/card',
          '/v1/health',
          '/v1/health/ready',
          '/',
          '/v1/',
          '/v2/tasks',
          '/.well-known/agent-card.json',
          '/v1/tasks/x/y/z/w',
        ),
      )
      .map(([method, path]) => ({ method, path, body: undefined })),
  );
};

/** Request headers: content types and versions, mostly the right ones. */
export const requestHeaders = fc.record({
  'content-type': fc.constantFrom(
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'application/a2a+json',
    'application/a2a+json; charset=utf-8',
    'application/a2a+json',
    'text/plain',
    'application/x-www-form-urlencoded',
    undefined,
  ),
  'a2a-version': fc.constantFrom(undefined, undefined, undefined, '0.3', '0.3.0', '1.0', '1.0', '1.1', '', 'abc', '2.0'),
  'last-event-id': fc.constantFrom(undefined, undefined, '1', '-1', 'abc', '99999999999999999999'),
});

/**
 * Raw HTTP framing: Content-Length repeated, signed, listed or beside Transfer-Encoding; odd
 * header names (prototype names among them); HEAD. Behind the declared body sits a second,
 * hidden request (messageId `hidden-…`) that must never run.
 */
export const rawFraming = fc
  .record({
    method: fc.constantFrom('POST', 'POST', 'GET', 'HEAD', 'DELETE'),
    path: fc.constantFrom('/', '/v1/message:send', '/v1/message:stream', '/v1/health', '/v1/tasks'),
    lengths: fc.array(fc.constantFrom('0', '2', '5', '+2', '2, 2', '-1', 'abc', '99999999999999999999', ' 2'), {
      minLength: 0,
      maxLength: 3,
    }),
    chunked: fc.boolean(),
    extra: fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES, 'x-a', 'host', 'content-type', 'a2a-version'), fc.stringMatching(/^[A-Za-z-]{1,12}$/)),
        fc.stringMatching(/^[ -~]{0,40}$/),
      ),
      { maxLength: 3 },
    ),
    id: fc.uuid(),
  })
  .map(({ method, path, lengths, chunked, extra, id }) => {
    const hiddenBody = JSON.stringify({
      message: { role: 'user', messageId: `hidden-${id}`, parts: [{ kind: 'text', text: 'echo hidden' }] },
    });
    const hidden = `POST /v1/message:send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${hiddenBody.length}\r\n\r\n${hiddenBody}`;
    const headers = [
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      ...lengths.map((l) => `Content-Length: ${l}`),
      ...(chunked ? ['Transfer-Encoding: chunked'] : []),
      ...extra.map(([k, v]) => `${k}: ${v}`),
    ];
    const body = chunked ? `0\r\n\r\n${hidden}` : `{}${hidden}`;
    // Framing a server must refuse: then the hidden request must never run. With one plain
    // Content-Length (or none) it is an ordinary pipelined request, which may.
    // (Whitespace around a header value is allowed: ` 2` is a plain 2.)
    const ambiguous = lengths.length > 1 || (lengths.length > 0 && chunked) || lengths.some((l) => !/^\d{1,15}$/.test(l.trim()));
    return {
      text: `${method} ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n${body}`,
      hiddenId: `hidden-${id}`,
      head: method === 'HEAD',
      ambiguous,
    };
  });
