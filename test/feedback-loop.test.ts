// The feedback loop end to end, over real SMTP and HTTP on loopback (issue 4, Must show 1): a synchronous
// 550 5.1.1 at the recipient's MX, an RFC 3464 DSN to the VERP return path and an ARF complaint to the
// feedback address each change the message, suppress the address and reach the team's webhook once, signed
// and verified here with the Standard Webhooks algorithm; a suppressed address is not sent to until it is
// removed from the list; a forged VERP token is refused and changes nothing. One world serves every test:
// the tests run in order and (d) relies on the address suppressed in (a).
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMailWorld, settled, type MailWorld } from './helpers/mail-world.js';
import { certificate, startReceiver, verifies, type Received, type Receiver } from './helpers/webhook-receiver.js';
import { deliverReport, reportAbout, type ReportedCopy } from './helpers/reports.js';
import { RawSmtp } from './helpers/smtp-raw.js';
import { pause, until } from './helpers/wait.js';

const HOOK_PATH = '/hook';
const FROM = 'news@example.com';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** Mailboxes the sink does not have; (d) creates one again. */
const unknownUsers = new Set(['gone@dest.test']);

interface Loop {
  w: MailWorld;
  receiver: Receiver;
  /** The webhook's signing secret, returned once when it was created. */
  secret: string;
  close(): Promise<void>;
}

interface Recipient {
  email: string;
  state: string;
  reason: string;
}

interface MessageDetail {
  id: string;
  status: string;
  subject: string;
  from: string;
  to: Array<{ email: string; name?: string }>;
  sent_at: string | null;
  message_id_header: string;
  recipients: Recipient[];
}

interface Suppression {
  email: string;
  status: string;
  reason: string;
  message_id: string | null;
  created_at: string;
}

interface EventBody {
  event: string;
  message_id: string;
  email: string;
  is_hard_bounce?: boolean;
  reason: string;
  team_id: number;
  occurred_at: string;
  message?: { id: string; subject: string; from: string; to: Array<{ email: string; name?: string }>; sent_at: string | null };
}

/** A copy delivered to the sink, and what a report about it needs. */
interface Delivered extends ReportedCopy {
  messageId: string;
}

let loop: Loop;

// ---- the world ----------------------------------------------------------------------------------------------

/** The hook certificate's PEM in a temporary file, for TERNMAIL_WEBHOOK_CA_FILE. */
function caFileOf(cert: string): { file: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tern-loop-ca-'));
  const file = join(dir, 'ca.pem');
  writeFileSync(file, cert);
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Registers the team's one webhook, for both events with the message included; returns its secret. */
async function registerWebhook(w: MailWorld, port: number): Promise<string> {
  const res = await w.h.request('POST', '/v2/webhooks', {
    key: w.adminKey,
    body: { url: `https://hooks.example.com:${port}${HOOK_PATH}`, events: ['bounced', 'complaint'], include_message: true },
  });
  if (res.status !== 201) throw new Error(`webhook: ${res.status} ${res.text}`);
  return res.body.data.secret as string;
}

async function startLoop(): Promise<Loop> {
  const tls = await certificate();
  const ca = caFileOf(tls.cert);
  const receiver = await startReceiver({ tls });
  const w = await startMailWorld({ env: { TERNMAIL_WEBHOOK_ALLOW_PRIVATE: 'true', TERNMAIL_WEBHOOK_CA_FILE: ca.file } });
  w.sink.rcptReply = (address) => (unknownUsers.has(address) ? { code: 550, message: `5.1.1 <${address}>: Recipient address rejected: User unknown` } : null);
  w.dns.set('hooks.example.com', [{ type: 'A', data: '127.0.0.1' }]);
  const secret = await registerWebhook(w, receiver.port);
  return {
    w,
    receiver,
    secret,
    async close() {
      await w.close();
      await receiver.close();
      ca.remove();
    },
  };
}

t.before(async () => {
  loop = await startLoop();
});

t.teardown(() => loop?.close());

// ---- reading the world through the API ---------------------------------------------------------------------

/** POST /v2/emails with the sending key; returns the message id. */
async function send(email: string, subject: string): Promise<string> {
  const res = await loop.w.h.request('POST', '/v2/emails', {
    key: loop.w.sendingKey,
    body: { from: { email: FROM }, to: [{ email }], subject, text: 'Hello, your invoice is attached.' },
  });
  if (res.status !== 200) throw new Error(`send: ${res.status} ${res.text}`);
  return res.body.message_id as string;
}

/** GET /v2/emails/{id}. */
async function messageOf(messageId: string): Promise<MessageDetail> {
  const res = await loop.w.h.request<{ data: MessageDetail }>('GET', `/v2/emails/${messageId}`, { key: loop.w.adminKey });
  if (res.status !== 200) throw new Error(`message: ${res.status} ${res.text}`);
  return res.body.data;
}

/** The whole suppression list, from GET /v2/suppressions. */
async function suppressions(): Promise<Suppression[]> {
  const res = await loop.w.h.request<{ data: Suppression[] }>('GET', '/v2/suppressions', { key: loop.w.adminKey });
  if (res.status !== 200) throw new Error(`suppressions: ${res.status} ${res.text}`);
  return res.body.data;
}

const suppressionOf = async (email: string): Promise<Suppression | undefined> => (await suppressions()).find((s) => s.email === email);

const copiesTo = (email: string) => loop.w.sink.messages.filter((m) => m.to.includes(email));

/** A message sent to `email`, accepted by the sink and recorded as sent. */
async function sendDelivered(t: Test, email: string, subject: string): Promise<Delivered> {
  const messageId = await send(email, subject);
  t.equal(await settled(loop.w, messageId), 'sent', `delivered to ${email}`);
  const copy = await until(`the sink's copy for ${email}`, () => copiesTo(email).at(-1));
  const detail = await messageOf(messageId);
  return { messageId, email, verp: copy.from, messageIdHeader: detail.message_id_header };
}

/** Waits until the message reaches `status` (reports are processed after they are accepted). */
const statusBecomes = (messageId: string, status: string): Promise<MessageDetail> =>
  until(`${messageId} to become ${status}`, async () => {
    const m = await messageOf(messageId);
    return m.status === status ? m : null;
  });

// ---- the webhook -------------------------------------------------------------------------------------------

const bodyOf = (r: Received): EventBody => JSON.parse(r.body) as EventBody;
const hooksAbout = (messageId: string): Received[] => loop.receiver.to(HOOK_PATH).filter((r) => bodyOf(r).message_id === messageId);

/** Waits until the message's event has left the outbox: every POST for it has then been made. */
async function dispatched(messageId: string, type: 'bounced' | 'complaint'): Promise<void> {
  await until(`the ${type} event of ${messageId} to be dispatched`, () =>
    loop.w.h.rt.store.feedback.eventsOf(messageId).then((events) => events.some((e) => e.type === type && e.state === 'delivered')),
  );
}

/** The one webhook POST about the message, checked to be signed with the webhook's secret. */
async function theWebhookAbout(t: Test, messageId: string, type: 'bounced' | 'complaint'): Promise<EventBody> {
  await dispatched(messageId, type);
  const got = hooksAbout(messageId);
  t.equal(got.length, 1, `exactly one ${type} webhook about the message`);
  const [hook] = got;
  if (!hook) throw new Error(`no ${type} webhook about ${messageId}`);
  t.ok(verifies(loop.secret, hook.headers, hook.body), 'its Standard Webhooks signature verifies with the secret');
  t.notOk(verifies(loop.secret, hook.headers, hook.body.replace(messageId, `${messageId}x`)), 'and would not over a changed body');
  return bodyOf(hook);
}

/** The fields every event body has, in order, and the message the webhook asked for. */
function checkEventBody(t: Test, body: EventBody, expected: { event: string; messageId: string; email: string; message: MessageDetail }): void {
  const hard = expected.event === 'bounced' ? ['is_hard_bounce'] : [];
  t.same(Object.keys(body), ['event', 'message_id', 'email', ...hard, 'reason', 'team_id', 'occurred_at', 'message'], 'the specification fields, then the message');
  t.match(body, { event: expected.event, message_id: expected.messageId, email: expected.email, team_id: loop.w.teamId }, 'event, message_id, email and team_id');
  t.match(body.occurred_at, ISO_MS, 'occurred_at is an ISO time');
  const m = expected.message;
  t.same(
    body.message,
    { id: expected.messageId, subject: m.subject, from: FROM, to: [{ email: expected.email }], sent_at: m.sent_at },
    'the message, as include_message asks',
  );
}

/** A later send to a suppressed address is suppressed at once and never reaches the sink. */
async function laterSendSuppressed(t: Test, email: string): Promise<void> {
  const copies = copiesTo(email).length;
  const later = await send(email, 'Another invoice');
  t.equal(await settled(loop.w, later), 'suppressed', 'a later send is suppressed');
  t.match((await messageOf(later)).recipients, [{ email, state: 'suppressed' }], 'its recipient is suppressed');
  await pause(500);
  t.equal(copiesTo(email).length, copies, 'nothing more reached the sink');
  t.equal(hooksAbout(later).length, 0, 'and no webhook is sent about it');
}

// ---- the loop ----------------------------------------------------------------------------------------------

t.test('a recipient refused with 550 5.1.1 is bounced, suppressed and reported by one signed bounced webhook, and a later send to it is suppressed', async (t) => {
  const email = 'gone@dest.test';
  const messageId = await send(email, 'Your November invoice');
  t.equal(await settled(loop.w, messageId), 'bounced', 'the message is bounced');
  const message = await messageOf(messageId);
  t.match(message.recipients, [{ email, state: 'bounced', reason: /550 5\.1\.1/ }], 'its recipient is bounced with the reply');
  t.equal(copiesTo(email).length, 0, 'the sink kept nothing');
  t.match(await suppressionOf(email), { email, status: 'bounced', message_id: messageId, reason: /5\.1\.1/, created_at: ISO_MS }, 'GET /v2/suppressions lists it');

  const body = await theWebhookAbout(t, messageId, 'bounced');
  checkEventBody(t, body, { event: 'bounced', messageId, email, message });
  t.equal(body.is_hard_bounce, true, 'is_hard_bounce');
  t.match(body.reason, /5\.1\.1/, 'the reason carries the status');
  t.equal(body.message?.subject, 'Your November invoice', 'the subject as sent');

  await laterSendSuppressed(t, email);
});

t.test('an RFC 3464 DSN sent to the VERP address of a delivered copy bounces and suppresses the recipient, with one signed bounced webhook', async (t) => {
  const copy = await sendDelivered(t, 'bob@dest.test', 'Your December invoice');
  t.match(copy.verp, /^bounces\+[0-9a-z]+-[0-9a-f]+@send\.example\.com$/, 'the copy went out with a VERP return path');
  t.equal(hooksAbout(copy.messageId).length, 0, 'no webhook while it is only delivered');

  const reply = await deliverReport(loop.w.h.config.smtp.mxPort, copy.verp, reportAbout('postfix-5.1.1.eml', copy));
  t.match(reply, /^250 /, 'the MX port accepts the report');
  const message = await statusBecomes(copy.messageId, 'bounced');
  t.match(message.recipients, [{ email: copy.email, state: 'bounced', reason: /5\.1\.1/ }], 'its recipient is bounced with the DSN status');
  t.ok(message.sent_at, 'it had been sent');
  t.match(await suppressionOf(copy.email), { email: copy.email, status: 'bounced', message_id: copy.messageId, reason: /5\.1\.1/ }, 'GET /v2/suppressions lists it');

  const body = await theWebhookAbout(t, copy.messageId, 'bounced');
  checkEventBody(t, body, { event: 'bounced', messageId: copy.messageId, email: copy.email, message });
  t.equal(body.is_hard_bounce, true, 'is_hard_bounce');
  t.match(body.reason, /5\.1\.1/, 'the reason carries the status');

  await laterSendSuppressed(t, copy.email);
});

t.test(
  'an ARF complaint to the feedback address about a delivered copy marks it complained and suppresses the recipient, with one signed complaint webhook',
  async (t) => {
    const copy = await sendDelivered(t, 'carol@dest.test', 'Your weekly digest');
    const fbl = `${loop.w.h.config.feedback.fblLocalPart}@${loop.w.h.config.publicHostname}`;
    const reply = await deliverReport(loop.w.h.config.smtp.mxPort, fbl, reportAbout('yahoo-arf-abuse.eml', copy), 'feedback@arf.mail.yahoo.com');
    t.match(reply, /^250 /, 'the MX port accepts the complaint');
    const message = await statusBecomes(copy.messageId, 'complained');
    t.match(await suppressionOf(copy.email), { email: copy.email, status: 'complained', message_id: copy.messageId }, 'GET /v2/suppressions lists it as complained');
    const detail = await loop.w.h.request('GET', `/v2/emails/${copy.messageId}`, { key: loop.w.adminKey });
    t.equal(detail.body.data.recipients[0].state, 'complained', 'the recipient state is complained');

    const body = await theWebhookAbout(t, copy.messageId, 'complaint');
    checkEventBody(t, body, { event: 'complaint', messageId: copy.messageId, email: copy.email, message });
    t.notOk('is_hard_bounce' in body, 'a complaint carries no is_hard_bounce');
    t.match(body.reason, /abuse/, 'the reason names the feedback type');
    t.equal(hooksAbout(copy.messageId).filter((r) => bodyOf(r).event === 'bounced').length, 0, 'and no bounced webhook');

    await laterSendSuppressed(t, copy.email);
  },
);

t.test('an address removed with DELETE /v2/suppressions is delivered to again', async (t) => {
  const email = 'gone@dest.test';
  t.ok(await suppressionOf(email), 'suppressed by the first test');
  unknownUsers.delete(email); // the mailbox exists again
  const removed = await loop.w.h.request('DELETE', `/v2/suppressions?email=${encodeURIComponent(email)}`, { key: loop.w.adminKey });
  t.equal(removed.status, 200, removed.text);
  t.equal(removed.body.deleted, true, 'deleted');
  t.equal(await suppressionOf(email), undefined, 'no longer listed');
  const messageId = await send(email, 'Welcome back');
  t.equal(await settled(loop.w, messageId), 'sent', 'the message is sent');
  t.match((await messageOf(messageId)).recipients, [{ email, state: 'sent' }], 'its recipient is sent');
  t.equal(copiesTo(email).length, 1, 'the sink has the copy');
});

// ---- a forged token ----------------------------------------------------------------------------------------

/** The VERP address with the last digit of its MAC changed. */
function forged(verp: string): string {
  const m = /^(bounces\+[0-9a-z]+-[0-9a-f]*)([0-9a-f])(@.+)$/.exec(verp);
  if (!m) throw new Error(`not a VERP address: ${verp}`);
  const [, head, last, domain] = m as unknown as [string, string, string, string];
  return `${head}${last === '0' ? '1' : '0'}${domain}`;
}

/** What a report could change, as the API shows it, and how many webhooks the receiver has. */
async function snapshot(messageId: string): Promise<unknown> {
  const message = await messageOf(messageId);
  const domains = await loop.w.h.request('GET', '/v2/domains', { key: loop.w.adminKey });
  return {
    status: message.status,
    recipients: message.recipients.map((r) => ({ state: r.state, reason: r.reason })),
    suppressions: await suppressions(),
    totals: (domains.body.data as Array<{ total_bounced: number; total_complained: number }>).map((d) => [d.total_bounced, d.total_complained]),
    webhooks: loop.receiver.got.length,
  };
}

/** The reply to RCPT TO for `address` after a null MAIL FROM, in a session that sends no data. */
async function rcptReplyTo(address: string): Promise<number> {
  const { smtp } = await RawSmtp.open(loop.w.h.config.smtp.mxPort, false);
  try {
    await smtp.expect('EHLO mail.dest.test', 250);
    await smtp.expect('MAIL FROM:<>', 250);
    return (await smtp.command(`RCPT TO:<${address}>`)).code;
  } finally {
    await smtp.quit();
  }
}

t.test('a DSN to a VERP address with a forged MAC is refused with 550 and changes no state and sends no webhook', async (t) => {
  const copy = await sendDelivered(t, 'erin@dest.test', 'Your receipt');
  const fake = forged(copy.verp);
  t.not(fake, copy.verp, 'the MAC differs');
  const before = await snapshot(copy.messageId);
  const reply = await deliverReport(loop.w.h.config.smtp.mxPort, fake, reportAbout('postfix-5.1.1.eml', { ...copy, verp: fake }));
  t.match(reply, /^550 5\.7\.1 /, 'refused at RCPT TO');
  await loop.w.mta.reports.drain();
  await pause(2500); // more than two rounds of the webhook outbox
  t.same(await snapshot(copy.messageId), before, 'the message, its recipient, the suppressions, the counters and the webhooks are unchanged');
  t.equal((await messageOf(copy.messageId)).status, 'sent', 'the copy is still sent');
  t.equal(await rcptReplyTo(copy.verp), 250, 'while the genuine token of the same copy is accepted');
});
