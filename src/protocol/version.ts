/**
 * `A2A-Version` (spec "Versioning"; docs/architecture.md "Protocol versions"): which protocol a
 * request speaks. Missing = none asked (the method or path decides, else v0.3). Before 1.0 major
 * and minor must match exactly, from 1.0 on only the major; a patch part is ignored. Anything
 * else is -32009.
 */
import { a2aError, shown, type A2AError } from '../a2a/errors.js';
import type { ProtocolVersion } from '../a2a/versions.js';

/** What v0.3 cards and clients call the version. */
export const PROTOCOL_VERSION = '0.3.0';

/** The version a header asks for; undefined when it asks for none; the -32009 error when we speak no such version. */
export function requestedVersion(header: string | undefined): ProtocolVersion | undefined | A2AError {
  if (header === undefined || header.trim() === '') return undefined;
  const m = /^\s*(\d+)\.(\d+)(?:\.\d+)?\s*$/.exec(header);
  const major = m ? Number(m[1]) : NaN;
  const minor = m ? Number(m[2]) : NaN;
  if (major === 1) return '1.0';
  if (major === 0 && minor === 3) return '0.3';
  return a2aError('versionNotSupported', `this server speaks A2A 0.3 and 1.0, the request asked for ${shown(header)}`);
}
