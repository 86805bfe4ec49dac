import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/targets.js';

/**
 * The layering check (`npm run depcheck`: dependency-cruiser with the
 * repository's .dependency-cruiser.cjs) run on two tiny trees: one whose
 * imports the layering allows, one with a bad import of each kind. A rule
 * that stopped matching (a typo in a path, an option that drops imports, a
 * changed default of the tool) fails here rather than passing in silence on
 * the real tree.
 */

const CONFIG = path.join(REPO_ROOT, '.dependency-cruiser.cjs');
const { forbidden } = createRequire(import.meta.url)(CONFIG) as { forbidden: { name: string }[] };

/** A tree whose imports the layering allows: file → its imports (module specifiers). */
const GOOD: Record<string, string[]> = {
  // Each layer imports its own and the ones below; the shared top-level files sit with the model.
  'src/model/bytes.ts': [],
  'src/model/ok.ts': ['./bytes.js', '../log.js', '../units.js', 'node:module'],
  'src/config.ts': ['./model/bytes.js'],
  'src/log.ts': [],
  'src/units.ts': [],
  'src/storage/store.ts': ['../model/bytes.js', '../config.js', 'node:fs'],
  'src/tablet/tablet.ts': ['../storage/store.js', '../model/bytes.js'],
  'src/db/api.ts': ['../storage/store.js', '../tablet/tablet.js', '../model/bytes.js', '../units.js', '../config.js'],
  'src/insight/recorder.ts': ['../db/api.js', '../tablet/tablet.js', '../model/bytes.js'],
  'src/server/logger.ts': ['../db/api.js', '../tablet/tablet.js', '../storage/store.js', '../log.js'],
  'src/server/http/heatmap.ts': ['../../insight/recorder.js', '../logger.js'],
  'src/cli/main.ts': ['../index.js', '../server/logger.js'],
  'src/index.ts': ['./db/api.js', './server/logger.js', './keys/index.js'],
  // The row-key builder imports the model's level only; the package entry and test/ import it.
  'src/keys/index.ts': ['./schema.js', '../model/bytes.js', '../config.js', 'node:zlib'],
  'src/keys/schema.ts': [],
  'test/keys.ts': ['../src/keys/index.js'],
  // test/ and bench/ import src/ freely (test support included).
  'bench/helper.ts': ['../src/db/api.js', '../src/db/testing/fixture.js'],
  'test/helper.ts': ['../src/server/logger.js', '../src/testing/random.js'],
  // Tests and testing/ folders use test support; src/testing/ sits at the bottom.
  'src/db/api.test.ts': ['./testing/fixture.js', '../testing/random.js', './api.js'],
  'src/db/testing/fixture.ts': ['../api.js', '../../testing/random.js'],
  'src/testing/random.ts': ['../log.js', '../model/bytes.js'],
  // The model's tests may do I/O and use protobuf as an oracle.
  'src/model/io.test.ts': ['node:fs', 'protobufjs', './ok.js'],
  // Protobuf and gRPC in the server's conversion layer, transports and services.
  'src/server/convert/proto-types.ts': ['protobufjs', '../../db/api.js'],
  'src/server/transport/routes.ts': ['@grpc/grpc-js', '../convert/proto-types.js', '../logger.js'],
  'src/server/data/data-service.ts': ['@grpc/grpc-js', '../convert/proto-types.js', '../logger.js'],
};

/** A tree with one bad import per case; EXPECTED says what each must give. */
const BAD: Record<string, string[]> = {
  'src/model/up.ts': ['../storage/store.js'],
  'src/config.ts': ['./db/api.js'],
  'src/storage/lsm/testing/systems.ts': ['../../../db/api.js'],
  'src/tablet/up.ts': ['../db/api.js'],
  'src/db/up.test.ts': ['../server/logger.js'],
  'src/db/up2.ts': ['../insight/recorder.js'],
  'src/insight/up.ts': ['../server/logger.js', '../cli/main.js'],
  'src/sql/up.ts': ['../insight/recorder.js', '../db/api.js'],
  'src/server/up.ts': ['../cli/main.js', '../index.js'],
  'src/db/to-bench.ts': ['../../bench/helper.js'],
  'src/db/to-test.ts': ['../../test/helper.js'],
  'src/db/prod.ts': ['./testing/fixture.js'],
  'src/testing/up.ts': ['../storage/store.js'],
  'src/model/io.ts': ['node:fs'],
  'src/keys/up.ts': ['../db/api.js', 'node:fs'],
  'src/db/keys.ts': ['../keys/index.js'],
  'src/model/keys.ts': ['../keys/index.js'],
  'src/model/net.ts': ['net', 'node:dns/promises'],
  'src/db/proto.ts': ['protobufjs'],
  'src/server/http/proto.ts': ['@grpc/grpc-js', '../convert/proto-types.js'],
  // Two sibling folders that import each other (no cycle of modules).
  'src/storage/a/x.ts': ['../b/y.js'],
  'src/storage/b/z.ts': ['../a/w.js'],
  // A cycle of modules through a parent folder and its child.
  'src/server/rpc.ts': ['./transport/calls.js'],
  'src/server/transport/calls.ts': ['../rpc.js'],
  // A cycle inside one folder, through type-only imports.
  'src/model/filter/p.ts': ['./q.js'],
  'src/model/filter/q.ts': ['./p.js'],
  // Imported above, importing nothing.
  'src/storage/store.ts': [],
  'src/db/api.ts': [],
  'src/db/testing/fixture.ts': [],
  'src/insight/recorder.ts': [],
  'src/server/logger.ts': [],
  'src/server/convert/proto-types.ts': [],
  'src/cli/main.ts': [],
  'src/index.ts': [],
  'src/keys/index.ts': [],
  'src/storage/a/w.ts': [],
  'src/storage/b/y.ts': [],
  'bench/helper.ts': [],
  'test/helper.ts': [],
};

/** [rule, from, to] of each violation the bad tree must give (folder rules name folders). */
const EXPECTED: [string, string, string][] = [
  ['layer-model', 'src/model/up.ts', 'src/storage/store.ts'],
  ['layer-model', 'src/config.ts', 'src/db/api.ts'],
  ['layer-storage', 'src/storage/lsm/testing/systems.ts', 'src/db/api.ts'],
  ['layer-tablet', 'src/tablet/up.ts', 'src/db/api.ts'],
  ['layer-db', 'src/db/up.test.ts', 'src/server/logger.ts'],
  ['layer-db', 'src/db/up2.ts', 'src/insight/recorder.ts'],
  ['layer-sql', 'src/sql/up.ts', 'src/insight/recorder.ts'],
  ['layer-insight', 'src/insight/up.ts', 'src/server/logger.ts'],
  ['layer-insight', 'src/insight/up.ts', 'src/cli/main.ts'],
  ['layer-server', 'src/server/up.ts', 'src/cli/main.ts'],
  ['layer-server', 'src/server/up.ts', 'src/index.ts'],
  ['src-not-to-test-or-bench', 'src/db/to-bench.ts', 'bench/helper.ts'],
  ['src-not-to-test-or-bench', 'src/db/to-test.ts', 'test/helper.ts'],
  ['no-testing-in-production', 'src/db/prod.ts', 'src/db/testing/fixture.ts'],
  ['testing-support-at-the-bottom', 'src/testing/up.ts', 'src/storage/store.ts'],
  ['keys-beside-model', 'src/keys/up.ts', 'src/db/api.ts'],
  ['keys-for-users-only', 'src/db/keys.ts', 'src/keys/index.ts'],
  ['keys-for-users-only', 'src/model/keys.ts', 'src/keys/index.ts'],
  ['model-no-io', 'src/model/io.ts', 'fs'],
  ['model-no-io', 'src/keys/up.ts', 'fs'],
  ['model-no-io', 'src/model/net.ts', 'net'],
  ['model-no-io', 'src/model/net.ts', 'dns/promises'],
  ['protobuf-in-server-only', 'src/db/proto.ts', 'node_modules/protobufjs/index.js'],
  ['protobuf-in-server-only', 'src/server/http/proto.ts', 'node_modules/@grpc/grpc-js/index.js'],
  ['protobuf-in-server-only', 'src/server/http/proto.ts', 'src/server/convert/proto-types.ts'],
  ['no-folder-cycles', 'src/storage/a', 'src/storage/b'],
  ['no-cycles', 'src/server/rpc.ts', 'src/server/transport/calls.ts'],
  ['no-cycles', 'src/model/filter/p.ts', 'src/model/filter/q.ts'],
];

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

const dirs: string[] = [];

/** Writes `tree` (with stand-ins for protobufjs and grpc-js) to a new directory and runs the check there; returns its violations. */
function check(tree: Record<string, string[]>): Violation[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'tabletop-layering-'));
  dirs.push(dir);
  for (const [file, imports] of Object.entries(tree)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(
      path.join(dir, file),
      imports.map((m, i) => `import * as m${i} from '${m}';\nexport const use${i} = m${i};\n`).join('') + 'export {};\n',
    );
  }
  for (const pkg of ['protobufjs', '@grpc/grpc-js']) {
    mkdirSync(path.join(dir, 'node_modules', pkg), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), JSON.stringify({ name: pkg, version: '0.0.0', main: 'index.js' }));
    writeFileSync(path.join(dir, 'node_modules', pkg, 'index.js'), 'module.exports = {};\n');
  }
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'layering-fixture', type: 'module', dependencies: { protobufjs: '*', '@grpc/grpc-js': '*' } }),
  );
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  );
  const bin = path.join(REPO_ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  let out: string;
  try {
    out = execFileSync(process.execPath, [bin, 'src', 'test', 'bench', '--config', CONFIG, '--output-type', 'json'], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    // Exit status 1 = violations found; the JSON is on stdout all the same.
    out = (e as { stdout?: string }).stdout ?? '';
    if (out === '') throw e;
  }
  return (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}

let good: Violation[];
let bad: Violation[];

beforeAll(() => {
  good = check(GOOD);
  bad = check(BAD);
}, 60_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the layering check', () => {
  it('lets through what the layering allows', () => {
    expect(good.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  it('catches one bad import of each kind, naming the rule and the import', () => {
    const seen = bad.map((v) => [v.rule.name, v.from, v.to].join(' '));
    for (const [rule, from, to] of EXPECTED) expect(seen, `${rule}: ${from} → ${to}`).toContain([rule, from, to].join(' '));
  });

  it('has no rule without a case here', () => {
    expect(new Set(EXPECTED.map(([rule]) => rule))).toEqual(new Set(forbidden.map((r) => r.name)));
  });
});
