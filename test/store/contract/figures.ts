// The figures follow every write that creates or moves a recipient, through the interfaces alone: the intake's
// insert, a delivery result, a bounce or complaint report, an operator's purge and requeue. Each figure reads
// its own counter (whole days, whole hours, every team's days, the log's status filter) or the recipients
// themselves (the parts of an hour no counter holds), and all of them must tell the same counts. Which status a
// recipient counts in is domain/figures.ts's rule; the engine only keeps the counts it is asked to move.
import type { Test } from 'tap';
import type { Store } from '../../../shared/store/index.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { Team } from '../../../shared/domain/team.js';
import { MESSAGE_STATUSES } from '../../../shared/domain/queue-state.js';
import { finishAlone } from '../../../shared/queue/finish.js';
import { recordBounce, recordComplaint } from '../../../shared/queue/effects.js';
import { hold, purge, release, requeue } from '../../../shared/queue/operator-moves.js';
import { DisposableFilter } from '../../../shared/intake/disposable.js';
import { attemptResult as result, leasedMessage as leased, accountOf, check, messageOf, record, recipient, type ContractCheck } from './fixtures.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Whole UTC days around now: read from the day counters (by status, by domain, every team's) and the hour counters. */
function wholeDays(): { from: string; to: string } {
  const today = Math.floor(Date.now() / DAY) * DAY;
  return { from: iso(today - DAY), to: iso(today + 2 * DAY - 1) };
}

const flat = (counts: ReadonlyArray<{ status: string; n: number }>): string[] => {
  const sums = new Map<string, number>();
  for (const c of counts) sums.set(c.status, (sums.get(c.status) ?? 0) + c.n);
  return [...sums]
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${status}:${n}`)
    .sort();
};

/**
 * The team's figures as every read gives them; fails the test when two reads disagree. `since` bounds a read of
 * the parts of hours (from the recipients themselves) to the test's own messages.
 */
async function figures(t: Test, store: Store, team: Team, since: number): Promise<string[]> {
  const days = wholeDays();
  const byStatus = flat(await store.statistics.countByStatus(team.id, days));
  const reads: Array<[string, string[]]> = [
    ['by hour (hour counters)', flat(await store.statistics.countOverTime(team.id, { ...days, grain: 'hour' }))],
    ['by domain (day counters)', flat(await store.statistics.countByDomain(team.id, days))],
    ["every tenant's days", flat(await store.platformStatistics.messagesByDay(days.from.slice(0, 10), days.to.slice(0, 10)))],
    ['parts of hours (the recipients)', flat(await store.statistics.countByStatus(team.id, { from: iso(since - 1), to: iso(Date.now() + 1) }))],
  ];
  for (const [name, counts] of reads) t.same(counts, byStatus, `${name}: the same counts as the day counters`);
  for (const status of MESSAGE_STATUSES) {
    const listed = await store.messages.list(team.id, { page: 1, perPage: 50, status, searchCountLimit: 1000 });
    t.equal(
      listed.total > 0,
      byStatus.some((c) => c.startsWith(`${status}:`)),
      `the log lists a message as ${status} exactly when a figure counts one`,
    );
    // Every message here has the subject Hello: a search with the status finds the same ones (PostgreSQL finds the
    // status through the search index, from what the status updates wrote with the message).
    const searched = await store.messages.list(team.id, { page: 1, perPage: 50, status, search: 'hello', searchCountLimit: 1000 });
    t.same(
      searched.rows.map((r) => r.id),
      listed.rows.map((r) => r.id),
      `a search with status ${status} finds the messages the status alone lists`,
    );
  }
  return byStatus;
}

const audit = (changed: number): NewAuditEntry => ({
  operatorId: null,
  operatorEmail: 'contract',
  action: 'queue.purge',
  target: { kind: 'queue', id: 'all' },
  before: null,
  after: { changed },
  reason: '',
  at: new Date().toISOString(),
});

export const figureChecks: ContractCheck[] = [
  check("a new message's recipients count as pending, suppressed or failed as the intake put them", async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const since = Date.now();
    await record(
      store,
      messageOf(team, {
        recipients: [recipient('a@dest.test'), recipient('b@dest.test'), recipient('c@dest.test', 'suppressed'), recipient('d@throwaway.test', 'failed')],
      }),
    );
    t.same(await figures(t, store, team, since), ['failed:1', 'pending:2', 'suppressed:1']);
  }),

  check('figures follow delivery results, then bounce and complaint reports about delivered recipients', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const since = Date.now();
    const { ids } = await leased(store, team, ['a@dest.test', 'b@dest.test', 'c@dest.test', 'd@dest.test', 'e@dest.test'], 'lease-1');
    const [a, b, c, d, e] = ids as [number, number, number, number, number];
    t.same(await figures(t, store, team, since), ['pending:5'], 'being sent is pending');
    await finishAlone(store.transaction, [
      result(a, 'lease-1', 'sent'),
      result(b, 'lease-1', 'bounced', { hard: true }),
      result(c, 'lease-1', 'deferred'),
      result(d, 'lease-1', 'failed'),
      result(e, 'lease-1', 'sent'),
    ]);
    t.same(await figures(t, store, team, since), ['bounced:1', 'failed:1', 'pending:1', 'sent:2'], 'a deferral stays pending');
    await recordBounce(store.transaction, { recipientId: e, hard: true, reason: 'a late bounce', source: 'report' });
    t.same(await figures(t, store, team, since), ['bounced:2', 'failed:1', 'pending:1', 'sent:1'], 'a bounce report after a 250');
    await recordComplaint(store.transaction, { recipientId: a, reason: 'abuse' });
    t.same(await figures(t, store, team, since), ['bounced:2', 'complained:1', 'failed:1', 'pending:1'], 'a complaint counts the recipient as complained');
    await recordComplaint(store.transaction, { recipientId: a, reason: 'abuse again' });
    await recordComplaint(store.transaction, { recipientId: e, reason: 'abuse after a bounce' });
    t.same(
      await figures(t, store, team, since),
      ['bounced:1', 'complained:2', 'failed:1', 'pending:1'],
      'a repeated complaint counts once; a bounced one becomes complained',
    );
  }),

  check('a stale or repeated result moves no figure', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const since = Date.now();
    const { ids } = await leased(store, team, ['a@dest.test'], 'lease-1');
    await finishAlone(store.transaction, [result(ids[0]!, 'lease-1', 'sent')]);
    const repeated = await finishAlone(store.transaction, [result(ids[0]!, 'lease-1', 'bounced', { hard: true })]);
    t.equal(repeated.refused.length, 1, 'refused');
    t.same(await figures(t, store, team, since), ['sent:1']);
  }),

  check("an operator's purge counts recipients as failed, a requeue as pending again", async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const since = Date.now();
    const { messageId, ids } = await leased(store, team, ['a@dest.test', 'b@dest.test', 'c@dest.test'], 'lease-1');
    await finishAlone(store.transaction, [result(ids[2]!, 'lease-1', 'bounced', { hard: false })]);
    await store.queue.release(
      ids.slice(0, 2).map((id) => ({ id, leaseToken: 'lease-1' })),
      Date.now(),
    );
    await hold(store.transaction, { messageId }, Date.now(), audit);
    t.same(await figures(t, store, team, since), ['bounced:1', 'pending:2'], 'released and held recipients are pending');
    await purge(store.transaction, { messageId }, 'purged', false, audit);
    t.same(await figures(t, store, team, since), ['bounced:1', 'failed:2']);
    const made = await requeue(store.transaction, { messageId }, Date.now(), audit, new DisposableFilter([]));
    t.match(made, { ok: true, requeued: [{ id: ids[0] }, { id: ids[1] }, { id: ids[2] }] });
    t.same(await figures(t, store, team, since), ['pending:3'], 'failed and bounced recipients sent again are pending');
  }),

  check("a team's queue depth follows every move in and out of flight: intake, claim, results, hold, release, purge, requeue, reports", async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store, 100, 'Other');
    const depth = () => store.statistics.queueDepth(team.id);
    await record(store, messageOf(team, { recipients: [recipient('s@dest.test', 'suppressed'), recipient('f@dest.test', 'failed')] }));
    t.equal(await depth(), 0, 'recipients recorded as suppressed or failed are not in flight');
    const { messageId, ids } = await leased(store, team, ['a@dest.test', 'b@dest.test', 'c@dest.test', 'd@dest.test'], 'lease-1');
    await record(store, messageOf(other, { recipients: [recipient('x@dest.test')] }));
    t.equal(await depth(), 4, 'claimed recipients are still in flight; another team’s are not counted');
    await finishAlone(store.transaction, [result(ids[0]!, 'lease-1', 'sent'), result(ids[1]!, 'lease-1', 'deferred')]);
    t.equal(await depth(), 3, 'a delivery leaves flight, a deferral does not');
    await store.queue.release([{ id: ids[2]!, leaseToken: 'lease-1' }], Date.now());
    t.equal(await depth(), 3, 'a lease given back stays in flight');
    const held = await hold(store.transaction, { messageId }, Date.now(), audit);
    t.same(
      held.map((h) => h.id),
      [ids[1], ids[2]],
      'the deferred and the released recipients are held; the one being sent is not',
    );
    t.equal(await depth(), 1, 'held recipients wait for an operator, out of flight');
    const released = await release(store.transaction, { messageId }, Date.now(), audit);
    t.equal(released.length, 2);
    t.equal(await depth(), 3, 'released, they are in flight again');
    await purge(store.transaction, { messageId }, 'purged', false, audit);
    t.equal(await depth(), 1, 'purged recipients leave flight; the one being sent is left to its lease');
    await finishAlone(store.transaction, [result(ids[3]!, 'lease-1', 'bounced', { hard: false })]);
    t.equal(await depth(), 0);
    await requeue(store.transaction, { messageId }, Date.now(), audit, new DisposableFilter([]));
    t.equal(await depth(), 3, 'requeued recipients are in flight again (the delivered one is not requeued)');
    await recordBounce(store.transaction, { recipientId: ids[0]!, hard: true, reason: '550 gone', source: 'report' });
    t.equal(await depth(), 3, 'a bounce report about a delivered recipient moves nothing in flight');
    t.equal(await store.platformStatistics.queueDepth(), 4, 'every team’s depth: this team’s three and the other’s one');
  }),
];
