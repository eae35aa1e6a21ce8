// The platform's queue routes over real HTTP (the API with real SQLite and Redis): an operator lists the queue
// and sums it by destination, holds, releases, flushes and purges chosen recipients, each recorded in the audit
// log as the operator's; a change with no selector, a bad selector or an unknown team changes nothing; account
// users, owners included, get 403.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { startHarness, type Harness, type UntypedJson } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { newMessage, recordMessage } from './helpers/new-message.js';
import type { NewRecipient } from '../shared/store/message-log.js';
import { finishAlone } from '../shared/queue/finish.js';

let h: Harness;
let operator: SignedIn;
let operatorEmail: string;
let account: { id: number; key: string };

const ADMIN = '/api/tern/v2/admin';

const recipient = (email: string): NewRecipient => ({ email, name: '', kind: 'to', domain: email.split('@')[1]!, state: 'queued', reason: '' });

/** Three recipients in the queue: one deferred and one never tried at slow.test, one deferred at other.test. */
async function queuedMail(teamId: number): Promise<void> {
  for (const email of ['later@slow.test', 'waiting@slow.test', 'busy@other.test']) {
    await recordMessage(h.rt.store, newMessage({ id: randomUUID(), teamId, domainId: null, recipients: [recipient(email)], cost: 1 }));
  }
  const ids = (await h.rt.store.queue.inFlight()).map((r) => r.id);
  const claimed = await h.rt.store.queue.claim(ids, Date.now(), Date.now() + 60_000, 'admin-queue-test');
  const deferred = claimed.filter((c) => c.email !== 'waiting@slow.test');
  await finishAlone(
    h.rt.store.transaction,
    deferred.map((c) => ({
      recipientId: c.id,
      leaseToken: c.leaseToken,
      to: 'deferred',
      reply: '451 4.7.1 try again later',
      mxHost: null,
      ip: null,
      nextAttemptAt: Date.now() + 600_000,
    })),
  );
  await h.rt.store.queue.release([claimed.find((c) => c.email === 'waiting@slow.test')!], Date.now() + 600_000);
}

t.before(async () => {
  h = await startHarness({ overrides: { dkim: { keyBits: 1024 } } });
  account = await h.account({ name: `Queue ${process.pid}`, credits: 10 });
  await queuedMail(account.id);
  operatorEmail = await operatorOn(h);
  operator = await logIn(h, operatorEmail);
});
t.teardown(() => h?.close());

const asOperator = (method: string, path: string, body?: UntypedJson) => h.request(method, `${ADMIN}${path}`, { ...withSession(operator), body });

const states = async (): Promise<Record<string, string>> => {
  const res = await asOperator('GET', `/queue?team_id=${account.id}`);
  return Object.fromEntries((res.body as Array<{ email: string; state: string }>).map((r) => [r.email, r.state]));
};

t.test('an operator lists the queue, oldest first, and sums it by destination', async (t) => {
  const listed = await asOperator('GET', `/queue?team_id=${account.id}&domain=slow.test`);
  t.equal(listed.status, 200, listed.text);
  t.match(listed.body, [
    { email: 'later@slow.test', state: 'deferred', attempts: 1, last_reply: '451 4.7.1 try again later', team_id: account.id, held_at: null },
    { email: 'waiting@slow.test', state: 'deferred', attempts: 0 },
  ]);
  const limited = await asOperator('GET', `/queue?team_id=${account.id}&limit=1`);
  t.equal((limited.body as unknown[]).length, 1);

  const summary = await asOperator('GET', `/queue/summary?team_id=${account.id}`);
  t.equal(summary.status, 200, summary.text);
  t.match(summary.body, [
    { domain: 'slow.test', total: 2, deferred: 2, held: 0, last_error: '451 4.7.1 try again later' },
    { domain: 'other.test', total: 1, deferred: 1 },
  ]);
});

t.test('a change with no selector, a bad selector or an unknown team is refused and changes nothing', async (t) => {
  const bare = await asOperator('POST', '/queue/hold', {});
  t.equal(bare.status, 400, bare.text);
  t.match(bare.body, { code: 'rest_invalid_param', data: { status: 400, params: { all: /hold needs a selector .* or all/ } } });
  const age = await asOperator('POST', '/queue/flush', { older_than: '1 hour' });
  t.equal(age.status, 400);
  t.match(age.body, { data: { params: { older_than: /older_than must be a whole number of s, m, h or d/ } } });
  const state = await asOperator('POST', '/queue/hold', { state: 'sent' });
  t.equal(state.status, 400, 'a state outside the queue is not a selector');
  const team = await asOperator('POST', '/queue/hold', { team_id: 99_999_999 });
  t.equal(team.status, 404, team.text);
  const purge = await asOperator('POST', '/queue/purge', { domain: 'slow.test' });
  t.equal(purge.status, 400, 'a purge needs a reason');
  t.same(await states(), { 'later@slow.test': 'deferred', 'waiting@slow.test': 'deferred', 'busy@other.test': 'deferred' });
});

t.test('an operator holds, releases, flushes and purges, each in the audit log as its own', async (t) => {
  const held = await asOperator('POST', '/queue/hold', { team_id: account.id, domain: 'slow.test', reason: 'the destination is down' });
  t.equal(held.status, 200, held.text);
  t.match(held.body, { changed: 2, recipients: [{ recipient_id: Number, message_id: String }, {}] });
  t.same(await states(), { 'later@slow.test': 'held', 'waiting@slow.test': 'held', 'busy@other.test': 'deferred' });

  const released = await asOperator('POST', '/queue/release', {
    team_id: account.id,
    message_id: (held.body as { recipients: Array<{ message_id: string }> }).recipients[1]!.message_id,
  });
  t.match(released.body, { changed: 1 });
  const flushed = await asOperator('POST', '/queue/flush', { all: true });
  t.equal(flushed.status, 200, flushed.text);
  t.ok((flushed.body as { changed: number }).changed >= 2, 'every waiting recipient is due now');
  const due = await asOperator('GET', `/queue?team_id=${account.id}&state=deferred`);
  t.ok(
    (due.body as Array<{ next_attempt_at: string }>).every((r) => Date.parse(r.next_attempt_at) <= Date.now()),
    'due now',
  );

  const purged = await asOperator('POST', '/queue/purge', { team_id: account.id, state: 'held', reason: 'the customer asked', notify: false });
  t.equal(purged.status, 200, purged.text);
  t.match(purged.body, { changed: 1, finished: 1, notified: 0 });
  t.equal(Object.keys(await states()).length, 2, 'the purged recipient has left the queue');

  const wrongState = await asOperator('POST', '/queue/requeue', { state: 'deferred' });
  t.equal(wrongState.status, 400, 'only bounced or failed recipients are requeued');
  const purgedMessage = (purged.body as { recipients: Array<{ message_id: string }> }).recipients[0]!.message_id;
  const requeued = await asOperator('POST', '/queue/requeue', { message_id: purgedMessage });
  t.equal(requeued.status, 200, requeued.text);
  t.match(requeued.body, { changed: 1, suppressed: [] });
  t.equal(Object.keys(await states()).length, 3, 'back in the queue, as a new attempt');

  const audit = await asOperator('GET', '/audit-log?target_kind=queue&per_page=20');
  t.equal(audit.status, 200, audit.text);
  t.match(
    (audit.body as Array<Record<string, unknown>>).map((e) => [e.action, e.reason]),
    [
      ['queue.requeue', ''],
      ['queue.purge', 'the customer asked'],
      ['queue.flush', ''],
      ['queue.release', ''],
      ['queue.hold', 'the destination is down'],
    ],
  );
  t.match((audit.body as Array<Record<string, unknown>>)[4], { target: { kind: 'queue', id: `team=${account.id} domain=slow.test` }, after: { changed: 2 } });
  t.match(JSON.stringify(audit.body), operatorEmail, 'made by the operator');
});

t.test('account users, owners included, get 403 on the queue routes', async (t) => {
  const ownerEmail = await userOn(h, account.id, 'owner');
  const owner = await logIn(h, ownerEmail);
  for (const [method, path] of [
    ['GET', '/queue'],
    ['GET', '/queue/summary'],
    ['POST', '/queue/flush'],
    ['POST', '/queue/purge'],
  ] as const) {
    const res = await h.request(method, `${ADMIN}${path}`, { ...withSession(owner), body: method === 'POST' ? { all: true, reason: 'x' } : undefined });
    t.equal(res.status, 403, `${method} ${path}`);
  }
});

t.test('a finished message keeps its body only while a bounced or failed recipient may be requeued', async (t) => {
  const ids = { sent: randomUUID(), bounced: randomUUID(), pending: randomUUID() };
  for (const [kind, id] of Object.entries(ids)) {
    await recordMessage(h.rt.store, newMessage({ id, teamId: account.id, domainId: null, recipients: [recipient(`${kind}@kept.test`)], cost: 1 }));
  }
  const due = (await h.rt.store.queue.inFlight()).map((r) => r.id);
  const claimed = (await h.rt.store.queue.claim(due, Date.now(), Date.now() + 60_000, 'kept-bodies-test')).filter((c) => c.domain === 'kept.test');
  const lease = (kind: string) => claimed.find((c) => c.email === `${kind}@kept.test`)!;
  await finishAlone(h.rt.store.transaction, [
    { recipientId: lease('sent').id, leaseToken: lease('sent').leaseToken, to: 'sent', reply: '250 ok', mxHost: null, ip: null },
    { recipientId: lease('bounced').id, leaseToken: lease('bounced').leaseToken, to: 'bounced', reply: '550 5.7.1 policy', mxHost: null, ip: null, hard: false },
  ]);
  await h.rt.store.queue.release([lease('pending')], Date.now());
  t.equal(await h.rt.store.messages.body(ids.sent), undefined, 'a delivered message loses its body when it finishes');
  t.ok(await h.rt.store.messages.body(ids.bounced), 'a bounced one keeps it for a requeue');

  const later = new Date(Date.now() + 60_000).toISOString();
  t.ok((await h.rt.store.queueControl.dropKeptBodies(later, 100)) >= 1);
  t.equal(await h.rt.store.messages.body(ids.bounced), undefined, 'past the requeue window it is gone');
  t.ok(await h.rt.store.messages.body(ids.pending), 'a message still in the queue keeps its body');
  const requeue = await asOperator('POST', '/queue/requeue', { message_id: ids.bounced });
  t.match(requeue.body, { changed: 0 }, 'without its body a message cannot be requeued');
});
