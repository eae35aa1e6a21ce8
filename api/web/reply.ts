// What a page answers and how it is written: a page (plain, or in the dashboard's frame for a signed-in user) or
// a redirect, each with the headers every page carries (a strict Content-Security-Policy, never framed, never
// cached, no referrer leaving the site), compressed when the browser accepts it; and the error page of a refusal
// (which failure becomes which refusal is the pages' error mapper's, in web/group.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { html, type Html } from './html.js';
import { appDocument, plainDocument, type AppFrame } from './layout.js';
import { compressed, encodingFor } from './compression.js';
import type { PageError } from './errors.js';

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
  /** Set for a signed-in page (by the pages' route group): the bar, the sections and the team switcher around it. */
  frame?: AppFrame;
  /** A plain page's branding (web/branding.ts): a stylesheet of this site linked after Tern's, a header above the title. */
  look?: { stylesheet?: string; header?: Html };
}

export interface RedirectAnswer {
  kind: 'redirect';
  /** An absolute URL or a path of this site, already checked and serialized (ASCII). */
  location: string;
  headers?: Record<string, string>;
  /** 303 after a form (the browser then GETs the location), 302 otherwise. */
  status?: 302 | 303;
}

/** Bytes sent as they are (a CSV export, a PDF), with their own type and headers; never framed. */
export interface FileAnswer {
  kind: 'file';
  contentType: string;
  body: Buffer | NodeJS.ReadableStream;
  headers?: Record<string, string>;
}

/** A piece of a page, answered to an htmx request (it replaces part of the page the user is on). */
export interface FragmentAnswer {
  kind: 'fragment';
  status?: number;
  body: Html;
}

export type PageReply = PageAnswer | RedirectAnswer | FileAnswer | FragmentAnswer;

/**
 * Styles and images only from this site (the hashed assets), plus https images (a team's icon may be elsewhere);
 * scripts (and their fetches) only on a signed-in page, only from this site; forms only to this site (and the
 * given targets); no frames, no base. A page before signing in runs no script at all.
 */
export function contentSecurityPolicy(formTargets: ReadonlyArray<URL | undefined> = [], scripts = false): string {
  const origins = [...new Set(formTargets.flatMap((u) => (u ? [u.origin] : [])))];
  return [
    "default-src 'none'",
    ...(scripts ? ["script-src 'self'", "connect-src 'self'"] : []),
    "style-src 'self'",
    "img-src 'self' data: https:",
    ["form-action 'self'", ...origins].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Headers every answer of a page carries. */
const COMMON_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // same-origin, not no-referrer: a form's POST then still carries this site's Origin, which the pages check.
  'Referrer-Policy': 'same-origin',
} as const;

function writeHtml(req: IncomingMessage, res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  const encoding = encodingFor(req);
  const body = compressed(text, encoding);
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': body.length,
    Vary: 'Accept-Encoding',
    ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
    ...headers,
  });
  res.end(body);
}

export function writeReply(req: IncomingMessage, res: ServerResponse, reply: PageReply): void {
  switch (reply.kind) {
    case 'redirect':
      res.writeHead(reply.status ?? 302, { ...COMMON_HEADERS, 'Content-Security-Policy': contentSecurityPolicy(), ...reply.headers, Location: reply.location });
      res.end();
      return;
    case 'file': {
      res.writeHead(200, { ...COMMON_HEADERS, 'Content-Security-Policy': contentSecurityPolicy(), 'Content-Type': reply.contentType, ...reply.headers });
      if (Buffer.isBuffer(reply.body)) res.end(reply.body);
      else reply.body.pipe(res);
      return;
    }
    case 'fragment':
      writeHtml(req, res, reply.status ?? 200, reply.body.text, { 'Content-Security-Policy': contentSecurityPolicy() });
      return;
    case 'page': {
      const text = reply.frame ? appDocument(reply.title, reply.body, reply.frame).text : plainDocument(reply.title, reply.body, reply.look).text;
      writeHtml(req, res, reply.status ?? 200, text, {
        'Content-Security-Policy': contentSecurityPolicy(reply.formTargets, reply.frame !== undefined),
        ...reply.headers,
      });
    }
  }
}

/** The way back from an error page: the dashboard's start (which sends a signed-out visitor to sign in first). */
const wayBack = (e: PageError): Html =>
  html`<p class="way-back">
    <a class="button" href="/">Back to the dashboard</a>${e.status >= 500 ? html` <span class="muted">or reload this page in a moment.</span>` : undefined}
  </p>`;

/** The error page of a refusal, with a way back. */
export const errorPage = (title: string, e: PageError): PageAnswer => ({
  kind: 'page',
  status: e.status,
  title,
  body: html`<p class="error">${e.message}</p>
    ${wayBack(e)}`,
  headers: { ...e.headers },
});
