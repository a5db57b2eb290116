/**
 * A value that is already JSON text. The runtime serializes a finished task once, for the store
 * and the response alike; a reply built from a JsonText splices the text in instead of walking
 * the object again (Node 20 has no JSON.rawJSON).
 */
export class JsonText<T = unknown> {
  /**
   * `value`: the object the text was made from, when its holder has it and it no longer changes
   * (a finished task). A reply that must reshape it (the proto dialect) reads it instead of
   * parsing the text back.
   */
  constructor(
    readonly text: string,
    readonly value?: T,
  ) {}
}

/** `JSON.stringify(value)` (`null` for undefined), or the text itself when the value is a JsonText. */
export const toJsonText = (value: unknown): string =>
  value instanceof JsonText ? value.text : ((JSON.stringify(value) as string | undefined) ?? 'null');

/** The object behind a value that may be its JSON text: the one it was made from, else the text parsed. */
export const objectOf = <T>(value: T | JsonText<T>): T =>
  value instanceof JsonText ? (value.value ?? (JSON.parse(value.text) as T)) : value;
