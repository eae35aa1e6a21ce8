// The queue module against a real redis-server and a real SQLite file, with two workers (each its own store
// connections, Redis connection and log, as two MTA processes would have): leases are fenced by their token,
// so a worker whose lease ran out can neither record a result nor release over the worker that took it over.
import t, { type Test } from 'tap';
import { newMessage, recordMessage } from './helpers/new-message.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { Store } from '../shared/store/index.js';
import { openTestStore } from './harness/test-engine.js';
import { Queue, type AttemptResult, type DueRecipient } from '../shared/queue/queue.js';
import { redisKeys } from '../shared/redis-keys.js';
import { startRedis, type TestRedis } from './helpers/redis.js';

interface Worker {
  store: Store;
  queue: Queue;
  /** What the worker logged, parsed. */
  logged: Array<Record<string, unknown>>;
}

const redisServer: Promise<TestRedis> = startRedis();
t.teardown(async () => (await redisServer).stop());

/** A fresh database and an empty Redis, shared by two workers. */
async function twoWorkers(t: Test): Promise<{ a: Worker; b: Worker; redis: Redis; teamId: number; domainId: string }> {
  const server = await redisServer;
  const redis = new Redis(server.url);
  await redis.flushall();
  const dir = mkdtempSync(join(tmpdir(), 'tern-queue-'));
  const worker = async (): Promise<Worker> => {
    const store = await openTestStore(dir);
    const connection = new Redis(server.url);
    const logged: Worker['logged'] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
    t.teardown(async () => {
      connection.disconnect();
      await store.close();
    });
    return { store, queue: new Queue(store, connection, log), logged };
  };
  const a = await worker();
  const b = await worker();
  t.teardown(() => {
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });
  const team = await a.store.teams.createAccount({ name: 'a', credits: 100, limitPerSecond: 10, planType: 'free', backendRegion: 'eu' });
  const domain = await a.store.domains.create({ teamId: team.id, name: 'one.test', dkimSelector: 'tern', dkimPublicKey: 'pub', dkimPrivateKeyEnc: 'enc' });
  if (domain === 'exists') throw new Error('a fresh database has no domain');
  return { a, b, redis, teamId: team.id, domainId: domain.id };
}

/** Records a one-recipient message as the intake does (SQLite first, then the queue) and answers the recipient's id. */
async function queued(w: Worker, teamId: number, domainId: string, id: string): Promise<number> {
  const recipients = [{ email: 'bob@dest.test', name: '', kind: 'to' as const, domain: 'dest.test', state: 'queued' as const, reason: '' }];
  const due = await recordMessage(w.store, newMessage({ id, teamId, domainId, recipients }));
  if (due === 'insufficient_balance') throw new Error('the account can pay');
  await w.queue.enqueue(id, due);
  return due[0]!.id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A claims with a lease of 50 ms and lets it run out; B claims it with a lease of a minute, without a sweep. */
async function takenOver(t: Test, a: Worker, b: Worker): Promise<{ leaseA: DueRecipient; leaseB: DueRecipient }> {
  const [leaseA] = await a.queue.claim(10, 50);
  t.ok(leaseA, 'A claims the recipient');
  t.same(await b.queue.claim(10, 60_000), [], 'B finds nothing due while the lease runs');
  await sleep(80);
  const [leaseB] = await b.queue.claim(10, 60_000);
  t.ok(leaseB, "B claims it as soon as A's lease has run out: the claim put it on the schedule at the lease's end");
  t.not(leaseB!.leaseToken, leaseA!.leaseToken, 'under a token of its own');
  return { leaseA: leaseA!, leaseB: leaseB! };
}

const result = (lease: DueRecipient, to: AttemptResult['to'], reply: string, extra: Partial<AttemptResult> = {}): AttemptResult => ({
  recipientId: lease.id,
  leaseToken: lease.leaseToken,
  to,
  reply,
  mxHost: 'mx.dest.test',
  ip: '127.0.0.1',
  ...extra,
});

const warnings = (w: Worker) => w.logged.filter((l) => l.level === 40);

t.test('a worker whose lease ran out has its late result refused and logged, and the result of the worker that took over stands', async (t) => {
  const { a, b, teamId, domainId } = await twoWorkers(t);
  const id = await queued(a, teamId, domainId, 'm1');
  const { leaseA, leaseB } = await takenOver(t, a, b);

  const byB = await b.queue.finish([result(leaseB, 'sent', '250 2.0.0 ok')]);
  t.same(byB.refused, [], "B's result is accepted");
  t.same(byB.finished, ['m1']);

  const late = await a.queue.finish([result(leaseA, 'bounced', '550 5.1.1 no such user', { hard: true })]);
  t.same(late.finished, [], 'finishes nothing');
  t.same(late.bounces, [], 'applies no bounce');
  t.equal(late.refused.length, 1, "A's late result is refused");
  t.match(late.refused[0], { currentToken: leaseB.leaseToken, currentState: 'sent' });
  t.match(
    warnings(a),
    [{ rcpt_id: id, lease_token: leaseA.leaseToken, current_lease_token: leaseB.leaseToken, result: 'bounced' }],
    'and logged as a warning with both tokens',
  );

  const [recipient] = await a.store.messages.recipientsOf('m1');
  t.equal(recipient!.state, 'sent', 'the recipient stays sent');
  t.equal(recipient!.attempts, 1);
  t.same(
    (await a.store.messages.attemptsOf('m1')).map((x) => [x.outcome, x.reply]),
    [['delivered', '250 2.0.0 ok']],
    "one attempt row, B's",
  );
  t.equal((await a.store.messages.get('m1'))!.status, 'sent');
  t.equal(await a.store.suppressions.isSuppressed(teamId, 'bob@dest.test'), false, 'the address is not suppressed');
  t.same(await a.store.feedback.pendingEvents(10), [], 'no bounce event');
  t.match(await a.store.domains.get(domainId), { totalSent: 1, totalBounced: 0 }, 'the domain counts one delivery and no bounce');
});

t.test("a release by a worker that lost its lease leaves the new holder's recipient alone", async (t) => {
  const { a, b, teamId, domainId } = await twoWorkers(t);
  const id = await queued(a, teamId, domainId, 'm2');
  const { leaseA, leaseB } = await takenOver(t, a, b);
  const leaseEnd = async () => (await b.store.queue.inFlight()).find((r) => r.id === id)?.due;
  const before = await leaseEnd();

  await a.queue.release([leaseA]);
  t.match(warnings(a), [{ rcpt_ids: [id], lease_tokens: [leaseA.leaseToken] }], 'the refused release is logged');
  const [after] = await b.store.messages.recipientsOf('m2');
  t.equal(after!.state, 'sending', 'still leased');
  t.equal(await leaseEnd(), before, "B's lease is untouched (it ends when it did)");
  t.same((await b.queue.finish([result(leaseB, 'sent', '250 ok')])).refused, [], 'and B still holds it');
  t.equal((await b.store.messages.recipientsOf('m2'))[0]!.state, 'sent');
});

t.test('a worker that still holds its leases releases them, due at once, and its late results are then refused', async (t) => {
  const { a, b, teamId, domainId } = await twoWorkers(t);
  await queued(a, teamId, domainId, 'm3');
  const [lease] = await a.queue.claim(10, 60_000);
  await a.queue.release([lease!]);
  t.same(warnings(a), []);
  const [released] = await a.store.messages.recipientsOf('m3');
  t.match(released, { state: 'deferred' });
  t.ok(released!.nextAttemptAt !== null && released!.nextAttemptAt <= Date.now(), 'due at once');
  t.equal((await a.queue.finish([result(lease!, 'sent', '250 ok')])).refused.length, 1, 'a result after the release is refused');
  await b.queue.rebuild();
  t.equal((await b.queue.claim(10, 60_000)).length, 1, 'the rebuilt schedule hands it to the next worker');
});

t.test('a lease records one result: a repeat of it, in the same batch or later, is refused', async (t) => {
  const { a, teamId, domainId } = await twoWorkers(t);
  await queued(a, teamId, domainId, 'm4');
  const [lease] = await a.queue.claim(10, 60_000);
  const both = await a.queue.finish([result(lease!, 'deferred', '451 later', { nextAttemptAt: Date.now() + 60_000 }), result(lease!, 'sent', '250 ok')]);
  t.equal(both.refused.length, 1, 'the second of two results for one lease is refused');
  t.equal(both.refused[0]!.result.to, 'sent');
  t.equal((await a.queue.finish([result(lease!, 'sent', '250 ok')])).refused.length, 1, 'and so is one after it');
  t.same(
    (await a.store.messages.attemptsOf('m4')).map((x) => x.outcome),
    ['deferred'],
  );
});

t.test('enqueue, from any process, puts the recorded recipients on the schedule and wakes the schedulers', async (t) => {
  const { a, b, redis, teamId, domainId } = await twoWorkers(t);
  let woken = 0;
  const unwatch = await b.queue.watch(() => woken++);
  t.teardown(unwatch);
  const id = await queued(a, teamId, domainId, 'm5');
  t.ok(Number(await redis.zscore(redisKeys.queueDue(), String(id))) <= Date.now(), 'due now on the schedule');
  for (let i = 0; i < 100 && !woken; i++) await sleep(10);
  t.equal(woken, 1, 'the watching scheduler was woken');
  t.equal((await b.queue.claim(10, 60_000))[0]?.id, id, 'and claims it');
});

t.test("a dead worker's lease lost from Redis is found by another worker's sweep once it has run out", async (t) => {
  const { a, b, redis, teamId, domainId } = await twoWorkers(t);
  const id = await queued(a, teamId, domainId, 'm6');
  t.equal((await a.queue.claim(10, 50))[0]?.id, id, 'A claims the recipient');
  await redis.del(redisKeys.queueDue());
  await sleep(80);
  t.same(await b.queue.claim(10, 60_000), [], 'nothing on the schedule: Redis lost it');
  await b.queue.sweep(0);
  t.equal((await b.queue.claim(10, 60_000))[0]?.id, id, 'the sweep put it back and B claims it');
});

t.test('a recorded result takes the recipient off the schedule, and a retry puts it back at its new time', async (t) => {
  const { a, redis, teamId, domainId } = await twoWorkers(t);
  const sentId = await queued(a, teamId, domainId, 'm7');
  const deferredId = await queued(a, teamId, domainId, 'm8');
  const leases = await a.queue.claim(10, 60_000);
  const lease = (id: number) => leases.find((l) => l.id === id)!;
  const entry = async (id: number) => redis.zscore(redisKeys.queueDue(), String(id));
  t.ok(Number(await entry(sentId)) > Date.now() + 50_000, "a claimed recipient waits on the schedule at its lease's end");
  const retryAt = Date.now() + 120_000;
  await a.queue.finish([result(lease(sentId), 'sent', '250 ok'), result(lease(deferredId), 'deferred', '451 later', { nextAttemptAt: retryAt })]);
  t.equal(await entry(sentId), null, 'the delivered one is gone from the schedule');
  t.equal(Number(await entry(deferredId)), retryAt, 'the deferred one is due at its next attempt');
});

t.test("a released lease is due again on the schedule at the next sweep, not at the lease's end", async (t) => {
  const { a, b, teamId, domainId } = await twoWorkers(t);
  const id = await queued(a, teamId, domainId, 'm9');
  const [lease] = await a.queue.claim(10, 600_000);
  await a.queue.release([lease!]);
  await sleep(5);
  t.same(await b.queue.claim(10, 60_000), [], "the schedule still says the lease's end");
  await b.queue.sweep(0);
  t.equal((await b.queue.claim(10, 60_000))[0]?.id, id, 'the sweep moved it forward to its time in the store');
});

t.test('an entry the schedule pops too early (a stale rebuild moved it forward) goes back at the time the store has', async (t) => {
  const { a, b, redis, teamId, domainId } = await twoWorkers(t);
  const entry = async (id: number) => redis.zscore(redisKeys.queueDue(), String(id));
  const deferredId = await queued(a, teamId, domainId, 'm10');
  const leasedId = await queued(a, teamId, domainId, 'm11');
  const leases = await a.queue.claim(10, 60_000);
  const retryAt = Date.now() + 120_000;
  await a.queue.finish([
    result(
      leases.find((l) => l.id === deferredId)!,
      'deferred',
      '451 later',
      { nextAttemptAt: retryAt },
    ),
  ]);
  const leaseEnd = Number(await entry(leasedId));
  // Another worker's rebuild read both before A claimed them, and its 'LT' add lands after: both due now.
  await redis.zadd(redisKeys.queueDue(), 'LT', Date.now() - 1, String(deferredId), Date.now() - 1, String(leasedId));
  t.same(await b.queue.claim(10, 60_000), [], 'B pops both and claims neither: one is not due, one is leased');
  t.equal(Number(await entry(deferredId)), retryAt, 'the deferred one waits again for its next attempt');
  t.equal(Number(await entry(leasedId)), leaseEnd, "the leased one waits again for its lease's end");
});
