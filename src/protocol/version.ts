/**
 * `A2A-Version` check (spec "Versioning"): missing = 0.3; before 1.0 major and minor must match
 * exactly, from 1.0 on only the major; a patch part is ignored. Anything else is -32009.
 */
import { a2aError, shown, type A2AError } from '../a2a/errors.js';

export const PROTOCOL_VERSION = '0.3.0';
const SERVER = { major: 0, minor: 3 };

export function isSupportedVersion(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const m = /^\s*(\d+)\.(\d+)(?:\.\d+)?\s*$/.exec(header);
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major !== SERVER.major) return false;
  return SERVER.major >= 1 || minor === SERVER.minor;
}

/** The -32009 error for a request whose `A2A-Version` we do not speak, or undefined when it is fine. */
export function versionError(header: string | undefined): A2AError | undefined {
  if (isSupportedVersion(header)) return undefined;
  return a2aError(
    'versionNotSupported',
    `this server speaks A2A ${SERVER.major}.${SERVER.minor}, the request asked for ${shown(String(header))}`,
  );
}
