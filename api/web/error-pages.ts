// Errors as a browser and as a program each read them: a person who follows a stale link or lacks the role
// gets a page in the dashboard's layout (framed when signed in) with a way back; a program (any /v2 or /api
// path, or a request whose Accept prefers application/json) keeps getting JSON. The choice is negotiator's
// reading of Accept: a page's own error stays HTML unless JSON is preferred, a path no route takes stays JSON
// (as the API always answered it) unless HTML is preferred, as a browser's navigation asks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import Negotiator from 'negotiator';
import type { AppContext } from '../pipeline/context.js';
import { pageError, type PageError } from './errors.js';
import { errorPage, writeReply, type PageAnswer } from './reply.js';
import { pageRequestOf } from './request.js';
import { pickedTeam, viewerOf, type Viewer } from './viewer.js';

const API_PATH = /^\/(?:v2|api)(?:[/?#]|$)/;

/** True when the request is a program's: an API path, or an Accept that prefers JSON to HTML (ties go to `tie`). */
export function wantsJson(req: IncomingMessage, tie: 'json' | 'html'): boolean {
  if (API_PATH.test(req.url ?? '/')) return true;
  const offered = tie === 'json' ? ['application/json', 'text/html'] : ['text/html', 'application/json'];
  return new Negotiator(req).mediaType(offered) === 'application/json';
}

/** A page's refusal as JSON, in the dashboard's shape ({code, message, data.status}), its headers kept (Retry-After). */
export function writeErrorJson(res: ServerResponse, e: PageError): void {
  const body = JSON.stringify({ code: e.code, message: e.message, data: { status: e.status } });
  res.writeHead(e.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept',
    ...e.headers,
  });
  res.end(body);
}

/** The signed-in viewer of a request, if any; a failure to tell (the store away) is no viewer, never a second error. */
async function viewerIfAny(ctx: AppContext, req: IncomingMessage): Promise<Viewer | undefined> {
  const r = pageRequestOf(req);
  try {
    const viewer = await viewerOf(ctx, r, { id: pickedTeam(r), strict: false });
    return viewer === 'not_found' ? undefined : viewer;
  } catch {
    return undefined;
  }
}

/** The 404 page of a path no page takes: in the dashboard's frame for a signed-in user, plain otherwise. */
export async function serveMissingPage(ctx: AppContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const e = pageError('not_found', 'There is no such page, or it is not yours to see.');
  const page: PageAnswer = { ...errorPage('Page not found', e), headers: { Vary: 'Accept' } };
  const viewer = await viewerIfAny(ctx, req);
  writeReply(req, res, viewer ? { ...page, frame: { viewer, section: '', returnTo: '/' } } : page);
}
