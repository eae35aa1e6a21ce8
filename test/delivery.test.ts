// Delivery end to end: DKIM-signed copies reach the MX sink, retries and per-destination limits, the connection cache, expiry.
import t, { type Test } from 'tap';
import { simpleParser } from 'mailparser';
import { dkimVerdict, settled, startMailWorld, type MailWorld } from './helpers/mail-world.js';

const world = (overrides: Record<string, unknown> = {}) => startMailWorld({ overrides });

t.test('a message sent over HTTP reaches the MX sink DKIM-signed with a VERP return path', async (t) => {
  const w = await world();
  t.teardown(() => w.close());
  const res = await w.h.request('POST', '/v2/emails', {
    key: w.sendingKey,
    body: {
      from: { email: 'news@example.com', name: 'News' },
      to: [{ email: 'bob@dest.test', name: 'Bob' }],
      subject: 'Hello there',
      html: '<p>Hi <b>Bob</b></p>',
      headers: { 'List-Unsubscribe': '<https://example.com/u/1>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    },
  });
  t.equal(res.status, 200, res.text);
  const [got] = await w.sink.waitFor(1);
  t.match(got!.from, /^bounces\+[0-9a-z]+-[0-9a-f]+@send\.example\.com$/);
  t.same(got!.to, ['bob@dest.test']);
  t.equal(got!.heloName, 'mx.tern.test');
  const parsed = await simpleParser(got!.raw);
  t.equal(parsed.subject, 'Hello there');
  t.match(parsed.text ?? '', /Hi BOB|Hi Bob/);
  t.match(got!.raw.toString('latin1'), /\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n/);
  t.match(got!.raw.toString('latin1'), /\r\nList-Unsubscribe: <https:\/\/example\.com\/u\/1>\r\n/);
  const verdict = await dkimVerdict(w, got!.raw);
  t.equal(verdict.result, 'pass', 'DKIM passes for an independent verifier');
  t.match(verdict.signedHeaders, /List-Unsubscribe/i, 'List-Unsubscribe is signed');
  t.equal(await settled(w, res.body.message_id, 5000), 'sent');
  t.equal(await w.h.rt.store.messages.body(res.body.message_id), undefined, 'the stored body goes with the transaction that finishes the message');
  const scraped = await (await fetch(`${w.h.api.metricsUrl}/metrics`)).text();
  t.match(scraped, /tern_recipient_outcomes_total\{outcome="sent"\} [1-9]/, 'delivery outcomes are counted');
  for (const state of ['queued', 'sending', 'deferred'])
    t.match(scraped, new RegExp(`tern_queue_recipients\\{state="${state}"\\} 0\\n`), `queue depth: ${state}, empty once delivered`);
  t.notMatch(scraped, /tern_queue_recipients\{state="sent"\}/, 'delivered recipients are counted by tern_recipient_outcomes_total, not as queue depth');
  t.match(scraped, /tern_http_requests_total\{method="POST",route="\/v2\/emails",status="200"\} [1-9]/, 'HTTP requests are counted by route');
  t.match(scraped, /tern_messages_accepted_total\{source="http"\} [1-9]/);
});

/** A plain one-recipient send to bob@dest.test. */
const sendToBob = (w: MailWorld, subject: string) =>
  w.h.request('POST', '/v2/emails', { key: w.sendingKey, body: { from: { email: 'news@example.com' }, to: [{ email: 'bob@dest.test' }], subject, text: 'x' } });

/** A world whose first message to bob@dest.test is delivered; gives the sink's session count after it. */
async function afterFirstDelivery(t: Test): Promise<{ w: MailWorld; sessions: number }> {
  const w = await world();
  t.teardown(() => w.close());
  t.equal((await sendToBob(w, 'first')).status, 200);
  await w.sink.waitFor(1);
  return { w, sessions: w.sink.sessions };
}

t.test('deliveries to the same host one after the other share one connection, kept open between them', async (t) => {
  const { w, sessions } = await afterFirstDelivery(t);
  // Far enough apart to be separate deliveries, well within the time a connection is kept.
  await new Promise((r) => setTimeout(r, 300));
  t.equal((await sendToBob(w, 'second')).status, 200);
  const got = await w.sink.waitFor(2);
  t.same(
    got.map((m) => m.to[0]),
    ['bob@dest.test', 'bob@dest.test'],
  );
  t.equal(w.sink.sessions, sessions, "the second message used the first one's connection");
  t.equal((await dkimVerdict(w, got[1]!.raw)).result, 'pass');
});

t.test('a kept connection the destination has closed is not used: the next delivery opens a new one', async (t) => {
  const { w, sessions } = await afterFirstDelivery(t);
  w.sink.dropSessions();
  await new Promise((r) => setTimeout(r, 300));
  const second = await sendToBob(w, 'second');
  t.equal(second.status, 200);
  await w.sink.waitFor(2);
  t.equal(w.sink.sessions, sessions + 1, 'a new session carried the second message');
  await settled(w, second.body.message_id, 5000);
  const recipients = await w.h.rt.store.messages.recipientsOf(second.body.message_id);
  t.equal(recipients[0]?.state, 'sent');
  t.equal(recipients[0]?.attempts, 1, 'at its first attempt');
});

t.test("the team's region picks the sending pool: its source address and EHLO name", async (t) => {
  const w = await world({ delivery: { pools: { eu: { localAddress: '127.0.0.2', ehloName: 'eu-out.tern.test' }, us: { localAddress: null, ehloName: null } } } });
  t.teardown(() => w.close());
  const res = await w.h.request('POST', '/v2/emails', {
    key: w.sendingKey,
    body: { from: { email: 'news@example.com' }, to: [{ email: 'eve@dest.test' }], subject: 'Pool', text: 'x' },
  });
  t.equal(res.status, 200, res.text);
  const [got] = await w.sink.waitFor(1);
  t.equal(got!.heloName, 'eu-out.tern.test');
  t.match(got!.remoteAddress, /127\.0\.0\.2$/);
});

t.test('cc, reply-to, custom headers and attachments sent over HTTP arrive intact and signed', async (t) => {
  const w = await world();
  t.teardown(() => w.close());
  const pdf = Buffer.from('%PDF-1.4 not really a pdf\n').toString('base64');
  const res = await w.h.request('POST', '/v2/emails', {
    key: w.sendingKey,
    body: {
      from: { email: 'billing@example.com', name: 'Billing' },
      to: [{ email: 'ann@dest.test' }],
      cc: [{ email: 'carl@dest.test', name: 'Carl' }],
      reply_to: 'Support <help@example.com>',
      subject: 'Invoice 7',
      text: 'Your invoice is attached.',
      html: '<p>Your invoice is <b>attached</b>.</p>',
      headers: { 'X-Campaign': 'invoices' },
      attachments: [{ name: 'invoice.pdf', type: 'application/pdf', content: pdf }],
    },
  });
  t.equal(res.status, 200, res.text);
  const copies = await w.sink.waitFor(2);
  t.same(copies.map((c) => c.to[0]).sort(), ['ann@dest.test', 'carl@dest.test']);
  for (const copy of copies) {
    const parsed = await simpleParser(copy.raw);
    const cc = parsed.cc && !Array.isArray(parsed.cc) ? parsed.cc.value[0] : undefined;
    t.match(cc, { address: 'carl@dest.test', name: 'Carl' });
    t.match(parsed.replyTo?.value[0], { address: 'help@example.com', name: 'Support' });
    t.equal(parsed.headers.get('x-campaign'), 'invoices');
    t.equal(parsed.text?.trim(), 'Your invoice is attached.');
    t.match(parsed.html || '', /<b>attached<\/b>/);
    t.equal(parsed.attachments.length, 1);
    t.equal(parsed.attachments[0]!.filename, 'invoice.pdf');
    t.equal(parsed.attachments[0]!.content.toString('base64'), pdf);
    t.equal((await dkimVerdict(w, copy.raw)).result, 'pass');
  }
});
