// The contract of the operators' reads across teams: live accounts and teams listed by id with filters and a
// total; sending counts (sent, bounced, complained) from a day on, for some teams or ranked across all; a
// team's queue by destination and its latest errors; and the platform's status change committed with its
// audit entry, or neither.
import { accountOf, at, check, messageOf, record, recipient, teamOf, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { StoreTestSupport } from '../../../shared/store/test-support.js';
import type { Team } from '../../../shared/domain/team.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';

const PAGE = { page: 1, perPage: 50 };

/** A message of `team` recorded at `createdAt` with one recipient per outcome: sent, bounced or complained. */
async function sendingAt(store: Store, support: StoreTestSupport, team: Team, createdAt: string, outcomes: Array<'sent' | 'bounced' | 'complained'>): Promise<void> {
  const m = messageOf(team, { recipients: outcomes.map((_, i) => recipient(`r${i}@dest.test`)) });
  const ids = await record(store, m);
  await support.backdateMessage(m.id, createdAt);
  for (const [i, outcome] of outcomes.entries()) await support.forceRecipientOutcome(ids[i]!, outcome === 'bounced' ? 'bounced' : 'sent', outcome === 'complained');
}

const suspension = (before: Team, after: Team): NewAuditEntry => ({
  operatorId: null,
  operatorEmail: 'ternmail CLI (root)',
  action: after.status === 'suspended' ? 'tenant.suspend' : 'tenant.reactivate',
  target: { kind: 'tenant', id: String(after.id) },
  before: { status: before.status },
  after: { status: after.status },
  reason: 'checked',
  at: at(0),
});

export const adminTeamChecks: ContractCheck[] = [
  check('live tenants are listed by id, each filter given narrowing the list, with the total of what matches', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const acme = await accountOf(store, 0, 'Acme Mail');
    const globex = await accountOf(store, 0, 'Globex');
    const sales = await teamOf(store, acme, 'ACME sales');
    const gone = await teamOf(store, acme, 'Acme old');
    const ops = await teamOf(store, globex, '100%_ops');
    await support.deleteTeam(gone.id);
    await store.adminTeams.changeStatus(sales.id, 'suspended', { reason: 'spam' }, suspension);
    const ids = async (filter: Parameters<Store['adminTeams']['list']>[0], page = PAGE) => {
      const listed = await store.adminTeams.list(filter, page);
      return { ids: listed.rows.map((r) => r.id), total: listed.total };
    };
    t.same(await ids({}), { ids: [acme.id, globex.id, sales.id, ops.id], total: 4 }, 'a removed team is not listed');
    t.same(await ids({ kind: 'account' }), { ids: [acme.id, globex.id], total: 2 });
    t.same(await ids({ kind: 'team' }), { ids: [sales.id, ops.id], total: 2 });
    t.same(await ids({ parentId: acme.id }), { ids: [sales.id], total: 1 });
    t.same(await ids({ status: 'suspended' }), { ids: [sales.id], total: 1 });
    t.same(await ids({ status: 'active', kind: 'team' }), { ids: [ops.id], total: 1 });
    t.same(await ids({ search: 'acme' }), { ids: [acme.id, sales.id], total: 2 }, 'part of the name, any ASCII case');
    t.same(await ids({ search: '%_' }), { ids: [ops.id], total: 1 }, 'wildcards are matched literally');
    t.same(await ids({ search: '_' }), { ids: [ops.id], total: 1 });
    t.same(await ids({}, { page: 2, perPage: 3 }), { ids: [ops.id], total: 4 });
    t.match((await store.adminTeams.list({ parentId: acme.id }, PAGE)).rows[0], { name: 'ACME sales', status: 'suspended', parentId: acme.id });
  }),

  check('sending counts sum the sent, bounced and complained recipients of a tenant from a day on; a tenant that sent nothing is absent', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const quiet = await accountOf(store);
    const team = await teamOf(store, ada);
    await sendingAt(store, support, ada, at(1), ['sent', 'sent', 'bounced']);
    await sendingAt(store, support, ada, at(30), ['sent', 'complained']);
    await sendingAt(store, support, team, at(30), ['bounced']);
    await sendingAt(store, support, bob, at(50), ['sent']);
    await record(store, messageOf(bob, { recipients: [recipient('pending@dest.test'), recipient('s@dest.test', 'suppressed'), recipient('f@dest.test', 'failed')] }));
    const counts = await store.adminTeams.sendingCounts([ada.id, bob.id, quiet.id, team.id], '2024-01-10');
    t.same(
      [...counts.entries()].sort(([a], [b]) => a - b),
      [
        [ada.id, { sent: 3, bounced: 1, complained: 1 }],
        [bob.id, { sent: 1, bounced: 0, complained: 0 }],
        [team.id, { sent: 0, bounced: 1, complained: 0 }],
      ].map(([id, c]) => [id, { teamId: id, ...(c as object) }]),
      "each tenant's own, pending, suppressed and failed left out",
    );
    t.same(
      [...(await store.adminTeams.sendingCounts([ada.id], '2024-01-11')).values()],
      [{ teamId: ada.id, sent: 1, bounced: 0, complained: 1 }],
      'from the day given on',
    );
    t.same((await store.adminTeams.sendingCounts([], '2024-01-10')).size, 0);
  }),

  check('the ranking puts the largest volume first, then by id, every live tenant in it, with the total', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const cid = await accountOf(store);
    const dan = await accountOf(store);
    await sendingAt(store, support, bob, at(1), ['sent', 'bounced', 'complained']);
    await sendingAt(store, support, dan, at(1), ['sent', 'sent', 'sent']);
    await sendingAt(store, support, cid, at(1), ['sent']);
    await sendingAt(store, support, ada, '2024-01-01T00:00:00.000Z', ['sent', 'sent', 'sent', 'sent', 'sent']);
    const ranking = await store.adminTeams.sendingRanking('2024-01-10', PAGE);
    t.same(ranking, {
      rows: [
        { teamId: bob.id, sent: 1, bounced: 1, complained: 1 },
        { teamId: dan.id, sent: 3, bounced: 0, complained: 0 },
        { teamId: cid.id, sent: 1, bounced: 0, complained: 0 },
        { teamId: ada.id, sent: 0, bounced: 0, complained: 0 },
      ],
      total: 4,
    });
    t.same((await store.adminTeams.sendingRanking('2024-01-01', { page: 1, perPage: 1 })).rows, [{ teamId: ada.id, sent: 5, bounced: 0, complained: 0 }]);
    t.same(
      (await store.adminTeams.sendingRanking('2024-01-10', { page: 2, perPage: 3 })).rows.map((r) => r.teamId),
      [ada.id],
    );
  }),

  check("a tenant's queue is grouped by destination domain, the most first, with its states and oldest time, at most as many as asked", async (t, engine) => {
    const { store, support } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const before = Date.now();
    const ids = await record(
      store,
      messageOf(ada, {
        recipients: ['a@big.test', 'b@big.test', 'c@big.test', 'd@small.test', 'e@also.test', 'f@also.test']
          .map((e) => recipient(e))
          .concat(recipient('s@big.test', 'suppressed')),
      }),
    );
    const after = Date.now();
    await record(store, messageOf(bob, { recipients: [recipient('x@small.test'), recipient('y@small.test'), recipient('z@small.test')] }));
    await support.forceRecipientInFlight(ids[1]!, 'sending', '', at(1));
    await support.forceRecipientInFlight(ids[2]!, 'deferred', '451 later', at(1));
    await support.forceRecipientOutcome(ids[5]!, 'sent', false);
    const queue = await store.adminTeams.queueByDestination(ada.id, 10);
    t.match(queue, [
      { domain: 'big.test', queued: 1, sending: 1, deferred: 1 },
      { domain: 'also.test', queued: 1, sending: 0, deferred: 0 },
      { domain: 'small.test', queued: 1, sending: 0, deferred: 0 },
    ]);
    t.equal(queue.length, 3, "finished recipients and another tenant's are left out");
    t.ok(
      queue.every((d) => d.oldestQueuedAt >= before && d.oldestQueuedAt <= after),
      'when they were queued, in epoch ms',
    );
    t.same(
      (await store.adminTeams.queueByDestination(ada.id, 2)).map((d) => d.domain),
      ['big.test', 'also.test'],
      'ties by domain name',
    );
    t.same(await store.adminTeams.queueByDestination(ada.id + 100, 10), []);
  }),

  check("a tenant's last errors are its deferred and failed recipients' replies, newest first, at most as many as asked", async (t, engine) => {
    const { store, support } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const failedMessage = messageOf(ada, { recipients: [recipient('f@dest.test', 'failed')] });
    await record(store, failedMessage);
    const [slow, later, quiet] = await record(store, messageOf(ada, { recipients: [recipient('slow@one.test'), recipient('later@two.test'), recipient('q@one.test')] }));
    const [others] = await record(store, messageOf(bob, { recipients: [recipient('b@dest.test')] }));
    const soon = new Date(Date.now() + 60_000).toISOString();
    const sooner = new Date(Date.now() + 30_000).toISOString();
    await support.forceRecipientInFlight(slow!, 'deferred', '451 4.7.1 greylisted', sooner);
    await support.forceRecipientInFlight(later!, 'deferred', '421 busy', soon);
    await support.forceRecipientInFlight(quiet!, 'sending', '', soon);
    await support.forceRecipientInFlight(others!, 'deferred', '451 not this tenant', soon);
    const errors = await store.adminTeams.lastErrors(ada.id, 10);
    t.match(errors, [
      { email: 'later@two.test', domain: 'two.test', state: 'deferred', reply: '421 busy', attempts: 1, at: soon },
      { email: 'slow@one.test', domain: 'one.test', state: 'deferred', reply: '451 4.7.1 greylisted', attempts: 1, at: sooner },
      { messageId: failedMessage.id, email: 'f@dest.test', state: 'failed', reply: 'not sent: failed', attempts: 0 },
    ]);
    t.equal(errors.length, 3, "a recipient in flight without a reply and another tenant's are left out");
    t.same(
      (await store.adminTeams.lastErrors(ada.id, 1)).map((e) => e.email),
      ['later@two.test'],
    );
  }),

  check("the platform's suspension and reactivation are committed with their audit entry, or neither is", async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await accountOf(store);
    const suspended = await store.adminTeams.changeStatus(ada.id, 'suspended', { reason: 'complaints' }, suspension);
    t.match(suspended, { ok: true, team: { id: ada.id, status: 'suspended', suspendedBy: 'platform', suspension: { by: 'platform', reason: 'complaints' } } });
    t.match(await store.teams.changeStatus(ada.id, 'active', 'account'), { ok: false, refusal: 'suspended_by_platform' }, 'the account cannot lift it');
    const audit = await store.auditLog.list({ targetKind: 'tenant', targetId: String(ada.id) }, PAGE);
    t.match(audit.rows, [{ action: 'tenant.suspend', before: { status: 'active' }, after: { status: 'suspended' } }]);

    const failing = () => {
      throw new Error('the audit entry could not be made');
    };
    await t.rejects(store.adminTeams.changeStatus(ada.id, 'active', undefined, failing));
    t.equal((await store.teams.get(ada.id))?.status, 'suspended', 'no change without its entry');
    t.match(await store.adminTeams.changeStatus(ada.id, 'active', undefined, suspension), { ok: true, team: { status: 'active', suspension: null } });
    t.equal((await store.auditLog.list({ targetKind: 'tenant', targetId: String(ada.id) }, PAGE)).total, 2);
    t.same(await store.adminTeams.changeStatus(ada.id + 100, 'suspended', undefined, suspension), { ok: false, refusal: 'not_found' });
  }),
];
