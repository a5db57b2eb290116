import { describe, expect, it } from 'vitest';
import { isUnder, normalMountPath } from '../../src/http/mount/mountable.js';

describe('which requests a mounted adapter takes', () => {
  it('takes the mount path itself, with a slash, a query or a path below it', () => {
    for (const url of ['/a2a', '/a2a/', '/a2a?x=1', '/a2a/v1/message:send', '/a2a/.well-known/agent-card.json']) {
      expect(isUnder(url, '/a2a'), url).toBe(true);
    }
  });

  it('leaves paths that only begin with the same letters, and everything else, to the app', () => {
    for (const url of ['/a2a-admin', '/a2ab', '/', '/api/a2a', '/A2A']) expect(isUnder(url, '/a2a'), url).toBe(false);
  });

  it('takes everything when mounted at the root, and ignores trailing slashes of the mount path', () => {
    expect(isUnder('/anything', normalMountPath('/'))).toBe(true);
    expect(normalMountPath('/a2a//')).toBe('/a2a');
  });
});
