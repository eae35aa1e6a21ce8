// Webhook delivery end to end: real sends bounce at a loopback SMTP sink, the MTA's dispatcher drains the
// outbox and POSTs to real HTTPS (and HTTP) receivers on loopback (helpers/webhook-receiver.ts), found
// through a real DNS server on loopback. Signatures are checked with that helper's independent Standard
// Webhooks verifier. Without TERNMAIL_WEBHOOK_ALLOW_PRIVATE, hosts answering private addresses are refused
// at delivery time, including a name that answered a public address when the webhook was created (DNS
// rebinding).
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, type Harness } from './helpers/harness.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { startSink, type Sink } from './helpers/sink.js';
import { certificate, startReceiver, verifies, type Receiver } from './helpers/webhook-receiver.js';
import { startMta, type RunningMta } from '../mta/main.js';
import { loadDeliveryRules } from '../shared/policies/index.js';
import { createResolver } from '../shared/dns.js';
import { notPublicReason } from '../shared/public-address.js';
import { WebhookDispatcher } from '../mta/feedback/webhooks.js';
import { until } from './helpers/wait.js';
import { storeSupport } from './helpers/store-support.js';
import type { OutboxEvent } from '../shared/domain/feedback.js';

// ---------------------------------------------------------------- a running Tern

interface World {
  h: Harness;
  mta: RunningMta;
  dns: TestDnsServer;
  sink: Sink;
  receiver: Receiver;
  close(): Promise<void>;
}

interface Team {
  id: number;
  key: string;
  sendingKey: string;
  domain: string;
}

const tls = await certificate();
const caDir = mkdtempSync(join(tmpdir(), 'tern-hook-ca-'));
const caFile = join(caDir, 'ca.pem');
writeFileSync(caFile, tls.cert);
t.teardown(() => rmSync(caDir, { recursive: true, force: true }));

async function world(allowPrivate: boolean): Promise<World> {
  const dns = await startDnsServer();
  const sink = await startSink();
  sink.rcptReply = (a) => (a.startsWith('gone') ? { code: 550, message: `5.1.1 <${a}>: Recipient address rejected: User unknown` } : null);
  const receiver = await startReceiver({ tls, hosts: ['127.0.0.1', '::1'] });
  const h = await startHarness({
    env: {
      TERNMAIL_DNS_SERVERS: dns.address,
      TERNMAIL_REMOTE_SMTP_PORT: String(sink.port),
      TERNMAIL_VERIFY_INTERVAL_S: '3600',
      TERNMAIL_WEBHOOK_ALLOW_PRIVATE: String(allowPrivate),
      TERNMAIL_WEBHOOK_CA_FILE: caFile,
    },
  });
  const mta = await startMta({ config: h.config, ...loadDeliveryRules() }, h.rt);
  dns.set('dest.test', [{ type: 'MX', data: { preference: 10, exchange: 'mx.dest.test' } }]);
  dns.set('mx.dest.test', [{ type: 'A', data: '127.0.0.1' }]);
  dns.set('hooks.example.com', [{ type: 'A', data: '127.0.0.1' }]);
  return {
    h,
    mta,
    dns,
    sink,
    receiver,
    async close() {
      await mta.close();
      await h.close();
      await receiver.close();
      await sink.close();
      await dns.close();
    },
  };
}

let teams = 0;

/** A fresh team with a verified sending domain and a sending key. */
async function team(w: World): Promise<Team> {
  const acct = await w.h.account({ credits: 100 });
  const domain = `hooks-team-${++teams}.com`;
  const created = await w.h.request('POST', '/v2/domains', { key: acct.key, body: { name: domain } });
  if (created.status !== 201 && created.status !== 200) throw new Error(`domain: ${created.status} ${created.text}`);
  await w.h.rt.store.domains.recordCheck(created.body.data.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  const key = await w.h.request('POST', '/v2/api-keys', { key: acct.key, body: { name: 'app' } });
  return { id: acct.id, key: acct.key, sendingKey: key.body.data.api_key, domain };
}

async function hook(w: World, owner: Team, body: Record<string, unknown>): Promise<{ id: number; secret: string; url: string }> {
  const res = await w.h.request('POST', '/v2/webhooks', { key: owner.key, body: { events: ['bounced'], ...body } });
  if (res.status !== 201) throw new Error(`webhook: ${res.status} ${res.text}`);
  return res.body.data;
}

const url = (w: World, path: string, host = 'hooks.example.com') => `https://${host}:${w.receiver.port}${path}`;

async function send(w: World, from: Team, to: string, subject = 'Hook test'): Promise<string> {
  const res = await w.h.request('POST', '/v2/emails', {
    key: from.sendingKey,
    body: { from: { email: `news@${from.domain}` }, to: [{ email: to, name: 'Rcpt' }], subject, text: 'hello' },
  });
  if (res.status !== 200) throw new Error(`send: ${res.status} ${res.text}`);
  return res.body.message_id;
}

/** Waits until the message's event exists and has left the outbox: every attempt for it is then done. */
async function settled(w: World, messageId: string, type = 'bounced'): Promise<OutboxEvent> {
  return until(
    `the ${type} event of ${messageId} to be dispatched`,
    async () => (await w.h.rt.store.feedback.eventsOf(messageId)).find((e) => e.type === type && e.state === 'delivered') ?? null,
  );
}

const deliveries = (w: World, owner: Team) => w.h.rt.store.feedback.deliveriesOf(owner.id);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- with TERNMAIL_WEBHOOK_ALLOW_PRIVATE

t.test('with private targets allowed (loopback receivers)', async (t) => {
  const w = await world(true);
  t.teardown(() => w.close());

  t.test('a hard bounce is POSTed once to the subscribed webhook, signed by the Standard Webhooks scheme, with the event fields', async (t) => {
    const owner = await team(w);
    const hk = await hook(w, owner, { url: url(w, '/signed') });
    const messageId = await send(w, owner, 'gone@dest.test');
    const event = await settled(w, messageId);
    const [got, ...more] = w.receiver.to('/signed');
    t.ok(got, 'the receiver got the event');
    t.equal(more.length, 0, 'exactly once');
    t.ok(verifies(hk.secret, got!.headers, got!.body), 'the signature verifies with the webhook secret');
    t.notOk(verifies(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, got!.headers, got!.body), 'and not with another secret');
    t.notOk(verifies(hk.secret, got!.headers, got!.body.replace('gone@', 'gone2@')), 'and not over a changed body');
    t.equal(got!.headers['webhook-id'], `evt_${event.id}`);
    t.ok(Math.abs(Number(got!.headers['webhook-timestamp']) - Date.now() / 1000) < 60, 'webhook-timestamp is now, in unix seconds');
    t.match(got!.headers['content-type'], /^application\/json/);
    t.match(got!.headers['user-agent'], /Tern/);
    const body = JSON.parse(got!.body);
    t.same(Object.keys(body), ['event', 'message_id', 'email', 'is_hard_bounce', 'reason', 'team_id', 'occurred_at']);
    t.equal(body.event, 'bounced');
    t.equal(body.message_id, messageId);
    t.equal(body.email, 'gone@dest.test');
    t.equal(body.is_hard_bounce, true);
    t.match(body.reason, /5\.1\.1/);
    t.equal(body.team_id, owner.id);
    t.match(body.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const [row, ...rows] = await deliveries(w, owner);
    t.equal(rows.length, 0, 'one attempt recorded');
    t.match(row, { webhookId: hk.id, eventId: event.id, eventType: 'bounced', url: hk.url, statusCode: 200, error: null });
    t.ok(row!.latencyMs >= 0 && row!.latencyMs < 10_000, 'latency recorded');
    const suppressed = await w.h.rt.store.suppressions.get(owner.id, 'gone@dest.test');
    t.match(suppressed, { status: 'bounced' }, 'the address is suppressed as well');
  });

  t.test('include_message adds the message: id, subject, from, to and sent_at', async (t) => {
    const owner = await team(w);
    await hook(w, owner, { url: url(w, '/with-message'), include_message: true });
    await hook(w, owner, { url: url(w, '/without-message') });
    const messageId = await send(w, owner, 'gone@dest.test', 'Quarterly report');
    await settled(w, messageId);
    const withMessage = JSON.parse(w.receiver.to('/with-message')[0]!.body);
    t.same(withMessage.message, {
      id: messageId,
      subject: 'Quarterly report',
      from: `news@${owner.domain}`,
      to: [{ email: 'gone@dest.test', name: 'Rcpt' }],
      sent_at: null,
    });
    t.notOk('message' in JSON.parse(w.receiver.to('/without-message')[0]!.body), 'only the webhook that asked for it gets it');
  });

  t.test('every active subscribed webhook of the team gets its own signed copy; an inactive webhook gets nothing', async (t) => {
    const owner = await team(w);
    const a = await hook(w, owner, { url: url(w, '/active-a') });
    const b = await hook(w, owner, { url: url(w, '/active-b'), events: ['complaint', 'bounced'] });
    const off = await hook(w, owner, { url: url(w, '/inactive') });
    const put = await w.h.request('PUT', `/v2/webhooks/${off.id}`, { key: owner.key, body: { status: 'inactive' } });
    t.equal(put.status, 200, put.text);
    const other = await team(w);
    await hook(w, other, { url: url(w, '/other-team') });
    await settled(w, await send(w, owner, 'gone@dest.test'));
    t.equal(w.receiver.to('/active-a').length, 1);
    t.equal(w.receiver.to('/active-b').length, 1);
    t.ok(verifies(a.secret, w.receiver.to('/active-a')[0]!.headers, w.receiver.to('/active-a')[0]!.body));
    t.ok(verifies(b.secret, w.receiver.to('/active-b')[0]!.headers, w.receiver.to('/active-b')[0]!.body));
    t.notOk(verifies(a.secret, w.receiver.to('/active-b')[0]!.headers, w.receiver.to('/active-b')[0]!.body), 'each copy is signed with its own secret');
    t.equal(w.receiver.to('/inactive').length, 0, 'the inactive webhook got nothing');
    t.equal(w.receiver.to('/other-team').length, 0, "another team's webhook got nothing");
    t.same((await deliveries(w, owner)).map((d) => d.webhookId).sort(), [a.id, b.id].sort(), 'attempts are recorded for the active ones only');
  });

  t.test('a webhook not subscribed to an event gets nothing for it', async (t) => {
    const owner = await team(w);
    await hook(w, owner, { url: url(w, '/complaints-only'), events: ['complaint'] });
    await hook(w, owner, { url: url(w, '/bounces-control') });
    await settled(w, await send(w, owner, 'gone@dest.test'));
    t.equal(w.receiver.to('/bounces-control').length, 1, 'the subscribed control got it');
    t.equal(w.receiver.to('/complaints-only').length, 0);
    t.equal((await deliveries(w, owner)).length, 1);
  });

  t.test('a complaint reaches complaint subscribers, without is_hard_bounce', async (t) => {
    const owner = await team(w);
    const hk = await hook(w, owner, { url: url(w, '/complaint'), events: ['complaint'] });
    await hook(w, owner, { url: url(w, '/bounce-only') });
    const messageId = await send(w, owner, 'reader@dest.test');
    await until('delivery', async () => (await w.h.rt.store.messages.get(messageId))?.status === 'sent');
    const [rcpt] = await w.h.rt.store.messages.recipientsOf(messageId);
    await w.mta.outcomes.complaint({ recipientId: rcpt!.id, reason: 'abuse report' });
    await settled(w, messageId, 'complaint');
    const [got] = w.receiver.to('/complaint');
    t.ok(verifies(hk.secret, got!.headers, got!.body));
    const body = JSON.parse(got!.body);
    t.same(Object.keys(body), ['event', 'message_id', 'email', 'reason', 'team_id', 'occurred_at']);
    t.match(body, { event: 'complaint', message_id: messageId, email: 'reader@dest.test', reason: 'abuse report', team_id: owner.id });
    t.equal(w.receiver.to('/bounce-only').length, 0);
  });

  t.test('a receiver answering 500 is recorded with its status and not retried', async (t) => {
    const owner = await team(w);
    await hook(w, owner, { url: url(w, '/fail') });
    const event = await settled(w, await send(w, owner, 'gone@dest.test'));
    await pause(2500); // more than two polls of the outbox
    t.equal(w.receiver.to('/fail').length, 1, 'one POST, no retry');
    t.match(await deliveries(w, owner), [{ eventId: event.id, statusCode: 500, error: null }]);
    t.equal((await deliveries(w, owner)).length, 1);
  });

  t.test('a receiver that never answers is cut off after 10 seconds, recorded, and not retried', async (t) => {
    const owner = await team(w);
    await hook(w, owner, { url: url(w, '/hang') });
    const messageId = await send(w, owner, 'gone@dest.test');
    const before = w.receiver.to('/hang').length;
    await until('the attempt to time out', async () => (await deliveries(w, owner)).length > 0, 30_000);
    const [row] = await deliveries(w, owner);
    t.equal(row!.statusCode, null);
    t.match(row!.error, /timed out after 10 s/);
    t.ok(row!.latencyMs >= 9_500 && row!.latencyMs < 13_000, `latency ${row!.latencyMs} ms is the 10 s timeout`);
    await settled(w, messageId);
    await pause(2500);
    t.equal(w.receiver.to('/hang').length - before, 1, 'one POST, no retry');
    t.equal((await deliveries(w, owner)).length, 1);
  });

  t.test('a redirect is recorded and not followed', async (t) => {
    const owner = await team(w);
    await hook(w, owner, { url: url(w, '/redirect') });
    await settled(w, await send(w, owner, 'gone@dest.test'));
    t.equal(w.receiver.to('/redirect').length, 1);
    t.equal(w.receiver.to('/redirected').length, 0, 'the Location was not visited');
    const [row] = await deliveries(w, owner);
    t.equal(row!.statusCode, 302);
    t.match(row!.error, /redirect not followed/);
  });

  t.test('an endless response body is read only up to a small limit, then the connection is dropped', async (t) => {
    const owner = await team(w);
    await hook(w, owner, { url: url(w, '/big') });
    await settled(w, await send(w, owner, 'gone@dest.test'));
    const [row] = await deliveries(w, owner);
    t.equal(row!.statusCode, 200);
    t.ok(row!.latencyMs < 5_000, 'recorded without waiting for the body');
    const got = w.receiver.to('/big')[0]!;
    await until('the receiver to see the connection closed', () => got.closedAt !== undefined, 5_000);
    t.ok(got.closedAt! - got.at < 5_000, 'dropped long before the 10 s timeout');
  });

  t.test('the host is resolved once per attempt, and the connection uses that answer', async (t) => {
    const owner = await team(w);
    w.dns.set('pinned.example.com', [{ type: 'A', data: '127.0.0.1' }]);
    await hook(w, owner, { url: url(w, '/pinned', 'pinned.example.com') });
    const asked = () => w.dns.queries.filter((q) => q.name.toLowerCase() === 'pinned.example.com');
    t.equal(asked().length, 0, 'not resolved at creation');
    await settled(w, await send(w, owner, 'gone@dest.test'));
    t.equal(w.receiver.to('/pinned').length, 1);
    t.equal(w.receiver.to('/pinned')[0]!.headers.host, `pinned.example.com:${w.receiver.port}`, 'Host (and TLS name) stay the original name');
    t.same(
      asked()
        .map((q) => q.type)
        .sort(),
      ['A', 'AAAA'],
      'one A and one AAAA lookup: the HTTP client never resolves again',
    );
  });

  t.test('a connection that fails at once is recorded as an error, and delivery goes on', async (t) => {
    const owner = await team(w);
    // Linux refuses a TCP connect to a multicast address synchronously (ENETUNREACH).
    w.dns.set('mcast.example.com', [{ type: 'A', data: '224.0.0.1' }]);
    await hook(w, owner, { url: url(w, '/unreachable', 'mcast.example.com') });
    await hook(w, owner, { url: url(w, '/beside-unreachable') });
    await settled(w, await send(w, owner, 'gone@dest.test'));
    const rows = await deliveries(w, owner);
    t.match(
      rows.find((r) => r.url.includes('mcast.example.com')),
      { statusCode: null, error: /^connect E[A-Z]+ 224\.0\.0\.1/ },
    );
    t.match(
      rows.find((r) => r.url.includes('hooks.example.com')),
      { statusCode: 200 },
    );
  });

  t.test('an http receiver on port 8080 gets the same signed delivery', async (t) => {
    const plain = await startReceiver({ port: 8080 }).catch(() => null);
    if (!plain) return t.plan(0, 'skipped: port 8080 is taken on this machine');
    t.teardown(() => plain.close());
    const owner = await team(w);
    const hk = await hook(w, owner, { url: 'http://hooks.example.com:8080/plain' });
    await settled(w, await send(w, owner, 'gone@dest.test'));
    const [got] = plain.to('/plain');
    t.ok(got && verifies(hk.secret, got.headers, got.body), 'received and verified');
    t.match(await deliveries(w, owner), [{ statusCode: 200 }]);
  });

  t.test('dispatchers of several MTAs draining one outbox at once send each event once', async (t) => {
    const owner = await team(w);
    const hk = await hook(w, owner, { url: url(w, '/several') });
    const events = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        w.h.rt.store.feedback.addTestEvent({ teamId: owner.id, webhookId: hk.id, type: 'bounced', email: `e${i}@dest.test`, isHardBounce: true, reason: 'test' }),
      ),
    );
    // Besides the running MTA's own dispatcher, two more (as other MTAs would run) go round at the same moment.
    const resolver = createResolver([w.dns.address]);
    const others = [new WebhookDispatcher({ rt: w.h.rt, resolver }), new WebhookDispatcher({ rt: w.h.rt, resolver })];
    await Promise.all(others.map((d) => d.round()));
    await until('every event to leave the outbox', async () => ((await w.h.rt.store.feedback.countPendingEvents()) === 0 ? true : null));
    const sent = w.receiver.to('/several').map((r) => r.headers['webhook-id']);
    t.equal(sent.length, events.length, 'as many deliveries as events');
    t.same(new Set(sent), new Set(events.map((e) => `evt_${e.id}`)), 'each event once');
  });

  t.test('delivery records older than feedback.webhookLogDays are pruned', async (t) => {
    const owner = await team(w);
    await hook(w, owner, { url: url(w, '/prune-a') });
    await hook(w, owner, { url: url(w, '/prune-b') });
    await settled(w, await send(w, owner, 'gone@dest.test'));
    const [newer, older] = await deliveries(w, owner);
    const longAgo = new Date(Date.now() - (w.h.config.feedback.webhookLogDays + 1) * 86_400_000).toISOString();
    await (await storeSupport(t, w.h.dataDir)).backdateWebhookDelivery(older!.id, longAgo);
    // A dispatcher prunes on its first round, then hourly.
    const fresh = new WebhookDispatcher({ rt: w.h.rt, resolver: createResolver([w.dns.address]) });
    await fresh.round();
    const left = await deliveries(w, owner);
    t.same(
      left.map((d) => d.id),
      [newer!.id],
    );
  });
});

// ---------------------------------------------------------------- without it: refused at delivery time (too)

t.test('with private targets refused (the default)', async (t) => {
  const w = await world(false);
  t.teardown(() => w.close());

  /** One webhook on a host answering `records`; returns its one recorded attempt. */
  async function refusedFor(name: string, records: Parameters<TestDnsServer['set']>[1]) {
    const owner = await team(w);
    // Made before the name answers: creation refuses a host answering a private address (see
    // webhook-private-hosts.test.ts); what is tested here is the check made again at delivery.
    await hook(w, owner, { url: url(w, `/${name}`, name) });
    w.dns.set(name, records);
    await settled(w, await send(w, owner, 'gone@dest.test'));
    const rows = await deliveries(w, owner);
    return { rows, received: w.receiver.to(`/${name}`).length };
  }

  t.test('a host resolving to 127.0.0.1 is refused at delivery time and recorded; nothing is sent', async (t) => {
    const { rows, received } = await refusedFor('loop.example.com', [{ type: 'A', data: '127.0.0.1' }]);
    t.match(rows, [{ statusCode: null, error: /^refused: loop\.example\.com resolves to 127\.0\.0\.1 \(loopback\)/ }]);
    t.equal(rows.length, 1);
    t.equal(received, 0, 'the receiver listening there got nothing');
  });

  t.test('a host resolving to 10.0.0.1 is refused at delivery time and recorded', async (t) => {
    const { rows } = await refusedFor('ten.example.com', [{ type: 'A', data: '10.0.0.1' }]);
    t.match(rows, [{ statusCode: null, error: /^refused: ten\.example\.com resolves to 10\.0\.0\.1 \(private\)/ }]);
    t.ok(rows[0]!.latencyMs < 5_000, 'no connection was attempted');
  });

  t.test('a host resolving to ::1 is refused at delivery time and recorded; nothing is sent', async (t) => {
    const { rows, received } = await refusedFor('six.example.com', [{ type: 'AAAA', data: '::1' }]);
    t.match(rows, [{ statusCode: null, error: /^refused: six\.example\.com resolves to ::1 \(loopback\)/ }]);
    t.equal(received, 0);
  });

  t.test('one private address among public ones is enough to refuse', async (t) => {
    const { rows } = await refusedFor('mixed.example.com', [
      { type: 'A', data: '93.184.216.34' },
      { type: 'A', data: '192.168.1.20' },
    ]);
    t.match(rows, [{ statusCode: null, error: /resolves to 192\.168\.1\.20 \(private\)/ }]);
  });

  t.test('a name that answered a public address when the webhook was created, then 127.0.0.1, is refused (DNS rebinding)', async (t) => {
    const owner = await team(w);
    w.dns.set('rebind.example.com', [{ type: 'A', data: '93.184.216.34' }]);
    const hk = await hook(w, owner, { url: url(w, '/rebind', 'rebind.example.com') });
    t.ok(hk.id, 'the webhook was accepted');
    t.same(await createResolver([w.dns.address]).resolve4('rebind.example.com'), ['93.184.216.34'], 'the name was public then');
    w.dns.set('rebind.example.com', [{ type: 'A', data: '127.0.0.1' }]);
    await settled(w, await send(w, owner, 'gone@dest.test'));
    t.match(await deliveries(w, owner), [{ webhookId: hk.id, statusCode: null, error: /^refused: rebind\.example\.com resolves to 127\.0\.0\.1 \(loopback\)/ }]);
    t.equal(w.receiver.to('/rebind').length, 0, 'nothing reached the loopback receiver');
  });

  t.test('every kind of non-public answer is refused with its reason', async (t) => {
    const owner = await team(w);
    const table: Array<[string, 'A' | 'AAAA', string, RegExp]> = [
      ['cgnat', 'A', '100.64.0.1', /CGNAT/],
      ['metadata', 'A', '169.254.169.254', /link-local/],
      ['zero', 'A', '0.0.0.0', /unspecified/],
      ['rfc1918-172', 'A', '172.16.5.4', /private/],
      ['mcast', 'A', '224.0.0.1', /multicast/],
      ['bcast', 'A', '255.255.255.255', /reserved/],
      ['ula', 'AAAA', 'fd00::1', /private/],
      ['ll6', 'AAAA', 'fe80::1', /link-local/],
      ['mapped', 'AAAA', '::ffff:127.0.0.1', /IPv4-mapped/],
      ['mcast6', 'AAAA', 'ff02::1', /multicast/],
    ];
    for (const [label, type, data] of table) {
      await hook(w, owner, { url: url(w, `/${label}`, `${label}.example.com`) });
      w.dns.set(`${label}.example.com`, [{ type, data }]);
    }
    await settled(w, await send(w, owner, 'gone@dest.test'));
    const rows = await deliveries(w, owner);
    t.equal(rows.length, table.length, 'one recorded attempt per webhook');
    for (const [label, , data, reason] of table) {
      const row = rows.find((r) => r.url.includes(`//${label}.example.com`));
      t.equal(row?.statusCode, null, label);
      t.match(row?.error, new RegExp(`^refused: ${label}\\.example\\.com resolves to ${data.replace(/\./g, '\\.')} \\(`), label);
      t.match(row?.error, reason, label);
    }
    t.equal(w.receiver.got.length, 0, 'the receiver never got anything in this world');
  });
});

t.test('public addresses pass the address check (no connection is made to them)', async (t) => {
  for (const address of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:2800:220:1:248:1893:25c8:1946', '2a00:1450:4001:82a::200e']) {
    t.equal(notPublicReason(address), null, address);
  }
  for (const address of ['127.8.9.10', '10.255.255.255', '100.127.255.255', '192.0.2.1', '198.18.0.1', '2001:db8::1', '2002:a00:1::1', '64:ff9b::a00:1', '::']) {
    t.not(notPublicReason(address), null, address);
  }
});
