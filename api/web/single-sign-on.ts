// The end of a single sign-on hop (/sso/accept): a paired parent dashboard sent the browser here with a signed
// token. GET shows who the token signs in as, and from which dashboard; the user's "Continue" posts it back from
// this site's own page (same origin), and only then is it spent and a session started (the same cookie as the
// sign-in page's). A GET that signed in at once would let any site sign a visitor in here as the site's own
// user (login CSRF): the post from this origin is what proves the user asked. The other end, for a signed-in
// user: /dashboards lists the child dashboards with a "Go to" button each, whose post answers with a redirect to
// the child's /sso/accept and a fresh token (never a token in a page, never a GET that makes one).
import type { AppContext } from '../pipeline/context.js';
import type { Logger } from '../../shared/log.js';
import { secureCookies, sessionCookie } from '../pipeline/credentials.js';
import { html } from './html.js';
import { PageError, pageErrorFor } from './errors.js';
import { idParam } from './lists.js';
import { selfPage, type PageCall } from './page.js';
import { actionButton, table } from './parts.js';
import type { Viewer } from './viewer.js';
import { fieldOf, readForm, requireSameOrigin, type PageRequest } from './request.js';
import type { PageReply } from './reply.js';
import { SSO_ACCEPT_PATH } from '../../shared/core/identity/single-sign-on.js';
import type { SsoRefusal } from '../../shared/core/identity/index.js';

export { SSO_ACCEPT_PATH };
export const SSO_ACCEPT_TITLE = 'Continue signing in';

/** Every refused token alike, as the REST answer says it; a full window is 429 with Retry-After. */
function refusalPage(refusal: SsoRefusal): PageError {
  if (refusal.kind === 'throttled')
    return new PageError('too_many_requests', 'Too many sign-in tokens from your address; try again later.', undefined, { 'Retry-After': String(refusal.retryAfterS) });
  return new PageError('refused', 'This sign-in link is not valid: it is unknown, altered, expired or used already. Start again from the other dashboard.', 403);
}

/** GET: the token checked (not spent) and a form to continue. */
export async function showSsoAccept(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  const token = r.query.token ?? '';
  const preview = await ctx.core.singleSignOn.preview(token, { address: r.address, userAgent: r.userAgent }, log);
  if (!preview.ok) throw refusalPage(preview.refusal);
  return {
    kind: 'page',
    title: SSO_ACCEPT_TITLE,
    body: html`<p>${preview.from.name} sends you here signed in as <strong>${preview.email}</strong>.</p>
      <form method="post" action="${SSO_ACCEPT_PATH}">
        <input type="hidden" name="token" value="${token}" />
        <button type="submit" class="primary" id="continue">Continue as ${preview.email}</button>
      </form>
      <p><a href="/wp-login.php">Sign in as someone else</a></p>`,
    headers: { 'Referrer-Policy': 'no-referrer' },
  };
}

/** POST (from this page only): the token spent and the session cookie, then where the parent asked to land. */
export async function ssoAccept(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  requireSameOrigin(r);
  const form = await readForm(r.req);
  const result = await ctx.core.singleSignOn.accept(fieldOf(form, 'token') ?? '', { address: r.address, userAgent: r.userAgent }, log);
  if (!result.ok) throw refusalPage(result.refusal);
  const cookie = sessionCookie(result.token, secureCookies(ctx, r));
  return { kind: 'redirect', status: 303, location: result.redirectTo ?? '/', headers: { 'Set-Cookie': cookie } };
}

export const DASHBOARDS_PATH = '/dashboards';

/** The child dashboards a signed-in user may go to, each with its button; the page's forms may lead to their origins. */
async function showDashboards({ ctx, viewer }: PageCall<Viewer>): Promise<PageReply> {
  const sites = await ctx.core.singleSignOn.list('child');
  const rows = sites.map(
    (s) =>
      html`<tr>
        <th scope="row">${s.name}</th>
        <td><code>${s.url}</code></td>
        <td>${actionButton(viewer, `${DASHBOARDS_PATH}/${s.id}/go`, `Go to ${s.name}`, { id: `go-${s.id}` })}</td>
      </tr>`,
  );
  return {
    kind: 'page',
    title: 'Dashboards',
    body: html`<p class="hint">Other dashboards of this platform you may go to without signing in again (with the same email there).</p>
      ${table('Paired dashboards', ['Name', 'Address', 'Action'], rows, 'No other dashboard is paired with this one.')}`,
    // A browser checks form-action on the redirect that answers the form too: the children's origins are named.
    formTargets: sites.map((s) => new URL(s.url)),
  };
}

/** A fresh sign-in link to the child, followed at once (303): the token is never shown in a page. */
async function goToDashboard({ ctx, r, viewer }: PageCall<Viewer>): Promise<PageReply> {
  const link = await ctx.core.singleSignOn.loginLink(viewer.user, idParam(r, 'id'), undefined);
  if (!link.ok) throw pageErrorFor(link.refusal);
  return { kind: 'redirect', status: 303, location: link.value.url };
}

export const DASHBOARD_PAGES = [
  selfPage({ method: 'GET', path: DASHBOARDS_PATH, title: 'Dashboards', handle: showDashboards }),
  selfPage({ method: 'POST', path: `${DASHBOARDS_PATH}/:id/go`, title: 'Dashboards', section: DASHBOARDS_PATH, rate: null, handle: goToDashboard }),
];
