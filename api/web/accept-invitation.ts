// The page an invitation's link opens (GET /accept-invitation?token=…): whom it invites, as what, and a form of
// name and password posted back to the same path, which accepts the invitation through the core (as the REST
// route POST /api/tern-auth/v1/accept-invitation does), sets the session cookie and says the user is signed in.
import type { AppContext } from '../pipeline/context.js';
import type { Logger } from '../../shared/log.js';
import type { InvitationOffer } from '../../shared/domain/platform-invitation.js';
import { secureCookies, sessionCookie } from '../pipeline/credentials.js';
import { PASSWORD_LENGTH } from '../../shared/core/identity/index.js';
import { html } from './html.js';
import { pageErrorForIdentity, type PageError } from './errors.js';
import { fieldOf, readForm, requireSameOrigin, type PageRequest } from './request.js';
import { errorPage, type PageAnswer, type PageReply } from './reply.js';

export const ACCEPT_INVITATION_PATH = '/accept-invitation';
export const ACCEPT_INVITATION_TITLE = 'Accept your invitation';
const CANNOT_USE_TITLE = 'This invitation cannot be used';

interface FormState {
  token: string;
  offer: InvitationOffer;
  name?: string;
  error?: PageError;
}

function formPage(s: FormState): PageAnswer {
  return {
    kind: 'page',
    status: s.error?.status,
    title: ACCEPT_INVITATION_TITLE,
    body: html`${whatIsOffered(s.offer)} ${s.error ? html`<p class="error">${s.error.message}</p>` : undefined}
      <form method="post" action="${ACCEPT_INVITATION_PATH}">
        <input type="hidden" name="token" value="${s.token}" />
        <label for="name">Your name</label>
        <input type="text" id="name" name="name" value="${s.name ?? ''}" maxlength="100" autocomplete="name" required autofocus />
        <label for="password">Password</label>
        <input type="password" id="password" name="password" minlength="${PASSWORD_LENGTH.min}" maxlength="${PASSWORD_LENGTH.max}" autocomplete="new-password" required />
        <p class="hint">${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters.</p>
        <button type="submit" class="primary" id="accept">Accept and sign in</button>
      </form>`,
  };
}

/** Whom the link invites, to what. */
function whatIsOffered(o: InvitationOffer) {
  return o.kind === 'new_account'
    ? html`<p>
        You are invited to open the account <strong>${o.invitation.accountName}</strong> on Tern, as its owner, with the email address
        <strong>${o.invitation.email}</strong>. Choose your name and password.
      </p>`
    : html`<p>
        You are invited to Tern as <strong>${o.invitation.role}</strong>, with the email address <strong>${o.invitation.email}</strong>. Choose your name and password.
      </p>`;
}

/** GET: the form, or why the link cannot be used (unknown, used, revoked, replaced, expired). */
export async function showAcceptInvitation(ctx: AppContext, r: PageRequest): Promise<PageReply> {
  const token = r.query.token ?? '';
  const open = await ctx.core.invitations.open(token);
  if (!open.ok) return errorPage(CANNOT_USE_TITLE, pageErrorForIdentity(open.refusal));
  return formPage({ token, offer: open.value });
}

/** POST: the core's acceptance; the session cookie on success, the form again (filled in but the password) on a wrong field. */
export async function acceptInvitation(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply> {
  requireSameOrigin(r);
  const form = await readForm(r.req);
  const token = fieldOf(form, 'token') ?? '';
  const name = fieldOf(form, 'name') ?? '';
  const client = { address: r.address, userAgent: r.userAgent };
  const accepted = await ctx.core.invitations.accept({ token, name, password: fieldOf(form, 'password') ?? '', client }, log);
  if (accepted.ok) {
    const cookie = sessionCookie(accepted.value.token, secureCookies(ctx, r));
    const body = html`<p>Your account <strong>${accepted.value.user.email}</strong> is ready, and you are signed in.</p>`;
    return { kind: 'page', title: 'Welcome to Tern', body, headers: { 'Set-Cookie': cookie } };
  }
  if (accepted.refusal.kind !== 'invalid_field') return errorPage(CANNOT_USE_TITLE, pageErrorForIdentity(accepted.refusal));
  const open = await ctx.core.invitations.open(token);
  if (!open.ok) return errorPage(CANNOT_USE_TITLE, pageErrorForIdentity(open.refusal));
  return formPage({ token, offer: open.value, name, error: pageErrorForIdentity(accepted.refusal) });
}
