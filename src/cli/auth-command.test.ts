import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAuthState } from '../server/auth/auth-file.js';
import { parseExpiry } from './auth-command.js';
import { runCli } from './cli.js';
import { testIo } from './testing/test-io.js';

const scratch = (): string => mkdtempSync(join(tmpdir(), 'tabletop-auth-cli-'));

async function cli(args: string[], env?: Record<string, string>) {
  const t = testIo(undefined, env);
  const code = await runCli(['auth', ...args], t.cli);
  return { code, out: t.out, err: t.err };
}

describe('tabletop auth', () => {
  it('creates a token, prints it once, stores only its hash (mode 0600), lists and revokes it', async () => {
    const dataDir = scratch();
    const made = await cli([
      'create-token',
      '--member',
      'user:alice@example.com',
      '--expires',
      '30d',
      '--description',
      'ci',
      '--data-dir',
      dataDir,
    ]);
    expect(made.code).toBe(0);
    expect(made.out).toHaveLength(1);
    const token = made.out[0]!;
    expect(token).toMatch(/^tt_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
    const id = token.slice(0, token.indexOf('.'));
    expect(made.err.join('\n')).toContain(`token ${id} for user:alice@example.com, expires `);
    const file = join(dataDir, 'auth.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token.slice(token.indexOf('.') + 1));
    expect(readAuthState(file).tokens).toEqual([
      expect.objectContaining({ id: id.slice(3), member: 'user:alice@example.com', description: 'ci' }),
    ]);

    const listed = await cli(['list-tokens', '--data-dir', dataDir]);
    expect(listed.out[0]).toMatch(/^ID +MEMBER +CREATED +EXPIRES +DESCRIPTION$/);
    expect(listed.out[1]).toMatch(new RegExp(`^${id} +user:alice@example\\.com +\\S+ +\\S+ +ci$`));
    expect(listed.out.join('\n')).not.toContain(token.slice(token.indexOf('.') + 1));

    expect((await cli(['revoke-token', id, '--data-dir', dataDir])).code).toBe(0);
    expect(readAuthState(file).tokens).toEqual([]);
    const again = await cli(['revoke-token', id, '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.err.join('\n')).toContain(`no token ${id}`);
  });

  it('takes the file from --auth-file or TABLETOP_AUTH_FILE, grants and revokes project roles', async () => {
    const file = join(scratch(), 'auth.json');
    expect((await cli(['grant', '--member', 'user:root@example.com', '--role', 'bigtable.admin', '--auth-file', file])).out).toEqual([
      'granted roles/bigtable.admin to user:root@example.com on every project',
    ]);
    const env = { TABLETOP_AUTH_FILE: file };
    expect(
      (await cli(['grant', '--member', 'group:readers@example.com', '--role', 'roles/bigtable.reader', '--project', 'p'], env)).code,
    ).toBe(0);
    expect((await cli(['list-grants'], env)).out).toEqual([
      'every project: roles/bigtable.admin: user:root@example.com',
      'project p: roles/bigtable.reader: group:readers@example.com',
    ]);
    expect((await cli(['revoke', '--member', 'user:root@example.com', '--role', 'bigtable.admin'], env)).code).toBe(0);
    expect(readAuthState(file).bindings).toEqual([{ project: 'p', role: 'roles/bigtable.reader', members: ['group:readers@example.com'] }]);
    const missing = await cli(['revoke', '--member', 'user:root@example.com', '--role', 'bigtable.admin'], env);
    expect([missing.code, missing.err[0]]).toEqual([
      2,
      'tabletop auth revoke: user:root@example.com does not hold roles/bigtable.admin on every project',
    ]);
  });

  it('refuses members a token cannot prove, and bad expiries, exit 2', async () => {
    const file = join(scratch(), 'auth.json');
    for (const [args, message] of [
      [['--member', 'alice@example.com'], 'is not an identity a token can prove'],
      [['--member', 'group:g@example.com'], 'is not an identity a token can prove'],
      [['--member', 'user:a@example.com', '--expires', 'soon'], '--expires must be a duration'],
      [['--member', 'user:a@example.com', '--expires', '2001-01-01'], 'is in the past'],
    ] as const) {
      const r = await cli(['create-token', ...args, '--auth-file', file]);
      expect([r.code, r.out, r.err.join('\n')]).toEqual([2, [], expect.stringContaining(message)]);
    }
  });
});

describe('parseExpiry', () => {
  it('takes durations with d, h, m and dates', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseExpiry('30d', now).toISOString()).toBe('2026-01-31T00:00:00.000Z');
    expect(parseExpiry('12h', now).toISOString()).toBe('2026-01-01T12:00:00.000Z');
    expect(parseExpiry('2027-01-31', now).toISOString()).toBe('2027-01-31T00:00:00.000Z');
  });
});
