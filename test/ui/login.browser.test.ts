import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { newToken, writeAuthState } from '../../src/server/auth/auth-file.js';
import { AuthFileSource, credentialsAuthenticator } from '../../src/server/auth/credentials-authenticator.js';
import { launchChromium, newPage } from './browser.js';

/**
 * The web UI with authentication on, in headless Chromium: the UI's page
 * sends a person to the login page, a bad token is refused there with the
 * reason, a good one signs in (an HttpOnly, SameSite=Strict cookie) and the
 * UI then loads its data with it.
 */

let server: RunningServer;
let browser: Browser;
let token: string;

beforeAll(async () => {
  const authFile = join(mkdtempSync(join(tmpdir(), 'tabletop-ui-login-')), 'auth.json');
  const made = newToken('user:alice@example.com', { now: new Date() });
  token = made.token;
  writeAuthState(authFile, { tokens: [made.stored], bindings: [] });
  server = await startServer({
    httpPort: 0,
    insight: false,
    authenticator: credentialsAuthenticator({ required: true, tokens: new AuthFileSource(authFile) }),
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the web UI with authentication on', () => {
  it('signs in with a pasted token and then shows the data', async () => {
    const base = `http://localhost:${server.httpPort}`;
    const page = await newPage(browser);
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/login');

    await page.fill('input[name=token]', `${token}x`);
    await page.click('button[type=submit]');
    await expect.poll(() => page.locator('p.error').textContent()).toContain('neither a tabletop token');

    await page.fill('input[name=token]', token);
    await page.click('button[type=submit]');
    await page.getByText('No instances yet').waitFor({ timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe('/');
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ name: 'tabletop_token', httpOnly: true, sameSite: 'Strict' });
    await page.close();
  });
});
