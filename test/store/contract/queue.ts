// The contract of the queue's rows and the unit of work: leases fenced by their token in the write itself (a
// stale token moves nothing, a lease that ran out is taken over, a repeated result is applied once), and each
// effect of a delivery result or a report, decided by the queue module (shared/queue/) and written through the
// engine's row operations alone.
import type { Store } from '../../../shared/store/index.js';
import type { AttemptResult } from '../../../shared/store/queue.js';
import type { Team } from '../../../shared/domain/team.js';
import { finishAlone } from '../../../shared/queue/finish.js';
import { recordBounce, recordComplaint } from '../../../shared/queue/effects.js';
import { refreshStatuses } from '../../../shared/queue/message-status.js';
import { attemptResult, leasedMessage, accountOf, check, domainOf, messageOf, record, recipient, type ContractCheck } from './fixtures.js';

/** A message of `team` to `emails` (through `domainId` when given), its recipients leased now under `token` until `until`. */
/** The ids of a message's recipients, recorded and leased at once (see leasedMessage). */
async function leased(store: Store, team: Team, emails: string[], token: string, o: { domainId?: string; until?: number } = {}): Promise<number[]> {
  return (await leasedMessage(store, team, emails, token, o)).ids;
}

/** A result from a known MX host and address, as the delivery records it. */
const result = (recipientId: number, leaseToken: string, to: AttemptResult['to'], extra: Partial<AttemptResult> = {}): AttemptResult =>
  attemptResult(recipientId, leaseToken, to, { mxHost: 'mx.dest.test', ip: '192.0.2.1', ...extra });

const move = (id: number, leaseToken: string) => ({ id, leaseToken, to: 'sent' as const, reply: '250 ok', reason: '', nextAttemptAt: null, hardBounce: null });

export const queueChecks: ContractCheck[] = [
  check('a move under a token that no longer holds the lease moves nothing; the holder moves it once', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const now = Date.now();
    const [id] = await leased(store, team, ['bob@dest.test'], 'lease-old', { until: now + 1 });
    t.same(await store.queue.claim([id!], now + 10, now + 60_000, 'lease-new').then((c) => c.map((r) => r.leaseToken)), ['lease-new'], 'the lease ran out: taken over');
    t.same(await store.transaction((tx) => tx.recipients.moveIfLeased([move(id!, 'lease-old')])), [], 'the old token moves nothing');
    t.same(await store.transaction((tx) => tx.recipients.leasesOf([id!])), [{ id: id!, state: 'sending', leaseToken: 'lease-new' }]);
    t.match(await store.transaction((tx) => tx.recipients.moveIfLeased([move(id!, 'lease-new')])), [{ id: id!, teamId: team.id, email: 'bob@dest.test' }]);
    t.same(await store.transaction((tx) => tx.recipients.moveIfLeased([move(id!, 'lease-new')])), [], 'a lease moves once');
  }),

  check('a lease still running is not taken over; one that ran out is, and the new token fences out the old', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const now = Date.now();
    const [id] = await leased(store, team, ['bob@dest.test'], 'lease-1', { until: now + 1000 });
    t.same(await store.queue.claim([id!], now + 500, now + 60_000, 'lease-2'), [], 'running: not claimed');
    t.same(await store.queue.overdue(now + 2000, 10), [{ id: id!, due: now + 1000 }], 'overdue once its lease ran out');
    const [taken] = await store.queue.claim([id!], now + 1000, now + 60_000, 'lease-2');
    t.match(taken, { id, leaseToken: 'lease-2', email: 'bob@dest.test', teamId: team.id });
    const late = await finishAlone(store.transaction, [result(id!, 'lease-1', 'bounced', { hard: true })]);
    t.same(
      late.refused,
      [{ result: result(id!, 'lease-1', 'bounced', { hard: true }), currentToken: 'lease-2', currentState: 'sending' }],
      'the late result is refused, naming the holder',
    );
    t.equal(await store.suppressions.get(team.id, 'bob@dest.test'), undefined, 'and takes none of its effects');
    t.same((await finishAlone(store.transaction, [result(id!, 'lease-2', 'sent')])).refused, []);
  }),

  check('a release under a stale token leaves the recipient alone; the holder releases it, due at once', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const now = Date.now();
    const [id] = await leased(store, team, ['bob@dest.test'], 'lease-1', { until: now + 1 });
    await store.queue.claim([id!], now + 10, now + 60_000, 'lease-2');
    t.same(await store.queue.release([{ id: id!, leaseToken: 'lease-1' }], now), [], 'refused');
    t.same(await store.queue.release([{ id: id!, leaseToken: 'lease-2' }], now + 20), [id]);
    t.same(await store.queue.inFlight(), [{ id: id!, due: now + 20 }]);
    t.same(await store.queue.release([{ id: id!, leaseToken: 'lease-2' }], now + 30), [], 'a released lease is released once');
    t.same(await store.queue.countInFlight(), { queued: 0, sending: 0, deferred: 1, held: 0 });
  }),

  check('inFlightOf answers the asked recipients still in flight with their due times, and none that left the queue', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store, 10);
    const now = Date.now();
    const [leasedId, sentId, waitingId] = await leased(store, team, ['bob@dest.test', 'ann@dest.test', 'cy@dest.test'], 'lease-1', { until: now + 5_000 });
    await store.queue.release([{ id: waitingId!, leaseToken: 'lease-1' }], now + 7);
    await finishAlone(store.transaction, [result(sentId!, 'lease-1', 'sent')]);
    t.same(await store.queue.inFlightOf([waitingId!, sentId!, leasedId!, 999_999]), [
      { id: leasedId!, due: now + 5_000 },
      { id: waitingId!, due: now + 7 },
    ]);
    t.same(await store.queue.inFlightOf([]), []);
  }),

  check('a result repeated under the same token is applied once: one attempt, one event, one refund', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store, 10);
    const [bounced, expired] = await leased(store, team, ['bob@dest.test', 'ann@dest.test'], 'lease-1');
    const bounce = result(bounced!, 'lease-1', 'bounced', { hard: true });
    const expiry = result(expired!, 'lease-1', 'failed');
    const first = await finishAlone(store.transaction, [bounce, bounce, expiry]);
    t.same(
      first.refused.map((r) => r.result),
      [bounce],
      'the repeat in the same batch is refused',
    );
    const again = await finishAlone(store.transaction, [bounce, expiry]);
    t.same(
      again.refused.map((r) => [r.result.recipientId, r.currentState]),
      [
        [bounced, 'bounced'],
        [expired, 'failed'],
      ],
      'and so is a repeat later',
    );
    const messageId = first.bounces[0]!.applied.messageId;
    t.equal((await store.messages.attemptsOf(messageId)).length, 2, 'one attempt each');
    t.equal((await store.feedback.eventsOf(messageId)).length, 2, 'one event each');
    t.equal((await store.teams.get(team.id))!.creditBalance, 9, 'the expired one refunded once');
  }),

  check('a delivery is kept as an attempt and counted for its domain and team; it adds no event', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const domain = await domainOf(store, team, 'one.test');
    const [id] = await leased(store, team, ['bob@dest.test'], 'lease-1', { domainId: domain.id });
    const outcome = await finishAlone(store.transaction, [result(id!, 'lease-1', 'sent', { reply: '250 2.0.0 ok' })]);
    t.equal(outcome.finished.length, 1, 'the message is finished');
    const messageId = outcome.finished[0]!;
    t.match(await store.messages.recipientsOf(messageId), [{ id, state: 'sent', attempts: 1, lastReply: '250 2.0.0 ok', reason: '' }]);
    t.match(await store.messages.attemptsOf(messageId), [{ recipientId: id, mxHost: 'mx.dest.test', outcome: 'delivered' }]);
    t.match(await store.domains.get(domain.id), { totalSent: 1, totalBounced: 0 }, "the domain's counter");
    const day = { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 86_400_000).toISOString() };
    t.same(await store.statistics.countByStatus(team.id, day), [{ status: 'sent', n: 1 }], "the team's figures");
    t.same(await store.feedback.eventsOf(messageId), []);
  }),

  check('a hard bounce suppresses the address, counts for the domain and adds a bounce event; a soft one suppresses nothing', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const domain = await domainOf(store, team, 'one.test');
    const [hard, soft] = await leased(store, team, ['bob@dest.test', 'ann@dest.test'], 'lease-1', { domainId: domain.id });
    const outcome = await finishAlone(store.transaction, [
      result(hard!, 'lease-1', 'bounced', { hard: true, reply: '550 5.1.1 no such user' }),
      result(soft!, 'lease-1', 'bounced', { hard: false, reply: '554 5.7.1 refused' }),
    ]);
    t.match(
      outcome.bounces.map((b) => [b.input, b.applied.suppressed]),
      [
        [{ recipientId: hard, hard: true, source: 'smtp' }, true],
        [{ recipientId: soft, hard: false, source: 'smtp' }, false],
      ],
    );
    t.match(await store.suppressions.get(team.id, 'bob@dest.test'), { status: 'bounced', reason: '550 5.1.1 no such user' });
    t.equal(await store.suppressions.get(team.id, 'ann@dest.test'), undefined);
    const messageId = outcome.bounces[0]!.applied.messageId;
    t.match(await store.feedback.eventsOf(messageId), [
      { type: 'bounced', email: 'bob@dest.test', isHardBounce: true, state: 'pending' },
      { type: 'bounced', email: 'ann@dest.test', isHardBounce: false, state: 'pending' },
    ]);
    t.match(await store.domains.get(domain.id), { totalSent: 0, totalBounced: 2 });
  }),

  check('a recipient that expires is refunded and reported as a soft bounce, never suppressed; a deferral changes neither', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store, 10);
    const [expired, deferred] = await leased(store, team, ['bob@dest.test', 'ann@dest.test'], 'lease-1');
    t.equal((await store.teams.get(team.id))!.creditBalance, 8);
    const outcome = await finishAlone(store.transaction, [result(expired!, 'lease-1', 'failed', { reply: 'expired' }), result(deferred!, 'lease-1', 'deferred')]);
    t.match(outcome.bounces, [{ input: { recipientId: expired, hard: false, source: 'expiry' }, applied: { suppressed: false } }]);
    t.equal((await store.teams.get(team.id))!.creditBalance, 9, 'one credit back');
    t.equal(await store.suppressions.get(team.id, 'bob@dest.test'), undefined);
    t.same(outcome.finished, [], 'a deferred recipient keeps the message in flight');
  }),

  check('a bounce report after a delivery moves it to bounced and counts it once; one about a recipient in flight changes nothing', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const domain = await domainOf(store, team, 'one.test');
    const [sent, busy] = await leased(store, team, ['bob@dest.test', 'ann@dest.test'], 'lease-1', { domainId: domain.id });
    await finishAlone(store.transaction, [result(sent!, 'lease-1', 'sent')]);
    const applied = await recordBounce(store.transaction, { recipientId: sent!, hard: true, reason: '5.1.1 (DSN)', source: 'report' });
    t.match(applied, { teamId: team.id, email: 'bob@dest.test', suppressed: true });
    t.match(await store.domains.get(domain.id), { totalSent: 1, totalBounced: 1 });
    await recordBounce(store.transaction, { recipientId: sent!, hard: true, reason: 'again', source: 'report' });
    t.match(await store.domains.get(domain.id), { totalBounced: 1 }, 'a repeated report counts nothing');
    t.equal(await recordBounce(store.transaction, { recipientId: busy!, hard: true, reason: 'x', source: 'report' }), null);
  }),

  check('a complaint counts once for the domain, suppresses the address and adds one complaint event', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const domain = await domainOf(store, team, 'one.test');
    const [id] = await leased(store, team, ['bob@dest.test'], 'lease-1', { domainId: domain.id });
    await finishAlone(store.transaction, [result(id!, 'lease-1', 'sent')]);
    const first = await recordComplaint(store.transaction, { recipientId: id!, reason: 'abuse' });
    const second = await recordComplaint(store.transaction, { recipientId: id!, reason: 'abuse again' });
    t.type(first?.eventId, 'number');
    t.equal(second?.eventId, null);
    t.match(await store.domains.get(domain.id), { totalSent: 1, totalComplained: 1 });
    t.match(await store.suppressions.get(team.id, 'bob@dest.test'), { status: 'complained' });
  }),

  check('claims of the same recipients made at the same moment by several workers take each recipient once', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const message = messageOf(team, { recipients: Array.from({ length: 24 }, (_, i) => recipient(`r${i}@dest.test`)) });
    const ids = await record(store, message);
    const now = Date.now();
    const tokens = ['worker-a', 'worker-b', 'worker-c', 'worker-d'];
    const claims = await Promise.all(tokens.map((token) => store.queue.claim(ids, now, now + 60_000, token)));
    const taken = claims.flat();
    t.same(
      taken.map((r) => r.id).sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
      'every recipient taken once, none twice',
    );
    const leases = await store.transaction((tx) => tx.recipients.leasesOf(ids));
    const tokenOf = new Map(leases.map((l) => [l.id, l.leaseToken]));
    t.ok(
      taken.every((r) => tokenOf.get(r.id) === r.leaseToken),
      'each held under the token of the claim that took it',
    );
  }),

  check('two transactions moving two recipients of one message at the same moment leave its status as both moves make it', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const { messageId, ids } = await leasedMessage(store, team, ['bob@dest.test', 'ann@dest.test'], 'lease-1');
    // Each transaction moves its recipient, then waits (a little, at most: an engine with one writer runs them one
    // after the other) for the other to have moved its own before deriving the message's status from both.
    const done: Array<() => void> = [];
    const moved = ids.map(() => new Promise<void>((resolve) => done.push(resolve)));
    const meet = () => Promise.race([Promise.all(moved), new Promise((resolve) => setTimeout(resolve, 300))]);
    await Promise.all(
      ids.map((id, i) =>
        store.transaction(async (tx) => {
          await tx.recipients.moveIfLeased([move(id, 'lease-1')]);
          done[i]!();
          await meet();
          await refreshStatuses(tx, [messageId]);
        }),
      ),
    );
    t.equal((await store.messages.get(messageId))?.status, 'sent', 'each derivation saw the other’s move');
  }),

  check('results for different recipients of one message recorded at the same moment leave the message as both of them say', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    for (let round = 0; round < 5; round++) {
      const { messageId, ids } = await leasedMessage(store, team, ['bob@dest.test', 'ann@dest.test'], `lease-${round}`);
      const outcomes = await Promise.all(ids.map((id) => finishAlone(store.transaction, [result(id, `lease-${round}`, 'sent')])));
      t.same(
        outcomes.flatMap((o) => o.refused),
        [],
        'both results applied',
      );
      t.equal((await store.messages.get(messageId))?.status, 'sent', `round ${round}: the message is sent`);
      t.equal(await store.messages.body(messageId), undefined, `round ${round}: its body is dropped`);
    }
  }),
];
