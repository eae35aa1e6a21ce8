// The MX listener and the report worker over real SMTP and HTTP on loopback: what the port refuses (relay,
// unknown recipients, forged VERP tokens) without changing any state, and the whole loop for accepted
// reports: a message delivered to the sink, then a DSN or an ARF complaint about it received on the MX port,
// and the recipient, message and suppression list as the API shows them afterwards.
import t, { type Test } from 'tap';
import { connect, type Socket } from 'node:net';
import nodemailer from 'nodemailer';
import { join } from 'node:path';
import { startHarness, type Harness } from './helpers/harness.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startSink, type Sink } from './helpers/sink.js';
import { deliverReport, reportAbout } from './helpers/reports.js';
import { startMta, type RunningMta } from '../mta/main.js';
import { loadDeliveryRules } from '../shared/policies/index.js';
import { ReportWorker } from '../mta/feedback/report-worker.js';
import { importSpool } from '../mta/feedback/spool-import.js';
import { storeSupport } from './helpers/store-support.js';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { metrics } from '../shared/metrics.js';

// ---- a small SMTP client, to see every reply as the listener sends it (reports go through deliverReport) ---

class SmtpClient {
  private buffer = '';
  private waiting: ((reply: string) => void) | null = null;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.deliver();
    });
  }

  static async open(port: number): Promise<{ client: SmtpClient; greeting: string }> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const client = new SmtpClient(socket);
    return { client, greeting: await client.reply() };
  }

  /** A whole reply: lines up to the one whose code is followed by a space. */
  private deliver(): void {
    const end = /(?:^|\r\n)\d{3} [^\r\n]*\r\n/.exec(this.buffer);
    if (!end || !this.waiting) return;
    const reply = this.buffer.slice(0, end.index + end[0].length);
    this.buffer = this.buffer.slice(reply.length);
    const resolve = this.waiting;
    this.waiting = null;
    resolve(reply.trimEnd());
  }

  private reply(): Promise<string> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliver();
    });
  }

  command(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  async close(): Promise<void> {
    await this.command('QUIT').catch(() => undefined);
    this.socket.destroy();
  }
}

const code = (reply: string): number => Number(reply.slice(0, 3));

// ---- the world ----------------------------------------------------------------------------------------------

interface World {
  h: Harness;
  dns: TestDnsServer;
  sink: Sink;
  mta: RunningMta;
  sendingKey: string;
  adminKey: string;
  accountId: number;
  domainId: string;
  mxPort: number;
}

let w: World;

t.before(async () => {
  const dns = await startDnsServer();
  const sink = await startSink();
  const h = await startHarness({ env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_REMOTE_SMTP_PORT: String(sink.port), TERNMAIL_VERIFY_INTERVAL_S: '3600' } });
  const mta = await startMta({ config: h.config, ...loadDeliveryRules() }, h.rt);
  dns.set('dest.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.dest.test' } }]);
  dns.set('mx.dest.test', [{ type: 'A', data: '127.0.0.1' }]);
  const acct = await h.account({ credits: 1000 });
  const created = await h.request('POST', '/v2/domains', { key: acct.key, body: { name: 'example.com' } });
  await h.rt.store.domains.recordCheck(created.body.data.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  const key = await h.request('POST', '/v2/api-keys', { key: acct.key, body: { name: 'app' } });
  w = { h, dns, sink, mta, sendingKey: key.body.data.api_key, adminKey: acct.key, accountId: acct.id, domainId: created.body.data.id, mxPort: h.config.smtp.mxPort };
});

t.teardown(async () => {
  await w?.mta.close();
  await w?.h.close();
  await w?.sink.close();
  await w?.dns.close();
});

async function until<T>(what: string, read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Sent {
  messageId: string;
  messageIdHeader: string;
  recipientId: number;
  email: string;
  /** The VERP return path the sink saw. */
  verp: string;
}

async function send(email: string, subject = 'Your November invoice'): Promise<{ status: number; messageId: string }> {
  const res = await w.h.request('POST', '/v2/emails', {
    key: w.sendingKey,
    body: { from: { email: 'news@example.com', name: 'News' }, to: [{ email }], subject, text: 'Hello, your invoice is attached.' },
  });
  return { status: res.status, messageId: res.body?.message_id };
}

/** A message delivered to the sink with a 250 and recorded as sent. */
async function sendDelivered(t: Test, email: string): Promise<Sent> {
  const before = w.sink.messages.length;
  const { status, messageId } = await send(email);
  t.equal(status, 200, `sent to ${email}`);
  const [delivered] = (await w.sink.waitFor(before + 1)).filter((m) => m.to.includes(email)).slice(-1);
  const [recipient] = await until(
    'recipient sent',
    () => w.h.rt.store.messages.recipientsOf(messageId),
    (r) => r[0]?.state === 'sent',
  );
  const message = await w.h.rt.store.messages.get(messageId);
  t.equal(message?.status, 'sent');
  return { messageId, messageIdHeader: message!.messageIdHeader, recipientId: recipient!.id, email, verp: delivered!.from };
}

async function suppressionOf(email: string): Promise<{ email: string; status: string; reason: string; message_id: string | null } | undefined> {
  const res = await w.h.request('GET', `/v2/suppressions?search=${encodeURIComponent(email)}`, { key: w.adminKey });
  return (res.body.data as Array<{ email: string; status: string; reason: string; message_id: string | null }>).find((s) => s.email === email);
}

/** Everything a report could change, as the store and the API show it; `times` keeps the update times. */
async function snapshot(messageIds: readonly string[], times = true): Promise<unknown> {
  const messages = await Promise.all(messageIds.map((id) => w.h.rt.store.messages.get(id)));
  const recipients = await Promise.all(messageIds.map((id) => w.h.rt.store.messages.recipientsOf(id)));
  const suppressions = await w.h.request('GET', '/v2/suppressions', { key: w.adminKey });
  const domain = await w.h.rt.store.domains.get(w.domainId);
  return {
    messages: messages.map((m) => ({ status: m?.status, updated: times ? m?.updatedAt : null })),
    recipients: recipients.map((rs) => rs.map((r) => ({ state: r.state, reason: r.reason, updated: times ? r.updatedAt : null }))),
    suppressions: (suppressions.body.data as Array<Record<string, unknown>>).map((s) => ({ ...s, created_at: times ? s.created_at : null })),
    totals: { bounced: domain?.totalBounced, complained: domain?.totalComplained },
  };
}

const refusals = async (reason: string): Promise<number> => (await metrics.mxRcptRefused.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
const reportsCounted = async (kind: string, state: string): Promise<number> =>
  (await metrics.inboundReports.get()).values.find((v) => v.labels.kind === kind && v.labels.state === state)?.value ?? 0;

/** The token with its id or its MAC changed: both must fail the check. */
function forgeries(verp: string): Record<string, string> {
  const m = /^bounces\+([0-9a-z]+)-([0-9a-f]+)@(.+)$/.exec(verp)!;
  const [, id, mac, domain] = m as unknown as [string, string, string, string];
  const flipped = mac.slice(0, -1) + (mac.endsWith('0') ? '1' : '0');
  return {
    'changed MAC': `bounces+${id}-${flipped}@${domain}`,
    'wrong id with the real MAC': `bounces+${(parseInt(id, 36) + 1).toString(36)}-${mac}@${domain}`,
    'no MAC': `bounces+${id}@${domain}`,
    'garbage token': `bounces+zz-notatoken@${domain}`,
  };
}

// ---- refusals -----------------------------------------------------------------------------------------------

t.test('the MX port refuses relay, unknown recipients at our domains and forged or unknown VERP tokens, never changing any state', async (t) => {
  const sent = await sendDelivered(t, 'alice@dest.test');
  const before = await snapshot([sent.messageId]);
  const forgedBefore = await refusals('forged_verp');
  const { client, greeting } = await SmtpClient.open(w.mxPort);
  t.teardown(() => client.close());
  t.match(greeting, /^220 mx\.tern\.test /);
  const ehlo = await client.command('EHLO mail.dest.test');
  t.match(ehlo, /STARTTLS/, 'STARTTLS is offered');
  t.match(ehlo, /SIZE 10485760/, 'SIZE is 10 MB');
  t.notMatch(ehlo, /AUTH/, 'no AUTH: nothing to log in to');
  t.equal(code(await client.command('MAIL FROM:<>')), 250, 'the null sender of bounces is accepted');

  const refused: Record<string, string> = {
    'another domain (relay)': 'someone@other.test',
    'the original recipient (relay)': sent.email,
    'the customer domain itself': 'news@example.com',
    'a return-path domain not in the store': sent.verp.replace('@send.example.com', '@send.unknown.test'),
    'postmaster at a return-path domain': 'postmaster@send.example.com',
    'another address on the public host name': 'abuse@mx.tern.test',
    ...forgeries(sent.verp),
  };
  for (const [what, address] of Object.entries(refused)) {
    const reply = await client.command(`RCPT TO:<${address}>`);
    t.match(reply, /^550 5\.7\.1 /, `${what}: ${address} → ${reply}`);
  }
  t.equal((await refusals('forged_verp')) - forgedBefore, 4, 'forged and unknown tokens are counted');
  t.ok((await refusals('relay')) >= 4, 'relay attempts are counted');

  // The real return path and the feedback address are accepted, here without a report.
  t.equal(code(await client.command(`RCPT TO:<${sent.verp.toUpperCase()}>`)), 250, 'a valid token, whatever its case');
  t.equal(code(await client.command('RCPT TO:<fbl@mx.tern.test>')), 250, 'the feedback-loop address');
  t.equal(code(await client.command('RSET')), 250);
  t.same(await snapshot([sent.messageId]), before, 'the message, its recipient, the suppressions and the counters are unchanged');
});

t.test('reports that match no recipient are accepted, then dropped and counted, never changing any state', async (t) => {
  const sent = await sendDelivered(t, 'amy@dest.test');
  const before = await snapshot([sent.messageId]);
  const droppedComplaints = await reportsCounted('complaint', 'dropped');
  const droppedBounces = await reportsCounted('bounce', 'dropped');
  // A complaint quoting a forged VERP address and a Message-ID we never sent.
  const forged = reportAbout('yahoo-arf-abuse.eml', { ...sent, verp: forgeries(sent.verp)['changed MAC']!, messageIdHeader: '<nobody@example.com>' });
  t.equal(code(await deliverReport(w.mxPort, 'fbl@mx.tern.test', forged, 'feedback@arf.mail.yahoo.com')), 250);
  // A DSN about the recipient, sent to the feedback address rather than to its VERP return path.
  t.equal(code(await deliverReport(w.mxPort, 'fbl@mx.tern.test', reportAbout('gmail-5.1.1.eml', sent))), 250);
  // Not a report at all.
  t.equal(code(await deliverReport(w.mxPort, sent.verp, reportAbout('vacation-auto-reply.eml', sent), sent.email)), 250);
  await w.mta.reports.drain();
  t.equal(await reportsCounted('complaint', 'dropped'), droppedComplaints + 1, 'the unmatched complaint is dropped');
  t.equal(await reportsCounted('bounce', 'dropped'), droppedBounces + 1, 'the bounce without a VERP address is dropped');
  t.same(await w.h.rt.store.feedback.waitingReports(10), [], 'nothing is left waiting');
  t.same(await snapshot([sent.messageId]), before, 'nothing changed');
});

// ---- the loop, end to end ----------------------------------------------------------------------------------

t.test('a DSN (5.1.1) to the VERP address bounces and suppresses the recipient, and a later send to it is suppressed', async (t) => {
  const sent = await sendDelivered(t, 'bob@dest.test');
  t.match(sent.verp, /^bounces\+[0-9a-z]+-[0-9a-f]+@send\.example\.com$/);
  const reply = await deliverReport(w.mxPort, sent.verp, reportAbout('gmail-5.1.1.eml', sent));
  t.match(reply, /^250 /, 'the report is accepted once it is on disk');
  const [recipient] = await until(
    'recipient bounced',
    () => w.h.rt.store.messages.recipientsOf(sent.messageId),
    (r) => r[0]?.state === 'bounced',
  );
  t.match(recipient!.reason, /550 5\.1\.1 The email account that you tried to reach does not exist/);
  t.equal((await w.h.rt.store.messages.get(sent.messageId))?.status, 'bounced');
  const suppression = await suppressionOf(sent.email);
  t.match(suppression, { email: sent.email, status: 'bounced', message_id: sent.messageId, reason: /5\.1\.1/ }, 'GET /v2/suppressions lists it');
  t.equal((await w.h.rt.store.domains.get(w.domainId))?.totalBounced, 1, 'the domain counts the bounce');

  const delivered = w.sink.messages.length;
  const later = await send(sent.email, 'Another invoice');
  t.equal(later.status, 200);
  const [again] = await w.h.rt.store.messages.recipientsOf(later.messageId);
  t.equal(again?.state, 'suppressed', 'the later send is suppressed');
  t.equal((await w.h.rt.store.messages.get(later.messageId))?.status, 'suppressed');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(w.sink.messages.length, delivered, 'and not delivered');

  // The same report again (a retried delivery of it) counts nothing twice and queues no second event.
  const counted = await snapshot([sent.messageId], false);
  const events = (await w.h.rt.store.feedback.pendingEvents(1000)).length;
  t.equal(code(await deliverReport(w.mxPort, sent.verp, reportAbout('gmail-5.1.1.eml', sent))), 250);
  await w.mta.reports.drain();
  t.same(await snapshot([sent.messageId], false), counted, 'a repeated report is applied once');
  t.ok((await w.h.rt.store.feedback.pendingEvents(1000)).length <= events, 'no second bounced event');
});

t.test('an ARF complaint to the feedback address marks the message complained and suppresses the recipient', async (t) => {
  const sent = await sendDelivered(t, 'carol@dest.test');
  const reply = await deliverReport(w.mxPort, 'fbl@mx.tern.test', reportAbout('yahoo-arf-abuse.eml', sent), 'feedback@arf.mail.yahoo.com');
  t.match(reply, /^250 /);
  await until(
    'message complained',
    () => w.h.rt.store.messages.get(sent.messageId),
    (m) => m?.status === 'complained',
  );
  t.match(await suppressionOf(sent.email), { status: 'complained', message_id: sent.messageId, reason: /abuse complaint/ });
  t.equal((await w.h.rt.store.domains.get(w.domainId))?.totalComplained, 1, 'the domain counts the complaint');
  const later = await send(sent.email);
  t.equal((await w.h.rt.store.messages.recipientsOf(later.messageId))[0]?.state, 'suppressed', 'a later send is suppressed');
});

t.test('a complaint whose original carries no VERP address is matched by its Message-ID (AOL, redacted), over STARTTLS', async (t) => {
  const sent = await sendDelivered(t, 'dave@dest.test');
  const mailer = nodemailer.createTransport({ host: '127.0.0.1', port: w.mxPort, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
  t.teardown(() => mailer.close());
  const info = await mailer.sendMail({
    envelope: { from: 'scomp@aol.net', to: ['fbl@mx.tern.test'] },
    raw: reportAbout('aol-arf-headers-only.eml', sent).replace(/\r?\n/g, '\r\n'),
  });
  t.match(info.response, /^250 /);
  await until(
    'message complained',
    () => w.h.rt.store.messages.get(sent.messageId),
    (m) => m?.status === 'complained',
  );
  t.match(await suppressionOf(sent.email), { status: 'complained', message_id: sent.messageId });
});

t.test('a DSN reporting a temporary condition as final (Action failed, 4.7.1) bounces the recipient soft, without suppression', async (t) => {
  const sent = await sendDelivered(t, 'erin@dest.test');
  t.match(await deliverReport(w.mxPort, sent.verp, reportAbout('postfix-4.7.1-failed.eml', sent)), /^250 /);
  const [recipient] = await until(
    'recipient bounced',
    () => w.h.rt.store.messages.recipientsOf(sent.messageId),
    (r) => r[0]?.state === 'bounced',
  );
  t.match(recipient!.reason, /451 4\.7\.1/);
  t.equal((await w.h.rt.store.messages.get(sent.messageId))?.status, 'bounced');
  t.equal(await suppressionOf(sent.email), undefined, 'a soft bounce does not suppress');
  const later = await send(sent.email);
  t.equal((await w.h.rt.store.messages.recipientsOf(later.messageId))[0]?.state !== 'suppressed', true, 'a later send goes out');
  await until(
    'delivered again',
    () => w.sink.messages.filter((m) => m.to.includes(sent.email)).length,
    (n) => n === 2,
  );
});

t.test('a delayed DSN and a text delay warning change nothing; an Exim text bounce bounces hard', async (t) => {
  const sent = await sendDelivered(t, 'frank@dest.test');
  const before = await snapshot([sent.messageId]);
  const delays = await reportsCounted('delay', 'processed');
  t.match(await deliverReport(w.mxPort, sent.verp, reportAbout('postfix-delayed.eml', sent)), /^250 /);
  t.match(await deliverReport(w.mxPort, sent.verp, reportAbout('exim-delay-warning.eml', sent)), /^250 /);
  await w.mta.reports.drain();
  t.equal(await reportsCounted('delay', 'processed'), delays + 2);
  t.same(await snapshot([sent.messageId]), before, 'still sent, nothing suppressed');
  t.match(await deliverReport(w.mxPort, sent.verp, reportAbout('exim-text-5.1.1.eml', sent)), /^250 /);
  await until(
    'recipient bounced',
    () => w.h.rt.store.messages.recipientsOf(sent.messageId),
    (r) => r[0]?.state === 'bounced',
  );
  t.match(await suppressionOf(sent.email), { status: 'bounced', message_id: sent.messageId });
});

t.test('a report accepted but not yet processed when the worker stops is applied on the next start', async (t) => {
  const sent = await sendDelivered(t, 'grace@dest.test');
  await w.mta.reports.stop();
  t.match(await deliverReport(w.mxPort, sent.verp, reportAbout('postfix-5.1.1.eml', sent)), /^250 /, 'accepted with the worker down');
  const waiting = await w.h.rt.store.feedback.waitingReports(10);
  t.equal(waiting.length, 1, 'recorded as received');
  t.equal(waiting[0]?.rcptTo, sent.verp);
  t.equal((await w.h.rt.store.messages.recipientsOf(sent.messageId))[0]?.state, 'sent', 'not applied yet');
  t.match((await w.h.rt.store.feedback.reportBody(waiting[0]!.id))?.toString('utf8'), /5\.1\.1/, 'its body is in the store');
  t.notOk(existsSync(join(w.h.config.dataDir, 'spool-inbound')), 'and nothing on this machine’s disk');
  const restarted = reportWorker(t);
  await restarted.start();
  t.equal((await w.h.rt.store.messages.recipientsOf(sent.messageId))[0]?.state, 'bounced', 'applied at start');
  t.same(await w.h.rt.store.feedback.waitingReports(10), []);
  t.match(await suppressionOf(sent.email), { status: 'bounced' });
});

/** Another report worker on the same store (as another MTA's), stopped when `t` ends. */
function reportWorker(t: Test, leaseMs?: number): ReportWorker {
  const worker = new ReportWorker({
    rt: w.h.rt,
    replies: loadDeliveryRules().replies,
    outcomes: w.mta.outcomes,
    verpSecret: w.h.rt.secrets.derive('verp'),
    pollMs: 50,
    leaseMs,
  });
  t.teardown(() => worker.stop());
  return worker;
}

t.test('a report claimed by a worker that died is applied by another once the claim’s lease runs out', async (t) => {
  const sent = await sendDelivered(t, 'heidi@dest.test');
  await w.mta.reports.stop();
  t.match(await deliverReport(w.mxPort, sent.verp, reportAbout('postfix-5.1.1.eml', sent)), /^250 /);
  const claimedAt = Date.now();
  const held = await w.h.rt.store.feedback.claimReports(10, claimedAt, claimedAt + 1_500, 'killed-mta');
  t.equal(held.length, 1, 'held by the dead worker');
  const other = reportWorker(t);
  await other.start();
  t.equal((await w.h.rt.store.messages.recipientsOf(sent.messageId))[0]?.state, 'sent', 'not taken while the lease runs');
  await until(
    'recipient bounced',
    () => w.h.rt.store.messages.recipientsOf(sent.messageId),
    (r) => r[0]?.state === 'bounced',
  );
  t.ok(Date.now() >= claimedAt + 1_500, 'taken over after the lease ran out');
  t.same(await w.h.rt.store.feedback.waitingReports(10), []);
  t.equal(await w.h.rt.store.feedback.finishReport(held[0]!.id, 'killed-mta', { state: 'dropped', kind: 'x', detail: 'late' }), false, 'the dead worker is fenced out');
});

t.test('the spool an earlier release left is imported at start: waiting reports get their body and are applied, the spool goes', async (t) => {
  const sent = await sendDelivered(t, 'ivan@dest.test');
  await w.mta.reports.stop();
  const support = await storeSupport(t, w.h.config.dataDir);
  const spool = join(w.h.config.dataDir, 'spool-inbound');
  const spooled = (id: string, body: string) => {
    mkdirSync(join(spool, id.slice(-2)), { recursive: true });
    writeFileSync(join(spool, id.slice(-2), `${id}.eml`), body);
  };
  // As the release before schema 36 left them: a waiting row with its body in a file, an applied report's file
  // (a crash before the unlink), a file without a row (a crash before the commit), a row whose file is gone.
  await support.addReportWithoutBody({ id: '00000000aaaaaaaaaaaaaaaa', mailFrom: '', rcptTo: sent.verp });
  spooled('00000000aaaaaaaaaaaaaaaa', reportAbout('postfix-5.1.1.eml', sent));
  spooled('00000000bbbbbbbbbbbbbbbb', 'a body whose row was never committed');
  await support.addReportWithoutBody({ id: '00000000cccccccccccccccc', mailFrom: '', rcptTo: sent.verp });
  mkdirSync(join(spool, 'ff'));
  const dropped = await reportsCounted('unknown', 'dropped');
  t.same(await importSpool(w.h.rt.store.feedback, spool), { imported: 1, orphans: 1, dropped: 1, removed: true });
  t.notOk(existsSync(spool), 'the spool directory is gone');
  t.same(
    (await w.h.rt.store.feedback.waitingReports(10)).map((r) => r.id),
    ['00000000aaaaaaaaaaaaaaaa'],
    'the report whose body is lost is dropped',
  );
  await reportWorker(t).start();
  t.equal((await w.h.rt.store.messages.recipientsOf(sent.messageId))[0]?.state, 'bounced', 'the imported report is applied');
  t.same(await w.h.rt.store.feedback.waitingReports(10), []);
  t.equal(await reportsCounted('unknown', 'dropped'), dropped + 1, 'the lost one counted as dropped, as the worker counted it');
  t.equal(await importSpool(w.h.rt.store.feedback, spool), null, 'nothing to do on the next start');
});

t.test('a spool holding something else than report files is emptied of its reports and kept', async (t) => {
  const spool = join(w.h.config.dataDir, 'spool-inbound');
  mkdirSync(join(spool, 'ab'), { recursive: true });
  writeFileSync(join(spool, 'ab', '00000000ddddddddddddddab.eml'), 'an orphan');
  writeFileSync(join(spool, 'README'), 'an operator’s note');
  t.match(await importSpool(w.h.rt.store.feedback, spool), { imported: 0, orphans: 1, removed: false });
  t.same(readdirSync(spool), ['README'], 'only what is not a report file is left');
});
