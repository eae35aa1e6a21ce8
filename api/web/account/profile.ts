// The signed-in user's own profile, for any user (operators too): who it is, its name, its login email (changed
// only with the current password) and its password (the change ends its other sessions). The same use cases as
// /api/tern/v2/profile and /profile/update-password (core.users).
import type { Profile } from '../../../shared/core/identity/index.js';
import { isOperator } from '../../../shared/domain/user.js';
import { currentPasswordField, newPasswordField } from '../password-fields.js';
import { html, type Html } from '../html.js';
import { pageErrorForIdentity } from '../errors.js';
import { formGuard } from '../layout.js';
import { selfPage, type PageCall } from '../page.js';
import { doneAt, formError, noticeOf, when } from '../parts.js';
import type { PageAnswer, PageReply } from '../reply.js';
import type { Viewer } from '../viewer.js';

export const PROFILE_PATH = '/profile';

const NOTICES = {
  name_saved: 'Your name is saved.',
  email_changed: 'Your login email is changed.',
  email_same: 'That is already your login email; nothing changed.',
  password_changed: 'Your password is changed; your other sessions have ended.',
};

/** Which form a refusal belongs to, so its message shows above that form. */
type ProfileForm = 'name' | 'email' | 'password';

interface Shown {
  profile: Profile;
  error?: { form: ProfileForm; message: string };
  /** What was typed in the form that failed (never a password). */
  typed?: { name?: string; email?: string };
}

const ROLE_LABELS = { owner: 'Owner', admin: 'Admin', viewer: 'Viewer', operator: 'Platform operator' } as const;

function teamOf(v: Viewer): string | undefined {
  if (v.kind !== 'account') return undefined;
  return v.teams.find((t) => t.id === v.user.teamId)?.name;
}

function facts(v: Viewer, p: Profile): Html {
  const team = teamOf(v);
  return html`<dl class="card facts">
    <dt>Email</dt>
    <dd id="profile-email">${p.user.email}</dd>
    <dt>Name</dt>
    <dd id="profile-name">${p.user.name || '—'}</dd>
    <dt>Role</dt>
    <dd>${ROLE_LABELS[p.user.role]}</dd>
    ${
      team === undefined
        ? undefined
        : html`<dt>Team</dt>
            <dd>${team}</dd>`
    }
    ${
      p.accountId === null
        ? undefined
        : html`<dt>Account</dt>
            <dd>${p.accountId}</dd>`
    }
    <dt>Member since</dt>
    <dd>${when(p.user.createdAt)}</dd>
  </dl>`;
}

const errorFor = (s: Shown, form: ProfileForm): Html | undefined => (s.error?.form === form ? formError(s.error.message) : undefined);

function nameForm(v: Viewer, s: Shown): Html {
  return html`<h2 id="name-heading">Name</h2>
    ${errorFor(s, 'name')}
    <form method="post" action="${PROFILE_PATH}" aria-labelledby="name-heading">
      ${formGuard(v)}
      <label for="name">Your name</label>
      <input type="text" id="name" name="name" maxlength="100" autocomplete="name" value="${s.typed?.name ?? s.profile.user.name}" />
      <button type="submit" id="save-name">Save name</button>
    </form>`;
}

function emailForm(v: Viewer, s: Shown): Html {
  return html`<h2 id="email-heading">Login email</h2>
    ${errorFor(s, 'email')}
    <form method="post" action="${PROFILE_PATH}" aria-labelledby="email-heading">
      ${formGuard(v)}
      <label for="email">New email</label>
      <input type="email" id="email" name="email" autocomplete="email" required value="${s.typed?.email ?? s.profile.user.email}" />
      <label for="email_current_password">Current password</label>
      <input type="password" id="email_current_password" name="current_password" autocomplete="current-password" required />
      <button type="submit" id="change-email">Change email</button>
    </form>`;
}

function passwordForm(v: Viewer, s: Shown): Html {
  return html`<h2 id="password-heading">Password</h2>
    ${errorFor(s, 'password')}
    <form method="post" action="${PROFILE_PATH}/password" aria-labelledby="password-heading">
      ${formGuard(v)} ${currentPasswordField()}
      ${newPasswordField({ name: 'new_password', label: 'New password', more: 'not the current one. Your other sessions end.' })}
      <button type="submit" class="primary" id="change-password">Change password</button>
    </form>`;
}

function profilePage(v: Viewer, s: Shown, notice?: Html): PageAnswer {
  return {
    kind: 'page',
    status: s.error ? 400 : undefined,
    title: 'Profile',
    body: html`${notice} ${facts(v, s.profile)} ${nameForm(v, s)} ${emailForm(v, s)} ${passwordForm(v, s)}
      <p><a href="/security">Application passwords${isOperator(v.user) ? '' : ' and login security'}</a></p>`,
  };
}

async function profileOf({ ctx, viewer }: PageCall<Viewer>): Promise<Profile> {
  const p = await ctx.core.users.profile(viewer.user);
  if (!p.ok) throw pageErrorForIdentity(p.refusal);
  return p.value;
}

async function showProfile(call: PageCall<Viewer>): Promise<PageReply> {
  return profilePage(call.viewer, { profile: await profileOf(call) }, noticeOf(call.r, NOTICES));
}

/** A name alone, or an email with the current password: one form each, the same use case. */
async function saveProfile(call: PageCall<Viewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const email = form.get('email');
  const which: ProfileForm = email === null ? 'name' : 'email';
  const change = email === null ? { name: form.get('name') ?? '' } : { email: email.trim(), currentPassword: form.get('current_password') ?? undefined };
  const saved = await ctx.core.users.updateProfile(viewer.user, change, log);
  if (!saved.ok) {
    const typed = email === null ? { name: form.get('name') ?? '' } : { email };
    return profilePage(viewer, { profile: await profileOf(call), error: { form: which, message: pageErrorForIdentity(saved.refusal).message }, typed });
  }
  const changedEmail = which === 'email' && saved.value.email !== viewer.user.email;
  return { kind: 'redirect', status: 303, location: doneAt(PROFILE_PATH, which === 'name' ? 'name_saved' : changedEmail ? 'email_changed' : 'email_same') };
}

async function changePassword(call: PageCall<Viewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const change = { currentPassword: form.get('current_password') ?? '', newPassword: form.get('new_password') ?? '', keepSessionId: viewer.session.id };
  const changed = await ctx.core.users.changePassword(viewer.user, change, log);
  if (!changed.ok) return profilePage(viewer, { profile: await profileOf(call), error: { form: 'password', message: pageErrorForIdentity(changed.refusal).message } });
  return { kind: 'redirect', status: 303, location: doneAt(PROFILE_PATH, 'password_changed') };
}

export const PROFILE_PAGES = [
  selfPage({ method: 'GET', path: PROFILE_PATH, title: 'Profile', handle: showProfile }),
  selfPage({ method: 'POST', path: PROFILE_PATH, title: 'Profile', handle: saveProfile }),
  selfPage({ method: 'POST', path: `${PROFILE_PATH}/password`, title: 'Profile', handle: changePassword }),
];
