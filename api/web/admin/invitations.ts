// The platform's invitations (/admin/invitations): every invitation to open a client account with its state,
// inviting a new account's owner by mail (with the credits the account starts with), revoking an open one. The
// same core use cases as the REST routes (core.platformInvitations); each change is in the audit log.
import type { ListedPlatformInvitation } from '../../../shared/core/admin/invitations.js';
import type { AppContext } from '../../pipeline/context.js';
import { html, type Html } from '../html.js';
import { pageErrorForIdentity, type PageError } from '../errors.js';
import { forOperator } from './system-mail.js';
import { formGuard } from '../layout.js';
import { operatorPage, type PageCall } from '../page.js';
import { actionButton, badge, doneAt, formError, noticeOf, table, when, type Tone } from '../parts.js';
import type { PageAnswer, PageReply } from '../reply.js';
import type { PageRequest } from '../request.js';
import type { OperatorViewer } from '../viewer.js';
import { idParam, listPage, listPager } from '../lists.js';

const PATH = '/admin/invitations';

const NOTICES = { sent: 'The invitation is sent.', revoked: 'The invitation is revoked: its link no longer works.' };

const TONES: Readonly<Record<ListedPlatformInvitation['state'], Tone>> = { open: 'pending', accepted: 'good', revoked: 'bad', expired: 'bad', replaced: 'bad' };

/** Where the mailed link leads: the configured dashboard, or this site. */
const dashboardUrl = (ctx: AppContext, r: PageRequest): string => (ctx.config.dashboard.publicUrl === null ? r.origin : new URL(ctx.config.dashboard.publicUrl).origin);

function invitationRow(v: OperatorViewer, i: ListedPlatformInvitation): Html {
  const revoke =
    i.state === 'open' || i.state === 'expired'
      ? actionButton(v, `${PATH}/${i.id}/revoke`, 'Revoke', { confirm: `Revoke the invitation of ${i.email}?`, danger: true, id: `revoke-${i.id}` })
      : undefined;
  return html`<tr>
    <th scope="row">${i.email}</th>
    <td>${i.accountId === null ? i.accountName : html`<a href="/admin/tenants/${i.accountId}">${i.accountName}</a>`}</td>
    <td class="number">${i.credits}</td>
    <td>${badge(i.state, TONES[i.state])}</td>
    <td>${when(i.createdAt)}</td>
    <td>${when(i.expiresAt)}</td>
    <td>${revoke}</td>
  </tr>`;
}

function inviteForm(v: OperatorViewer, sent: Readonly<Record<string, string>>): Html {
  return html`<form method="post" action="${PATH}">
    ${formGuard(v)}
    <label for="invite-email">Owner’s email</label>
    <input type="email" id="invite-email" name="email" value="${sent.email ?? ''}" maxlength="254" autocomplete="off" required />
    <label for="invite-account">Account name</label>
    <input type="text" id="invite-account" name="account_name" value="${sent.account_name ?? ''}" maxlength="100" required />
    <label for="invite-credits">Credits it starts with</label>
    <input type="number" id="invite-credits" name="credits" value="${sent.credits ?? '0'}" min="0" />
    <button type="submit" class="primary" id="invite">Send the invitation</button>
  </form>`;
}

async function invitationsAnswer(call: PageCall<OperatorViewer>, refused?: { error: PageError; sent: Readonly<Record<string, string>> }): Promise<PageAnswer> {
  const { ctx, r, viewer } = call;
  const page = listPage(ctx, r);
  const found = await ctx.core.platformInvitations.list(page);
  const head = ['Email', 'Account', 'Credits', 'State', 'Sent', 'Expires', 'Action'];
  const body = html`${noticeOf(r, NOTICES)}
    <h2>Invite a new client account</h2>
    <p class="hint">Accepting the mailed link creates the account, its credits and its owner.</p>
    ${formError(refused?.error.message)} ${inviteForm(viewer, refused?.sent ?? {})}
    <h2>Invitations</h2>
    ${table(
      'Platform invitations, newest first',
      head,
      found.rows.map((i) => invitationRow(viewer, i)),
      'No invitation yet: invite a client above.',
    )}
    ${listPager(r, page, found.total)}`;
  return { kind: 'page', status: refused?.error.status, title: 'Invitations', body };
}

const invitations = (call: PageCall<OperatorViewer>): Promise<PageReply> => invitationsAnswer(call);

async function invite(call: PageCall<OperatorViewer>): Promise<PageReply> {
  const { ctx, r, form, viewer, log } = call;
  const sent = { email: form.get('email') ?? '', account_name: form.get('account_name') ?? '', credits: (form.get('credits') ?? '').trim() };
  const credits = sent.credits === '' ? 0 : /^\d{1,15}$/.test(sent.credits) ? Number(sent.credits) : Number.NaN;
  const made = await ctx.core.platformInvitations.send(viewer.user, { email: sent.email, accountName: sent.account_name, credits }, dashboardUrl(ctx, r), log);
  if (!made.ok) return invitationsAnswer(call, { error: forOperator(pageErrorForIdentity(made.refusal), made.refusal.kind), sent });
  return { kind: 'redirect', status: 303, location: doneAt(PATH, 'sent') };
}

async function revoke({ ctx, r, viewer, log }: PageCall<OperatorViewer>): Promise<PageReply> {
  const revoked = await ctx.core.platformInvitations.revoke(viewer.user, idParam(r, 'id'), log);
  if (!revoked.ok) throw pageErrorForIdentity(revoked.refusal);
  return { kind: 'redirect', status: 303, location: doneAt(PATH, 'revoked') };
}

export const ADMIN_INVITATION_PAGES = [
  operatorPage({ method: 'GET', path: PATH, title: 'Invitations', handle: invitations }),
  operatorPage({ method: 'POST', path: PATH, title: 'Invitations', handle: invite }),
  operatorPage({ method: 'POST', path: `${PATH}/:id/revoke`, title: 'Invitations', section: PATH, handle: revoke }),
];
