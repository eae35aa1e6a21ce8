// The application-password authorization page (/wp-admin/authorize-application.php, as WordPress): GET checks
// the application's request and, for a signed-in user, shows who asks and two buttons in a form carrying the
// session's CSRF token; POST checks the token and approves (an application password, sent to success_url with
// site_url, user_login and password, or shown once) or rejects (to reject_url). The rules are the core's.
import type { AppContext } from '../pipeline/context.js';
import type { AuthorizationRequest, CheckedAuthorization } from '../../shared/core/identity/index.js';
import type { User } from '../../shared/domain/user.js';
import type { Logger } from '../../shared/log.js';
import { html, type Html } from './html.js';
import { pageError, pageErrorForIdentity } from './errors.js';
import { fieldOf, readForm, requireSameOrigin, signedInUser, type PageRequest, type SignedInUser } from './request.js';
import type { PageAnswer, PageReply } from './reply.js';
import { signInUrl } from './sign-in.js';

export const AUTHORIZE_PATH = '/wp-admin/authorize-application.php';
export const AUTHORIZE_TITLE = 'Authorize Application';
/** The CSRF token is the session's nonce for this action (WordPress: check_admin_referer('authorize_application_password')). */
export const AUTHORIZE_ACTION = 'authorize_application_password';

const FIELDS = { appName: 'app_name', appId: 'app_id', successUrl: 'success_url', rejectUrl: 'reject_url' } as const;

function requestOf(get: (name: string) => string | undefined): AuthorizationRequest {
  return { appName: get(FIELDS.appName), appId: get(FIELDS.appId), successUrl: get(FIELDS.successUrl), rejectUrl: get(FIELDS.rejectUrl) };
}

/** The application's request checked by the core; a bad one is an error page and nothing else happens. */
function checked(ctx: AppContext, request: AuthorizationRequest): CheckedAuthorization {
  const result = ctx.core.applicationAuthorization.check(request);
  if (!result.ok) throw pageError('invalid_request', `The Authorize Application request is not allowed. ${pageErrorForIdentity(result.refusal).message}.`);
  return result.value;
}

const whereTo = (url: URL | undefined, otherwise: string): Html => (url ? html`You will be sent to <kbd>${url.origin}</kbd>.` : html`${otherwise}`);

function approvalForm(a: CheckedAuthorization, user: User, token: string, given: AuthorizationRequest): Html {
  const hidden = (name: string, value: string | undefined) => (value ? html`<input type="hidden" name="${name}" value="${value}" />` : undefined);
  return html`<p>An application would like to connect to your account.</p>
    <p>
      Would you like to give the application identifying itself as <strong id="app-name">${a.appName}</strong> access to your account
      <strong id="user-login">${user.email}</strong>? You should only do this if you trust the application.
    </p>
    <form method="post" action="${AUTHORIZE_PATH}">
      <input type="hidden" name="_wpnonce" value="${token}" />
      ${hidden(FIELDS.appName, given.appName)}${hidden(FIELDS.appId, given.appId)}${hidden(FIELDS.successUrl, given.successUrl)}${hidden(FIELDS.rejectUrl, given.rejectUrl)}
      <p>
        <button type="submit" name="approve" value="1" class="primary" id="approve">Yes, I approve of this connection</button><br />
        <span class="hint">${whereTo(a.successUrl, 'You will be given a password to enter into the application.')}</span>
      </p>
      <p>
        <button type="submit" name="reject" value="1" id="reject">No, I do not approve of this connection</button><br />
        <span class="hint">${whereTo(a.rejectUrl, 'Nothing will be created.')}</span>
      </p>
    </form>`;
}

/** GET: check the request, send an anonymous visitor to sign in first, else show the approval form. */
export async function showAuthorization(ctx: AppContext, r: PageRequest): Promise<PageReply> {
  const given = requestOf((name) => r.query[name]);
  const a = checked(ctx, given);
  const me = await signedInUser(ctx, r);
  if (!me) return { kind: 'redirect', location: signInUrl(r.url) };
  const token = ctx.core.nonces.nonceFor(me.session, AUTHORIZE_ACTION);
  return { kind: 'page', title: AUTHORIZE_TITLE, body: approvalForm(a, me.user, token, given), formTargets: [a.successUrl, a.rejectUrl] };
}

/** The form's session and CSRF token, both required: a POST without them changes nothing. */
async function formCaller(ctx: AppContext, r: PageRequest, form: URLSearchParams): Promise<SignedInUser> {
  const me = await signedInUser(ctx, r);
  if (!me) throw pageError('not_signed_in', 'You are not signed in (or your session has ended): start again from the application.');
  const token = fieldOf(form, '_wpnonce') ?? '';
  if (ctx.core.nonces.verifyNonce(me.session, token, AUTHORIZE_ACTION) !== 'valid') {
    throw pageError('invalid_csrf_token', 'The link you followed has expired or this form was not sent from this site: start again from the application.');
  }
  return me;
}

const passwordShown = (a: CheckedAuthorization, password: string): PageAnswer => ({
  kind: 'page',
  title: AUTHORIZE_TITLE,
  body: html`<p>Your new password for <strong>${a.appName}</strong> is:</p>
    <p><kbd id="password">${password}</kbd></p>
    <p>Enter it into the application now: it is shown only this once.</p>`,
});

/** POST: approve or reject, as the button pressed says. */
export async function decideAuthorization(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  requireSameOrigin(r);
  const form = await readForm(r.req);
  const me = await formCaller(ctx, r, form);
  const a = checked(
    ctx,
    requestOf((name) => fieldOf(form, name)),
  );
  if (form.has('reject')) {
    const to = ctx.core.applicationAuthorization.reject(a);
    return to ? { kind: 'redirect', location: to } : { kind: 'page', title: AUTHORIZE_TITLE, body: html`<p>No access was given to ${a.appName}.</p>` };
  }
  if (!form.has('approve')) throw pageError('invalid_request', 'Choose to approve or to reject the connection.');
  const approved = await ctx.core.applicationAuthorization.approve(me.user, a, r.origin, log);
  if (!approved.ok) throw pageErrorForIdentity(approved.refusal);
  const { redirectTo, created } = approved.value;
  return redirectTo ? { kind: 'redirect', location: redirectTo } : passwordShown(a, created.password);
}
