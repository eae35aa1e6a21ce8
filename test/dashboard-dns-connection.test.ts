// The dashboard's Cloudflare connection routes over real HTTP, against a local double of Cloudflare's API whose
// records a loopback DNS server serves: status, connect (the token checked first), publish with PUT and PATCH
// taking a draft domain to verified, disconnect, each refusal in the dashboard shape, and who may do what.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { startDnsServer } from './helpers/dns-server.js';
import { startCloudflareDouble } from './helpers/cloudflare-double.js';
import { logIn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const dns = await startDnsServer();
const cloudflare = await startCloudflareDouble(dns);
const h = await startHarness({
  env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_VERIFY_INTERVAL_S: '3600' },
  overrides: { dnsProviders: { cloudflare: { baseUrl: cloudflare.baseUrl, timeoutS: 5, retries: 0 } } },
});
t.teardown(async () => {
  await h.close();
  await cloudflare.close();
  await dns.close();
});

const CF = '/api/tern/v2/api-keys/verify-connect/cloudflare';
let counter = 0;
const fresh = () => `cfdash-${++counter}-${process.pid}.net`;
const newToken = (tag: string) => `cf${tag}`.padEnd(36, 'x') + String(1000 + ++counter).slice(-4);
const as = (s: SignedIn, body?: unknown) => ({ ...withSession(s), ...(body === undefined ? {} : { body }) });

async function draft(s: SignedIn, name = fresh()): Promise<{ id: string; domain_name: string }> {
  const reply = await h.request('POST', '/api/tern/v2/api/domains', as(s, { name }));
  if (reply.status !== 201) throw new Error(`adding ${name}: ${reply.text}`);
  return reply.body;
}

t.test('without a signed-in caller the connection routes answer 401, a cookie without its nonce too, a wrong nonce 403', async (t) => {
  const { session } = await signedInOn(h);
  t.match(await h.request('GET', CF), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('POST', CF, { ...withSession(session, null), body: { api_token: newToken('x') } }), { status: 401 });
  t.match(await h.request('DELETE', CF, withSession(session, '0123456789')), { status: 403, body: { code: 'rest_cookie_invalid_nonce' } });
});

t.test('an owner connects, publishes with PUT (the domain then verifies), PATCH changes nothing, and disconnects', async (t) => {
  const { session, adminKey } = await signedInOn(h);
  t.same((await h.request('GET', CF, as(session))).body, { provider: 'cloudflare', connected: false });
  const d = await draft(session);
  cloudflare.zone(d.domain_name);
  const token = newToken('ok');
  cloudflare.token(token, { status: 'active' });

  const connected = await h.request('POST', CF, as(session, { api_token: token }));
  t.equal(connected.status, 200);
  t.match(connected.body, { provider: 'cloudflare', connected: true, token_last4: token.slice(-4), zones: Array, zones_problem: null });
  t.notOk(connected.text.includes(token), 'the token is never shown');

  const put = await h.request('PUT', CF, as(session, { domain: d.id }));
  t.equal(put.status, 200);
  t.match(put.body, { provider: 'cloudflare', domain: { id: d.id, name: d.domain_name }, zone: d.domain_name });
  t.same(
    (put.body as { records: Array<{ result: string }> }).records.map((r) => r.result),
    ['created', 'created', 'created'],
  );
  const patch = await h.request('PATCH', CF, as(session, { domain: d.id }));
  t.same(
    (patch.body as { records: Array<{ result: string }> }).records.map((r) => r.result),
    ['unchanged', 'unchanged', 'unchanged'],
  );

  const verified = await h.request('GET', `/api/tern/v2/api/domains/${d.id}/verify`, as(session));
  t.match(verified.body, { verified: true, verification_status: 'verified' }, 'the loopback DNS serves what the double stored');
  t.match(await h.request('GET', `/v2/domains/${d.id}`, { key: adminKey }), { body: { data: { verification_status: 'verified' } } });

  t.match(await h.request('DELETE', CF, as(session)), { status: 200, body: { deleted: true } });
  t.same((await h.request('GET', CF, as(session))).body, { provider: 'cloudflare', connected: false });
});

t.test("each refusal of the connection answers in the dashboard's shape", async (t) => {
  const { session } = await signedInOn(h);
  t.match(await h.request('POST', CF, as(session, { api_token: 'short' })), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { api_token: /8 to 512/ } } },
  });
  t.match(await h.request('POST', CF, as(session, {})), { status: 400, body: { code: 'rest_missing_callback_param' } });
  t.match(await h.request('POST', CF, as(session, { api_token: newToken('unknown') })), {
    status: 400,
    body: { code: 'rest_dns_provider_refused', message: /Invalid API Token/, data: { provider_status: 401 } },
  });
  const d = await draft(session);
  t.match(await h.request('PUT', CF, as(session, { domain: d.id })), { status: 409, body: { code: 'rest_dns_not_connected' } });
  t.match(await h.request('DELETE', CF, as(session)), { status: 409, body: { code: 'rest_dns_not_connected' } });

  const token = newToken('ok');
  cloudflare.token(token, { status: 'active', zones: [] });
  t.equal((await h.request('POST', CF, as(session, { api_token: token }))).status, 200);
  t.match(await h.request('PUT', CF, as(session, { domain: d.id })), { status: 422, body: { code: 'rest_dns_zone_not_found' } });
  t.match(await h.request('PUT', CF, as(session, { domain: 'nosuchdomain' })), { status: 404, body: { code: 'rest_domain_invalid_id' } });
  t.match(await h.request('PUT', CF, as(session, { domain: 12.5 })), { status: 400, body: { code: 'rest_invalid_param' } });
});

t.test('a viewer sees the status but may not connect, publish or disconnect; another account cannot publish this domain', async (t) => {
  const owner = await signedInOn(h);
  const d = await draft(owner.session);
  const viewer = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
  t.equal((await h.request('GET', CF, as(viewer))).status, 200);
  t.match(await h.request('POST', CF, as(viewer, { api_token: newToken('v') })), { status: 403, body: { code: 'rest_forbidden' } });
  t.match(await h.request('PUT', CF, as(viewer, { domain: d.id })), { status: 403 });
  t.match(await h.request('DELETE', CF, as(viewer)), { status: 403 });

  const stranger = await signedInOn(h);
  const token = newToken('ok');
  cloudflare.token(token, { status: 'active' });
  cloudflare.zone(d.domain_name);
  t.equal((await h.request('POST', CF, as(stranger.session, { api_token: token }))).status, 200);
  t.match(await h.request('PUT', CF, as(stranger.session, { domain: d.id })), { status: 404, body: { code: 'rest_domain_invalid_id' } });
  t.same(cloudflare.recordsAt(`tern._domainkey.${d.domain_name}`), [], 'nothing written');
});
