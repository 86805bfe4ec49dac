import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unaryCall } from '../server/testing/raw-client.js';
import { type TestServer, startTestServer } from '../server/testing/test-server.js';
import { runCli } from './cli.js';
import { testIo } from './testing/test-io.js';

/**
 * `tabletop schema dump|apply` against a real server in this process, through the official Node client: a dump
 * applied to an empty instance reproduces the schema, a changed file shows its diff and is applied, destructive
 * changes wait for a confirmation.
 */
/** The families of the source table `events` as a dump writes them: every GC rule shape and both aggregate kinds. */
const EVENTS_FAMILIES = {
  aged: { gc: 'maxage=7d' },
  both: { gc: 'maxversions=2 || maxage=1d' },
  counts: { gc: 'never', type: 'sum(int64)' },
  either: { gc: 'maxversions=1 && maxage=1h' },
  nested: { gc: '(maxversions=5 && maxage=1500ms) || maxversions=10' },
  one: { gc: 'union(maxversions=4)' },
  plain: { gc: 'never' },
  recent: { gc: 'maxversions=3' },
  uniques: { gc: 'never', type: 'hll(bytes)' },
};

let ts: TestServer;
let dir: string;
const SOURCE = 'projects/p/instances/src';

beforeAll(async () => {
  ts = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'tabletop-schema-'));
  await unaryCall(ts.clients.tableAdmin, 'CreateTable', {
    parent: SOURCE,
    tableId: 'events',
    table: {
      columnFamilies: {
        plain: {},
        recent: { gcRule: { maxNumVersions: 3 } },
        aged: { gcRule: { maxAge: { seconds: '604800' } } },
        both: { gcRule: { union: { rules: [{ maxNumVersions: 2 }, { maxAge: { seconds: '86400' } }] } } },
        either: { gcRule: { intersection: { rules: [{ maxNumVersions: 1 }, { maxAge: { seconds: '3600' } }] } } },
        nested: {
          gcRule: {
            union: {
              rules: [
                { intersection: { rules: [{ maxNumVersions: 5 }, { maxAge: { seconds: '1', nanos: 500_000_000 } }] } },
                { maxNumVersions: 10 },
              ],
            },
          },
        },
        one: { gcRule: { union: { rules: [{ maxNumVersions: 4 }] } } },
        counts: { valueType: { aggregateType: { inputType: { int64Type: { encoding: { bigEndianBytes: {} } } }, sum: {} } } },
        uniques: { valueType: { aggregateType: { inputType: { bytesType: {} }, hllppUniqueCount: {} } } },
      },
      deletionProtection: true,
    },
    initialSplits: [{ key: Buffer.from('g') }, { key: Buffer.from([0xff, 0x00]) }, { key: Buffer.from('p') }],
  });
  await unaryCall(ts.clients.tableAdmin, 'CreateTable', { parent: SOURCE, tableId: 'users', table: { columnFamilies: { cf: {} } } });
  await unaryCall(ts.clients.tableAdmin, 'CreateAuthorizedView', {
    parent: `${SOURCE}/tables/events`,
    authorizedViewId: 'eu',
    authorizedView: {
      subsetView: {
        rowPrefixes: [Buffer.from('eu#'), Buffer.from([0x01, 0xfe])],
        familySubsets: {
          plain: { qualifiers: [Buffer.from('name')], qualifierPrefixes: [Buffer.from('tag:')] },
          counts: { qualifierPrefixes: [Buffer.from('')] },
        },
      },
      deletionProtection: true,
    },
  });
});

afterAll(async () => {
  await ts?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[], opts: { answer?: string } = {}): Promise<{ code: number; out: string; err: string }> {
  const io = testIo(undefined, {});
  const asked = opts.answer;
  const withAsk = asked === undefined ? io.cli : { ...io.cli, ask: () => Promise.resolve(asked) };
  const code = await runCli([...args, '--endpoint', ts.server.address], withAsk);
  return { code, out: io.out.join('\n'), err: io.err.join('\n') };
}

async function dump(instance: string, ...more: string[]): Promise<string> {
  const r = await cli(['schema', 'dump', '--project', 'p', '--instance', instance, ...more]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return r.out;
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('tabletop schema', () => {
  it('dumps every family shape, type, split, view and deletion protection as reviewable JSON', async () => {
    const json = JSON.parse(await dump('src', '--table', 'events')) as Record<string, unknown>;
    expect(json).toEqual({
      schema: 'tabletop/v1',
      table: 'events',
      families: EVENTS_FAMILIES,
      deletionProtection: true,
      splits: ['g', 'p', { base64: '/wA=' }],
      authorizedViews: {
        eu: {
          rowPrefixes: [{ base64: 'Af4=' }, 'eu#'],
          families: { counts: { qualifiers: [], qualifierPrefixes: [''] }, plain: { qualifiers: ['name'], qualifierPrefixes: ['tag:'] } },
          deletionProtection: true,
        },
      },
    });
  });

  it('a dump applied to an empty instance reproduces the schema (the dumps are equal)', async () => {
    const before = await dump('src');
    const path = file('instance.json', before);
    const applied = await cli(['schema', 'apply', path, '--project', 'p', '--instance', 'copy']);
    expect(applied.err).not.toMatch(/tabletop schema/);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain(' + table events: families aged (gc maxage=7d), both (gc maxversions=2 || maxage=1d)');
    expect(applied.out).toContain(' + table events: authorized view eu (rows {"base64":"Af4="}* "eu#"*;');
    expect(applied.out).toContain(' + table users: families cf (gc never)');
    expect(applied.out).toContain('Applied 3 changes to projects/p/instances/copy.');
    expect(await dump('copy')).toBe(before);
    // Applying it again finds nothing to do.
    const again = await cli(['schema', 'apply', path, '--project', 'p', '--instance', 'copy']);
    expect(again.out).toBe(`No changes: projects/p/instances/copy matches ${path}.`);
  });

  it('a changed file shows the right diff and applies it; destructive changes wait for a yes', async () => {
    await cli(['schema', 'apply', file('base.json', await dump('src')), '--project', 'p', '--instance', 'edit']);
    const doc = JSON.parse(await dump('edit')) as {
      tables: Record<
        string,
        { families: Record<string, { gc: string }>; deletionProtection: boolean; authorizedViews: Record<string, unknown> }
      >;
    };
    const events = doc.tables['events']!;
    events.families['recent'] = { gc: 'maxversions=5' }; // keeps more: not destructive
    events.families['aged'] = { gc: 'maxage=1d' }; // collects more: destructive
    events.families['added'] = { gc: 'maxversions=1' };
    delete events.families['plain']; // the view names it: dropped after the view is updated
    events.authorizedViews['eu'] = { rowPrefixes: ['eu#'], families: { counts: { qualifierPrefixes: [''] } }, deletionProtection: false };
    events.authorizedViews['all'] = { rowPrefixes: [''], families: { counts: { qualifierPrefixes: [''] } } };
    events.deletionProtection = false;
    delete doc.tables['users'];
    doc.tables['fresh'] = { families: { f: { gc: 'maxage=30d' } }, deletionProtection: false, authorizedViews: {} };
    const path = file('changed.json', JSON.stringify(doc, null, 2));
    const plan = [
      'Changes to projects/p/instances/edit (+ add, ~ change, - remove, ! loses data or access):',
      ' ~ table events: deletion protection on -> off',
      '!~ table events: family aged gc maxage=7d -> maxage=1d (collects cells the current rule keeps)',
      ' ~ table events: family recent gc maxversions=3 -> maxversions=5',
      ' + table events: family added (gc maxversions=1)',
      ' ~ table events: authorized view eu -> (rows "eu#"*; cells counts[""*])',
      ' + table events: authorized view all (rows ""*; cells counts[""*])',
      '!- table events: family plain (and all its data)',
      ' + table fresh: families f (gc maxage=30d)',
      '!- table users (and all its data)',
      '9 changes, 3 destructive.',
    ];

    const dry = await cli(['schema', 'apply', path, '--project', 'p', '--instance', 'edit', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out.split('\n')).toEqual([...plan, 'Dry run: nothing was changed.']);

    const refused = await cli(['schema', 'apply', path, '--project', 'p', '--instance', 'edit']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('refusing 3 destructive changes without confirmation (stdin is not a terminal): run again with --yes');
    const declined = await cli(['schema', 'apply', path, '--project', 'p', '--instance', 'edit'], { answer: 'no' });
    expect(declined.code).toBe(1);
    expect(declined.out).toContain('Nothing was changed.');
    expect(await dump('edit')).toBe(readFileSync(join(dir, 'base.json'), 'utf8').trimEnd());

    const confirmed = await cli(['schema', 'apply', path, '--project', 'p', '--instance', 'edit'], { answer: 'yes' });
    expect(confirmed.err.split('\n').filter((l) => l.startsWith('tabletop'))).toEqual([]);
    expect(confirmed.code).toBe(0);
    expect(confirmed.out).toContain('Applied 9 changes');
    const after = JSON.parse(await dump('edit', '--no-splits')) as typeof doc;
    expect(Object.keys(after.tables)).toEqual(['events', 'fresh']);
    const { plain: _dropped, ...kept } = EVENTS_FAMILIES;
    expect(after.tables['events']!.families).toEqual({
      ...kept,
      added: { gc: 'maxversions=1' },
      aged: { gc: 'maxage=1d' },
      recent: { gc: 'maxversions=5' },
    });
    expect(after.tables['events']!.deletionProtection).toBe(false);
    expect(after.tables['events']!.authorizedViews).toEqual({
      all: { rowPrefixes: [''], families: { counts: { qualifiers: [], qualifierPrefixes: [''] } }, deletionProtection: false },
      eu: { rowPrefixes: ['eu#'], families: { counts: { qualifiers: [], qualifierPrefixes: [''] } }, deletionProtection: false },
    });
    const yes = await cli(['schema', 'apply', path, '--project', 'p', '--instance', 'edit', '--yes']);
    expect(yes.out).toContain('No changes');
  });

  it('applies a table file to another table, and stops before changing anything when the plan cannot be made', async () => {
    const tableFile = file('events.json', await dump('src', '--table', 'events'));
    const cloned = await cli(['schema', 'apply', tableFile, '--project', 'p', '--instance', 'src', '--table', 'events2']);
    expect(cloned.code).toBe(0);
    expect(cloned.out).toContain('Applied 2 changes to projects/p/instances/src.');
    const both = JSON.parse(await dump('src')) as { tables: Record<string, unknown> };
    expect(Object.keys(both.tables)).toEqual(['events', 'events2', 'users']);
    expect(both.tables['events2']).toEqual(both.tables['events']);
    // A rule taken away (union(maxversions=4) to never) is cleared, and is no destructive change.
    const cleared = JSON.parse(await dump('src', '--table', 'events')) as { families: Record<string, { gc: string }> };
    cleared.families['one'] = { gc: 'never' };
    const clear = await cli([
      'schema',
      'apply',
      file('cleared.json', JSON.stringify(cleared)),
      '--project',
      'p',
      '--instance',
      'src',
      '--table',
      'events2',
    ]);
    expect(clear.out).toContain(' ~ table events2: family one gc union(maxversions=4) -> never\n1 change.');
    expect(JSON.parse(await dump('src', '--table', 'events2'))).toMatchObject({ families: { one: { gc: 'never' } } });

    // An instance file without the protected tables events and events2: they cannot be deleted, so nothing is done.
    const onlyUsers = file('users.json', JSON.stringify({ schema: 'tabletop/v1', tables: { users: { families: { cf: {}, more: {} } } } }));
    const blocked = await cli(['schema', 'apply', onlyUsers, '--project', 'p', '--instance', 'src', '--yes']);
    expect(blocked.code).toBe(1);
    expect(blocked.err.split('\n')).toEqual([
      `tabletop schema apply: ${onlyUsers} cannot be applied to projects/p/instances/src (nothing was changed):`,
      '  table events is not in the file but has deletion protection: it cannot be deleted',
      '  table events is not in the file but its view eu has deletion protection',
      '  table events2 is not in the file but has deletion protection: it cannot be deleted',
      '  table events2 is not in the file but its view eu has deletion protection',
    ]);
    expect(JSON.parse(await dump('src', '--table', 'users'))).toMatchObject({ families: { cf: { gc: 'never' } } });
    // --table applies only that table of an instance file: the others are left alone.
    const one = await cli(['schema', 'apply', onlyUsers, '--project', 'p', '--instance', 'src', '--table', 'users']);
    expect(one.out.split('\n')).toEqual([
      'Changes to projects/p/instances/src (+ add, ~ change, - remove, ! loses data or access):',
      ' + table users: family more (gc never)',
      '1 change.',
      'Applied 1 change to projects/p/instances/src.',
    ]);

    const bad = await cli([
      'schema',
      'apply',
      file('bad.json', '{"schema":"tabletop/v1","tables":{"t":{"families":{"cf":{"gc":"maxage=3"}}}}}'),
      '--project',
      'p',
      '--instance',
      'src',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/bad\.json: tables\.t\.families\.cf\.gc: GC rule "maxage=3": "maxage=3": the age needs a unit/);
    const missing = await cli(['schema', 'apply', join(dir, 'none.json'), '--project', 'p', '--instance', 'src']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/none\.json: ENOENT/);
    const noTable = await cli(['schema', 'dump', '--project', 'p', '--instance', 'src', '--table', 'nope']);
    expect(noTable.code).toBe(1);
    expect(noTable.err).toBe('tabletop schema dump: no table nope in projects/p/instances/src');
  });
});
