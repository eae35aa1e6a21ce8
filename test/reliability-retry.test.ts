// Retries against a real loopback MX: temporary refusals are retried on the configured schedule and every
// attempt shows in the message log; a destination that stays unreachable past the max queue age fails;
// a permanent refusal bounces at once.
import t, { type Test } from 'tap';
import { startMailWorld, type MailWorld } from './helpers/mail-world.js';

interface World extends MailWorld {
  key: string;
}

/** The shared sending world with a retry policy of its own (read from the environment, as in production). */
async function world(t: Test, retry: { delays: string; maxAgeS: number }): Promise<World> {
  const mtaEnv = { TERNMAIL_RETRY_DELAYS_S: retry.delays, TERNMAIL_MAX_QUEUE_AGE_S: String(retry.maxAgeS) };
  const w = await startMailWorld({ domain: 'retry.example.com', mtaEnv });
  t.teardown(() => w.close());
  // Nothing listens on 127.0.0.2: connections to this MX are refused, as to a host that is down.
  w.dns.set('down.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.down.test' } }]);
  w.dns.set('mx.down.test', [{ type: 'A', data: '127.0.0.2' }]);
  return { ...w, key: w.sendingKey };
}

async function send(w: World, to: string[], subject: string): Promise<string> {
  const res = await w.h.request('POST', '/v2/emails', {
    key: w.key,
    body: { from: { email: 'app@retry.example.com' }, to: to.map((email) => ({ email })), subject, text: 'hello' },
  });
  if (res.status !== 200) throw new Error(`send failed: ${res.status} ${res.text}`);
  return res.body.message_id;
}

interface Detail {
  status: string;
  recipients: Array<{
    email: string;
    state: string;
    reason: string;
    attempts: Array<{ at: string; outcome: string; reply: string; mx_host: string | null }>;
    next_attempt_at: string | null;
  }>;
}

async function detail(w: World, id: string): Promise<Detail> {
  const res = await w.h.request('GET', `/v2/emails/${id}`, { key: w.adminKey });
  if (res.status !== 200) throw new Error(`GET /v2/emails/${id}: ${res.status} ${res.text}`);
  return res.body.data;
}

async function until(w: World, id: string, done: (d: Detail) => boolean, timeoutMs = 15_000): Promise<Detail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await detail(w, id);
    if (done(d)) return d;
    if (Date.now() > deadline) throw new Error(`message ${id} never reached the expected state: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('with a queue age long enough', async (t) => {
  const w = await world(t, { delays: '1,1,1', maxAgeS: 60 });

  await t.test('a recipient refused with 451 for a while is delivered after retries, every attempt in the log', async (t) => {
    let refusals = 0;
    w.sink.rcptReply = (address) => (address === 'slow@dest.test' && refusals++ < 3 ? { code: 451, message: '4.7.1 try later' } : null);
    const id = await send(w, ['slow@dest.test'], 'Retried');

    const deferred = await until(w, id, (d) => d.recipients[0]!.attempts.length >= 1);
    t.equal(deferred.status, 'pending', 'pending while deferred');
    t.equal(deferred.recipients[0]!.state, 'deferred');
    t.ok(deferred.recipients[0]!.next_attempt_at, 'the next attempt time is shown');

    const sent = await until(w, id, (d) => d.status !== 'pending');
    t.equal(sent.status, 'sent');
    const r = sent.recipients[0]!;
    t.equal(r.state, 'sent');
    t.same(
      r.attempts.map((a) => a.outcome),
      ['deferred', 'deferred', 'deferred', 'delivered'],
    );
    t.match(r.attempts[0]!.reply, /^451 .*try later/);
    t.equal(r.attempts[0]!.mx_host, 'mx.dest.test');
    const gaps = r.attempts.slice(1).map((a, i) => Date.parse(a.at) - Date.parse(r.attempts[i]!.at));
    t.ok(
      gaps.every((g) => g >= 800 && g < 5_000),
      `retried about every second (${gaps.join(', ')} ms)`,
    );
    t.equal(w.sink.messages.filter((m) => m.to.includes('slow@dest.test')).length, 1, 'delivered once');
  });

  await t.test('a 550 5.1.1 bounces at once and is never retried', async (t) => {
    w.sink.rcptReply = (address) => (address === 'nobody@dest.test' ? { code: 550, message: '5.1.1 no such user' } : null);
    const id = await send(w, ['nobody@dest.test'], 'Unknown user');
    const bounced = await until(w, id, (d) => d.status !== 'pending');
    t.equal(bounced.status, 'bounced');
    t.equal(bounced.recipients[0]!.state, 'bounced');
    t.match(bounced.recipients[0]!.reason, /5\.1\.1/);
    // Longer than two retry delays: a retry would have shown by now.
    await new Promise((r) => setTimeout(r, 2_500));
    const later = await detail(w, id);
    t.same(
      later.recipients[0]!.attempts.map((a) => a.outcome),
      ['bounced'],
      'one attempt only',
    );
  });

  await t.test('one bounced and one delivered recipient: each has its own state, the message is bounced', async (t) => {
    w.sink.rcptReply = (address) => (address === 'gone@dest.test' ? { code: 550, message: '5.1.1 no such user' } : null);
    const id = await send(w, ['gone@dest.test', 'here@dest.test'], 'Mixed');
    const done = await until(w, id, (d) => d.status !== 'pending');
    t.same(Object.fromEntries(done.recipients.map((r) => [r.email, r.state])), { 'gone@dest.test': 'bounced', 'here@dest.test': 'sent' });
    t.equal(done.status, 'bounced');
  });
});

t.test('with a max queue age of 3 s', async (t) => {
  const w = await world(t, { delays: '1,1,1', maxAgeS: 3 });

  await t.test('a destination refusing connections longer than the max queue age ends failed', async (t) => {
    const started = Date.now();
    const id = await send(w, ['someone@down.test'], 'Host down');
    const done = await until(w, id, (d) => d.status !== 'pending');
    const r = done.recipients[0]!;
    t.equal(r.state, 'failed');
    t.equal(done.status, 'failed');
    t.ok(r.attempts.length >= 3, `tried several times first (${r.attempts.length} attempts)`);
    t.same(
      r.attempts.slice(0, -1).map((a) => a.outcome),
      r.attempts.slice(0, -1).map(() => 'deferred'),
    );
    t.equal(r.attempts.at(-1)!.outcome, 'failed');
    t.match(r.reason, /expired/);
    t.match(r.attempts[0]!.reply, /ECONNREFUSED|connect/i);
    const ms = Date.now() - started;
    t.ok(ms >= 3_000 && ms < 10_000, `failed once the queue age passed (${ms} ms)`);
  });

  await t.test('a destination answering 451 forever ends failed', async (t) => {
    w.sink.rcptReply = (address) => (address === 'never@dest.test' ? { code: 451, message: '4.7.1 try later' } : null);
    const id = await send(w, ['never@dest.test'], 'Greylisted forever');
    const done = await until(w, id, (d) => d.status !== 'pending');
    t.equal(done.recipients[0]!.state, 'failed');
    t.equal(done.status, 'failed');
    t.ok(done.recipients[0]!.attempts.filter((a) => a.outcome === 'deferred').length >= 3, 'deferred several times first');
    t.equal(w.sink.messages.filter((m) => m.to.includes('never@dest.test')).length, 0, 'never delivered');
  });
});
