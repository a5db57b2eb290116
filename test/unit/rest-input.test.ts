import { describe, expect, it } from 'vitest';
import { parseSendParams } from '../../src/protocol/params.js';
import { normalizeRestMessage, normalizeRestSendBody, simpleRestSendBody } from '../../src/protocol/rest-input.js';

/** What validation makes of a normalized body: the params as JSON text, or the refusal's message. */
function validated(body: unknown): string {
  try {
    return JSON.stringify(parseSendParams(body));
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

/** The general path alone (what every body took before the common shape had its own). */
function generalPath(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const { message, ...rest } = raw as Record<string, unknown>;
  return { ...rest, message: normalizeRestMessage(message) };
}

const body = (text: string): unknown => JSON.parse(text);

describe('the common REST send body', () => {
  it('turns the proto and A2A shapes into the same A2A body the general path makes', () => {
    const common = [
      '{"message":{"messageId":"m-1","role":"ROLE_USER","content":[{"text":"hello"}]}}',
      '{"message":{"messageId":"m-1","role":"ROLE_AGENT","content":[{"text":"a"},{"text":""}]}}',
      '{"message":{"kind":"message","role":"user","messageId":"m","parts":[{"kind":"text","text":"x"}]}}',
      '{"message":{"messageId":"m","role":"user","parts":[{"text":"x","kind":"text"}],"taskId":"t","contextId":"c"}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[]}}',
      '{"message":{"messageId":"","role":"ROLE_USER","content":[{"text":"x"}]}}',
      '{"message":{"messageId":"m","role":"system","content":[{"text":"x"}],"taskId":7}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"x"}],"kind":"task"}}',
    ];
    for (const text of common) {
      const simple = simpleRestSendBody(body(text));
      expect(simple, text).toBeDefined();
      expect(simple, text).toEqual(generalPath(body(text)));
      expect(validated(simple), text).toBe(validated(generalPath(body(text))));
    }
    expect(simpleRestSendBody(body(common[0] as string))).toStrictEqual({
      message: { messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hello' }] },
    });
  });

  it('steps aside for every other body, which the general path normalizes as before', () => {
    const other = [
      'null',
      '[]',
      '"x"',
      '{}',
      '{"message":null}',
      '{"message":{"messageId":"m","role":"ROLE_USER"}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":"x"}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"x"}]},"configuration":{"blocking":true}}',
      '{"request":{"messageId":"m","role":"ROLE_USER","content":[{"text":"x"}]}}',
      '{"message":{"message_id":"m","role":"ROLE_USER","content":[{"text":"x"}]}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"x"}],"parts":[{"text":"y"}]}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"x"}],"metadata":{}}}',
      '{"message":{"messageId":7,"role":"ROLE_USER","content":[{"text":"x"}]}}',
      '{"message":{"messageId":"m","content":[{"text":"x"}]}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":7}]}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[{"kind":"data","text":"x"}]}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"x","metadata":{}}]}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[{"data":{"data":{}}}]}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","content":[null]}}',
    ];
    for (const text of other) expect(simpleRestSendBody(body(text)), text).toBeUndefined();
  });

  it('never lets a prototype-named key in client JSON reach a prototype', () => {
    const refused = [
      '{"__proto__":{"message":{"messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}]}}}',
      '{"message":{"__proto__":{"messageId":"m","role":"user"},"parts":[{"kind":"text","text":"x"}]}}',
      '{"message":{"messageId":"m","role":"user","parts":[{"__proto__":{"kind":"text"},"text":"x"}]}}',
      '{"message":{"messageId":"m","role":"constructor","parts":[{"text":"x"}]},"constructor":{"prototype":{"polluted":true}}}',
      '{"message":{"messageId":"m","role":"toString","content":[{"text":"x"}]}}',
    ];
    for (const text of refused) {
      expect(validated(normalizeRestSendBody(body(text))), text).toMatch(/^refused: /);
      expect(({} as Record<string, unknown>).polluted, text).toBeUndefined();
      expect(({} as Record<string, unknown>).kind, text).toBeUndefined();
    }
    // An unknown key is stripped by the schema, as over JSON-RPC: it lends the part nothing.
    const stripped = '{"message":{"messageId":"m","role":"user","parts":[{"text":"x","constructor":{"prototype":{"kind":"data"}}}]}}';
    expect(JSON.parse(validated(normalizeRestSendBody(body(stripped))))).toEqual({
      message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'x' }], messageId: 'm' },
    });
  });

  it('keeps the general path for the rest: snake_case keys, configuration, data parts', () => {
    const normalized = normalizeRestSendBody(
      body(
        '{"request":{"message_id":"m","role":"ROLE_USER","content":[{"data":{"data":{"a":1}}}]},"configuration":{"push_notification":{"url":"https://x","token":""}}}',
      ),
    );
    expect(JSON.parse(JSON.stringify(normalized))).toEqual({
      message: { messageId: 'm', role: 'user', parts: [{ kind: 'data', data: { a: 1 } }] },
      configuration: { pushNotificationConfig: { url: 'https://x' } },
    });
  });
});
