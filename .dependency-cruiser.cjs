/**
 * tabletop's layering, checked by dependency-cruiser in `npm test` (`npm run depcheck`):
 *
 *   model ← storage ← tablet ← db ← sql ← insight ← server ← cli (ui), the package entry src/index.ts
 *
 * insight (the access recording behind the key heatmap) reads the db through the hook types db
 * declares (src/db/access.ts); db never imports insight, and src/index.ts wires the two.
 *
 * Beside the model sits the row-key builder src/keys/ (typed key schemas for users, exported as
 * `tabletopdb` and `tabletopdb/keys`): it imports only the model's level, and only the package entry
 * imports it, so that it stays a leaf that users load without the database.
 *
 * A layer imports its own layer and the ones below it, never one above. The top-level
 * src/config.ts, src/log.ts and src/units.ts are shared definitions (tunables, the Logger
 * interface, number formatting) at the model's level: every layer may read them, and they
 * import only the model. Tests sit in their layer's folder and obey its rule; test/ and
 * bench/ may import anything of src/, which imports neither. src/testing/ is test support
 * that imports only the model's level, so any layer's tests may use it; production code
 * imports no `testing/` folder (the build leaves them out).
 *
 * Besides the layers: the model does no I/O; protobuf and gRPC types stay in the server
 * (its conversion layer, its transports, the proto loading and the services that take
 * proto-typed requests today); no two folders import each other, directly or round a cycle;
 * and no modules form a cycle at all, inside one folder or across folders (type-only imports
 * count: a type two modules share gets a module of its own).
 *
 * test/layering/layering.test.ts runs this configuration on two tiny trees, one allowed and one
 * with a bad import of each kind, so that no rule can pass silently.
 */

/** The layers from the bottom up: what each one's files match. */
const LAYERS = [
  { name: 'model', path: '^src/(model/|(config|log|units)\\.ts$)' },
  { name: 'storage', path: '^src/storage/' },
  { name: 'tablet', path: '^src/tablet/' },
  { name: 'db', path: '^src/db/' },
  { name: 'sql', path: '^src/sql/' },
  { name: 'insight', path: '^src/insight/' },
  { name: 'server', path: '^src/server/' },
  { name: 'cli', path: '^src/(cli|ui)/|^src/index\\.ts$' },
];

/** The row-key builder, beside the model (see above). */
const KEYS = '^src/keys/';

/** Tests and their support: exempt from the production-only rules (they may use I/O and protobuf as oracles). */
const TEST_FILES = '\\.test\\.ts$|/testing/';

/** Node's modules that touch files, the network, processes or the machine. */
const IO_MODULES =
  '^(node:)?(fs|fs/promises|net|http|https|http2|dgram|dns|dns/promises|child_process|worker_threads|cluster|tls|os|readline|readline/promises|inspector|v8)$';

/** Where protobuf and gRPC may be imported: the server's conversion layer, transports and proto loading, and (today) its services and gRPC wiring. */
const PROTOBUF_ALLOWED = [
  '^src/server/convert/',
  '^src/server/transport/',
  '^src/server/(protos|protobuf-build|bigtable-descriptor)\\.ts$',
  // Known exceptions, to shrink: the services take proto-typed requests and build grpc-js service objects,
  // and grpc-server.ts / rpc.ts wire them into grpc-js (issue 20's method table).
  '^src/server/(admin|data)/',
  '^src/server/(grpc-server|rpc)\\.ts$',
];

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  comment: `${layer.name} may import only ${LAYERS.slice(0, i + 1)
    .map((l) => l.name)
    .join(', ')} (model ← storage ← tablet ← db ← sql ← insight ← server ← cli)`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: LAYERS.slice(i + 1).map((l) => l.path) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'keys-beside-model',
      comment: "the row-key builder (src/keys/) imports only the model's level",
      severity: 'error',
      from: { path: KEYS },
      to: { path: '^src/', pathNot: [LAYERS[0].path, KEYS] },
    },
    {
      name: 'keys-for-users-only',
      comment: 'only the package entry (src/index.ts) imports the row-key builder (src/keys/): it is for users, not for tabletop itself',
      severity: 'error',
      from: { path: '^src/', pathNot: [KEYS, '^src/index\\.ts$'] },
      to: { path: KEYS },
    },
    {
      name: 'src-not-to-test-or-bench',
      comment: 'src/ is what ships: it imports nothing from test/ or bench/',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'no-testing-in-production',
      comment: 'production code imports no testing/ folder (the build leaves them out)',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST_FILES },
      to: { path: '/testing/' },
    },
    {
      name: 'testing-support-at-the-bottom',
      comment: "src/testing/ imports only the model's level (and itself), so that any layer's tests may use it",
      severity: 'error',
      from: { path: '^src/testing/' },
      to: { path: '^src/', pathNot: [LAYERS[0].path, '^src/testing/'] },
    },
    {
      name: 'model-no-io',
      comment:
        'the model (and the row-key builder beside it) does no I/O: files, network, processes and the machine are for the layers above',
      severity: 'error',
      from: { path: '^src/(model|keys)/', pathNot: TEST_FILES },
      to: { dependencyTypes: ['core'], path: IO_MODULES },
    },
    {
      name: 'protobuf-in-server-only',
      comment:
        "protobuf and gRPC types stay in the server's conversion layer and transports (see PROTOBUF_ALLOWED in .dependency-cruiser.cjs)",
      severity: 'error',
      from: { path: '^src/', pathNot: [TEST_FILES, ...PROTOBUF_ALLOWED] },
      to: {
        path: [
          '(^|/)node_modules/(protobufjs|@grpc/)',
          '^src/server/(bigtable-descriptor|protobuf-build)\\.ts$',
          '^src/server/convert/proto-types\\.ts$',
        ],
      },
    },
    {
      name: 'no-folder-cycles',
      comment: 'no two folders import each other, directly or round a cycle',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-cycles',
      comment: 'no cycle of module imports, even inside one folder (type-only imports count: a shared type gets a module of its own)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Not node_modules: excluding it would drop the imports of packages, and the protobuf rule with them.
    // And the web UI's .tsx views: swc parses TypeScript here without JSX (dependency-cruiser passes it no
    // tsx option). They are at the top layer, which may import all of src/; src/ui's .ts modules are checked.
    exclude: { path: '^(dist|\\.tmp)/|^src/ui/.+\\.tsx$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    parser: 'swc',
  },
};
