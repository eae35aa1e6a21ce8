// Sign-in with a provider, in the browser: /sign-in/with/:provider starts it (the core keeps its state, nonce and
// PKCE verifier; this page gives the browser a binding cookie and sends it to the provider), and the provider
// sends the browser back to /sign-in/callback/:provider, which finishes it into the password login's session
// cookie and redirect rules, or shows the sign-in page with what went wrong. No session is made on any refusal.
import { parse, serialize } from 'cookie';
import type { AppContext } from '../pipeline/context.js';
import type { Logger } from '../../shared/log.js';
import type { SocialRefusal } from '../../shared/core/identity/index.js';
import { headerOf, secureCookies } from '../pipeline/credentials.js';
import { dashboardUrlOf, socialCallbackPath } from '../presenters/links.js';
import { PageError } from './errors.js';
import { formPage, localRedirect, signedIn, SIGN_IN_TITLE, socialStartPath } from './sign-in.js';
import { publicPage, type Page } from './page.js';
import type { PageRequest } from './request.js';
import type { PageReply } from './reply.js';

/** The browser's half of a started sign-in; only ever sent back to the callback. */
const BINDING_COOKIE = 'tern_sign_in_binding';

const bindingCookie = (ctx: AppContext, r: PageRequest, value: string, maxAge: number): string =>
  // Lax: the provider's redirect back is a top-level GET from another site, which a Lax cookie is sent with.
  serialize(BINDING_COOKIE, value, { httpOnly: true, sameSite: 'lax', secure: secureCookies(ctx, r), path: '/sign-in/callback', maxAge });

/** What each refusal tells the person signing in (never which emails have users beyond what they proved they own). */
const MESSAGES: Readonly<Record<SocialRefusal['kind'], { status: number; message: string }>> = {
  provider_disabled: { status: 404, message: 'Signing in with this provider is not available.' },
  state_invalid: { status: 400, message: 'This sign-in link has expired or was already used. Start again from this page.' },
  provider_failed: { status: 502, message: 'The provider did not complete the sign-in. Try again, or sign in with your password.' },
  email_unverified: { status: 403, message: 'The provider has not verified your email address, so it cannot sign you in here.' },
  no_user: { status: 403, message: 'No account here uses the email address of that sign-in. Ask your team for an invitation, or sign in with your password.' },
  throttled: { status: 429, message: 'Too many failed sign-ins. Try again later.' },
};

function refusedPage(ctx: AppContext, refusal: SocialRefusal, r: PageRequest): Promise<PageReply> {
  const { status, message } = MESSAGES[refusal.kind];
  const headers = refusal.kind === 'throttled' ? { 'Retry-After': String(refusal.retryAfterS) } : undefined;
  const shown = formPage(ctx, undefined, undefined, new PageError('refused', message, status, headers));
  // The binding is spent with its state, whatever the outcome.
  return shown.then((page) => ({ ...page, headers: { ...page.headers, 'Set-Cookie': bindingCookie(ctx, r, '', 0) } }));
}

/** GET /sign-in/with/:provider: to the provider, with the binding cookie set. */
async function startSignIn(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  const provider = r.params.provider ?? '';
  const redirectUri = `${dashboardUrlOf(ctx, r)}${socialCallbackPath(provider)}`;
  const started = await ctx.core.socialSignIn.start(provider, redirectUri, localRedirect(r.query.redirect_to), log);
  if (!started.ok) return refusedPage(ctx, started.refusal, r);
  const cookie = bindingCookie(ctx, r, started.binding, ctx.config.dashboard.socialSignIn.stateTtlS);
  return { kind: 'redirect', status: 302, location: started.url, headers: { 'Set-Cookie': cookie } };
}

/** GET /sign-in/callback/:provider: the session cookie and where the user lands, or the sign-in page saying why not. */
async function finishSignIn(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  const query = new URL(r.url, 'http://callback.invalid').searchParams;
  const binding = parse(headerOf(r.req, 'cookie') ?? '')[BINDING_COOKIE] || undefined;
  const client = { email: '', address: r.address, userAgent: r.userAgent };
  const finished = await ctx.core.socialSignIn.finish({ provider: r.params.provider ?? '', query, binding, client }, log);
  if (!finished.ok) return refusedPage(ctx, finished.refusal, r);
  const landing = finished.redirectTo ?? (await ctx.core.loginSecurity.landing(finished.user, 'login')) ?? undefined;
  // The binding cookie is left to expire: its state is spent, and the answer sets the session cookie.
  return signedIn(ctx, r, finished.token, landing);
}

export const SOCIAL_SIGN_IN_PAGES: readonly Page[] = [
  publicPage({ method: 'GET', path: socialStartPath(':provider'), title: SIGN_IN_TITLE, handle: startSignIn }),
  publicPage({ method: 'GET', path: socialCallbackPath(':provider'), title: SIGN_IN_TITLE, handle: finishSignIn }),
];
