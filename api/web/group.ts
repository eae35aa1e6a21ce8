// The pages as a route group on the one pipeline (api/pipeline/pipeline.ts), as /v2 and the dashboard are: its
// authentication is the session cookie (a form's same-site check and reading it come first, as the team a form
// names is part of who asks), its checks in order are the form's token, the password-change gate and the page's
// access (the role, and which kind of user), its wrapper takes the account's write allowance, and its error
// mapper is the pipeline's with the pages' own errors. What the pipeline answers is then written as a page: in
// the dashboard's frame for a signed-in user, a fragment for htmx, and a failure as an error page (or as JSON
// for a program that prefers it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../pipeline/context.js';
import { requestLog } from '../pipeline/request-id.js';
import { errorMapper, incomingOf, runCall, type Answer, type Call, type RouteGroup } from '../pipeline/pipeline.js';
import type { PipelineRoute, RouteInput, RouteResponse } from '../pipeline/route.js';
import { observeHttp } from '../../shared/metrics.js';
import { pageError, PageError } from './errors.js';
import { accountIdOf } from '../../shared/domain/team.js';
import type { Page, PageCall } from './page.js';
import { errorPage, writeReply, type PageReply, type RedirectAnswer } from './reply.js';
import { wantsJson, writeErrorJson } from './error-pages.js';
import { FORM_LIMIT_BYTES, readForm, requireSameOrigin, pageRequestOf, signedInUser, type PageRequest } from './request.js';
import { isOperator } from '../../shared/domain/user.js';
import { NONCE_FIELD, PAGE_ACTION, pickedTeam, TEAM_FIELD, viewerMay, viewerOf, type Viewer } from './viewer.js';
import { signInUrl } from './sign-in.js';
import { readMultipartForm, type UploadedFile } from './upload-form.js';
import { headerOf } from '../pipeline/credentials.js';

export const PASSWORD_CHANGE_PATH = '/change-password';

type SignedInPage = Exclude<Page, { access: 'public' }>;

/** Who opens a page, as the pipeline carries it: the signed-in user (none on a public page) and the posted form. */
interface PageCaller {
  readonly viewer: Viewer | undefined;
  /** The posted form of a signed-in page (checked: same site); empty for a GET and for a public page. */
  readonly form: URLSearchParams;
  /** The file of a page taking one (page.upload). */
  readonly file?: UploadedFile;
}

/** A page as the pipeline runs it for one request; `seen` keeps the viewer once known, for the frame of a refusal. */
interface RoutedPage extends PipelineRoute<PageCaller> {
  readonly page: Page;
  readonly r: PageRequest;
  readonly seen: { viewer?: Viewer };
}

type PageCheck = (call: Call<PageCaller, RoutedPage>) => void;

/** A check's answer that is not a refusal: go elsewhere first (sign in, change the password, the operator's pages). */
class Detour extends Error {
  constructor(readonly location: string) {
    super(`go to ${location} first`);
  }
}

const notFound = (): PageError => pageError('not_found', 'There is no such page, or it is not yours to see.');

function teamAsked(r: PageRequest, form: URLSearchParams): { id: number | undefined; strict: boolean } {
  const field = form.get(TEAM_FIELD);
  if (field === null) return { id: pickedTeam(r), strict: false };
  if (!/^\d{1,15}$/.test(field)) throw pageError('invalid_request', 'The form names no team.');
  return { id: Number(field), strict: true };
}

/**
 * A file is not taken in from a user whose role may not send the form (a viewer's forged upload): the role is the
 * user's on every team it reaches, so the access check's answer is known before the body is read; the body is
 * then dropped unread, as the REST upload refuses it.
 */
async function refuseUploadEarly(ctx: AppContext, page: SignedInPage, r: PageRequest): Promise<void> {
  if (page.access === 'self' || page.access === 'operator') return;
  const me = await signedInUser(ctx, r);
  if (!me || isOperator(me.user) || ctx.core.access.allows(me.user, page.access)) return;
  r.req.resume();
  throw pageError('forbidden', 'Your role on this team does not allow this.');
}

/** Session authentication: anyone on a public page; otherwise the session's user, or sign in first (a form: refused). */
async function authenticate(ctx: AppContext, route: RoutedPage): Promise<PageCaller> {
  const { page, r } = route;
  if (page.access === 'public') return { viewer: undefined, form: new URLSearchParams() };
  let form = new URLSearchParams();
  let file: UploadedFile | undefined;
  if (page.method === 'POST') {
    requireSameOrigin(r);
    const multipart = /^multipart\/form-data\b/i.test(headerOf(r.req, 'content-type') ?? '');
    if (page.upload && multipart) {
      await refuseUploadEarly(ctx, page, r);
      ({ form, file } = await readMultipartForm(r.req, page.upload.field, page.upload.maxBytes(ctx)));
    } else form = await readForm(r.req);
  }
  const viewer = await viewerOf(ctx, r, teamAsked(r, form));
  if (viewer === 'not_found') throw notFound();
  if (!viewer) {
    if (page.method === 'GET') throw new Detour(signInUrl(r.url));
    throw pageError('not_signed_in', 'You are not signed in (or your session has ended): sign in and try again.');
  }
  // Known from here: a refusal below (403, 404) is shown in the dashboard's frame, with its way back.
  route.seen.viewer = viewer;
  return { viewer, form, file };
}

/** A form carries the token of its session (CSRF). */
const formToken: PageCheck = ({ ctx, caller, route }) => {
  if (route.page.method !== 'POST' || caller.viewer === undefined) return;
  if (ctx.core.nonces.verifyNonce(caller.viewer.session, caller.form.get(NONCE_FIELD) ?? '', PAGE_ACTION) !== 'valid') {
    throw pageError('invalid_csrf_token', 'This form has expired or was not sent from this site; nothing was done. Reload the page and try again.');
  }
};

/** A user whose password must change opens only the change itself (and logging out) until it is done. */
const passwordChangeGate: PageCheck = ({ caller, route: { page } }) => {
  if (caller.viewer === undefined || page.access === 'public') return;
  const duringChange = page.access === 'self' && page.duringPasswordChange === true;
  if (caller.viewer.user.mustChangePassword && !duringChange) throw new Detour(PASSWORD_CHANGE_PATH);
};

/** The page's access: an operator's pages for operators only, an account's for its users, with the least role. */
const access: PageCheck = ({ ctx, caller: { viewer }, route: { page } }) => {
  if (viewer === undefined || page.access === 'public' || page.access === 'self') return;
  if (page.access === 'operator') {
    if (viewer.kind !== 'operator') throw notFound();
    return;
  }
  if (viewer.kind === 'operator') {
    if (page.method === 'GET') throw new Detour('/admin');
    throw notFound();
  }
  if (!viewerMay(ctx, viewer, page.access)) throw pageError('forbidden', 'Your role on this team does not allow this.');
};

/** A form counts against its account's write bucket (web/page.ts rate); past the limit, 429 and nothing done. */
async function takeWrite(ctx: AppContext, page: Page, viewer: Viewer | undefined): Promise<void> {
  if (page.access === 'public' || viewer === undefined) return;
  const bucket = page.rate === undefined ? 'writes' : page.rate;
  if (page.method !== 'POST' || bucket === null || viewer.kind !== 'account') return;
  const decision = await ctx.core.writeRates.take(accountIdOf(viewer.acting), bucket);
  if (!decision.allowed) {
    throw new PageError('too_many_requests', `Too many changes: at most ${decision.limit} a minute. Try again in ${decision.resetS} s.`, undefined, {
      'Retry-After': String(decision.resetS),
    });
  }
}

/** The pages' errors in the pipeline's mapper: a page's own refusal, a detour, and the two failures every interface has. */
const pageErrors = errorMapper({
  known(err) {
    if (err instanceof PageError) return { status: err.status, body: err, headers: { ...err.headers } };
    if (err instanceof Detour) return { status: 302, body: { kind: 'redirect', location: err.location } satisfies RedirectAnswer, headers: {} };
    return undefined;
  },
  unavailable: () => ({
    status: 503,
    body: new PageError('unavailable', 'The service is temporarily unavailable; try again shortly.', undefined, { 'Retry-After': '5' }),
    headers: {},
  }),
  internal: () => ({ status: 500, body: new PageError('internal_error', 'Something went wrong on our side; it has been logged.'), headers: {} }),
});

const pageGroup: RouteGroup<PageCaller, RoutedPage> = {
  // A page reads its own form (readForm, within this limit), once it knows the page takes one.
  bodyLimit: () => FORM_LIMIT_BYTES,
  // Pages echo no team: the team acted on is in the page itself.
  auth: { authenticate: (ctx, _req, _body, route) => authenticate(ctx, route), teamOf: () => undefined },
  errors: pageErrors,
  checks: [formToken, passwordChangeGate, access],
  // A page validates its own fields (its handler words a problem on the form): the input is the form as posted.
  input: ({ ctx, caller, req, query, log }): RouteInput<unknown, unknown, unknown, PageCaller> => ({
    ctx,
    caller,
    body: caller.form,
    query,
    params: req.params,
    log,
    request: req,
  }),
  around: async ({ ctx, caller, route }, handler) => {
    await takeWrite(ctx, route.page, caller.viewer);
    return handler();
  },
  routes: [],
};

async function handleSignedIn(page: SignedInPage, call: Omit<PageCall<Viewer>, 'viewer'>, viewer: Viewer): Promise<PageReply> {
  // The access check has matched the viewer's kind to the page's access.
  if (page.access === 'self') return page.handle({ ...call, viewer });
  if (page.access === 'operator') return page.handle({ ...call, viewer: viewer as Extract<Viewer, { kind: 'operator' }> });
  return page.handle({ ...call, viewer: viewer as Extract<Viewer, { kind: 'account' }> });
}

function routedPage(page: Page, r: PageRequest): RoutedPage {
  return {
    page,
    r,
    seen: {},
    async handle({ ctx, caller, log }): Promise<RouteResponse> {
      if (page.access === 'public') return { body: await page.handle(ctx, r, log) };
      return { body: await handleSignedIn(page, { ctx, r, log, form: caller.form, file: caller.file }, caller.viewer!) };
    },
  };
}

/** The answer in the frame of a signed-in page (for the viewer); a fragment for htmx. */
function framed(reply: PageReply, page: Page, r: PageRequest, viewer: Viewer | undefined): PageReply {
  if (reply.kind !== 'page' || !viewer) return reply;
  if (r.fromHtmx) return { kind: 'fragment', status: reply.status, body: reply.body };
  const returnTo = page.method === 'GET' ? r.url : (page.section ?? page.path);
  return { ...reply, frame: { viewer, section: page.section ?? page.path, returnTo } };
}

/** What the pipeline answered, written as a page; a failure as its error page, or as JSON for a program that prefers it. */
function writeAnswer(req: IncomingMessage, res: ServerResponse, answer: Answer, route: RoutedPage): void {
  const { page, r } = route;
  let reply = answer.body as PageReply;
  if (answer.body instanceof PageError) {
    if (wantsJson(req, 'html')) return writeErrorJson(res, answer.body);
    const failed = errorPage(page.title, answer.body);
    reply = r.fromHtmx ? { kind: 'fragment', status: failed.status, body: failed.body } : failed;
  }
  writeReply(req, res, framed(reply, page, r, route.seen.viewer));
}

/** Runs a page through the pipeline and writes its answer. */
export async function servePage(ctx: AppContext, page: Page, req: IncomingMessage, res: ServerResponse, params: Record<string, string>): Promise<void> {
  observeHttp(res, page.method, page.path);
  const log = requestLog(ctx.log, req, res, { route: `${page.method} ${page.path}` });
  const route = routedPage(page, pageRequestOf(req, params));
  const answer = await runCall(ctx, pageGroup, route, { ...incomingOf(req, page.path, params, undefined), stream: req }, log);
  writeAnswer(req, res, answer, route);
}
