/**
 * The object a request's headers are kept in, on every front end: own properties only, on a
 * prototype without Object's, so a header named `__proto__`, `constructor` or `toString` is a
 * header like any other and nothing is inherited. Made by a constructor rather than by
 * `Object.create(null)`, which makes a dictionary: objects one constructor makes share shapes,
 * and reading or setting a header is a plain property access, not a hash lookup.
 */
export const HeaderSet = function HeaderSet() {} as unknown as new () => Record<string, string>;
HeaderSet.prototype = Object.create(null) as object;
