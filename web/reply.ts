// What a page answers and how it is written: a page in the shared layout or a redirect, each with the headers
// every page carries (a strict Content-Security-Policy, never framed, never cached, no referrer leaving the
// site), and any failure turned into an error page (a PageError as it says; a transient one 503; anything
// else 500, logged with its stack, shown without internals).
import type { ServerResponse } from 'node:http';
import type { Logger } from '../shared/log.js';
import { isTransientFailure } from '../shared/transient.js';
import { html, layout, STYLE_SOURCE, type Html } from './html.js';
import { PageError } from './errors.js';

export interface PageAnswer {
  kind: 'page';
  status?: number;
  title: string;
  body: Html;
  headers?: Record<string, string>;
  /**
   * Where the page's form may lead besides this site: a browser checks form-action on the redirect that answers
   * the form too, so the application's success and reject URLs are named here.
   */
  formTargets?: ReadonlyArray<URL | undefined>;
}

export interface RedirectAnswer {
  kind: 'redirect';
  /** An absolute URL or a path of this site, already checked and serialized (ASCII). */
  location: string;
  headers?: Record<string, string>;
}

export type PageReply = PageAnswer | RedirectAnswer;

/** Only the layout's stylesheet, forms only to this site (and the given targets), no frames, no base, no scripts. */
export function contentSecurityPolicy(formTargets: ReadonlyArray<URL | undefined> = []): string {
  const origins = [...new Set(formTargets.flatMap((u) => (u ? [u.origin] : [])))];
  return ["default-src 'none'", `style-src ${STYLE_SOURCE}`, ["form-action 'self'", ...origins].join(' '), "frame-ancestors 'none'", "base-uri 'none'"].join('; ');
}

/** Headers every answer of a page carries. */
const COMMON_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // same-origin, not no-referrer: a form's POST then still carries this site's Origin, which the pages check.
  'Referrer-Policy': 'same-origin',
} as const;

export function writeReply(res: ServerResponse, reply: PageReply): void {
  if (reply.kind === 'redirect') {
    res.writeHead(302, { ...COMMON_HEADERS, 'Content-Security-Policy': contentSecurityPolicy(), ...reply.headers, Location: reply.location });
    res.end();
    return;
  }
  const text = layout(reply.title, reply.body).text;
  res.writeHead(reply.status ?? 200, {
    ...COMMON_HEADERS,
    'Content-Security-Policy': contentSecurityPolicy(reply.formTargets),
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}

/** The error page of a refusal. */
export const errorPage = (title: string, e: PageError): PageAnswer => ({
  kind: 'page',
  status: e.status,
  title,
  body: html`<p class="error">${e.message}</p>`,
  headers: { ...e.headers },
});

/** Any failure as a page: a PageError as it says, a transient failure 503, anything else 500 (logged). */
export function failurePage(title: string, err: unknown, log: Logger): PageAnswer {
  if (err instanceof PageError) return errorPage(title, err);
  if (isTransientFailure(err)) {
    log.warn({ err: (err as Error).message }, 'temporarily unavailable');
    return errorPage(title, new PageError('unavailable', 'The service is temporarily unavailable; try again shortly.', undefined, { 'Retry-After': '5' }));
  }
  log.error({ err }, 'web page failed');
  return errorPage(title, new PageError('internal_error', 'Something went wrong on our side; it has been logged.'));
}
