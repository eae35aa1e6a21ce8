// The pages about the session itself: switching the team acted on, logging out, and the password change a user
// must make before anything else when its password is a one-time one (first start, `ternmail user create`).
import { clearedSessionCookie, secureCookies, sessionToken } from '../pipeline/credentials.js';
import { currentPasswordField, newPasswordField } from './password-fields.js';
import { html } from './html.js';
import { pageError, pageErrorForIdentity } from './errors.js';
import { formGuard } from './layout.js';
import { accountPage, selfPage, type PageCall } from './page.js';
import { formError } from './parts.js';
import type { PageAnswer, PageReply } from './reply.js';
import { PASSWORD_CHANGE_PATH } from './group.js';
import { localRedirect, SIGN_IN_PATH } from './sign-in.js';
import { teamCookie, type AccountViewer, type Viewer } from './viewer.js';

async function switchTeam({ ctx, r, form, viewer }: PageCall<AccountViewer>): Promise<PageReply> {
  const id = Number(form.get('team') ?? '');
  const team = Number.isInteger(id) && id > 0 ? await ctx.core.access.actingTeam(viewer.user, id) : undefined;
  if (!team?.ok) throw pageError('not_found', 'That team is not one you can switch to.');
  const back = localRedirect(form.get('redirect_to') ?? undefined) ?? '/';
  return { kind: 'redirect', status: 303, location: back, headers: { 'Set-Cookie': teamCookie(team.value.id, secureCookies(ctx, r)) } };
}

async function logOut({ ctx, r, viewer }: PageCall<Viewer>): Promise<PageReply> {
  const token = sessionToken(r.req);
  if (token) await ctx.core.sessions.end(token);
  // The account's rule for the user's role, else the sign-in page saying so.
  const landing = (await ctx.core.loginSecurity.landing(viewer.user, 'logout')) ?? `${SIGN_IN_PATH}?loggedout=true`;
  return { kind: 'redirect', status: 303, location: landing, headers: { 'Set-Cookie': clearedSessionCookie(secureCookies(ctx, r)) } };
}

function changeForm(v: Viewer, error?: string): PageAnswer {
  return {
    kind: 'page',
    status: error ? 400 : undefined,
    title: 'Choose your password',
    body: html`${v.user.mustChangePassword ? html`<p>Your password was given to you once; choose your own before going on.</p>` : undefined} ${formError(error)}
      <form method="post" action="${PASSWORD_CHANGE_PATH}">
        ${formGuard(v)} ${currentPasswordField()} ${newPasswordField({ name: 'new_password', label: 'New password', more: 'not the current one.' })}
        <button type="submit" class="primary" id="change-password">Change password</button>
      </form>`,
  };
}

async function changePassword({ ctx, form, viewer, log }: PageCall<Viewer>): Promise<PageReply> {
  const change = { currentPassword: form.get('current_password') ?? '', newPassword: form.get('new_password') ?? '', keepSessionId: viewer.session.id };
  const changed = await ctx.core.users.changePassword(viewer.user, change, log);
  if (!changed.ok) return changeForm(viewer, pageErrorForIdentity(changed.refusal).message);
  return { kind: 'redirect', status: 303, location: viewer.kind === 'operator' ? '/admin?done=password_changed' : '/?done=password_changed' };
}

const showChange = ({ viewer }: PageCall<Viewer>): Promise<PageReply> => Promise.resolve(changeForm(viewer));

export const SESSION_PAGES = [
  accountPage({ method: 'POST', path: '/switch-team', title: 'Switch team', access: 'read', rate: null, handle: switchTeam }),
  selfPage({ method: 'POST', path: '/logout', title: 'Log out', duringPasswordChange: true, rate: null, handle: logOut }),
  selfPage({ method: 'GET', path: PASSWORD_CHANGE_PATH, title: 'Choose your password', duringPasswordChange: true, section: '/profile', handle: showChange }),
  selfPage({
    method: 'POST',
    path: PASSWORD_CHANGE_PATH,
    title: 'Choose your password',
    duringPasswordChange: true,
    rate: null,
    section: '/profile',
    handle: changePassword,
  }),
];
