// TypeDoc plugin: members that TypeDoc lists by expanding an inferred type are documented where
// they are declared as data, not one by one. A zod schema's fields (src/a2a/*-schema.ts,
// schemas.ts), the error table's entries and a machine definition's configuration reach the API
// reference as anonymous object types; requiring a comment on each of their members would ask
// for one comment per field per type that happens to contain it. Every other member (interface
// properties, options, settings) still needs its own comment, so `npm run docs` fails on it.
import { Converter, ReflectionKind } from 'typedoc';

/** Package paths whose anonymous members are declared as data (schemas, tables, machines). */
const DECLARED_AS_DATA = [/^src\/a2a\/(schemas|card-schema|errors)\.ts$/, /^machines\/[^/]+\.machine\.ts$/];

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    const project = context.project;
    const exempt = new Set(app.options.getValue('intentionallyNotDocumented'));
    for (const reflection of project.getReflectionsByKind(ReflectionKind.Property)) {
      if (reflection.hasComment() || !insideAnonymousType(reflection)) continue;
      const id = project.getSymbolIdFromReflection(reflection);
      // Members with no declaration of their own (a zod enum's keys) are the library's mapping.
      if (id && id.packagePath !== '' && !DECLARED_AS_DATA.some((p) => p.test(id.packagePath))) continue;
      if (id && id.packageName !== project.packageName) continue;
      exempt.add(reflection.getFriendlyFullName());
    }
    app.options.setValue('intentionallyNotDocumented', [...exempt]);
  });
}

/** True for a member of an object type written inline (`__type`), not inside a parameter's type. */
function insideAnonymousType(reflection) {
  let anonymous = false;
  for (let r = reflection.parent; r; r = r.parent) {
    if (r.kindOf(ReflectionKind.Parameter)) return false;
    if (r.kindOf(ReflectionKind.TypeLiteral)) anonymous = true;
  }
  return anonymous;
}
