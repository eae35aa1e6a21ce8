// The contract of operators' moves of the queue: each is conditional on the recipients' states in its own write,
// so a recipient being sent is left to its lease, and after a move the lease the recipient had is refused for a
// result and a release; each move commits with its audit entry. A purge's and a requeue's effects are decided by
// the queue module (shared/queue/operator-moves.ts) and written through the engine's row operations alone.
import type { Store } from '../../../shared/store/index.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { QueueOperation } from '../../../shared/domain/queue-state.js';
import { finishAlone } from '../../../shared/queue/finish.js';
import { hold, purge, release, requeue } from '../../../shared/queue/operator-moves.js';
import { DisposableFilter } from '../../../shared/intake/disposable.js';
import { attemptResult as result, leasedMessage as leased, accountOf, check, messageOf, record, recipient, type ContractCheck } from './fixtures.js';

const auditOf =
  (operation: QueueOperation) =>
  (changed: number): NewAuditEntry => ({
    operatorId: null,
    operatorEmail: 'contract',
    action: `queue.${operation}`,
    target: { kind: 'queue', id: 'all' },
    before: null,
    after: { changed },
    reason: '',
    at: new Date().toISOString(),
  });

const noDisposable = new DisposableFilter([]);

/** What a worker holding `token` can still do with the recipient: record a result, or release it. */
async function staleRefused(store: Store, id: number, token: string): Promise<{ finished: boolean; released: boolean }> {
  const finished = (await finishAlone(store.transaction, [result(id, token, 'sent')])).refused.length === 0;
  const released = (await store.queue.release([{ id, leaseToken: token }], Date.now())).length > 0;
  return { finished, released };
}

const REFUSED = { finished: false, released: false };

/** Each operator's move that makes a recipient wait again, applied to the messages' recipients. */
const WAITING_MOVES: Array<[string, (store: Store, messageId: string) => Promise<unknown>]> = [
  ['hold', (store, messageId) => hold(store.transaction, { messageId }, Date.now(), auditOf('hold'))],
  ['flush', (store, messageId) => store.queueControl.flush({ messageId }, Date.now(), auditOf('flush'))],
  [
    'release',
    async (store, messageId) => {
      await hold(store.transaction, { messageId }, Date.now(), auditOf('hold'));
      return release(store.transaction, { messageId }, Date.now(), auditOf('release'));
    },
  ],
  ['purge', (store, messageId) => purge(store.transaction, { messageId }, 'purged', false, auditOf('purge'))],
];

export const queueControlChecks: ContractCheck[] = [
  check('hold, release, flush and purge leave a recipient being sent to its lease; its holder still finishes it', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const { messageId, ids } = await leased(store, team, ['bob@dest.test'], 'lease-1');
    t.same(await hold(store.transaction, { messageId }, Date.now(), auditOf('hold')), []);
    t.same(await release(store.transaction, { messageId }, Date.now(), auditOf('release')), []);
    t.same(await store.queueControl.flush({ messageId }, Date.now(), auditOf('flush')), []);
    t.same((await purge(store.transaction, { messageId }, 'purged', true, auditOf('purge'))).purged, []);
    t.same((await finishAlone(store.transaction, [result(ids[0]!, 'lease-1', 'sent')])).refused, [], 'the lease still holds');
  }),

  ...WAITING_MOVES.map(([name, moveIt]) =>
    check(`after an operator's ${name}, a result and a release under the lease the recipient had are refused`, async (t, engine) => {
      const { store } = await engine.open(t);
      const team = await accountOf(store);
      const { messageId, ids } = await leased(store, team, ['bob@dest.test'], 'lease-1');
      // The worker gave its lease back (a graceful stop): the recipient waits, and the operator moves it.
      t.same(await store.queue.release([{ id: ids[0]!, leaseToken: 'lease-1' }], Date.now()), ids);
      await moveIt(store, messageId);
      t.same(await staleRefused(store, ids[0]!, 'lease-1'), REFUSED);
    }),
  ),

  check("after a requeue, a result and a release under the recipient's last lease are refused; a new claim leases it", async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const { messageId, ids } = await leased(store, team, ['bob@dest.test', 'ann@dest.test'], 'lease-1');
    await finishAlone(store.transaction, [result(ids[0]!, 'lease-1', 'bounced', { hard: false }), result(ids[1]!, 'lease-1', 'deferred', { nextAttemptAt: Date.now() })]);
    const made = await requeue(store.transaction, { messageId }, Date.now(), auditOf('requeue'), noDisposable);
    t.match(made, { ok: true, requeued: [{ id: ids[0], messageId }], suppressed: [], disposable: [] });
    t.same(await staleRefused(store, ids[0]!, 'lease-1'), REFUSED);
    t.match(await store.queue.claim([ids[0]!], Date.now(), Date.now() + 60_000, 'lease-2'), [{ id: ids[0], leaseToken: 'lease-2' }]);
  }),

  check('a purge fails the waiting recipients and refunds them; with notice each is a soft bounce event, never a suppression', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store, 10);
    const quiet = messageOf(team, { recipients: [recipient('a@dest.test')] });
    const loud = messageOf(team, { recipients: [recipient('b@dest.test'), recipient('c@dest.test')] });
    await record(store, quiet);
    const [b] = await record(store, loud);
    t.equal((await store.teams.get(team.id))!.creditBalance, 7);
    const silent = await purge(store.transaction, { messageId: quiet.id }, 'purged by an operator: stop', false, auditOf('purge'));
    t.match(silent, { purged: [{ messageId: quiet.id }], finished: [quiet.id], bounces: [] });
    t.same(await store.feedback.eventsOf(quiet.id), []);
    const notified = await purge(store.transaction, { messageId: loud.id }, 'purged by an operator: stop', true, auditOf('purge'));
    t.match(notified.bounces, [
      { input: { recipientId: b, hard: false, source: 'purge' }, applied: { email: 'b@dest.test', suppressed: false } },
      { input: { hard: false, source: 'purge' }, applied: { email: 'c@dest.test', suppressed: false } },
    ]);
    t.match(await store.feedback.eventsOf(loud.id), [
      { type: 'bounced', isHardBounce: false, reason: 'purged by an operator: stop' },
      { type: 'bounced', isHardBounce: false },
    ]);
    t.equal(await store.suppressions.get(team.id, 'b@dest.test'), undefined);
    t.equal((await store.teams.get(team.id))!.creditBalance, 10, 'every purged recipient refunded');
    t.match(await store.messages.recipientsOf(loud.id), [{ state: 'failed', reason: 'purged by an operator: stop' }, { state: 'failed' }]);
    t.match((await store.auditLog.list({ action: 'queue.purge' }, { page: 1, perPage: 10 })).rows, [{ after: { changed: 2 } }, { after: { changed: 1 } }]);
  }),

  check('a requeue leaves suppressed and disposable addresses alone, as the intake does, and pays for the rest again', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store, 10);
    const emails = ['ok@dest.test', 'listed@dest.test', 'gone@throwaway.test'];
    const { messageId, ids } = await leased(store, team, emails, 'lease-1');
    await finishAlone(
      store.transaction,
      ids.map((id) => result(id, 'lease-1', 'bounced', { hard: false })),
    );
    await store.suppressions.add(team.id, { email: 'listed@dest.test', status: 'suppressed', reason: 'asked', messageId: null });
    t.equal((await store.teams.get(team.id))!.creditBalance, 7);
    const made = await requeue(store.transaction, { messageId }, Date.now(), auditOf('requeue'), new DisposableFilter(['throwaway.test']));
    t.match(made, {
      ok: true,
      requeued: [{ id: ids[0], messageId }],
      suppressed: [{ id: ids[1], email: 'listed@dest.test' }],
      disposable: [{ id: ids[2], email: 'gone@throwaway.test' }],
    });
    t.equal((await store.teams.get(team.id))!.creditBalance, 6, 'the one requeued is paid for again');
    t.match(await store.messages.recipientsOf(messageId), [{ state: 'queued' }, { state: 'bounced' }, { state: 'bounced' }]);
  }),

  check('a requeue the payer cannot afford changes nothing', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store, 2);
    const { messageId, ids } = await leased(store, team, ['a@dest.test', 'b@dest.test'], 'lease-1');
    await finishAlone(
      store.transaction,
      ids.map((id) => result(id, 'lease-1', 'bounced', { hard: false })),
    );
    const made = await requeue(store.transaction, { messageId }, Date.now(), auditOf('requeue'), noDisposable);
    t.same(made, { ok: false, reason: 'insufficient_credits', balance: 0 });
    t.match(await store.messages.recipientsOf(messageId), [{ state: 'bounced' }, { state: 'bounced' }]);
    t.same((await store.auditLog.list({ action: 'queue.requeue' }, { page: 1, perPage: 10 })).rows, [], 'no audit entry either');
  }),

  check('the queue is listed oldest first and chosen by team, destination, state and message, up to a limit', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    const first = messageOf(team, { recipients: [recipient('ann@alpha.test'), recipient('bob@beta.test')] });
    const [ann, bob] = await record(store, first);
    await new Promise((resolve) => setTimeout(resolve, 2));
    const second = messageOf(other, { recipients: [recipient('cat@alpha.test')] });
    const [cat] = await record(store, second);
    await hold(store.transaction, { messageId: first.id, domain: 'beta.test' }, Date.now(), auditOf('hold'));
    t.same(
      (await store.queueControl.listQueued({}, 10)).map((r) => r.id),
      [ann, bob, cat],
      'oldest first',
    );
    t.match(await store.queueControl.listQueued({ teamId: team.id }, 10), [
      { id: ann, messageId: first.id, teamId: team.id, email: 'ann@alpha.test', domain: 'alpha.test', state: 'queued', attempts: 0, heldAt: null },
      { id: bob, domain: 'beta.test', state: 'held', nextAttemptAt: null },
    ]);
    t.ok((await store.queueControl.listQueued({ states: ['held'] }, 10))[0]!.heldAt! > 0, 'a hold says when it began');
    t.same(
      (await store.queueControl.listQueued({ domain: 'alpha.test' }, 10)).map((r) => r.id),
      [ann, cat],
    );
    t.same(
      (await store.queueControl.listQueued({ messageId: second.id }, 10)).map((r) => r.id),
      [cat],
    );
    t.same(
      (await store.queueControl.listQueued({ queuedBefore: 0 }, 10)).map((r) => r.id),
      [],
      'none queued before the epoch',
    );
    t.equal((await store.queueControl.listQueued({}, 2)).length, 2, 'up to the limit');
  }),

  check('the queue is summarised by destination, the most first, counting each state', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const m = messageOf(team, { recipients: ['a1', 'a2', 'a3'].map((l) => recipient(`${l}@alpha.test`)).concat([recipient('b1@beta.test')]) });
    const ids = await record(store, m);
    await hold(store.transaction, { messageId: m.id, domain: 'beta.test' }, Date.now(), auditOf('hold'));
    await store.queue.claim([ids[0]!], Date.now(), Date.now() + 60_000, 'lease-1');
    const summary = await store.queueControl.summarize({});
    t.match(summary, [
      { domain: 'alpha.test', total: 3, queued: 2, sending: 1, deferred: 0, held: 0, lastError: null },
      { domain: 'beta.test', total: 1, queued: 0, sending: 0, deferred: 0, held: 1 },
    ]);
    t.ok(summary[0]!.oldestQueuedAt > 0);
    t.same(await store.queueControl.summarize({ teamId: (await accountOf(store)).id }), [], 'another team has none');
  }),

  check('a finished message’s body kept for requeue is dropped once older than asked, up to a limit', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const { messageId, ids } = await leased(store, team, ['bob@dest.test'], 'lease-1');
    await finishAlone(store.transaction, [result(ids[0]!, 'lease-1', 'bounced', { hard: false })]);
    t.ok(await store.messages.body(messageId), 'a bounced message keeps its body for a requeue');
    t.equal(await store.queueControl.dropKeptBodies(new Date(Date.now() - 60_000).toISOString(), 10), 0, 'kept since after the bound: stays');
    t.equal(await store.queueControl.dropKeptBodies(new Date(Date.now() + 60_000).toISOString(), 0), 0, 'a limit of none drops none');
    t.equal(await store.queueControl.dropKeptBodies(new Date(Date.now() + 60_000).toISOString(), 10), 1);
    t.equal(await store.messages.body(messageId), undefined, 'gone');
  }),
];
