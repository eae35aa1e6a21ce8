// The contract of the invitations repository: open invitations found by their token's hash, one open per
// account and email (any case; a new one replaces it), read and listed per account or team, revoked once while
// open, and accepted with the user they create in one change: once, before expiry, never for a taken email.
import { createHash } from 'node:crypto';
import { accountOf, check, teamOf, type ContractCheck } from './fixtures.js';
import type { NewInvitation } from '../../../shared/store/invitations.js';
import type { NewUser } from '../../../shared/store/users.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const AT = '2024-01-10T10:00:00.000Z';
const LATER = '2024-01-10T12:00:00.000Z';
const EXPIRES = '2024-01-17T10:00:00.000Z';

const invitation = (accountId: number, email: string, token: string, fields: Partial<NewInvitation> = {}): NewInvitation => ({
  accountId,
  teamId: accountId,
  email,
  role: 'viewer',
  tokenHash: sha(token),
  invitedBy: null,
  messageId: null,
  at: AT,
  expiresAt: EXPIRES,
  ...fields,
});

const userFor = (teamId: number, email: string): NewUser => ({ email, name: 'Ada', role: 'viewer', teamId, passwordHash: '$argon2id$fake', mustChangePassword: false });

export const invitationChecks: ContractCheck[] = [
  check("an invitation is stored open, found by its token's hash, and a new one to the same email of the account replaces it", async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const other = await accountOf(store);
    const first = await store.invitations.create(invitation(account.id, 'Ada@Example.com', 'one', { role: 'admin', messageId: 'msg1' }));
    t.same(first, {
      id: first.id,
      accountId: account.id,
      teamId: account.id,
      email: 'Ada@Example.com',
      role: 'admin',
      status: 'open',
      invitedBy: null,
      messageId: 'msg1',
      userId: null,
      createdAt: AT,
      expiresAt: EXPIRES,
      closedAt: null,
    });
    t.same(await store.invitations.findByTokenHash(sha('one')), first);
    t.equal(await store.invitations.findByTokenHash(sha('unknown')), undefined);
    const elsewhere = await store.invitations.create(invitation(other.id, 'ada@example.com', 'elsewhere'));
    const second = await store.invitations.create(invitation(account.id, 'ADA@example.com', 'two', { at: LATER }));
    t.match(await store.invitations.findByTokenHash(sha('one')), { status: 'replaced', closedAt: LATER }, 'replaced whatever the case');
    t.match(second, { status: 'open' });
    t.same(await store.invitations.findByTokenHash(sha('elsewhere')), elsewhere, "another account's invitation stays open");
  }),

  check('an invitation is read and listed by its account, or by one of its teams when one is named, newest first', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const team = await teamOf(store, account);
    const other = await accountOf(store);
    const own = await store.invitations.create(invitation(account.id, 'a@example.com', 'a'));
    const ofTeam = await store.invitations.create(invitation(account.id, 'b@example.com', 'b', { teamId: team.id }));
    const third = await store.invitations.create(invitation(account.id, 'c@example.com', 'c'));
    await store.invitations.create(invitation(other.id, 'd@example.com', 'd'));
    t.same(await store.invitations.get(own.id, account.id), own);
    t.same(await store.invitations.get(ofTeam.id, account.id, team.id), ofTeam);
    t.equal(await store.invitations.get(own.id, account.id, team.id), undefined, 'not of that team');
    t.equal(await store.invitations.get(own.id, other.id), undefined, 'not of another account');
    t.same(await store.invitations.list(account.id, { page: 1, perPage: 10 }), { rows: [third, ofTeam, own], total: 3 });
    t.same(await store.invitations.list(account.id, { page: 2, perPage: 2 }), { rows: [own], total: 3 });
    t.same(await store.invitations.list(account.id, { page: 1, perPage: 10 }, team.id), { rows: [ofTeam], total: 1 });
  }),

  check('an open invitation is revoked once, by its account only', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const other = await accountOf(store);
    const made = await store.invitations.create(invitation(account.id, 'a@example.com', 'a'));
    t.equal(await store.invitations.revoke(made.id, other.id, LATER), undefined, 'not by another account');
    t.same(await store.invitations.revoke(made.id, account.id, LATER), { ...made, status: 'revoked', closedAt: LATER });
    t.equal(await store.invitations.revoke(made.id, account.id, LATER), undefined, 'no longer open');
    t.equal(await store.invitations.accept(made.id, userFor(account.id, 'a@example.com'), LATER), 'closed', 'a revoked invitation is not accepted');
  }),

  check('acceptance creates the user and closes the invitation, once, before it expires, never for a taken email', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const late = await store.invitations.create(invitation(account.id, 'late@example.com', 'late', { expiresAt: '2024-01-10T11:00:00.000Z' }));
    t.equal(await store.invitations.accept(late.id, userFor(account.id, 'late@example.com'), LATER), 'closed', 'expired');
    t.equal(await store.users.findByEmail('late@example.com'), undefined);

    const made = await store.invitations.create(invitation(account.id, 'ada@example.com', 'ada'));
    const accepted = await store.invitations.accept(made.id, userFor(account.id, 'ada@example.com'), LATER);
    if (typeof accepted === 'string') throw new Error(`not accepted: ${accepted}`);
    t.match(accepted.user, { email: 'ada@example.com', role: 'viewer', teamId: account.id });
    t.same(accepted.invitation, { ...made, status: 'accepted', closedAt: LATER, userId: accepted.user.id });
    t.same(await store.users.findByEmail('ada@example.com'), accepted.user);
    t.equal(await store.invitations.accept(made.id, userFor(account.id, 'ada2@example.com'), LATER), 'closed', 'accepted once');

    const taken = await store.invitations.create(invitation(account.id, 'ADA@example.com', 'taken'));
    t.equal(await store.invitations.accept(taken.id, userFor(account.id, 'ADA@example.com'), LATER), 'email_taken');
    t.same(await store.invitations.get(taken.id, account.id), taken, 'nothing changed');
  }),

  check('of two acceptances of one invitation at once, one only creates a user', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const made = await store.invitations.create(invitation(account.id, 'ada@example.com', 'ada'));
    const outcomes = await Promise.all(['one@example.com', 'two@example.com'].map((email) => store.invitations.accept(made.id, userFor(account.id, email), LATER)));
    t.equal(outcomes.filter((o) => typeof o !== 'string').length, 1);
    t.same(
      outcomes.filter((o) => typeof o === 'string'),
      ['closed'],
    );
    t.equal((await store.users.listByTeam(account.id)).length, 1);
  }),

  check('of several invitations of one account to one email made at once, every one is stored and one only stays open', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const tokens = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
    const made = await Promise.all(tokens.map((token, n) => store.invitations.create(invitation(account.id, n % 2 ? 'Ada@example.com' : 'ada@EXAMPLE.com', token))));
    const now = await Promise.all(made.map((i) => store.invitations.get(i.id, account.id)));
    t.same(now.map((i) => i?.status).sort(), ['open', 'replaced', 'replaced', 'replaced', 'replaced', 'replaced'], 'each new one replaced the one open before it');
  }),
];
