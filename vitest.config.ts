import { defineConfig } from 'vitest/config';

/**
 * Every suite on the default front end (native uWS here), and the wire (v0.3 and v1.0),
 * streaming, background, push, SDK-client, hostile-input, shutdown and fuzz suites again on the
 * node front end (`node-http` project: the name predates it), which is what serves on a Node or
 * platform without a native uWS build.
 */
const ON_BOTH_FRONT_ENDS = [
  'test/e2e/wire.test.ts',
  'test/e2e/core.test.ts',
  'test/e2e/background.test.ts',
  'test/e2e/streaming.test.ts',
  'test/e2e/streaming-load.test.ts',
  'test/e2e/streaming-persistence.test.ts',
  'test/e2e/streaming-sdk.test.ts',
  'test/e2e/sdk-client.test.ts',
  'test/e2e/sdk-v1-native.test.ts',
  'test/e2e/v1-wire.test.ts',
  'test/e2e/push.test.ts',
  'test/e2e/push-configs.test.ts',
  'test/e2e/push-limits.test.ts',
  'test/e2e/hostile-input.test.ts',
  'test/e2e/caller-quotas.test.ts',
  'test/e2e/list-budget.test.ts',
  'test/e2e/shutdown.test.ts',
  'test/fuzz/transports.test.ts',
];

/**
 * Run again on node:http's own server (`SERVICE_FRONT_END=node-http`): its parser's refusals, its
 * timeouts and its drain, which no mount goes through.
 */
const ON_NODE_HTTP_SERVER = [
  'test/e2e/wire.test.ts',
  'test/e2e/hostile-input.test.ts',
  'test/e2e/shutdown.test.ts',
  'test/fuzz/transports.test.ts',
];

/** Run again with the server mounted under a path of an Express app and of a bare node:http server. */
const THROUGH_A_MOUNT = [
  'test/e2e/wire.test.ts',
  'test/e2e/core.test.ts',
  'test/e2e/streaming.test.ts',
  'test/e2e/push.test.ts',
  'test/e2e/v1-wire.test.ts',
];

export default defineConfig({
  test: {
    // uWebSockets.js is a native addon: one process per test file keeps each file's servers apart.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'node-http', include: ON_BOTH_FRONT_ENDS, env: { TEST_FRONT_END: 'node' } } },
      { extends: true, test: { name: 'node-http-server', include: ON_NODE_HTTP_SERVER, env: { TEST_FRONT_END: 'node-http' } } },
      { extends: true, test: { name: 'express-mount', include: THROUGH_A_MOUNT, env: { TEST_MOUNT: 'express' } } },
      { extends: true, test: { name: 'http-mount', include: THROUGH_A_MOUNT, env: { TEST_MOUNT: 'http' } } },
    ],
  },
});
