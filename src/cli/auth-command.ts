import { join } from 'node:path';
import { isTabletopError } from '../model/errors.js';
import {
  type AuthState,
  authFileOf,
  newToken,
  projectText,
  readAuthState,
  roleName,
  updateAuthState,
  withGrant,
  withoutGrant,
} from '../server/auth/auth-file.js';
import type { CliIo } from './cli-io.js';
import { parseDuration } from './parse-duration.js';

/**
 * `tabletop auth ...`: the tokens and bootstrap grants of a server, in its
 * auth file (src/server/auth/auth-file.ts). They work while the server runs
 * (it re-reads the file within a second): a revoked token stops working, a
 * new one starts to.
 *
 * The file: --auth-file, else <--data-dir>/auth.json, else the same from
 * TABLETOP_AUTH_FILE / TABLETOP_DATA_DIR, else ./data/auth.json.
 */
export interface AuthFileOptions {
  readonly authFile?: string;
  readonly dataDir?: string;
}

export function authFilePath(opts: AuthFileOptions, env: CliIo['env']): string {
  if (opts.authFile !== undefined) return opts.authFile;
  if (opts.dataDir !== undefined) return authFileOf(opts.dataDir);
  const fromEnv = env?.['TABLETOP_AUTH_FILE'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return authFileOf(env?.['TABLETOP_DATA_DIR'] || join('.', 'data'));
}

/**
 * When a token expires: a duration from now (30m, 12h, 30d) or a date
 * (2027-01-31, or an ISO 8601 time).
 */
export function parseExpiry(text: string, now: Date): Date {
  const days = /^(\d+)\s*d$/.exec(text.trim());
  if (days !== null) return new Date(now.getTime() + Number(days[1]) * 86_400_000);
  if (/^\d+(\.\d+)?\s*(ms|s|m|h)$/.test(text.trim())) {
    const at = new Date(now.getTime() + parseDuration(text));
    if (at.getTime() > now.getTime()) return at;
  }
  const at = new Date(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(at.getTime())) {
    if (at.getTime() <= now.getTime()) throw new Error(`--expires ${text} is in the past`);
    return at;
  }
  throw new Error(`--expires must be a duration such as 12h or 30d, or a date such as 2027-01-31 (got "${text}")`);
}

function fail(io: CliIo, command: string, e: unknown): number {
  io.stderr(`tabletop auth ${command}: ${e instanceof Error ? e.message : String(e)}`);
  return isTabletopError(e, 'InvalidArgument') || (e instanceof Error && e.message.startsWith('--')) ? 2 : 1;
}

export function createTokenCommand(
  opts: AuthFileOptions & { member: string; expires?: string; description?: string },
  io: CliIo,
  now = new Date(),
): number {
  try {
    const file = authFilePath(opts, io.env);
    const expires = opts.expires === undefined ? undefined : parseExpiry(opts.expires, now);
    const { token, stored } = newToken(opts.member, { now, expires, description: opts.description });
    updateAuthState(file, (s) => ({ ...s, tokens: [...s.tokens, stored] }));
    io.stdout(token);
    io.stderr(
      `token tt_${stored.id} for ${stored.member}${expires === undefined ? ', no expiry' : `, expires ${stored.expires}`}, saved (hashed) in ${file}. ` +
        'This is the only time it is shown: keep it secret.',
    );
    return 0;
  } catch (e) {
    return fail(io, 'create-token', e);
  }
}

export function listTokensCommand(opts: AuthFileOptions & { json?: boolean }, io: CliIo, now = new Date()): number {
  let state: AuthState;
  try {
    state = readAuthState(authFilePath(opts, io.env));
  } catch (e) {
    return fail(io, 'list-tokens', e);
  }
  // What is listed never includes the hashes: ids name the tokens.
  const tokens = state.tokens.map((t) => ({
    id: `tt_${t.id}`,
    member: t.member,
    created: t.created,
    expires: t.expires ?? null,
    expired: t.expires !== undefined && Date.parse(t.expires) <= now.getTime(),
    description: t.description ?? '',
  }));
  if (opts.json === true) {
    io.stdout(JSON.stringify({ tokens }, null, 2));
    return 0;
  }
  if (tokens.length === 0) {
    io.stdout('no tokens (tabletop auth create-token --member user:EMAIL makes one)');
    return 0;
  }
  const rows = [
    ['ID', 'MEMBER', 'CREATED', 'EXPIRES', 'DESCRIPTION'],
    ...tokens.map((t) => [
      t.id,
      t.member,
      t.created,
      t.expires === null ? 'never' : `${t.expires}${t.expired ? ' (expired)' : ''}`,
      t.description,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    io.stdout(
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
  return 0;
}

export function revokeTokenCommand(id: string, opts: AuthFileOptions, io: CliIo): number {
  try {
    const file = authFilePath(opts, io.env);
    // Accepts tt_<id>, the bare id, or the whole token (its id part).
    const m = /^(?:tt_)?([0-9a-f]{16})(?:\..*)?$/.exec(id.trim());
    if (m === null) throw new Error(`"${id.length > 20 ? `${id.slice(0, 8)}...` : id}" is not a token id such as tt_0123456789abcdef`);
    const bare = m[1]!;
    let found = false;
    updateAuthState(file, (s) => {
      found = s.tokens.some((t) => t.id === bare);
      return found ? { ...s, tokens: s.tokens.filter((t) => t.id !== bare) } : s;
    });
    if (!found) {
      io.stderr(`tabletop auth revoke-token: no token tt_${bare} in ${file} (tabletop auth list-tokens shows them)`);
      return 1;
    }
    io.stdout(`revoked tt_${bare}: a running server refuses it within a second`);
    return 0;
  } catch (e) {
    return fail(io, 'revoke-token', e);
  }
}

export function grantCommand(
  opts: AuthFileOptions & { member: string; role: string; project?: string },
  io: CliIo,
  grant: boolean,
): number {
  const project = opts.project ?? '*';
  try {
    const file = authFilePath(opts, io.env);
    updateAuthState(file, (s) =>
      grant ? withGrant(s, project, opts.role, opts.member) : withoutGrant(s, project, opts.role, opts.member),
    );
    io.stdout(`${grant ? 'granted' : 'revoked'} ${roleName(opts.role)} ${grant ? 'to' : 'from'} ${opts.member} on ${projectText(project)}`);
    return 0;
  } catch (e) {
    return fail(io, grant ? 'grant' : 'revoke', e);
  }
}

export function listGrantsCommand(opts: AuthFileOptions, io: CliIo): number {
  let state: AuthState;
  try {
    state = readAuthState(authFilePath(opts, io.env));
  } catch (e) {
    return fail(io, 'list-grants', e);
  }
  if (state.bindings.length === 0) io.stdout('no grants (tabletop auth grant --member M --role roles/bigtable.admin makes one)');
  for (const b of state.bindings) io.stdout(`${projectText(b.project)}: ${b.role}: ${b.members.join(', ')}`);
  return 0;
}
