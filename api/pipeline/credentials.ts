// The credentials a dashboard request can carry, read off its headers: HTTP Basic (an application password,
// `email:password`), the session cookie, and the nonce that must come with the cookie (X-WP-Nonce, or the
// _wpnonce query arg, as WordPress). Writing the cookie is here too, so its name and flags are said once.
import { parse, serialize } from 'cookie';
import type { Incoming } from './pipeline.js';
import type { AppContext } from './context.js';

export const SESSION_COOKIE = 'tern_session';

export interface BasicCredentials {
  email: string;
  password: string;
}

/** A request header's first value. */
export const headerOf = (req: Pick<Incoming, 'headers'>, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** `Authorization: Basic base64(email:password)`; undefined when the request carries no Basic credentials. */
export function basicCredentials(req: Pick<Incoming, 'headers'>): BasicCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(headerOf(req, 'authorization') ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function sessionToken(req: Pick<Incoming, 'headers'>): string | undefined {
  const header = headerOf(req, 'cookie');
  return header ? parse(header)[SESSION_COOKIE] || undefined : undefined;
}

export function nonceOf(req: Pick<Incoming, 'headers' | 'query'>): string | undefined {
  return headerOf(req, 'x-wp-nonce') || req.query._wpnonce || undefined;
}

/** The session cookie's Secure flag: set when the site is addressed over TLS, or when the operator says a TLS proxy stands in front. */
export const secureCookies = (ctx: Pick<AppContext, 'config'>, request: Pick<Incoming, 'origin'>): boolean =>
  ctx.config.dashboard.secureCookies || request.origin.startsWith('https:');

/** The cookie a login sets: HttpOnly, SameSite=Lax, Secure over TLS or when configured; a browser-session cookie. */
export function sessionCookie(token: string, secure: boolean): string {
  return serialize(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}

/** The cookie a logout sets: the same name and path, emptied and expired. */
export function clearedSessionCookie(secure: boolean): string {
  return serialize(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: 0 });
}
