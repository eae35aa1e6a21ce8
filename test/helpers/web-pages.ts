// The dashboard's web pages over plain HTTP, for tests: a request that never follows redirects (a form posted
// urlencoded), signing in through the sign-in page's form (over HTTP, or in a browser's tab), and the CSRF token
// and team a page's forms carry.
import type { Page } from 'playwright-core';
import type { Harness } from './harness.js';
import type { TestBrowser } from './browser.js';
import { PASSWORD } from './dashboard-session.js';

export interface PageReply {
  status: number;
  headers: Headers;
  text: string;
}

export interface PageOptions {
  cookie?: string;
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

export async function page(h: Harness, method: 'GET' | 'POST', path: string, o: PageOptions = {}): Promise<PageReply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.cookie) headers.cookie = o.cookie;
  if (o.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(h.url + path, { method, headers, body: o.form ? new URLSearchParams(o.form).toString() : undefined, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Signs in through the sign-in page's form; the session cookie it sets. */
export async function signInOverHttp(h: Harness, email: string, password = PASSWORD): Promise<string> {
  const reply = await page(h, 'POST', '/wp-login.php', { form: { email, password } });
  const cookie = (reply.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  if (!cookie.startsWith('tern_session=')) throw new Error(`sign-in failed: ${reply.status} ${reply.text}`);
  return cookie;
}

/** The hidden fields a signed-in page's forms carry (CSRF token, team), read off the page at `path`. */
export async function formGuardOf(h: Harness, cookie: string, path = '/'): Promise<Record<string, string>> {
  const shown = await page(h, 'GET', path, { cookie });
  const nonce = /name="_wpnonce" value="([0-9a-f]{10})"/.exec(shown.text)?.[1];
  if (!nonce) throw new Error(`no form token on ${path}: ${shown.status} ${shown.text.slice(0, 300)}`);
  const team = /name="_team" value="(\d+)"/.exec(shown.text)?.[1];
  return team ? { _wpnonce: nonce, _team: team } : { _wpnonce: nonce };
}

/**
 * A new tab signed in as `email` (every cookie cleared first) the way a person does it: it asks for `path`, is sent
 * to the sign-in page, signs in there and comes back to `path`.
 */
export async function signedInTab(browser: TestBrowser, baseUrl: string, email: string, path = '/', password = PASSWORD): Promise<Page> {
  await browser.context.clearCookies();
  const p = await browser.context.newPage();
  await p.goto(`${baseUrl}${path}`);
  await p.fill('#email', email);
  await p.fill('#password', password);
  await Promise.all([p.waitForURL((u) => u.pathname === path), p.click('#sign-in')]);
  return p;
}
