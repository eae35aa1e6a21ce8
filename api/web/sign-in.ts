// The sign-in page (/wp-login.php, as WordPress names it): a form of email and password posted to the same core
// login as POST /api/tern-auth/v1/login (throttling and the auth log included), setting the same session
// cookie; then back to redirect_to, which must be a path of this site (never an open redirect).
import type { AppContext } from '../pipeline/context.js';
import type { Logger } from '../../shared/log.js';
import { secureCookies, sessionCookie } from '../pipeline/credentials.js';
import { html, type Html } from './html.js';
import { normalisedSitePath } from '../../shared/domain/sign-in-redirects.js';
import { pageError, pageErrorForIdentity, type PageError } from './errors.js';
import { fieldOf, readForm, requireSameOrigin, type PageRequest } from './request.js';
import type { PageAnswer, PageReply } from './reply.js';
import { PROVIDER_NAMES, type SocialProvider } from '../../shared/domain/social-sign-in.js';

/** Where a sign-in with a provider starts (api/web/social-sign-in.ts). */
export const socialStartPath = (provider: string): string => `/sign-in/with/${provider}`;
import { MAGIC_LINK_PATH } from '../../shared/core/identity/index.js';

export const SIGN_IN_PATH = '/wp-login.php';
export const SIGN_IN_TITLE = 'Sign in';

/**
 * redirect_to as a path of this site, undefined when none was given; anything else is refused (400). It is
 * normalised first and only then checked (shared/domain/sign-in-redirects.ts): checking before normalising let
 * `/..//evil.example` through as `//evil.example`.
 */
export function localRedirect(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const path = normalisedSitePath(value);
  if (path === undefined) throw pageError('invalid_request', 'redirect_to must be a path on this site.');
  return path;
}

/** The path that signs in and comes back to `path`. */
export const signInUrl = (path: string): string => `${SIGN_IN_PATH}?${new URLSearchParams({ redirect_to: path }).toString()}`;

/** The provider buttons: links that start a sign-in there (api/web/social-sign-in.ts), for the providers that are on. */
function providerLinks(providers: readonly SocialProvider[], redirectTo: string | undefined): Html | undefined {
  if (providers.length === 0) return undefined;
  const query = redirectTo === undefined ? '' : `?${new URLSearchParams({ redirect_to: redirectTo }).toString()}`;
  return html`<div class="providers">
    ${providers.map((p) => html`<p><a class="button" id="sign-in-${p}" href="${socialStartPath(p)}${query}">Sign in with ${PROVIDER_NAMES[p]}</a></p>`)}
  </div>`;
}

/** The other way in, when the platform offers it: a link mailed to the user (the account decides whether one goes). */
const magicLinkForm = (): Html =>
  html`<form method="post" action="${MAGIC_LINK_PATH}" class="magic-link">
    <label for="magic-email">Or sign in without your password</label>
    <input type="email" id="magic-email" name="email" maxlength="254" autocomplete="username" required />
    <button type="submit" id="send-magic-link">Email me a sign-in link</button>
  </form>`;

function signInForm(
  redirectTo: string | undefined,
  email = '',
  error?: PageError,
  loggedOut = false,
  providers: readonly SocialProvider[] = [],
  offerLink = false,
): Html {
  return html`${error ? html`<p class="error" role="alert">${error.message}</p>` : undefined}
    ${loggedOut && !error ? html`<p class="notice" role="status">You are logged out.</p>` : undefined}
    <form method="post" action="${SIGN_IN_PATH}">
      <label for="email">Email address</label>
      <input type="email" id="email" name="email" value="${email}" autocomplete="username" required autofocus />
      <label for="password">Password</label>
      <input type="password" id="password" name="password" autocomplete="current-password" required />
      ${redirectTo === undefined ? undefined : html`<input type="hidden" name="redirect_to" value="${redirectTo}" />`}
      <button type="submit" class="primary" id="sign-in">Sign in</button>
    </form>
    ${providerLinks(providers, redirectTo)}
    <p><a href="/forgot-password">Forgot your password?</a></p>
    ${offerLink ? magicLinkForm() : undefined}`;
}

/** The second step of a two-step sign-in: the code mailed, with the challenge the password's success answered. */
function codeForm(redirectTo: string | undefined, c: { challenge: string; sentTo: string }, error?: PageError): Html {
  return html`${error ? html`<p class="error" role="alert">${error.message}</p>` : undefined}
    <p class="notice" role="status">Your account asks for a second step: we mailed a six-digit sign-in code to ${c.sentTo}.</p>
    <form method="post" action="${SIGN_IN_PATH}">
      <input type="hidden" name="challenge" value="${c.challenge}" />
      <input type="hidden" name="sent_to" value="${c.sentTo}" />
      <label for="code">Sign-in code</label>
      <input type="text" id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required autofocus />
      ${redirectTo === undefined ? undefined : html`<input type="hidden" name="redirect_to" value="${redirectTo}" />`}
      <button type="submit" class="primary" id="send-code">Sign in</button>
    </form>
    <p><a href="${SIGN_IN_PATH}">Start again</a></p>`;
}

const codePage = (redirectTo: string | undefined, c: { challenge: string; sentTo: string }, error?: PageError): PageAnswer => ({
  kind: 'page',
  status: error?.status,
  title: SIGN_IN_TITLE,
  body: codeForm(redirectTo, c, error),
  headers: { ...error?.headers },
});

/** The sign-in form, with an error when there is one, and the buttons of the providers that are on. */
export async function formPage(ctx: AppContext, redirectTo: string | undefined, email?: string, error?: PageError, loggedOut = false): Promise<PageAnswer> {
  return {
    kind: 'page',
    status: error?.status,
    title: SIGN_IN_TITLE,
    body: signInForm(redirectTo, email, error, loggedOut, await ctx.core.socialSignIn.enabledProviders(), ctx.core.magicLinks.offered),
    headers: { ...error?.headers },
  };
}

/** GET: the form (a bad redirect_to is refused before anyone types a password). */
export function showSignIn(ctx: AppContext, r: PageRequest): Promise<PageReply> {
  return formPage(ctx, localRedirect(r.query.redirect_to), undefined, undefined, r.query.loggedout === 'true');
}

/** POST: the core's login (or a two-step code); on success the session cookie and a redirect to redirect_to (or a signed-in page). */
export async function signIn(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  requireSameOrigin(r);
  const form = await readForm(r.req);
  const redirectTo = localRedirect(fieldOf(form, 'redirect_to'));
  const challenge = fieldOf(form, 'challenge');
  if (challenge !== undefined) return secondStep(ctx, r, log, redirectTo, { challenge, sentTo: fieldOf(form, 'sent_to') ?? '' }, fieldOf(form, 'code') ?? '');
  const email = fieldOf(form, 'email') ?? '';
  const password = fieldOf(form, 'password') ?? '';
  if (email === '' || password === '') return formPage(ctx, redirectTo, email, pageError('invalid_request', 'Enter your email address and your password.'));
  const result = await ctx.core.logins.login({ email, password, address: r.address, userAgent: r.userAgent }, log);
  if (!result.ok && result.refusal.kind === 'two_step_required') return codePage(redirectTo, result.refusal);
  if (!result.ok) return formPage(ctx, redirectTo, email, pageErrorForIdentity(result.refusal));
  return signedIn(ctx, r, result.token, redirectTo ?? (await ctx.core.loginSecurity.landing(result.user, 'login')) ?? undefined);
}

async function secondStep(
  ctx: AppContext,
  r: PageRequest,
  log: Logger,
  redirectTo: string | undefined,
  c: { challenge: string; sentTo: string },
  code: string,
): Promise<PageReply> {
  if (!/^[0-9]{6}$/.test(code)) return codePage(redirectTo, c, pageError('invalid_request', 'Enter the six digits of the code we mailed.'));
  const result = await ctx.core.logins.verifyCode({ challenge: c.challenge, code, address: r.address, userAgent: r.userAgent }, log);
  if (result.ok) return signedIn(ctx, r, result.token, redirectTo ?? (await ctx.core.loginSecurity.landing(result.user, 'login')) ?? undefined);
  // A wrong code may be typed again; a spent one (or a lockout) starts over from the password.
  if (result.refusal.kind === 'two_step_code_wrong') return codePage(redirectTo, c, pageErrorForIdentity(result.refusal));
  return formPage(ctx, redirectTo, '', pageErrorForIdentity(result.refusal));
}

export function signedIn(ctx: AppContext, r: PageRequest, token: string, redirectTo: string | undefined): PageReply {
  const cookie = sessionCookie(token, secureCookies(ctx, r));
  // 303: the browser follows with a GET; the dashboard's home sends an operator on to the platform's pages.
  return { kind: 'redirect', status: 303, location: redirectTo ?? '/', headers: { 'Set-Cookie': cookie } };
}
