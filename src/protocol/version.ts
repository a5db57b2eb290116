/**
 * `A2A-Version` check (spec "Versioning"): missing = 0.3; before 1.0 major and minor must match
 * exactly, from 1.0 on only the major; a patch part is ignored. Anything else is -32009.
 */
import { a2aError } from './errors.js';

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

export function checkVersion(header: string | undefined): void {
  if (!isSupportedVersion(header)) {
    throw a2aError('versionNotSupported', `this server speaks A2A ${SERVER.major}.${SERVER.minor}, the request asked for ${String(header)}`);
  }
}
