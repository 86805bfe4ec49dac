import type http from 'node:http';
import { TabletopError } from '../../model/errors.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { Principal } from '../auth/principal.js';
import { escapeHtml } from './index-page.js';

/**
 * Credentials on the HTTP server: `authorization: Bearer <token>` (the CLI,
 * scripts), or the cookie the login page sets (the web UI): a person pastes
 * a token at /login, the server checks it and keeps it in an HttpOnly,
 * SameSite=Strict cookie (Secure under TLS) that the UI's requests then
 * carry. POST /logout clears it.
 */
export const TOKEN_COOKIE = 'tabletop_token';

/** The caller of a request; undefined without credentials. Throws Unauthenticated for bad ones. */
export function requestPrincipal(authenticator: Authenticator, req: http.IncomingMessage): Principal | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) return authenticator.authenticate(header);
  const token = cookie(req, TOKEN_COOKIE);
  if (token === undefined) return undefined;
  try {
    return authenticator.authenticate(`Bearer ${token}`);
  } catch (e) {
    throw new TabletopError('Unauthenticated', `${e instanceof Error ? e.message : String(e)} (sign in again at /login)`);
  }
}

function cookie(req: http.IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The Set-Cookie value that keeps `token` for the UI (or clears it: undefined). */
export function tokenCookie(token: string | undefined, secure: boolean): string {
  const attributes = `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  return token === undefined ? `${TOKEN_COOKIE}=; ${attributes}; Max-Age=0` : `${TOKEN_COOKIE}=${encodeURIComponent(token)}; ${attributes}`;
}

/** The login page: a form where a token is pasted (and why the last one was refused). */
export function loginPage(error?: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>tabletop: sign in</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}input{width:100%;font:inherit;padding:.3rem}p.error{color:#a00}</style>
</head>
<body>
<h1>Sign in to tabletop</h1>
<p>This server has authentication on. Paste a token (<code>tabletop auth create-token --member user:you@example.com</code> makes one).</p>
${error === undefined ? '' : `<p class="error">${escapeHtml(error)}</p>`}
<form method="post" action="/login">
<p><label>Token <input name="token" type="password" autocomplete="off" required autofocus></label></p>
<p><button type="submit">Sign in</button></p>
</form>
</body>
</html>
`;
}

/** The token of a login form's body (application/x-www-form-urlencoded, at most 8 KiB). */
export async function readLoginForm(req: http.IncomingMessage): Promise<string> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new TabletopError('InvalidArgument', 'Send the login form (application/x-www-form-urlencoded)');
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 8192) throw new TabletopError('InvalidArgument', 'The login form is larger than 8 KiB');
    parts.push(chunk as Buffer);
  }
  return (new URLSearchParams(Buffer.concat(parts).toString('utf8')).get('token') ?? '').trim();
}
