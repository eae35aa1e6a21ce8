// A webhook whose host resolves to a loopback, private, link-local (cloud metadata) or otherwise non-public
// address is refused when it is created or changed, on /v2, the dashboard's REST routes and the page's form,
// by the rule delivery applies (which still checks again at each delivery: a name can change after). A host
// answering public addresses only, or not resolving yet, is accepted. TERNMAIL_WEBHOOK_ALLOW_PRIVATE (tests and
// closed networks) lets private hosts through at creation as it does at delivery.
import t, { type Test } from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { startDnsServer, type TestDnsServer, type TestRecord } from './helpers/dns-server.js';
import { signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { formGuardOf, page, signInOverHttp } from './helpers/web-pages.js';

interface World {
  h: Harness;
  dns: TestDnsServer;
  key: string;
  session: SignedIn;
  cookie: string;
  teamId: number;
}

async function world(t: Test, allowPrivate: boolean): Promise<World> {
  const dns = await startDnsServer();
  const h = await startHarness({
    overrides: { dkim: { keyBits: 1024 } },
    env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_WEBHOOK_ALLOW_PRIVATE: String(allowPrivate) },
  });
  t.teardown(async () => {
    await h.close();
    await dns.close();
  });
  const signed = await signedInOn(h, 'owner');
  return { h, dns, key: signed.adminKey, session: signed.session, cookie: await signInOverHttp(h, signed.email), teamId: signed.accountId };
}

const NOT_PUBLIC: Array<[string, TestRecord[], RegExp]> = [
  ['loop', [{ type: 'A', data: '127.0.0.1' }], /127\.0\.0\.1 \(loopback\)/],
  ['ten', [{ type: 'A', data: '10.1.2.3' }], /10\.1\.2\.3 \(private\)/],
  ['metadata', [{ type: 'A', data: '169.254.169.254' }], /169\.254\.169\.254 \(link-local\)/],
  ['six', [{ type: 'AAAA', data: '::1' }], /::1 \(loopback\)/],
  ['ula', [{ type: 'AAAA', data: 'fd00::1' }], /fd00::1 \(private\)/],
  [
    'mixed',
    [
      { type: 'A', data: '93.184.216.34' },
      { type: 'A', data: '192.168.1.20' },
    ],
    /192\.168\.1\.20 \(private\)/,
  ],
];

const hookUrl = (label: string) => `https://${label}.example.com/hook`;

t.test('without TERNMAIL_WEBHOOK_ALLOW_PRIVATE', async (t) => {
  const w = await world(t, false);
  for (const [label, records] of NOT_PUBLIC) w.dns.set(`${label}.example.com`, records);
  w.dns.set('public.example.com', [{ type: 'A', data: '93.184.216.34' }]);
  const hooks = async () => (await w.h.rt.store.webhooks.list(w.teamId, { page: 1, perPage: 100 })).rows.map((x) => x.url);

  t.test('POST /v2/webhooks refuses a host resolving to a non-public address: 422 invalid_url naming the address', async (t) => {
    for (const [label, , reason] of NOT_PUBLIC) {
      const reply = await w.h.request('POST', '/v2/webhooks', { key: w.key, body: { url: hookUrl(label), events: ['bounced'] } });
      t.equal(reply.status, 422, `${label}: ${reply.text}`);
      t.match(reply.body, { errors: { code: 'invalid_url', field: 'url' } }, label);
      t.match(reply.body.message, reason, label);
    }
    t.same(await hooks(), [], 'none was created');
  });

  t.test('the dashboard route and the page form refuse them too', async (t) => {
    for (const [label, , reason] of NOT_PUBLIC) {
      const reply = await w.h.request('POST', '/api/tern/v2/webhooks', { ...withSession(w.session), body: { url: hookUrl(label), events: ['bounced'] } });
      t.equal(reply.status, 400, `${label}: ${reply.text}`);
      t.match(reply.body, { code: 'rest_invalid_param', data: { params: { url: reason } } }, label);
    }
    const guard = await formGuardOf(w.h, w.cookie, '/webhooks');
    const form = await page(w.h, 'POST', '/webhooks', { cookie: w.cookie, form: { ...guard, url: hookUrl('metadata'), events: 'bounced' } });
    t.equal(form.status, 400, 'the page answers 400');
    t.match(form.text, /169\.254\.169\.254/, 'and says why');
    t.same(await hooks(), [], 'none was created');
  });

  t.test('a public host, or one not resolving yet, is accepted; changing it to a non-public host is refused', async (t) => {
    const made = await w.h.request('POST', '/v2/webhooks', { key: w.key, body: { url: hookUrl('public'), events: ['bounced'] } });
    t.equal(made.status, 201, made.text);
    const later = await w.h.request('POST', '/v2/webhooks', { key: w.key, body: { url: hookUrl('not-yet'), events: ['bounced'] } });
    t.equal(later.status, 201, `a host with no address yet: ${later.text}`);
    const id = made.body.data.id as number;
    for (const [label, , reason] of NOT_PUBLIC) {
      const reply = await w.h.request('PUT', `/v2/webhooks/${id}`, { key: w.key, body: { url: hookUrl(label) } });
      t.equal(reply.status, 422, `${label}: ${reply.text}`);
      t.match(reply.body.message, reason, label);
    }
    t.same((await hooks()).sort(), [hookUrl('not-yet'), hookUrl('public')], 'nothing was changed');
  });
});

t.test('with TERNMAIL_WEBHOOK_ALLOW_PRIVATE a host resolving to a private address is accepted (tests, closed networks)', async (t) => {
  const w = await world(t, true);
  w.dns.set('loop.example.com', [{ type: 'A', data: '127.0.0.1' }]);
  const reply = await w.h.request('POST', '/v2/webhooks', { key: w.key, body: { url: hookUrl('loop'), events: ['bounced'] } });
  t.equal(reply.status, 201, reply.text);
});
