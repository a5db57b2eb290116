/** Several ways in: a caller passes with any one of them (the card lists each as an alternative). */
import { requirementsOf } from './gate.js';
import type { AuthMethod } from './types.js';

/** Several ways in: a caller passes with any one of them (the card lists each as an alternative). */
export function anyAuth(...methods: AuthMethod[]): AuthMethod {
  if (methods.length === 0) throw new TypeError('anyAuth needs at least one method');
  const securitySchemes: AuthMethod['securitySchemes'] = {};
  for (const method of methods) {
    for (const [name, scheme] of Object.entries(method.securitySchemes)) {
      if (name in securitySchemes)
        throw new TypeError(`anyAuth: two methods declare the scheme ${JSON.stringify(name)}; give one a schemeName`);
      securitySchemes[name] = scheme;
    }
  }
  return {
    securitySchemes,
    security: methods.flatMap(requirementsOf),
    // In order; the first method that knows the caller decides.
    authenticate: async (request) => {
      for (const method of methods) {
        const principal = await method.authenticate(request);
        if (principal) return principal;
      }
      return undefined;
    },
    challenges: methods.flatMap((m) => m.challenges ?? []),
  };
}
