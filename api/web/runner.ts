// Runs a page: settles who asks (anyone, or the session's user and the team it acts on), refuses what the asker
// may not do before the handler runs (no session, the wrong kind of user, a form from another site or without
// its CSRF token, a role short of the page's), runs the handler, and writes its answer in the dashboard's frame
// for a signed-in user. Failures become error pages (or, for htmx, an error fragment in place).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../pipeline/context.js';
import { requestLog } from '../pipeline/request-id.js';
import type { Logger } from '../../shared/log.js';
import { observeHttp } from '../../shared/metrics.js';
import { pageError, PageError } from './errors.js';
import { accountIdOf } from '../../shared/domain/team.js';
import type { Page, PageCall } from './page.js';
import { failurePage, writeReply, type PageReply } from './reply.js';
import { wantsJson, writeErrorJson } from './error-pages.js';
import { readForm, requireSameOrigin, pageRequestOf, type PageRequest } from './request.js';
import { NONCE_FIELD, PAGE_ACTION, pickedTeam, TEAM_FIELD, viewerMay, viewerOf, type Viewer } from './viewer.js';
import { signInUrl } from './sign-in.js';

export const PASSWORD_CHANGE_PATH = '/change-password';

const isViewer = (x: Viewer | PageReply): x is Viewer => x.kind === 'account' || x.kind === 'operator';

const notFound = (): PageError => pageError('not_found', 'There is no such page, or it is not yours to see.');

function teamAsked(r: PageRequest, form: URLSearchParams): { id: number | undefined; strict: boolean } {
  const field = form.get(TEAM_FIELD);
  if (field === null) return { id: pickedTeam(r), strict: false };
  if (!/^\d{1,15}$/.test(field)) throw pageError('invalid_request', 'The form names no team.');
  return { id: Number(field), strict: true };
}

/** The checks every signed-in page makes, in order; a redirect or a refusal ends the request before the handler. */
async function admit(
  ctx: AppContext,
  page: Exclude<Page, { access: 'public' }>,
  r: PageRequest,
  form: URLSearchParams,
  state: { viewer?: Viewer },
): Promise<Viewer | PageReply> {
  const viewer = await viewerOf(ctx, r, teamAsked(r, form));
  if (viewer === 'not_found') throw notFound();
  if (!viewer) {
    if (page.method === 'GET') return { kind: 'redirect', location: signInUrl(r.url) };
    throw pageError('not_signed_in', 'You are not signed in (or your session has ended): sign in and try again.');
  }
  // Known from here: a refusal below (403, 404) is shown in the dashboard's frame, with its way back.
  state.viewer = viewer;
  if (page.method === 'POST' && ctx.core.nonces.verifyNonce(viewer.session, form.get(NONCE_FIELD) ?? '', PAGE_ACTION) !== 'valid') {
    throw pageError('invalid_csrf_token', 'This form has expired or was not sent from this site; nothing was done. Reload the page and try again.');
  }
  const duringChange = page.access === 'self' && page.duringPasswordChange === true;
  if (viewer.user.mustChangePassword && !duringChange) return { kind: 'redirect', location: PASSWORD_CHANGE_PATH };
  if (page.access === 'operator' && viewer.kind !== 'operator') throw notFound();
  if (page.access !== 'operator' && page.access !== 'self' && viewer.kind === 'operator') {
    if (page.method === 'GET') return { kind: 'redirect', location: '/admin' };
    throw notFound();
  }
  if (page.access !== 'self' && page.access !== 'operator' && !viewerMay(ctx, viewer, page.access)) {
    throw pageError('forbidden', 'Your role on this team does not allow this.');
  }
  return viewer;
}

/** A form counts against its account's write bucket (web/page.ts rate); past the limit, 429 and nothing done. */
async function takeWrite(ctx: AppContext, page: Exclude<Page, { access: 'public' }>, viewer: Viewer): Promise<void> {
  const bucket = page.rate === undefined ? 'writes' : page.rate;
  if (page.method !== 'POST' || bucket === null || viewer.kind !== 'account') return;
  const decision = await ctx.core.writeRates.take(accountIdOf(viewer.acting), bucket);
  if (!decision.allowed) {
    throw new PageError('too_many_requests', `Too many changes: at most ${decision.limit} a minute. Try again in ${decision.resetS} s.`, undefined, {
      'Retry-After': String(decision.resetS),
    });
  }
}

async function handleSignedIn(ctx: AppContext, page: Exclude<Page, { access: 'public' }>, call: Omit<PageCall<Viewer>, 'viewer'>, viewer: Viewer): Promise<PageReply> {
  // admit() has matched the viewer's kind to the page's access.
  if (page.access === 'self') return page.handle({ ...call, viewer });
  if (page.access === 'operator') return page.handle({ ...call, viewer: viewer as Extract<Viewer, { kind: 'operator' }> });
  return page.handle({ ...call, viewer: viewer as Extract<Viewer, { kind: 'account' }> });
}

/** The answer in the frame of a signed-in page (for the viewer); a fragment for htmx. */
function framed(reply: PageReply, page: Page, r: PageRequest, viewer: Viewer | undefined): PageReply {
  if (reply.kind !== 'page' || !viewer) return reply;
  if (r.fromHtmx) return { kind: 'fragment', status: reply.status, body: reply.body };
  const returnTo = page.method === 'GET' ? r.url : (page.section ?? page.path);
  return { ...reply, frame: { viewer, section: page.section ?? page.path, returnTo } };
}

async function run(ctx: AppContext, page: Page, r: PageRequest, log: Logger, state: { viewer?: Viewer }): Promise<PageReply> {
  if (page.access === 'public') return page.handle(ctx, r, log);
  let form = new URLSearchParams();
  if (page.method === 'POST') {
    requireSameOrigin(r);
    form = await readForm(r.req);
  }
  const admitted = await admit(ctx, page, r, form, state);
  if (!isViewer(admitted)) return admitted;
  await takeWrite(ctx, page, admitted);
  return handleSignedIn(ctx, page, { ctx, r, log, form }, admitted);
}

export async function servePage(ctx: AppContext, page: Page, req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> {
  observeHttp(res, page.method, page.path);
  const log = requestLog(ctx.log, req, res, { route: `${page.method} ${page.path}` });
  const r = pageRequestOf(req, params);
  const state: { viewer?: Viewer } = {};
  let reply: PageReply;
  try {
    reply = await run(ctx, page, r, log, state);
  } catch (err) {
    const failed = failurePage(page.title, err, log);
    // A program asking for JSON gets the refusal as JSON, not a page.
    if (wantsJson(req, 'html')) return writeErrorJson(res, failed.error);
    reply = r.fromHtmx ? { kind: 'fragment', status: failed.status, body: failed.body } : failed;
  }
  writeReply(req, res, framed(reply, page, r, state.viewer));
}
