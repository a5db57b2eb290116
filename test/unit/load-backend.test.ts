/**
 * `pg` and `ioredis` are optional peer dependencies, loaded only when their backend is chosen;
 * a user who chose one without installing its client is told which package to install.
 */
import { describe, expect, it } from 'vitest';
import { loadBackend } from '../../src/load-backend.js';

describe('loading a backend client', () => {
  it('names the package to install when it is missing', async () => {
    const missing = 'a2actor-no-such-client';
    await expect(loadBackend(() => import(missing), missing, 'the Imaginary store')).rejects.toThrow(
      `the Imaginary store needs the "${missing}" package: npm install ${missing}`,
    );
  });

  it('names every package a feature needs when one of them is missing (gRPC needs two)', async () => {
    const missing = 'a2actor-no-such-grpc';
    await expect(loadBackend(() => import(missing), ['a2actor-other-package', missing], 'gRPC (SERVICE_GRPC_PORT)')).rejects.toThrow(
      `gRPC (SERVICE_GRPC_PORT) needs the "a2actor-other-package" and "${missing}" packages: npm install a2actor-other-package ${missing}`,
    );
  });

  it('passes other failures through unchanged', async () => {
    const broken = new Error('the client failed to initialise');
    await expect(loadBackend(() => Promise.reject(broken), 'pg', 'the PostgreSQL store')).rejects.toBe(broken);
  });

  it('loads an installed client', async () => {
    const pg = await loadBackend(() => import('pg'), 'pg', 'the PostgreSQL store');
    expect(typeof pg.default.Pool).toBe('function');
  });
});
