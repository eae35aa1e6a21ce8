// The team page: who is on the team acted on (its members), the account's invitations (sent, listed, revoked by
// owners and admins), and, acting on an account, its child teams (created and renamed by owners and admins).
// The same use cases as the invitation routes, /api/create-team and /v2/teams (core.invitations, core.teams);
// members come from core.users.members. Changing a member's role or removing one has no use case yet.
import type { Identified } from '../../../shared/core/identity/index.js';
import type { ListedInvitation } from '../../../shared/core/identity/invitations.js';
import type { ManagementRefusal } from '../../../shared/core/management-refusals.js';
import type { Team } from '../../../shared/domain/team.js';
import { TEAM_NAME_LENGTH } from '../../../shared/core/teams.js';
import type { AccountUser } from '../../../shared/domain/user.js';
import { dashboardUrlOf } from '../../presenters/links.js';
import { html, type Html } from '../html.js';
import { identityProblems, managementProblems, pageError, pageErrorFor, pageErrorForIdentity, type FieldLabels } from '../errors.js';
import { formGuard } from '../layout.js';
import { accountPage, type PageCall } from '../page.js';
import { actionButton, badge, doneAt, formErrors, noticeOf, pager, shownOnce, table, when, type Tone } from '../parts.js';
import { listPage } from '../lists.js';
import type { PageAnswer, PageReply } from '../reply.js';
import { viewerMay, type AccountViewer } from '../viewer.js';

export const TEAM_PATH = '/team';
const INVITATIONS_PER_PAGE = 20;

const NOTICES = {
  invited: 'The invitation is sent: its link works once, until it expires.',
  invitation_revoked: 'The invitation is revoked: its link no longer works.',
  team_created: 'The team is created.',
  team_renamed: 'The team is renamed.',
};

type TeamForm = 'invite' | 'create_team' | 'rename_team';

/** Each form's fields as its labels say them (the core's refusals name its fields). */
const LABELS: Readonly<Record<TeamForm, FieldLabels>> = {
  invite: { email: 'Email', role: 'Role' },
  create_team: { name: 'Name of the team' },
  rename_team: { name: 'New name' },
};

interface Shown {
  /** Every problem of the refused form, in its words. */
  error?: { form: TeamForm; messages: string[]; teamId?: number };
  typed?: Record<string, string>;
  /** An invitation Tern could not mail: its link, shown this once to the inviter. */
  unsent?: { email: string; link: string; why: string };
}

const ROLE_LABELS = { owner: 'Owner', admin: 'Admin', viewer: 'Viewer' } as const;

const STATE_TONES: Readonly<Record<ListedInvitation['state'], [string, Tone]>> = {
  open: ['Open', 'pending'],
  accepted: ['Accepted', 'good'],
  expired: ['Expired', 'bad'],
  revoked: ['Revoked', 'bad'],
  replaced: ['Replaced', 'bad'],
};

function identified<T>(result: Identified<T>): T {
  if (!result.ok) throw pageErrorForIdentity(result.refusal);
  return result.value;
}

const errorFor = (s: Shown, form: TeamForm, teamId?: number): Html | undefined =>
  s.error?.form === form && s.error.teamId === teamId ? formErrors(s.error.messages) : undefined;

function members(v: AccountViewer, users: readonly AccountUser[]): Html {
  return html`<h2>Members</h2>
    ${table(
      `Members of ${v.acting.name}`,
      ['Name', 'Email', 'Role', 'Member since'],
      users.map(
        (u) =>
          html`<tr>
            <th scope="row">${u.name || '—'}${u.id === v.user.id ? html` <span class="muted">(you)</span>` : undefined}</th>
            <td>${u.email}</td>
            <td>${ROLE_LABELS[u.role]}</td>
            <td>${when(u.createdAt)}</td>
          </tr>`,
      ),
      'No members on this team yet — invite someone below.',
    )}`;
}

function inviteForm(v: AccountViewer, s: Shown): Html {
  // Only an owner invites an owner, and an owner belongs to the account itself (the core's rule, shown here).
  const roles = (['viewer', 'admin', 'owner'] as const).filter((r) => r !== 'owner' || (v.user.role === 'owner' && v.acting.parentId === null));
  const typedRole = s.typed?.role ?? 'viewer';
  return html`<h3 id="invite-heading">Invite someone to ${v.acting.name}</h3>
    ${errorFor(s, 'invite')}
    <form method="post" action="${TEAM_PATH}/invitations" aria-labelledby="invite-heading">
      ${formGuard(v)}
      <label for="invite_email">Email</label>
      <input type="email" id="invite_email" name="email" autocomplete="off" required value="${s.typed?.email ?? ''}" />
      <label for="invite_role">Role</label>
      <select id="invite_role" name="role">
        ${roles.map((r) => html`<option value="${r}" ${r === typedRole ? html`selected` : undefined}>${ROLE_LABELS[r]}</option>`)}
      </select>
      <p class="hint">Viewers read; admins also change settings, domains and keys; owners also handle billing.</p>
      <button type="submit" class="primary" id="send-invitation">Send invitation</button>
    </form>`;
}

function invitationRows(v: AccountViewer, rows: readonly ListedInvitation[]): Html[] {
  const teamName = (id: number) => v.teams.find((t) => t.id === id)?.name ?? String(id);
  return rows.map(
    (i) =>
      html`<tr>
        <th scope="row">${i.email}</th>
        <td>${ROLE_LABELS[i.role]}</td>
        <td>${teamName(i.teamId)}</td>
        <td>${badge(...STATE_TONES[i.state])}</td>
        <td>${when(i.expiresAt)}</td>
        <td>
          ${
            i.state === 'open' || i.state === 'expired'
              ? actionButton(v, `${TEAM_PATH}/invitations/${i.id}/revoke`, 'Revoke', { danger: true, confirm: `Revoke the invitation to ${i.email}?` })
              : undefined
          }
        </td>
      </tr>`,
  );
}

async function invitations(call: PageCall<AccountViewer>, s: Shown): Promise<Html> {
  const { ctx, viewer, r } = call;
  const page = listPage(ctx, r, INVITATIONS_PER_PAGE).page;
  const list = identified(await ctx.core.invitations.list(viewer.user, { page, perPage: INVITATIONS_PER_PAGE }));
  return html`<h2>Invitations</h2>
    ${table(
      'Invitations, newest first',
      ['Email', 'Role', 'Team', 'State', 'Expires', 'Actions'],
      invitationRows(viewer, list.rows),
      'No invitations yet — invite someone to work with you.',
    )}
    ${pager(r, page, Math.ceil(list.total / INVITATIONS_PER_PAGE))} ${inviteForm(viewer, s)}`;
}

const STATUS_TONES: Readonly<Record<Team['status'], Tone>> = { active: 'good', suspended: 'bad' };

function renameForm(v: AccountViewer, t: Team, s: Shown): Html {
  const id = `rename-${t.id}`;
  return html`${errorFor(s, 'rename_team', t.id)}
    <form method="post" action="${TEAM_PATH}/teams/${t.id}/rename" class="inline">
      ${formGuard(v)}
      <label for="${id}">New name of ${t.name}</label>
      <input
        type="text"
        id="${id}"
        name="name"
        minlength="${TEAM_NAME_LENGTH.min}"
        maxlength="${TEAM_NAME_LENGTH.max}"
        required
        value="${s.error?.teamId === t.id ? (s.typed?.name ?? t.name) : t.name}"
      />
      <button type="submit" class="small">Rename</button>
    </form>`;
}

async function childTeams(call: PageCall<AccountViewer>, s: Shown): Promise<Html | undefined> {
  const { ctx, viewer } = call;
  if (viewer.acting.parentId !== null) return undefined;
  const teams = (await ctx.core.teams.overview(viewer.acting)).teams;
  const may = viewerMay(ctx, viewer, 'write');
  const rows = teams.map(
    (t) =>
      html`<tr>
        <th scope="row">${t.name}</th>
        <td>${badge(t.status, STATUS_TONES[t.status])}</td>
        <td>${when(t.createdAt)}</td>
        ${may ? html`<td>${renameForm(viewer, t, s)}</td>` : undefined}
      </tr>`,
  );
  return html`<h2>Teams</h2>
    <p class="hint">Teams of the account keep their own domains, keys and statistics; switch to one with the team switcher at the top.</p>
    ${table('Teams of the account', ['Team', 'Status', 'Created', ...(may ? ['Rename'] : [])], rows, 'No teams yet — create one to separate a product or a client.')}
    ${
      may
        ? html`<h3 id="create-team-heading">Create a team</h3>
            ${errorFor(s, 'create_team')}
            <form method="post" action="${TEAM_PATH}/teams" aria-labelledby="create-team-heading">
              ${formGuard(viewer)}
              <label for="team_name">Name of the team</label>
              <input
                type="text"
                id="team_name"
                name="name"
                minlength="${TEAM_NAME_LENGTH.min}"
                maxlength="${TEAM_NAME_LENGTH.max}"
                required
                value="${s.typed?.team_name ?? ''}"
              />
              <button type="submit" class="primary" id="create-team">Create team</button>
            </form>`
        : undefined
    }`;
}

/** The link of an invitation that was not mailed, to copy and pass on: the only time it is shown. */
const unsentInvitation = (u: Shown['unsent']): Html | undefined =>
  u &&
  html`<div class="notice" role="status" id="invitation-link">
    <p>The invitation to ${u.email} is made, but Tern could not email it. ${u.why}</p>
    ${shownOnce('invitation-link-value', 'Invitation link', u.link)}
    <p class="hint">Send this link to ${u.email} yourself: it works once, until the invitation expires.</p>
  </div>`;

async function teamPage(call: PageCall<AccountViewer>, s: Shown): Promise<PageAnswer> {
  const { ctx, viewer, r } = call;
  const users = await ctx.core.users.members(viewer.acting);
  const body = html`${noticeOf(r, NOTICES)} ${unsentInvitation(s.unsent)} ${members(viewer, users)}
  ${viewerMay(ctx, viewer, 'write') ? await invitations(call, s) : undefined} ${await childTeams(call, s)}`;
  return { kind: 'page', status: s.error ? 400 : undefined, title: 'Team', body };
}

const showTeam = (call: PageCall<AccountViewer>): Promise<PageReply> => teamPage(call, {});

/** The problems of a refused form in its words (shown on the page, 400); any other refusal is the page's error. */
function identityFieldRefusal<T>(result: Identified<T>, form: TeamForm): string[] | undefined {
  if (result.ok) return undefined;
  const problems = identityProblems(result.refusal, LABELS[form]);
  if (!problems) throw pageErrorForIdentity(result.refusal);
  return problems;
}

function managementFieldRefusal(refusal: ManagementRefusal, form: TeamForm): string[] {
  const problems = managementProblems(refusal, LABELS[form]);
  if (!problems) throw pageErrorFor(refusal);
  return problems;
}

async function invite(call: PageCall<AccountViewer>): Promise<PageReply> {
  const { ctx, viewer, form, r, log } = call;
  const request = { email: (form.get('email') ?? '').trim(), role: form.get('role') ?? '', teamId: viewer.acting.id };
  const sent = await ctx.core.invitations.send(viewer.user, request, dashboardUrlOf(ctx, r), log);
  const problems = identityFieldRefusal(sent, 'invite');
  if (problems !== undefined) return teamPage(call, { error: { form: 'invite', messages: problems }, typed: { email: request.email, role: request.role } });
  // Not mailed: the page itself shows the link (a redirect would lose it; only its hash is kept).
  const unmailed = sent.ok ? sent.value.unmailed : undefined;
  if (unmailed) return teamPage(call, { unsent: { email: request.email, link: unmailed.link, why: unmailed.reason } });
  return { kind: 'redirect', status: 303, location: doneAt(TEAM_PATH, 'invited') };
}

const idParam = (value: string | undefined, what: string): number => {
  const id = Number(value);
  if (!Number.isSafeInteger(id) || id < 1) throw pageError('not_found', `There is no such ${what}.`);
  return id;
};

async function revokeInvitation({ ctx, viewer, r, log }: PageCall<AccountViewer>): Promise<PageReply> {
  identified(await ctx.core.invitations.revoke(viewer.user, idParam(r.params.id, 'invitation'), log));
  return { kind: 'redirect', status: 303, location: doneAt(TEAM_PATH, 'invitation_revoked') };
}

async function createTeam(call: PageCall<AccountViewer>): Promise<PageReply> {
  const { ctx, viewer, form, log } = call;
  const name = form.get('name') ?? '';
  const created = await ctx.core.teams.create(viewer.acting, name, log);
  if (!created.ok)
    return teamPage(call, { error: { form: 'create_team', messages: managementFieldRefusal(created.refusal, 'create_team') }, typed: { team_name: name } });
  return { kind: 'redirect', status: 303, location: doneAt(TEAM_PATH, 'team_created') };
}

async function renameTeam(call: PageCall<AccountViewer>): Promise<PageReply> {
  const { ctx, viewer, form, r, log } = call;
  const id = idParam(r.params.id, 'team');
  const name = form.get('name') ?? '';
  const renamed = await ctx.core.teams.update(viewer.acting, id, { name }, log);
  if (!renamed.ok)
    return teamPage(call, { error: { form: 'rename_team', messages: managementFieldRefusal(renamed.refusal, 'rename_team'), teamId: id }, typed: { name } });
  return { kind: 'redirect', status: 303, location: doneAt(TEAM_PATH, 'team_renamed') };
}

export const TEAM_PAGES = [
  accountPage({ method: 'GET', path: TEAM_PATH, title: 'Team', access: 'read', handle: showTeam }),
  accountPage({ method: 'POST', path: `${TEAM_PATH}/invitations`, title: 'Team', access: 'write', section: TEAM_PATH, handle: invite }),
  accountPage({ method: 'POST', path: `${TEAM_PATH}/invitations/:id/revoke`, title: 'Team', access: 'write', section: TEAM_PATH, handle: revokeInvitation }),
  accountPage({ method: 'POST', path: `${TEAM_PATH}/teams`, title: 'Team', access: 'write', section: TEAM_PATH, handle: createTeam }),
  accountPage({ method: 'POST', path: `${TEAM_PATH}/teams/:id/rename`, title: 'Team', access: 'write', section: TEAM_PATH, handle: renameTeam }),
];
