// The contract of CreditLedgerRepository: every change of a balance is an entry written with it, the balance
// is always the sum of its entries, nothing goes below zero, transfers move credits between an account and its
// teams, a payment is granted once, and recipients that end unsent are refunded to the payer that paid.
import { recordOne } from '../../../shared/intake/record.js';
import { accountOf, check, messageOf, record, recipient, teamOf, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { Test } from 'tap';
import type { CreditActor } from '../../../shared/domain/credits.js';
import { finishAlone } from '../../../shared/queue/finish.js';

const OPERATOR: CreditActor = { kind: 'operator', id: '7' };

async function balanced(t: Test, store: Store, payerId: number, expected: number): Promise<void> {
  const { balance, sumOfEntries } = await store.credits.reconcile(payerId);
  t.equal(balance, expected, `pool ${payerId} holds ${expected}`);
  t.equal(sumOfEntries, balance, 'the balance is the sum of its entries');
}

export const creditChecks: ContractCheck[] = [
  check("an account's first credits are its ledger's first entry, and grants and removals follow it", async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store, 50);
    const granted = await store.credits.post({ payerId: account.id, kind: 'grant', amount: 25, actor: OPERATOR, reference: null, reason: 'welcome' });
    t.match(granted, { kind: 'grant', amount: 25, balanceAfter: 75, actor: OPERATOR, reason: 'welcome' });
    t.equal(await store.credits.post({ payerId: account.id, kind: 'adjustment', amount: -76, actor: OPERATOR, reference: null, reason: '' }), 'insufficient_balance');
    t.match(await store.credits.post({ payerId: account.id, kind: 'adjustment', amount: -75, actor: OPERATOR, reference: null, reason: 'closing' }), { balanceAfter: 0 });
    t.equal(await store.credits.post({ payerId: 999_999, kind: 'grant', amount: 1, actor: OPERATOR, reference: null, reason: '' }), 'no_payer');
    const ledger = await store.credits.list(account.id, { page: 1, perPage: 10 });
    t.same(
      ledger.rows.map((e) => [e.kind, e.amount, e.balanceAfter]),
      [
        ['adjustment', -75, 0],
        ['grant', 25, 75],
        ['grant', 50, 50],
      ],
      'newest first; the refused removal left nothing',
    );
    t.equal(ledger.total, 3);
    t.same((await store.credits.list(account.id, { page: 1, perPage: 10, kind: 'grant' })).rows.length, 2, 'filtered by kind');
    await balanced(t, store, account.id, 0);
  }),

  check('a payment is granted once: the same purchase reference again is refused and changes nothing', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store, 0);
    const purchase = { payerId: account.id, kind: 'purchase', amount: 500, actor: { kind: 'payment', id: 'pi_1' }, reference: 'pi_1', reason: 'card' } as const;
    t.match(await store.credits.post(purchase), { balanceAfter: 500 });
    t.equal(await store.credits.post(purchase), 'already_recorded');
    await balanced(t, store, account.id, 500);
  }),

  check("each message's send is an entry of the payer that paid it, with the message as its reference", async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store, 3);
    const paid = messageOf(account, { recipients: [recipient('a@dest.test'), recipient('b@dest.test')] });
    await record(store, paid);
    t.equal(await recordOne(store.transaction, messageOf(account, { recipients: [recipient('c@dest.test'), recipient('d@dest.test')] })), 'insufficient_balance');
    const [send] = (await store.credits.list(account.id, { page: 1, perPage: 10, kind: 'send' })).rows;
    t.match(send, { amount: -2, balanceAfter: 1, reference: paid.id, actor: { kind: 'system', id: null } });
    await balanced(t, store, account.id, 1);
  }),

  check('credits move to a team and back: the team pays for itself meanwhile, and shares again once it has none', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store, 100);
    const team = await store.teams.createTeam(account, 'Sales', 5);
    if (team === 'limit_reached') throw new Error('no team');
    const actor: CreditActor = { kind: 'user', id: '1' };
    t.same(await store.credits.transfer({ accountId: account.id, teamId: team.id, amount: 30, actor, reason: '' }), {
      accountBalance: 70,
      teamBalance: 30,
      teamShares: false,
    });
    t.equal((await store.teams.get(team.id))!.creditsShared, false);
    t.equal(await store.credits.transfer({ accountId: account.id, teamId: team.id, amount: 71, actor, reason: '' }), 'insufficient_balance');
    t.equal(await store.credits.transfer({ accountId: account.id, teamId: team.id, amount: -31, actor, reason: '' }), 'insufficient_balance');
    const other = await accountOf(store, 10, 'Other');
    t.equal(await store.credits.transfer({ accountId: other.id, teamId: team.id, amount: 1, actor, reason: '' }), 'not_own_team');
    const teamNow = (await store.teams.get(team.id))!;
    await record(store, messageOf(teamNow, { payerId: team.id, recipients: [recipient('x@dest.test')] }));
    t.same(await store.credits.transfer({ accountId: account.id, teamId: team.id, amount: -29, actor, reason: '' }), {
      accountBalance: 99,
      teamBalance: 0,
      teamShares: true,
    });
    t.equal(await store.credits.transfer({ accountId: account.id, teamId: team.id, amount: -1, actor, reason: '' }), 'team_shares_payer');
    await balanced(t, store, account.id, 99);
    await balanced(t, store, team.id, 0);
  }),

  check('recipients that end failed (never sent) are refunded to the payer that paid; delivered and bounced ones are not', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store, 10);
    const message = messageOf(account, { recipients: [recipient('a@dest.test'), recipient('b@dest.test'), recipient('c@dest.test')] });
    const ids = await record(store, message);
    const leased = await store.queue.claim(ids, Date.now(), Date.now() + 60_000, 'lease-1');
    const [a, b, c] = leased.map((r) => r.id);
    const result = (recipientId: number, to: 'sent' | 'bounced' | 'failed') => ({ recipientId, leaseToken: 'lease-1', to, reply: `${to} reply`, mxHost: null, ip: null });
    await finishAlone(store.transaction, [result(a!, 'sent'), result(b!, 'bounced'), result(c!, 'failed')]);
    const [refund] = (await store.credits.list(account.id, { page: 1, perPage: 10, kind: 'refund' })).rows;
    t.match(refund, { amount: 1, balanceAfter: 8, reference: message.id, actor: { kind: 'system' } });
    await balanced(t, store, account.id, 8);
  }),

  check("the platform's totals by kind and the outstanding balance follow every entry; the platform lists every payer's entries", async (t, engine) => {
    const { store } = await engine.open(t);
    const before = await store.credits.totals();
    const one = await accountOf(store, 10, 'One');
    const two = await accountOf(store, 20, 'Two');
    await record(store, messageOf(one, { recipients: [recipient('a@dest.test'), recipient('b@dest.test')] }));
    await store.credits.post({ payerId: two.id, kind: 'adjustment', amount: -5, actor: OPERATOR, reference: null, reason: 'correction' });
    const after = await store.credits.totals();
    t.same(after.byKind.grant, { total: before.byKind.grant.total + 30, entries: before.byKind.grant.entries + 2 });
    t.same(after.byKind.send, { total: before.byKind.send.total - 2, entries: before.byKind.send.entries + 1 });
    t.same(after.byKind.adjustment, { total: before.byKind.adjustment.total - 5, entries: before.byKind.adjustment.entries + 1 });
    t.equal(after.outstanding, before.outstanding + 23);
    const grants = await store.credits.listAll({ page: 1, perPage: 10, kinds: ['grant', 'adjustment'] });
    t.same(
      grants.rows.slice(0, 3).map((e) => [e.payerId, e.kind, e.amount]),
      [
        [two.id, 'adjustment', -5],
        [two.id, 'grant', 20],
        [one.id, 'grant', 10],
      ],
    );
    t.equal((await store.credits.listAll({ page: 1, perPage: 10, payerId: one.id })).total, 2, 'one pool: its grant and its send');
  }),

  check('a low-balance alert is claimed once per crossing below the threshold, by one claimer, and again once re-armed', async (t, engine) => {
    const { store } = await engine.open(t);
    const rich = await accountOf(store, 100);
    const poor = await accountOf(store, 5);
    const parent = await accountOf(store, 100);
    await teamOf(store, parent, 'Shares its account');
    const own = await teamOf(store, parent, 'Has its own');
    await store.credits.transfer({ accountId: parent.id, teamId: own.id, amount: 50, actor: OPERATOR, reason: '' });
    const spend = (payerId: number, amount: number) => store.credits.post({ payerId, kind: 'adjustment', amount: -amount, actor: OPERATOR, reference: null, reason: '' });
    const claim = async (limit = 10) => (await store.credits.claimLowBalanceAlerts(10, limit)).map((c) => [c.payerId, c.balance]);

    await store.credits.armLowBalanceAlerts(10);
    t.same(await claim(), [], 'nobody armed is below the threshold; a pool already below it was not armed');
    await spend(rich.id, 97);
    await spend(own.id, 45);
    t.same(
      await claim(),
      [
        [rich.id, 3],
        [own.id, 5],
      ],
      'the paying pools that crossed, by id',
    );
    t.same(await claim(), [], 'once per crossing');
    await store.credits.armLowBalanceAlerts(10);
    t.same(await claim(), [], 'arming does not arm a pool still below');
    await store.credits.rearmLowBalanceAlert(rich.id);
    t.same(await claim(), [[rich.id, 3]], 'a re-armed pool is claimed again');

    await store.credits.post({ payerId: poor.id, kind: 'grant', amount: 20, actor: OPERATOR, reference: null, reason: '' });
    await store.credits.post({ payerId: rich.id, kind: 'grant', amount: 20, actor: OPERATOR, reference: null, reason: '' });
    await store.credits.armLowBalanceAlerts(10);
    await spend(poor.id, 20);
    await spend(rich.id, 20);
    t.same(await claim(1), [[rich.id, 3]], 'at most as many as asked');
    t.same(await claim(1), [[poor.id, 5]]);

    await store.credits.post({ payerId: poor.id, kind: 'grant', amount: 10, actor: OPERATOR, reference: null, reason: '' });
    await store.credits.armLowBalanceAlerts(10);
    await spend(poor.id, 10);
    const claims = await Promise.all([store.credits.claimLowBalanceAlerts(10, 10), store.credits.claimLowBalanceAlerts(10, 10)]);
    t.same(
      claims.flat().map((c) => c.payerId),
      [poor.id],
      'of two claims at once, one only gets the crossing',
    );
  }),
];
