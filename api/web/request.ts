// What a page reads off its request: the query, a posted form (application/x-www-form-urlencoded, size-bounded,
// parsed by URLSearchParams), the check that a form was posted from this site, and the signed-in user of the
// session cookie (the same cookie the dashboard's login sets).
import type { IncomingMessage } from 'node:http';
import type { Session, User } from '../../shared/domain/user.js';
import type { AppContext } from '../pipeline/context.js';
import { originOf, queryOf } from '../pipeline/pipeline.js';
import { headerOf, sessionToken } from '../pipeline/credentials.js';
import { pageError, PageError } from './errors.js';

/** Far more than a page's form needs (two URLs of at most 2,048 characters, a name, a token). */
export const FORM_LIMIT_BYTES = 16 * 1024;

export interface PageRequest {
  readonly req: IncomingMessage;
  /** scheme://host as the browser addressed this site. */
  readonly origin: string;
  /** The path and query as requested. */
  readonly url: string;
  /** First value of each name of the query. */
  readonly query: Readonly<Record<string, string>>;
  readonly address: string;
  readonly userAgent: string;
  /** The path's variables (`/domains/:domain_hash`). */
  readonly params: Readonly<Record<string, string>>;
  /** True for a request htmx sends (HX-Request): it takes a fragment of a page, not a page. */
  readonly fromHtmx: boolean;
}

export function pageRequestOf(req: IncomingMessage, params: Readonly<Record<string, string>> = {}): PageRequest {
  return {
    req,
    params,
    fromHtmx: headerOf(req, 'hx-request') === 'true',
    origin: originOf(req),
    url: req.url ?? '/',
    query: queryOf(req),
    address: req.socket.remoteAddress ?? '',
    userAgent: headerOf(req, 'user-agent') ?? '',
  };
}

/** The posted form; anything but a urlencoded body within the limit is refused. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (headerOf(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw pageError('unsupported_media_type', 'The form must be sent as application/x-www-form-urlencoded.');
  const tooLarge = () => pageError('payload_too_large', `The form is larger than ${FORM_LIMIT_BYTES} bytes.`);
  if (Number(headerOf(req, 'content-length') ?? 0) > FORM_LIMIT_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** A field's value; an absent field is undefined. */
export const fieldOf = (form: URLSearchParams, name: string): string | undefined => form.get(name) ?? undefined;

/**
 * A form must come from this site's own pages: a browser says where a POST comes from in Origin (the pages ask
 * for a same-origin referrer policy, so it is never "null" for them). Without Origin (not a browser) it passes:
 * the CSRF token and the SameSite cookie still stand.
 */
export function requireSameOrigin(r: PageRequest): void {
  const origin = headerOf(r.req, 'origin');
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host === undefined || host !== headerOf(r.req, 'host')) throw new PageError('cross_site_form', 'This form was sent from another site; nothing was done.');
}

export interface SignedInUser {
  user: User;
  session: Session;
}

/** The user of the request's session cookie, when it names a live session. */
export async function signedInUser(ctx: AppContext, r: PageRequest): Promise<SignedInUser | undefined> {
  const token = sessionToken(r.req);
  if (!token) return undefined;
  const resumed = await ctx.core.sessions.resume(token);
  return resumed.ok ? { user: resumed.user, session: resumed.session } : undefined;
}
