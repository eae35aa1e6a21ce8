// Magic-link sign-in on the pages before signing in: the sign-in page's "Email me a sign-in link" form posts to
// /magic-link (the same answer whether or not a link went), and the mailed link, /magic-link?token=…, shows a
// button that posts the token to /magic-link/sign-in: a GET signs nobody in (mail scanners fetch links). Both
// call the core's use cases the REST routes call (core.magicLinks, core.logins.signInWithLink), and a sign-in sets
// the session cookie the password's does.
import type { AppContext } from '../pipeline/context.js';
import type { Logger } from '../../shared/log.js';
import { MAGIC_LINK_PATH } from '../../shared/core/identity/index.js';
import { html } from './html.js';
import { pageErrorForIdentity, type PageError } from './errors.js';
import { formError } from './parts.js';
import { fieldOf, readForm, requireSameOrigin, type PageRequest } from './request.js';
import type { PageAnswer, PageReply } from './reply.js';
import { publicPage } from './page.js';
import { SIGN_IN_PATH, signedIn } from './sign-in.js';
import { branded } from './branding.js';
import { checkYourMail } from './password-reset.js';
import { MAGIC_LINK_REQUESTED } from '../presenters/messages.js';

const SIGN_IN_WITH_LINK_PATH = `${MAGIC_LINK_PATH}/sign-in`;
const TITLE = 'Sign in with a link';
const CANNOT_USE_TITLE = 'This link cannot be used';

function askAgain(email: string, error: PageError): PageAnswer {
  return {
    kind: 'page',
    status: error.status,
    title: TITLE,
    headers: { ...error.headers },
    body: html`${formError(error.message)}
      <form method="post" action="${MAGIC_LINK_PATH}">
        <label for="magic-email">Email address</label>
        <input type="email" id="magic-email" name="email" value="${email}" maxlength="254" autocomplete="username" required autofocus />
        <button type="submit" class="primary" id="send-magic-link">Email me a sign-in link</button>
      </form>
      <p><a href="${SIGN_IN_PATH}">Back to sign in</a></p>`,
  };
}

/** POST /magic-link: the core's request; the same notice whether or not the email may have a link. */
async function requestLink(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  requireSameOrigin(r);
  const email = (fieldOf(await readForm(r.req), 'email') ?? '').trim();
  const asked = await ctx.core.magicLinks.request({ email, client: { address: r.address, userAgent: r.userAgent }, origin: r.origin }, log);
  if (!asked.ok) return askAgain(email, pageErrorForIdentity(asked.refusal));
  return checkYourMail(MAGIC_LINK_REQUESTED);
}

/** GET /magic-link?token=…: a button that signs in; nothing is used by opening the link. */
function showLink(_ctx: AppContext, r: PageRequest): Promise<PageReply> {
  const token = r.query.token ?? '';
  return Promise.resolve({
    kind: 'page',
    title: TITLE,
    body: html`<p>Sign in to Tern with the link we mailed you. It works once.</p>
      <form method="post" action="${SIGN_IN_WITH_LINK_PATH}">
        <input type="hidden" name="token" value="${token}" />
        <button type="submit" class="primary" id="magic-sign-in">Sign in</button>
      </form>`,
  });
}

/** POST /magic-link/sign-in: the core's sign-in with the token; the session cookie, or why the link cannot be used. */
async function signInWithLink(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  requireSameOrigin(r);
  const token = fieldOf(await readForm(r.req), 'token') ?? '';
  const result = await ctx.core.logins.signInWithLink({ token, address: r.address, userAgent: r.userAgent }, log);
  if (result.ok) return signedIn(ctx, r, result.token, (await ctx.core.loginSecurity.landing(result.user, 'login')) ?? undefined);
  const e = pageErrorForIdentity(result.refusal);
  return {
    kind: 'page',
    status: e.status,
    title: CANNOT_USE_TITLE,
    headers: { ...e.headers },
    body: html`<p class="error" role="alert">${e.message}</p>
      <p><a href="${SIGN_IN_PATH}">Back to sign in</a></p>`,
  };
}

export const MAGIC_LINK_PAGES = [
  publicPage({ method: 'POST', path: MAGIC_LINK_PATH, title: TITLE, handle: branded(requestLink) }),
  publicPage({ method: 'GET', path: MAGIC_LINK_PATH, title: TITLE, handle: branded(showLink) }),
  publicPage({ method: 'POST', path: SIGN_IN_WITH_LINK_PATH, title: CANNOT_USE_TITLE, handle: branded(signInWithLink) }),
];
