/** Opaque page tokens: base64url of the last id seen, with a version prefix. */
import { a2aError } from '../a2a/errors.js';

const PREFIX = 'v1:';

export const encodePageToken = (lastId: string): string => Buffer.from(PREFIX + lastId, 'utf8').toString('base64url');

export function decodePageToken(token: string): string {
  const raw = Buffer.from(token, 'base64url').toString('utf8');
  if (!raw.startsWith(PREFIX) || raw.length === PREFIX.length) throw a2aError('invalidParams', 'pageToken is not valid');
  return raw.slice(PREFIX.length);
}
