// Forgot password, before signing in: /forgot-password asks for the email and always answers the same ("if an
// account exists…"), and the mailed link's page, /reset-password?token=…, sets the new password (typed twice)
// and sends the user to sign in with it. Both post to the core's password resets, as the REST routes
// /api/tern-auth/v1/lost-password and /reset-password do.
import type { AppContext } from '../pipeline/context.js';
import type { Logger } from '../../shared/log.js';
import { PASSWORD_LENGTH, type IdentityRefusal } from '../../shared/core/identity/index.js';
import { newPasswordField } from './password-fields.js';
import { html, type Html } from './html.js';
import { pageErrorForIdentity, type PageError } from './errors.js';
import { formError } from './parts.js';
import { fieldOf, readForm, requireSameOrigin, type PageRequest } from './request.js';
import type { PageAnswer, PageReply } from './reply.js';
import { publicPage } from './page.js';
import { SIGN_IN_PATH } from './sign-in.js';
import { branded } from './branding.js';
import { RESET_REQUESTED } from '../presenters/messages.js';

const FORGOT_PASSWORD_PATH = '/forgot-password';
const FORGOT_PASSWORD_TITLE = 'Forgot your password?';
const RESET_PASSWORD_PATH = '/reset-password';
const RESET_PASSWORD_TITLE = 'Choose a new password';
const CANNOT_USE_TITLE = 'This link cannot be used';

function forgotForm(email = '', error?: PageError): PageAnswer {
  return {
    kind: 'page',
    status: error?.status,
    title: FORGOT_PASSWORD_TITLE,
    headers: { ...error?.headers },
    body: html`<p>Enter the email address you sign in with: we will mail you a link to choose a new password.</p>
      ${formError(error?.message)}
      <form method="post" action="${FORGOT_PASSWORD_PATH}">
        <label for="email">Email address</label>
        <input type="email" id="email" name="email" value="${email}" maxlength="254" autocomplete="username" required autofocus />
        <button type="submit" class="primary" id="send-link">Send the link</button>
      </form>
      <p><a href="${SIGN_IN_PATH}">Back to sign in</a></p>`,
  };
}

/** GET: the form. */
const showForgotPassword = (): Promise<PageReply> => Promise.resolve(forgotForm());

/** POST: the core's request; the same notice whether or not the email is a user's. */
async function requestReset(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  requireSameOrigin(r);
  const email = (fieldOf(await readForm(r.req), 'email') ?? '').trim();
  const asked = await ctx.core.passwordResets.request({ email, client: { address: r.address, userAgent: r.userAgent }, origin: r.origin }, log);
  if (!asked.ok) return forgotForm(email, pageErrorForIdentity(asked.refusal));
  return checkYourMail(RESET_REQUESTED);
}

/** The answer to a request that mails a link: the same notice whether or not anything was mailed. */
export const checkYourMail = (notice: string): PageAnswer => ({
  kind: 'page',
  title: 'Check your mail',
  body: html`<p class="notice" role="status">${notice}</p>
    <p><a href="${SIGN_IN_PATH}">Back to sign in</a></p>`,
});

interface ResetFormState {
  token: string;
  email: string;
  error?: string;
}

function resetForm(s: ResetFormState): PageAnswer {
  return {
    kind: 'page',
    status: s.error ? 400 : undefined,
    title: RESET_PASSWORD_TITLE,
    body: html`<p>Choose a new password for <strong>${s.email}</strong>. Every session of this account ends when it is set.</p>
      ${formError(s.error)}
      <form method="post" action="${RESET_PASSWORD_PATH}">
        <input type="hidden" name="token" value="${s.token}" />
        <input type="hidden" name="username" value="${s.email}" autocomplete="username" />
        ${newPasswordField({ name: 'password', label: 'New password', autofocus: true })}
        <label for="password_again">The new password again</label>
        <input type="password" id="password_again" name="password_again" maxlength="${PASSWORD_LENGTH.max}" autocomplete="new-password" required />
        <button type="submit" class="primary" id="set-password">Set the new password</button>
      </form>`,
  };
}

/** Why the link cannot be used, with the way to a new one. */
function unusable(refusal: IdentityRefusal): PageAnswer {
  const e = pageErrorForIdentity(refusal);
  return {
    kind: 'page',
    status: e.status,
    title: CANNOT_USE_TITLE,
    headers: { ...e.headers },
    body: html`<p class="error" role="alert">${e.message}</p>
      <p><a href="${FORGOT_PASSWORD_PATH}">Ask for a new link</a></p>`,
  };
}

const done = (): Html =>
  html`<p class="notice" role="status">Your password has been changed.</p>
    <p><a href="${SIGN_IN_PATH}">Sign in</a> with your new password.</p>`;

/** GET: the form, or why the link cannot be used (unknown, replaced, used, expired). */
async function showResetPassword(ctx: AppContext, r: PageRequest): Promise<PageReply> {
  const token = r.query.token ?? '';
  const link = await ctx.core.passwordResets.open(token);
  if (link.state !== 'valid') return unusable({ kind: 'password_reset_unusable', state: link.state });
  return resetForm({ token, email: link.user.email });
}

/** POST: the two passwords must match; then the core sets it. On a wrong password the form again, nothing changed. */
async function resetPassword(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  requireSameOrigin(r);
  const form = await readForm(r.req);
  const token = fieldOf(form, 'token') ?? '';
  const password = fieldOf(form, 'password') ?? '';
  const link = await ctx.core.passwordResets.open(token);
  if (link.state !== 'valid') return unusable({ kind: 'password_reset_unusable', state: link.state });
  if (password !== (fieldOf(form, 'password_again') ?? ''))
    return resetForm({ token, email: link.user.email, error: 'The two passwords differ; type the same one twice.' });
  const set = await ctx.core.passwordResets.complete({ token, password }, log);
  if (set.ok) return { kind: 'page', title: 'Password changed', body: done() };
  if (set.refusal.kind !== 'invalid_field') return unusable(set.refusal);
  return resetForm({ token, email: link.user.email, error: pageErrorForIdentity(set.refusal).message });
}

export const PASSWORD_RESET_PAGES = [
  publicPage({ method: 'GET', path: FORGOT_PASSWORD_PATH, title: FORGOT_PASSWORD_TITLE, handle: branded(showForgotPassword) }),
  publicPage({ method: 'POST', path: FORGOT_PASSWORD_PATH, title: FORGOT_PASSWORD_TITLE, handle: branded(requestReset) }),
  publicPage({ method: 'GET', path: RESET_PASSWORD_PATH, title: RESET_PASSWORD_TITLE, handle: branded(showResetPassword) }),
  publicPage({ method: 'POST', path: RESET_PASSWORD_PATH, title: RESET_PASSWORD_TITLE, handle: branded(resetPassword) }),
];
