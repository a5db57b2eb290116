/**
 * A value that is already JSON text. The runtime serializes a finished task once, for the store
 * and the response alike; a reply built from a JsonText splices the text in instead of walking
 * the object again (Node 20 has no JSON.rawJSON).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** `JSON.stringify(value)` (`null` for undefined), or the text itself when the value is a JsonText. */
export const toJsonText = (value: unknown): string =>
  value instanceof JsonText ? value.text : ((JSON.stringify(value) as string | undefined) ?? 'null');
