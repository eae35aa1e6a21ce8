// The security page, for any signed-in user (operators too): its application passwords (listed, created with
// the password shown this once, revoked); and, for those the core lets manage the account's login security (its
// owners and admins on the account itself), the login settings, quick stats and the auth log. The same use cases
// as wp/v2/users/me/application-passwords and tern-auth/v1 (core.applicationPasswords, core.loginSecurity).
import type { Identified } from '../../../shared/core/identity/index.js';
import type { ApplicationPassword } from '../../../shared/domain/user.js';
import {
  AUTH_RESULTS,
  LOGIN_SETTING_BOUNDS,
  type AuthLogEntry,
  type AuthStats,
  type LoginSettings,
  type NumericLoginSetting,
} from '../../../shared/domain/login-security.js';
import { ACCOUNT_ROLES, type AccountRole } from '../../../shared/domain/user.js';
import { html, type Html } from '../html.js';
import { identityProblems, pageError, pageErrorForIdentity, type FieldLabels } from '../errors.js';
import { leaveFlash, takeFlash } from '../flash.js';
import { formGuard } from '../layout.js';
import { selfPage, type PageCall } from '../page.js';
import { actionButton, badge, doneAt, formErrors, noticeOf, pager, shownOnce, table, when, type Tone } from '../parts.js';
import { choiceQuery, filterForm, listPage, textQuery } from '../lists.js';
import { REDIRECTS_ACTION, redirectLabels, redirectsForm, redirectsOf } from './sign-in-redirects.js';
import type { PageAnswer, PageReply } from '../reply.js';
import type { Viewer } from '../viewer.js';

export const SECURITY_PATH = '/security';
const APP_PASSWORDS = `${SECURITY_PATH}/application-passwords`;
const AUTH_LOG_PER_PAGE = 20;

const NOTICES = {
  revoked: 'The application password is revoked: it no longer works.',
  settings_saved: 'The login settings are saved.',
  entry_deleted: 'The log entry is deleted.',
  log_cleared: 'The auth log is cleared.',
  redirects_saved: 'Where users land after signing in and out is saved.',
  created: 'The application password is created.',
};
/** The flash a created application password leaves for the page (web/flash.ts). */
const FLASH_PAGE = 'security';

type SecurityForm = 'app_password' | 'settings' | 'redirects';

interface Shown {
  /** Every problem of the refused form, in its words. */
  error?: { form: SecurityForm; messages: string[] };
  /** A password just created: shown this once. */
  created?: { name: string; password: string };
  /** What was typed in a form that failed. */
  typed?: Record<string, string>;
}

/** The value of a core result, or its refusal as the page error (403 for a role that may not, 404 for another's thing). */
function identified<T>(result: Identified<T>): T {
  if (!result.ok) throw pageErrorForIdentity(result.refusal);
  return result.value;
}

const errorFor = (s: Shown, form: SecurityForm): Html | undefined => (s.error?.form === form ? formErrors(s.error.messages) : undefined);

function appPasswordRows(v: Viewer, list: readonly ApplicationPassword[]): Html[] {
  return list.map(
    (p) =>
      html`<tr>
        <th scope="row">${p.name}</th>
        <td>${when(p.createdAt)}</td>
        <td>${p.lastUsedAt ? when(p.lastUsedAt) : 'Never'}</td>
        <td>${p.lastIp ?? '—'}</td>
        <td>
          ${actionButton(v, `${APP_PASSWORDS}/${p.uuid}/revoke`, 'Revoke', {
            danger: true,
            confirm: `Revoke the application password “${p.name}”? Whatever uses it stops working at once.`,
          })}
        </td>
      </tr>`,
  );
}

function appPasswords(v: Viewer, list: readonly ApplicationPassword[], s: Shown): Html {
  return html`<h2>Application passwords</h2>
    <p class="hint">For scripts and tools calling the dashboard’s REST API as you (HTTP Basic: your email and this password).</p>
    ${s.created ? shownOnce('new-app-password', `The application password “${s.created.name}”`, s.created.password) : undefined}
    ${table('Your application passwords', ['Name', 'Created', 'Last used', 'Last address', 'Actions'], appPasswordRows(v, list), 'No application passwords yet — create one for a script or tool that calls the API.')}
    ${errorFor(s, 'app_password')}
    <form method="post" action="${APP_PASSWORDS}">
      ${formGuard(v)}
      <label for="app_password_name">New application password’s name</label>
      <input type="text" id="app_password_name" name="name" maxlength="100" required value="${s.typed?.name ?? ''}" />
      <button type="submit" class="primary" id="create-app-password">Create application password</button>
    </form>`;
}

const SETTING_FIELDS: ReadonlyArray<[NumericLoginSetting, string, string]> = [
  ['failuresPerEmail', 'failures_per_email', 'Failed sign-ins per email before a lockout'],
  ['windowMinutes', 'window_minutes', 'Window the failures are counted over (minutes)'],
  ['sessionIdleMinutes', 'session_idle_minutes', 'A session unused this long ends (minutes)'],
  ['sessionAbsoluteHours', 'session_absolute_hours', 'A session ends this long after sign-in (hours)'],
  ['logRetentionDays', 'log_retention_days', 'Keep the sign-in log this long (days)'],
];

/** The settings form's switches: each a checkbox, on when sent. */
const SWITCH_FIELDS: ReadonlyArray<['notifyOnLockout' | 'applicationPasswords' | 'magicLink', string, string]> = [
  ['notifyOnLockout', 'notify_on_lockout', 'Mail the owners when an email is locked out'],
  ['applicationPasswords', 'application_passwords', 'Application passwords work'],
  ['magicLink', 'magic_link', 'Users may sign in by a link mailed to them (not the two-step roles)'],
];

/** The settings form's fields as its labels say them: the core names a setting by its key. */
const SETTING_LABELS: FieldLabels = {
  ...Object.fromEntries([...SETTING_FIELDS, ...SWITCH_FIELDS].map(([key, , label]) => [key, label])),
  twoStepRoles: 'Roles that sign in with a mailed code',
};
const APP_PASSWORD_LABELS: FieldLabels = { name: 'Name' };

function settingsForm(v: Viewer, settings: LoginSettings, s: Shown): Html {
  const field = ([key, name, label]: (typeof SETTING_FIELDS)[number]) => {
    const b = LOGIN_SETTING_BOUNDS[key];
    return html`<label for="${name}">${label}</label>
      <input
        type="number"
        id="${name}"
        name="${name}"
        min="${b.min}"
        max="${b.max}"
        step="1"
        required
        value="${s.typed?.[name] ?? String(settings[key])}"
        aria-describedby="${name}-hint"
      />
      <p class="hint" id="${name}-hint">${b.min} to ${b.max}.</p>`;
  };
  const on = (checked: boolean) => (checked ? html` checked` : html``);
  const toggle = ([key, name, label]: (typeof SWITCH_FIELDS)[number]) =>
    html`<label class="check"><input type="checkbox" id="${name}" name="${name}" value="on" ${on(settings[key])} /> ${label}</label>`;
  const role = (r: AccountRole) =>
    html`<label class="check"><input type="checkbox" id="two_step_${r}" name="two_step_roles" value="${r}" ${on(settings.twoStepRoles.includes(r))} /> ${r}</label>`;
  return html`<h3>Settings</h3>
    ${errorFor(s, 'settings')}
    <form method="post" action="${SECURITY_PATH}/settings">
      ${formGuard(v)} ${SETTING_FIELDS.map(field)} ${SWITCH_FIELDS.map(toggle)}
      <fieldset>
        <legend>Roles that sign in with a code mailed to them after their password</legend>
        ${ACCOUNT_ROLES.map(role)}
      </fieldset>
      <button type="submit" class="primary" id="save-login-settings">Save login settings</button>
    </form>`;
}

function quickStats(stats: { last24h: AuthStats; last7d: AuthStats }): Html {
  const row = (label: string, st: AuthStats) =>
    html`<tr>
      <th scope="row">${label}</th>
      <td class="number">${st.attempts}</td>
      <td class="number">${st.failures}</td>
      <td class="number">${st.lockouts}</td>
    </tr>`;
  return table('Sign-in attempts', ['Period', 'Attempts', 'Failures', 'Lockouts'], [row('Last 24 hours', stats.last24h), row('Last 7 days', stats.last7d)]);
}

const RESULT_TONES: Readonly<Record<AuthLogEntry['result'], [string, Tone]>> = {
  success: ['Signed in', 'good'],
  failure: ['Failed', 'bad'],
  throttled: ['Locked out', 'pending'],
};

function authLog(v: Viewer, rows: readonly AuthLogEntry[]): Html {
  return table(
    'Auth log, newest first',
    ['When', 'Email', 'Result', 'Address', 'Browser', 'Actions'],
    rows.map(
      (e) =>
        html`<tr>
          <th scope="row">${when(e.at)}</th>
          <td>${e.email}</td>
          <td>${badge(...RESULT_TONES[e.result])}</td>
          <td>${e.address}</td>
          <td class="muted">${e.userAgent}</td>
          <td>${actionButton(v, `${SECURITY_PATH}/auth-log/${e.id}/delete`, 'Delete', { confirm: 'Delete this log entry?' })}</td>
        </tr>`,
    ),
    'No sign-in attempts recorded yet.',
  );
}

const AUTH_LOG_FILTERS = [
  { name: 'status', label: 'Result', choices: AUTH_RESULTS.map((x) => [x, RESULT_TONES[x][0]] as const) },
  { name: 'search', label: 'Email or address contains' },
];

/** The auth log's filters from the query, as GET /auth-logs takes them (a result not in the list is a 400). */
function authLogFilter(r: PageCall<Viewer>['r']): { results?: AuthLogEntry['result'][]; search?: string } {
  const status = choiceQuery(r, 'status', 'Result', AUTH_RESULTS);
  return { results: status ? [status] : undefined, search: textQuery(r, 'search', 'The search', 254) };
}

/** The login security section, or nothing for a user the core does not let manage it. */
async function loginSecurity(call: PageCall<Viewer>, s: Shown): Promise<Html | undefined> {
  const { ctx, viewer, r } = call;
  const settings = await ctx.core.loginSecurity.settings(viewer.user);
  if (!settings.ok) return undefined;
  const page = listPage(ctx, r, AUTH_LOG_PER_PAGE).page;
  const [stats, log, redirects] = await Promise.all([
    ctx.core.loginSecurity.quickStats(viewer.user),
    ctx.core.loginSecurity.authLog(viewer.user, { page, perPage: AUTH_LOG_PER_PAGE }, authLogFilter(r)),
    ctx.core.loginSecurity.redirects(viewer.user),
  ]);
  const entries = identified(log);
  const redirectsShown = s.error?.form === 'redirects' ? { messages: s.error.messages, typed: s.typed } : {};
  return html`<h2>Login security</h2>
    <p class="hint">For every user of the account: how sign-ins are limited and how long sessions last, and every sign-in attempt.</p>
    ${quickStats(identified(stats))} ${settingsForm(viewer, settings.value, s)} ${redirectsForm(viewer, identified(redirects), redirectsShown)}
    <h3>Auth log</h3>
    ${filterForm(r, SECURITY_PATH, AUTH_LOG_FILTERS)} ${authLog(viewer, entries.rows)} ${pager(r, page, Math.ceil(entries.total / AUTH_LOG_PER_PAGE))}
    ${
      entries.total > 0
        ? actionButton(viewer, `${SECURITY_PATH}/auth-log/clear`, 'Clear the auth log', {
            danger: true,
            confirm: 'Delete every entry of the auth log?',
            id: 'clear-auth-log',
          })
        : undefined
    }`;
}

async function securityPage(call: PageCall<Viewer>, s: Shown): Promise<PageAnswer> {
  const list = await call.ctx.core.applicationPasswords.list(call.viewer.user);
  const body = html`${noticeOf(call.r, NOTICES)} ${appPasswords(call.viewer, list, s)} ${await loginSecurity(call, s)}`;
  return { kind: 'page', status: s.error ? 400 : undefined, title: 'Security', body };
}

/** The problems of a refused form in its words (shown on the page, 400); any other refusal (forbidden, not found) is the page's error. */
function fieldRefusal<T>(result: Identified<T>, labels: FieldLabels): string[] | undefined {
  if (result.ok) return undefined;
  const problems = identityProblems(result.refusal, labels);
  if (!problems) throw pageErrorForIdentity(result.refusal);
  return problems;
}

/** The security page, with the application password a form just made shown this once (taken from its flash). */
async function showSecurity(call: PageCall<Viewer>): Promise<PageReply> {
  const flash = await takeFlash(call.ctx, call.viewer, FLASH_PAGE);
  const created = flash?.name !== undefined && flash.password !== undefined ? { name: flash.name, password: flash.password } : undefined;
  return securityPage(call, { created });
}

async function createAppPassword(call: PageCall<Viewer>): Promise<PageReply> {
  const name = call.form.get('name') ?? '';
  const created = await call.ctx.core.applicationPasswords.create(call.viewer.user, { name }, call.log);
  const problems = fieldRefusal(created, APP_PASSWORD_LABELS);
  if (problems !== undefined || !created.ok) return securityPage(call, { error: { form: 'app_password', messages: problems ?? [] }, typed: { name } });
  await leaveFlash(call.ctx, call.viewer, FLASH_PAGE, { name: created.value.name, password: created.value.password });
  return { kind: 'redirect', status: 303, location: doneAt(SECURITY_PATH, 'created') };
}

async function revokeAppPassword({ ctx, viewer, r, log }: PageCall<Viewer>): Promise<PageReply> {
  identified(await ctx.core.applicationPasswords.revoke(viewer.user, r.params.uuid ?? '', log));
  return { kind: 'redirect', status: 303, location: doneAt(SECURITY_PATH, 'revoked') };
}

/** A setting as typed: an integer, or NaN (which the core refuses with the setting's bounds). */
const settingOf = (form: URLSearchParams, name: string): number | undefined => {
  const value = form.get(name);
  if (value === null || value.trim() === '') return undefined;
  return /^-?\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
};

async function saveSettings(call: PageCall<Viewer>): Promise<PageReply> {
  const { ctx, form, viewer, log } = call;
  const change: Partial<LoginSettings> = {
    ...Object.fromEntries(SETTING_FIELDS.map(([key, name]) => [key, settingOf(form, name)])),
    // The form always shows every switch: one not sent is off.
    ...Object.fromEntries(SWITCH_FIELDS.map(([key, name]) => [key, form.get(name) === 'on'])),
    twoStepRoles: form.getAll('two_step_roles') as AccountRole[],
  };
  const saved = await ctx.core.loginSecurity.updateSettings(viewer.user, change, log);
  const problems = fieldRefusal(saved, SETTING_LABELS);
  if (problems !== undefined) {
    const typed = Object.fromEntries(SETTING_FIELDS.map(([, name]) => [name, form.get(name) ?? '']));
    return securityPage(call, { error: { form: 'settings', messages: problems }, typed });
  }
  return { kind: 'redirect', status: 303, location: doneAt(SECURITY_PATH, 'settings_saved') };
}

async function saveRedirects(call: PageCall<Viewer>): Promise<PageReply> {
  const wanted = redirectsOf(call.form);
  const saved = await call.ctx.core.loginSecurity.updateRedirects(call.viewer.user, wanted, call.log);
  const problems = fieldRefusal(saved, redirectLabels(wanted));
  if (problems !== undefined) return securityPage(call, { error: { form: 'redirects', messages: problems }, typed: Object.fromEntries(call.form) });
  return { kind: 'redirect', status: 303, location: doneAt(SECURITY_PATH, 'redirects_saved') };
}

async function deleteEntry({ ctx, viewer, r }: PageCall<Viewer>): Promise<PageReply> {
  const id = Number(r.params.id);
  if (!Number.isSafeInteger(id) || id < 1) throw pageError('not_found', 'There is no such log entry.');
  identified(await ctx.core.loginSecurity.deleteEntry(viewer.user, id));
  return { kind: 'redirect', status: 303, location: doneAt(SECURITY_PATH, 'entry_deleted') };
}

async function clearLog({ ctx, viewer, log }: PageCall<Viewer>): Promise<PageReply> {
  identified(await ctx.core.loginSecurity.truncate(viewer.user, log));
  return { kind: 'redirect', status: 303, location: doneAt(SECURITY_PATH, 'log_cleared') };
}

export const SECURITY_PAGES = [
  selfPage({ method: 'GET', path: SECURITY_PATH, title: 'Security', handle: showSecurity }),
  selfPage({ method: 'POST', path: APP_PASSWORDS, title: 'Security', section: SECURITY_PATH, handle: createAppPassword }),
  selfPage({ method: 'POST', path: `${APP_PASSWORDS}/:uuid/revoke`, title: 'Security', section: SECURITY_PATH, handle: revokeAppPassword }),
  selfPage({ method: 'POST', path: `${SECURITY_PATH}/settings`, title: 'Security', section: SECURITY_PATH, handle: saveSettings }),
  selfPage({ method: 'POST', path: REDIRECTS_ACTION, title: 'Security', section: SECURITY_PATH, handle: saveRedirects }),
  selfPage({ method: 'POST', path: `${SECURITY_PATH}/auth-log/:id/delete`, title: 'Security', section: SECURITY_PATH, handle: deleteEntry }),
  selfPage({ method: 'POST', path: `${SECURITY_PATH}/auth-log/clear`, title: 'Security', section: SECURITY_PATH, handle: clearLog }),
];
