import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { invalidArgument } from '../../model/errors.js';

/**
 * The authentication state of a server: the tabletop tokens it accepts and
 * the project-level IAM bindings that bootstrap access (who may do anything
 * before any policy was set through the API). It lives in a JSON file
 * (`<data-dir>/auth.json`, or `--auth-file`), outside the engine, so that
 * `tabletop auth ...` can change it while the server runs and holds the data
 * directory; the server re-reads it when it changes (watched-file.ts).
 *
 * A token is `tt_<id>.<secret>`: the id (16 hex digits) is public (it names
 * the token in lists, logs and `revoke-token`), the secret (256 random bits,
 * base64url) is shown once and stored only as its SHA-256. Written atomically
 * (a temporary file, fsync, rename), mode 0600.
 */
export interface StoredToken {
  readonly id: string;
  /** The IAM member the token proves, e.g. user:alice@example.com. */
  readonly member: string;
  /** SHA-256 of the secret, hex. */
  readonly sha256: string;
  /** ISO 8601. */
  readonly created: string;
  /** ISO 8601; absent: never expires. */
  readonly expires?: string;
  readonly description?: string;
}

/** A project-level binding: `members` hold `role` on `project` ("*": every project). */
export interface StoredBinding {
  readonly project: string;
  readonly role: string;
  readonly members: readonly string[];
}

export interface AuthState {
  readonly tokens: readonly StoredToken[];
  readonly bindings: readonly StoredBinding[];
}

export const EMPTY_AUTH_STATE: AuthState = Object.freeze({ tokens: [], bindings: [] });

/** The auth file of a data directory. */
export function authFileOf(dataDir: string): string {
  return join(dataDir, 'auth.json');
}

const TOKEN = /^tt_([0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;

/** The id and secret of a token; undefined when it is not shaped like one. */
export function parseToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN.exec(token);
  return m === null ? undefined : { id: m[1]!, secret: m[2]! };
}

function sha256(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Whether `secret` is the one `stored` was made with (constant time). */
export function secretMatches(stored: StoredToken, secret: string): boolean {
  const expected = Buffer.from(stored.sha256, 'hex');
  const got = sha256(secret);
  return expected.length === got.length && timingSafeEqual(expected, got);
}

/** A new token for `member`: the token itself (shown once) and what is stored of it. */
export function newToken(
  member: string,
  opts: { readonly now: Date; readonly expires?: Date | undefined; readonly description?: string | undefined },
): { token: string; stored: StoredToken } {
  checkIdentity(member);
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const stored: StoredToken = {
    id,
    member,
    sha256: sha256(secret).toString('hex'),
    created: opts.now.toISOString(),
    ...(opts.expires === undefined ? {} : { expires: opts.expires.toISOString() }),
    ...(opts.description === undefined ? {} : { description: opts.description }),
  };
  return { token: `tt_${id}.${secret}`, stored };
}

const MEMBER = /^(user|serviceAccount|group|domain):[^\s:]+$/;

/** A member a token can prove: a user or a service account. */
export function checkIdentity(member: string): void {
  if (!/^(user|serviceAccount):[^\s@]+@[^\s@]+$/.test(member))
    throw invalidArgument(`"${member}" is not an identity a token can prove: give user:EMAIL or serviceAccount:EMAIL`);
}

/** A member a binding can name: user:, serviceAccount:, group:, domain:, allUsers or allAuthenticatedUsers. */
export function checkMember(member: string): void {
  if (member !== 'allUsers' && member !== 'allAuthenticatedUsers' && !MEMBER.test(member))
    throw invalidArgument(
      `"${member}" is not an IAM member: give user:EMAIL, serviceAccount:EMAIL, group:EMAIL, domain:DOMAIN, allUsers or allAuthenticatedUsers`,
    );
}

/** `roles/bigtable.admin` as given, or `bigtable.admin` completed to it. */
export function roleName(role: string): string {
  const full = role.startsWith('roles/') ? role : `roles/${role}`;
  if (!/^roles\/[A-Za-z0-9_.]+$/.test(full)) throw invalidArgument(`"${role}" is not a role name such as roles/bigtable.user`);
  return full;
}

/** Parses the file's text (a missing file is the empty state). Throws an Error naming the file when it is not an auth file. */
export function parseAuthState(text: string, file: string): AuthState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = raw as { tokens?: unknown; bindings?: unknown } | null;
  if (typeof r !== 'object' || r === null || !Array.isArray(r.tokens ?? []) || !Array.isArray(r.bindings ?? []))
    throw new Error(`${file} is not a tabletop auth file (expected {"tokens": [...], "bindings": [...]})`);
  const tokens = (r.tokens ?? []) as StoredToken[];
  for (const t of tokens) {
    if (typeof t?.id !== 'string' || typeof t.member !== 'string' || typeof t.sha256 !== 'string' || typeof t.created !== 'string')
      throw new Error(`${file}: a token entry lacks its id, member, sha256 or created`);
  }
  const bindings = (r.bindings ?? []) as StoredBinding[];
  for (const b of bindings) {
    if (typeof b?.project !== 'string' || typeof b.role !== 'string' || !Array.isArray(b.members))
      throw new Error(`${file}: a binding lacks its project, role or members`);
  }
  return { tokens, bindings };
}

/** The state in `file`; the empty state when there is no file yet. */
export function readAuthState(file: string): AuthState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_AUTH_STATE;
    throw e;
  }
  return parseAuthState(text, file);
}

/** Replaces `file` with `state`, atomically (readers see the old or the new file, whole), mode 0600. */
export function writeAuthState(file: string, state: AuthState): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify({ tokens: state.tokens, bindings: state.bindings }, null, 2) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/**
 * Reads, changes and writes the state of `file`; returns the new state. Two
 * `tabletop auth` commands at once take turns (a lock file beside it, held
 * for the read-modify-write; one left by a killed command is taken over
 * after 10 s).
 */
export function updateAuthState(file: string, change: (state: AuthState) => AuthState): AuthState {
  mkdirSync(dirname(file), { recursive: true });
  const lock = `${file}.lock`;
  const began = Date.now();
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (Date.now() - began > 10_000) {
        rmSync(lock, { force: true });
        continue;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    const next = change(readAuthState(file));
    writeAuthState(file, next);
    return next;
  } finally {
    rmSync(lock, { force: true });
  }
}

/** The state with `member` granted `role` on `project`. */
export function withGrant(state: AuthState, project: string, role: string, member: string): AuthState {
  checkMember(member);
  const full = roleName(role);
  const existing = state.bindings.find((b) => b.project === project && b.role === full);
  if (existing?.members.includes(member)) return state;
  const bindings = existing
    ? state.bindings.map((b) => (b === existing ? { ...b, members: [...b.members, member] } : b))
    : [...state.bindings, { project, role: full, members: [member] }];
  return { ...state, bindings };
}

/** The state without `member`'s `role` on `project`; throws NotFound-like InvalidArgument when it had none. */
export function withoutGrant(state: AuthState, project: string, role: string, member: string): AuthState {
  const full = roleName(role);
  const existing = state.bindings.find((b) => b.project === project && b.role === full && b.members.includes(member));
  if (existing === undefined) throw invalidArgument(`${member} does not hold ${full} on ${projectText(project)}`);
  const members = existing.members.filter((m) => m !== member);
  const bindings =
    members.length === 0
      ? state.bindings.filter((b) => b !== existing)
      : state.bindings.map((b) => (b === existing ? { ...b, members } : b));
  return { ...state, bindings };
}

/** "project p" or "every project". */
export function projectText(project: string): string {
  return project === '*' ? 'every project' : `project ${project}`;
}
