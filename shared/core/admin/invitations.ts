// Platform invitations, for operators: inviting a NEW client account's owner by mail (the account's name and
// the credits it will start with), the platform's invitations listed with their state, and revoking an open one.
// Each invitation and revocation is recorded in the audit log in the transaction of the change. Accepting one
// goes through the account invitations' acceptance (core/identity/invitations.ts), which creates the account.
import { randomBytes } from 'node:crypto';
import { invitationState, type InvitationStatus } from '../../domain/invitation.js';
import type { PlatformInvitation } from '../../domain/platform-invitation.js';
import type { Operator } from '../../domain/user.js';
import type { JsonValue } from '../../domain/audit-log.js';
import type { PageOf, PageRequest } from '../../store/paging.js';
import type { Logger } from '../../log.js';
import type { SystemMail } from '../system-mail.js';
import { mailTime } from '../email-templates.js';
import { MAX_CREDITS_MOVED } from '../credits.js';
import { auditEntry } from '../audit-log.js';
import { isoAt, type StoreDeps } from '../identity/deps.js';
import { granted, invalidField, refused, type Identified } from '../identity/refusals.js';
import { emailProblem } from '../identity/users.js';
import { hashToken } from '../identity/sessions.js';
import { acceptLink } from '../identity/invitations.js';

export interface PlatformInvitationRequest {
  email: string;
  accountName: string;
  /** Granted to the account when it is created; absent: none. */
  credits?: number;
}

export interface ListedPlatformInvitation extends PlatformInvitation {
  state: InvitationStatus | 'expired';
}

export interface SentPlatformInvitation {
  invitation: ListedPlatformInvitation;
  /** The system message that carries the link. */
  messageId: string;
}

/** An account's name: as a team's (2 to 100 characters once trimmed), on one line. */
function accountNameProblem(name: string): Identified<never> | undefined {
  const trimmed = name.trim();
  if (trimmed.length < 2 || trimmed.length > 100) return invalidField('account_name', 'account_name must have 2 to 100 characters');
  if (/[\p{Cc}\p{Cf}]/u.test(trimmed)) return invalidField('account_name', 'account_name must be one line of text, without control characters');
  return undefined;
}

function creditsProblem(credits: number): Identified<never> | undefined {
  if (Number.isInteger(credits) && credits >= 0 && credits <= MAX_CREDITS_MOVED) return undefined;
  return invalidField('credits', `credits must be a whole number from 0 to ${MAX_CREDITS_MOVED}`);
}

/** What the audit log keeps of an invitation. */
const snapshot = (i: PlatformInvitation): { [key: string]: JsonValue } => ({
  email: i.email,
  account_name: i.accountName,
  credits: i.credits,
  status: i.status,
  expires_at: i.expiresAt,
});

export class PlatformInvitations {
  constructor(
    private readonly d: StoreDeps,
    private readonly mail: SystemMail,
  ) {}

  /**
   * Checks the request, mails the link, then stores the invitation (replacing the open one to the same email)
   * with its audit entry. When the mail cannot go, nothing is stored and the open invitation (if any) stays.
   */
  async send(operator: Operator, r: PlatformInvitationRequest, dashboardUrl: string, log: Logger): Promise<Identified<SentPlatformInvitation>> {
    const credits = r.credits ?? 0;
    const bad = emailProblem(r.email) ?? accountNameProblem(r.accountName) ?? creditsProblem(credits);
    if (bad) return bad;
    if (await this.d.store.users.findByEmail(r.email)) return refused({ kind: 'email_taken', field: 'email' });
    const accountName = r.accountName.trim();
    const token = randomBytes(32).toString('base64url');
    const expiresAt = isoAt(this.d.now() + this.d.config.invitations.expiryDays * 86_400_000);
    const message = await this.mail.composeRequired(
      'platform_invitation',
      r.email,
      invitationValues({ accountName, credits, link: acceptLink(dashboardUrl, token), expiresAt }),
    );
    const sent = await this.mail.send(message, log);
    if (!sent.ok) return refused(sent.refusal);
    const at = isoAt(this.d.now());
    const made = { email: r.email, accountName, credits, tokenHash: hashToken(token), invitedBy: operator.id, messageId: sent.value.messageId, at, expiresAt };
    const invitation = await this.d.store.platformInvitations.create(made, (i, replaced) =>
      auditEntry(
        operator,
        {
          action: 'invitation.create',
          target: { kind: 'invitation', id: String(i.id) },
          before: null,
          after: { ...snapshot(i), message_id: i.messageId, replaced: replaced?.id ?? null },
          reason: '',
        },
        at,
      ),
    );
    log.info({ invitation: invitation.id, by: operator.id, credits, msg_id: sent.value.messageId }, 'platform invitation sent');
    return granted({ invitation: { ...invitation, state: invitation.status }, messageId: sent.value.messageId });
  }

  /** Every platform invitation, newest first, each with its state now. */
  async list(page: PageRequest): Promise<PageOf<ListedPlatformInvitation>> {
    const found = await this.d.store.platformInvitations.list(page);
    const now = this.d.now();
    return { total: found.total, rows: found.rows.map((i) => ({ ...i, state: invitationState(i, now) })) };
  }

  /** Revokes an open invitation (expired ones included): its link stops working. */
  async revoke(operator: Operator, id: number, log: Logger): Promise<Identified<ListedPlatformInvitation>> {
    const found = await this.d.store.platformInvitations.get(id);
    if (!found) return refused({ kind: 'not_found', what: 'invitation', message: 'Invitation not found' });
    const at = isoAt(this.d.now());
    const revoked = await this.d.store.platformInvitations.revoke(id, at, (after) =>
      auditEntry(
        operator,
        { action: 'invitation.revoke', target: { kind: 'invitation', id: String(id) }, before: snapshot(found), after: snapshot(after), reason: '' },
        at,
      ),
    );
    if (!revoked) return refused({ kind: 'invitation_invalid' });
    log.info({ invitation: id, by: operator.id }, 'platform invitation revoked');
    return granted({ ...revoked, state: invitationState(revoked, this.d.now()) });
  }
}

interface InvitationContent {
  accountName: string;
  credits: number;
  link: string;
  expiresAt: string;
}

/** The platform invitation's smartcodes: the account offered, its first credits, the link and when it expires. */
function invitationValues(c: InvitationContent): Record<string, string> {
  return {
    'invitation.url': c.link,
    'invitation.expires_at': mailTime(c.expiresAt),
    'account.name': c.accountName,
    'account.credits': String(c.credits),
    'account.starts_with': c.credits > 0 ? `It starts with ${c.credits} credits.` : '',
  };
}
