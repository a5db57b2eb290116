/**
 * Output negotiation: `configuration.acceptedOutputModes` (wire reference §1.7) says which MIME
 * types the client takes in the parts of the artifacts and messages a turn emits.
 *
 * The rule: an empty list (or none) accepts anything. Otherwise a part's type must match one
 * mode: exactly (case and parameters ignored), by `type/*`, or by `*\/*` (also `*`); a bare
 * `text` is read as `text/*`, as some clients send it. A text part is `text/plain`, a data
 * part `application/json`, a file part its `mimeType` (`application/octet-stream` without one,
 * as RFC 2046 treats unknown data).
 *
 * A part the client did not accept is refused where the handler emits it: the call throws
 * ContentTypeNotSupportedError (-32005) and nothing is emitted. Dropping the part instead would
 * silently change the answer (an artifact without its chart, a reply without parts), and the
 * client could not tell an omission from an absence. The agent can convert first (`ctx.accepts`)
 * or catch the error; if it does neither, its turn fails and the task ends `failed` with the
 * refusal as its status message, so the client learns why.
 */
import type { Part } from '../a2a/schemas.js';

export type AcceptsMime = (mimeType: string) => boolean;

const ANYTHING: AcceptsMime = () => true;

/** `Text/HTML; charset=utf-8` -> `text/html`. */
const bare = (mimeType: string): string => {
  const semi = mimeType.indexOf(';');
  return (semi < 0 ? mimeType : mimeType.slice(0, semi)).trim().toLowerCase();
};

/** The MIME type a part counts as. */
export function mimeTypeOf(part: Part): string {
  if (part.kind === 'text') return 'text/plain';
  if (part.kind === 'data') return 'application/json';
  return part.file.mimeType ?? 'application/octet-stream';
}

/**
 * The matcher for a turn's accepted modes, built once per turn. With no modes it is one shared
 * function: a request that does not negotiate costs nothing.
 */
export function outputFilter(modes: readonly string[]): AcceptsMime {
  if (modes.length === 0) return ANYTHING;
  const exact = new Set<string>();
  const families: string[] = [];
  for (const raw of modes) {
    const mode = bare(raw);
    if (mode === '*/*' || mode === '*') return ANYTHING;
    if (mode.endsWith('/*')) families.push(mode.slice(0, -1));
    else if (!mode.includes('/')) families.push(`${mode}/`);
    else exact.add(mode);
  }
  return (mimeType) => {
    const type = bare(mimeType);
    if (exact.has(type)) return true;
    for (const family of families) if (type.startsWith(family)) return true;
    return false;
  };
}

/** The type of the first part `accepts` refuses, or undefined when every part is accepted. */
export function refusedType(accepts: AcceptsMime, parts: readonly Part[]): string | undefined {
  if (accepts === ANYTHING) return undefined;
  for (const part of parts) {
    const type = mimeTypeOf(part);
    if (!accepts(type)) return type;
  }
  return undefined;
}
