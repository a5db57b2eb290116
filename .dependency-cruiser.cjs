/**
 * The layers of src/ (docs/architecture.md), enforced: imports point down only, and nothing
 * imports in a circle. `npm run lint` runs it.
 *
 *   cli/ -> server.ts, index.ts, testing.ts -> server/ (createServer's stages) -> debug/ -> http/ -> protocol/ -> push/, runtime/
 *   -> cluster/ (implements runtime's ports) ... -> store/, agent.ts -> auth/ -> a2a/ -> machines/
 *   config.ts, log.ts, load-backend.ts, process-guard.ts, pause.ts, promise-of.ts: leaves anyone may use.
 *   observe/ (metrics, traces, logs): a leaf folder every layer reports to; it imports nothing of ours.
 */
const layer = (name, from, forbidden, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: forbidden },
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'modules import each other in a circle', from: {}, to: { circular: true } },
    layer(
      'observe-is-a-leaf',
      '^src/observe/',
      '^src/(?!observe/|load-backend\\.ts)',
      'metrics, logs and traces are used by every layer and know none of them',
    ),
    layer('a2a-is-the-model', '^src/a2a/', '^src/(?!a2a/)', 'the wire model depends on nothing of ours (machines/ only)'),
    layer('machines-are-pure', '^machines/', '^src/', 'the machine definitions know only XState'),
    layer('auth-below-the-wire', '^src/auth/', '^src/(?!auth/|a2a/|log\\.ts)', 'authentication knows the model and the logger only'),
    layer(
      'store-below-runtime',
      '^src/store/',
      '^src/(?!store/|a2a/|observe/|load-backend\\.ts)',
      'stores know the model, not tasks in flight or the wire',
    ),
    layer(
      'runtime-below-protocol',
      '^src/runtime/',
      '^src/(protocol|http|push|cluster|debug|cli)/|^src/(server|index|testing)\\.ts|^src/server/',
      'the runtime knows tasks, not wire formats, sockets, webhooks or the cluster backends',
    ),
    layer(
      'cluster-implements-runtime-ports',
      '^src/cluster/',
      '^src/(protocol|http|push|debug|cli)/|^src/(server|index|testing)\\.ts|^src/server/',
      'cluster backends sit below the wire',
    ),
    layer(
      'push-below-protocol',
      '^src/push/',
      '^src/(protocol|http|runtime|cluster|debug|cli)/|^src/(server|index|testing)\\.ts|^src/server/',
      'push knows configs and webhooks',
    ),
    layer(
      'protocol-below-http',
      '^src/protocol/',
      '^src/(http|cluster|debug|cli)/|^src/(server|index|testing)\\.ts|^src/server/',
      'the wire knows no sockets',
    ),
    layer(
      'http-below-server',
      '^src/http/',
      '^src/(debug|cli|store|cluster|push)/|^src/(server|index|testing)\\.ts|^src/server/',
      'front ends adapt sockets to the protocol layer',
    ),
    layer(
      'grpc-below-server',
      '^src/grpc/',
      '^src/(http|debug|cli|store|cluster|push)/|^src/(server|index|testing)\\.ts|^src/server/',
      'the gRPC listener adapts calls to the protocol layer, as the HTTP front ends adapt requests',
    ),
    layer(
      'debug-below-server',
      '^src/debug/',
      '^src/(cli|store|cluster|push|runtime)/|^src/(server|index|testing)\\.ts|^src/server/',
      'the debug page is served by the front end',
    ),
    layer(
      'stages-below-the-entry',
      '^src/server/',
      '^src/(server|index|testing)\\.ts',
      "createServer's stages know each other and the layers below, not the public entry",
    ),
    layer('agent-api-is-types', '^src/agent\\.ts$', '^src/(?!a2a/|auth/)', 'the author-facing types rest on the model and auth only'),
    layer('only-the-cli-starts-the-cli', '^src/(?!cli/)', '^src/cli/', 'nothing depends on the command line'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|bench|test|examples)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
