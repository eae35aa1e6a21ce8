// The contract of the platform invitations repository: one open invitation per email (any case; a new one
// replaces it) stored with its audit entry, found by its token's hash or id and listed newest first, revoked
// once while open with its audit entry, and accepted in one change that opens the account, grants its credits
// in the ledger and creates its owner: once, before expiry, never for a taken email.
import { createHash } from 'node:crypto';
import { accountOf, check, operatorOf, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import { invitationGrant } from '../../../shared/domain/platform-invitation.js';
import type { NewPlatformInvitation } from '../../../shared/store/platform-invitations.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { PlatformInvitation } from '../../../shared/domain/platform-invitation.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const AT = '2024-01-10T10:00:00.000Z';
const LATER = '2024-01-10T12:00:00.000Z';
const EXPIRES = '2024-01-17T10:00:00.000Z';
const ACCOUNT = { limitPerSecond: 10, planType: 'free', backendRegion: 'eu' };
const OWNER = { name: 'Ada', passwordHash: '$argon2id$fake' };

const invitation = (invitedBy: number, email: string, token: string, fields: Partial<NewPlatformInvitation> = {}): NewPlatformInvitation => ({
  email,
  accountName: 'Acme',
  credits: 500,
  tokenHash: sha(token),
  invitedBy,
  messageId: null,
  at: AT,
  expiresAt: EXPIRES,
  ...fields,
});

const audited =
  (operatorId: number, action: 'invitation.create' | 'invitation.revoke') =>
  (made: PlatformInvitation, replaced?: PlatformInvitation): NewAuditEntry => ({
    operatorId,
    operatorEmail: 'op@tern.test',
    action,
    target: { kind: 'invitation', id: String(made.id) },
    before: replaced ? { id: replaced.id, status: replaced.status } : null,
    after: { status: made.status },
    reason: '',
    at: AT,
  });

async function invited(store: Store, email: string, token: string, fields: Partial<NewPlatformInvitation> = {}): Promise<PlatformInvitation> {
  const op = (await store.users.findByEmail('op@tern.test')) ?? (await operatorOf(store, 'op@tern.test'));
  return store.platformInvitations.create(invitation(op.id, email, token, fields), audited(op.id, 'invitation.create'));
}

export const platformInvitationChecks: ContractCheck[] = [
  check('an invitation is stored open with its audit entry, and a new one to the same email replaces the open one', async (t, engine) => {
    const { store } = await engine.open(t);
    const first = await invited(store, 'Ada@Example.com', 'one', { messageId: 'msg1' });
    t.same(first, {
      id: first.id,
      email: 'Ada@Example.com',
      accountName: 'Acme',
      credits: 500,
      status: 'open',
      invitedBy: first.invitedBy,
      messageId: 'msg1',
      accountId: null,
      userId: null,
      createdAt: AT,
      expiresAt: EXPIRES,
      closedAt: null,
    });
    t.same(await store.platformInvitations.findByTokenHash(sha('one')), first);
    t.same(await store.platformInvitations.get(first.id), first);
    t.equal(await store.platformInvitations.findByTokenHash(sha('unknown')), undefined);
    t.equal(await store.platformInvitations.get(first.id + 100), undefined);
    const second = await invited(store, 'ADA@example.com', 'two', { at: LATER });
    t.match(await store.platformInvitations.get(first.id), { status: 'replaced', closedAt: LATER }, 'replaced whatever the case');
    const other = await invited(store, 'bob@example.com', 'three');
    t.same(await store.platformInvitations.list({ page: 1, perPage: 10 }), { rows: [other, second, { ...first, status: 'replaced', closedAt: LATER }], total: 3 });
    t.same(
      (await store.platformInvitations.list({ page: 2, perPage: 2 })).rows.map((i) => i.id),
      [first.id],
    );
    const audit = await store.auditLog.list({ action: 'invitation.create' }, { page: 1, perPage: 10 });
    t.same(
      audit.rows.map((e) => [e.target.id, e.before]),
      [
        [String(other.id), null],
        [String(second.id), { id: first.id, status: 'replaced' }],
        [String(first.id), null],
      ],
      'each with its entry, the replaced invitation handed to it',
    );
  }),

  check('an open invitation is revoked once, with its audit entry; a revoked one is not accepted', async (t, engine) => {
    const { store } = await engine.open(t);
    const made = await invited(store, 'ada@example.com', 'a');
    const revoke = audited(made.invitedBy!, 'invitation.revoke');
    t.same(await store.platformInvitations.revoke(made.id, LATER, revoke), { ...made, status: 'revoked', closedAt: LATER });
    t.equal(await store.platformInvitations.revoke(made.id, LATER, revoke), undefined, 'no longer open');
    t.equal(await store.platformInvitations.revoke(made.id + 100, LATER, revoke), undefined, 'no such invitation');
    t.equal((await store.auditLog.list({ action: 'invitation.revoke' }, { page: 1, perPage: 10 })).total, 1, 'one entry, for the revocation made');
    t.equal(await store.platformInvitations.accept(made.id, ACCOUNT, OWNER, LATER, invitationGrant), 'closed');
  }),

  check('acceptance opens the account with its granted credits and its owner, once, before expiry', async (t, engine) => {
    const { store } = await engine.open(t);
    const late = await invited(store, 'late@example.com', 'late', { expiresAt: '2024-01-10T11:00:00.000Z' });
    t.equal(await store.platformInvitations.accept(late.id, ACCOUNT, OWNER, LATER, invitationGrant), 'closed', 'expired');
    t.equal(await store.teams.count(), 0, 'no account opened');

    const made = await invited(store, 'Ada@example.com', 'ada', { accountName: 'Ada Ltd', credits: 750 });
    const accepted = await store.platformInvitations.accept(made.id, ACCOUNT, OWNER, LATER, invitationGrant);
    if (typeof accepted === 'string') throw new Error(`not accepted: ${accepted}`);
    t.match(accepted.account, { name: 'Ada Ltd', creditBalance: 750, parentId: null, ...ACCOUNT });
    t.match(accepted.user, { email: 'Ada@example.com', name: 'Ada', role: 'owner', teamId: accepted.account.id });
    t.equal(await store.users.passwordHash(accepted.user.id), OWNER.passwordHash);
    t.same(accepted.invitation, { ...made, status: 'accepted', closedAt: LATER, accountId: accepted.account.id, userId: accepted.user.id });
    t.same(await store.platformInvitations.get(made.id), accepted.invitation);
    const ledger = await store.credits.list(accepted.account.id, { page: 1, perPage: 10 });
    t.match(
      ledger.rows,
      [{ kind: 'grant', amount: 750, balanceAfter: 750, actor: { kind: 'operator', id: String(made.invitedBy) } }],
      'the credits are a grant by the inviting operator',
    );
    t.equal(await store.platformInvitations.accept(made.id, ACCOUNT, OWNER, LATER, invitationGrant), 'closed', 'accepted once');
  }),

  check('an acceptance for a taken email, or without credits, is refused or opens no ledger entry', async (t, engine) => {
    const { store } = await engine.open(t);
    const existing = await accountOf(store);
    await store.users.create({ email: 'taken@example.com', name: '', role: 'owner', teamId: existing.id, passwordHash: 'x', mustChangePassword: false });
    const taken = await invited(store, 'TAKEN@example.com', 'taken');
    t.equal(await store.platformInvitations.accept(taken.id, ACCOUNT, OWNER, LATER, invitationGrant), 'email_taken');
    t.same(await store.platformInvitations.get(taken.id), taken, 'the invitation stays open');
    t.equal(await store.teams.count(), 1, 'no account was left behind');

    const free = await invited(store, 'free@example.com', 'free', { credits: 0 });
    const accepted = await store.platformInvitations.accept(free.id, ACCOUNT, OWNER, LATER, invitationGrant);
    if (typeof accepted === 'string') throw new Error(`not accepted: ${accepted}`);
    t.equal(accepted.account.creditBalance, 0);
    t.same((await store.credits.list(accepted.account.id, { page: 1, perPage: 10 })).rows, [], 'no entry of nothing');
  }),

  check('of several invitations to one email made at once, one only stays open, and each replaced one is handed to one audit entry', async (t, engine) => {
    const { store } = await engine.open(t);
    const op = await operatorOf(store, 'op@tern.test');
    const tokens = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
    const made = await Promise.all(
      tokens.map((token, n) =>
        store.platformInvitations.create(invitation(op.id, n % 2 ? 'Ada@example.com' : 'ada@EXAMPLE.com', token), audited(op.id, 'invitation.create')),
      ),
    );
    const now = await Promise.all(made.map((i) => store.platformInvitations.get(i.id)));
    t.same(now.map((i) => i?.status).sort(), ['open', 'replaced', 'replaced', 'replaced', 'replaced', 'replaced']);
    const replaced = now.filter((i) => i?.status === 'replaced').map((i) => i!.id);
    const audit = await store.auditLog.list({ action: 'invitation.create' }, { page: 1, perPage: 10 });
    const handed = audit.rows.flatMap((e) => (e.before === null ? [] : [(e.before as { id: number }).id]));
    t.same(
      handed.sort((a, b) => a - b),
      replaced.sort((a, b) => a - b),
      'the invitation each one really replaced',
    );
  }),
];
