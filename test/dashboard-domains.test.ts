// The dashboard's domain routes over real HTTP, Redis, SQLite and a loopback DNS server: the collection, adding
// one or many, reading and removing one (agreeing with /v2/domains), figures per domain, the DNS check on
// demand (per record, rate-limited), and who may do what.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { publishRecords, startDnsServer } from './helpers/dns-server.js';
import { logIn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const dns = await startDnsServer();
const h = await startHarness({
  env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_VERIFY_INTERVAL_S: '3600' },
  overrides: { verify: { intervalS: 3600, maxDraftAgeDays: 30, lockTtlS: 300, onDemand: { limit: 2, windowS: 60 } } },
});
t.teardown(async () => {
  await h.close();
  await dns.close();
});

const API = '/api/tern/v2/api/domains';
let counter = 0;
const fresh = (base = 'dash') => `${base}-${++counter}-${process.pid}.com`;

interface Shown {
  id: string;
  domain_name: string;
  dns_records: { dkim: { name: string; content: string }; spf: Array<{ type: string; name: string; content: string; priority: string }> };
}

const as = (s: SignedIn, o: { body?: unknown; teamId?: number } = {}) => ({ ...withSession(s), ...o });

async function added(s: SignedIn, name = fresh()): Promise<Shown> {
  const reply = await h.request<Shown>('POST', API, as(s, { body: { name } }));
  if (reply.status !== 201) throw new Error(`adding ${name}: ${reply.status} ${reply.text}`);
  return reply.body;
}

t.test('without a signed-in caller the domain routes answer 401, a cookie without its nonce too, a wrong nonce 403', async (t) => {
  const { session } = await signedInOn(h);
  t.match(await h.request('GET', API), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('GET', API, withSession(session, null)), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('GET', API, withSession(session, 'abcdef0123')), { status: 403, body: { code: 'rest_cookie_invalid_nonce' } });
});

t.test('an owner adds a domain (201, its DNS records) and finds it in the collection and as /v2 shows it', async (t) => {
  const { session, adminKey } = await signedInOn(h);
  const name = fresh();
  const created = await h.request('POST', API, as(session, { body: { name } }));
  t.equal(created.status, 201);
  t.match(created.body, { domain_name: name, verification_status: 'draft', dns_records: { dkim: { type: 'TXT' }, spf: [{ type: 'MX' }, { type: 'TXT' }] } });
  const id = (created.body as Shown).id;

  const list = await h.request('GET', `${API}?per_page=5`, as(session));
  t.equal(list.status, 200);
  t.equal(list.headers.get('x-wp-total'), '1');
  const v2list = await h.request('GET', '/v2/domains', { key: adminKey });
  t.same(list.body, v2list.body.data, 'the same items as /v2/domains');

  const item = await h.request('GET', `${API}/${id}`, as(session));
  const v2item = await h.request('GET', `/v2/domains/${id}`, { key: adminKey });
  t.same(item.body, v2item.body.data, 'the same item as /v2/domains/{id}');
});

t.test('adding refuses what /v2 refuses, in the dashboard shape, and changes nothing', async (t) => {
  const { session } = await signedInOn(h);
  t.match(await h.request('POST', API, as(session, { body: {} })), { status: 400, body: { code: 'rest_missing_callback_param' } });
  t.match(await h.request('POST', API, as(session, { body: { name: 'not a domain' } })), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { name: /not a valid public domain/ } } },
  });
  const taken = await added(session);
  t.match(await h.request('POST', API, as(session, { body: { name: taken.domain_name } })), { status: 409, body: { code: 'rest_domain_exists' } });
  t.equal((await h.request('GET', API, as(session))).headers.get('x-wp-total'), '1');
  t.match(await h.request('GET', `${API}?per_page=101`, as(session)), { status: 400, body: { code: 'rest_invalid_param' } });
  t.match(await h.request('GET', `${API}/12`.replace('12', 'a.b'), as(session)), { status: 404, body: { code: 'rest_no_route' } }, 'not an identifier');
});

t.test('bulk adds each name in order; a refused name does not stop the others', async (t) => {
  const { session } = await signedInOn(h);
  const good = fresh();
  const reply = await h.request('POST', `${API}/bulk`, as(session, { body: { names: [good, 'bad name', good, fresh()] } }));
  t.equal(reply.status, 200);
  t.match(reply.body, {
    created: 2,
    failed: 2,
    results: [
      { name: good, status: 201, domain: { domain_name: good, verification_status: 'draft' } },
      { name: 'bad name', status: 400, error: { code: 'rest_invalid_param', data: { status: 400 } } },
      { name: good, status: 409, error: { code: 'rest_domain_exists' } },
      { status: 201 },
    ],
  });
  t.equal((await h.request('GET', API, as(session))).headers.get('x-wp-total'), '2');
  const tooMany = Array.from({ length: 51 }, () => fresh());
  t.match(await h.request('POST', `${API}/bulk`, as(session, { body: { names: tooMany } })), { status: 400, body: { code: 'rest_invalid_param' } });
  t.match(await h.request('POST', `${API}/bulk`, as(session, { body: { names: [] } })), { status: 400, body: { code: 'rest_invalid_param' } });
  t.equal((await h.request('GET', API, as(session))).headers.get('x-wp-total'), '2', 'nothing added by refused calls');
});

t.test('removing a domain answers what it was; then the dashboard and /v2 both miss it', async (t) => {
  const { session, adminKey } = await signedInOn(h);
  const d = await added(session);
  const removed = await h.request('DELETE', `${API}/${d.id}`, as(session));
  t.match(removed, { status: 200, body: { deleted: true, previous: { id: d.id, domain_name: d.domain_name }, records_to_remove: Array } });
  t.match(await h.request('GET', `${API}/${d.id}`, as(session)), { status: 404, body: { code: 'rest_domain_invalid_id' } });
  t.equal((await h.request('GET', `/v2/domains/${d.id}`, { key: adminKey })).status, 404);
  t.match(await h.request('DELETE', `${API}/${d.id}`, as(session)), { status: 404, body: { code: 'rest_domain_invalid_id' } });
});

t.test('a viewer reads but may not add, bulk-add or remove; another account and another team answer 404', async (t) => {
  const owner = await signedInOn(h);
  const d = await added(owner.session);
  const viewer = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
  t.equal((await h.request('GET', `${API}/${d.id}`, as(viewer))).status, 200);
  t.match(await h.request('POST', API, as(viewer, { body: { name: fresh() } })), { status: 403, body: { code: 'rest_forbidden' } });
  t.match(await h.request('POST', `${API}/bulk`, as(viewer, { body: { names: [fresh()] } })), { status: 403 });
  t.match(await h.request('DELETE', `${API}/${d.id}`, as(viewer)), { status: 403 });

  const stranger = await signedInOn(h);
  t.match(await h.request('GET', `${API}/${d.id}`, as(stranger.session)), { status: 404, body: { code: 'rest_domain_invalid_id' } });
  t.match(await h.request('DELETE', `${API}/${d.id}`, as(stranger.session)), { status: 404 });
  t.match(await h.request('GET', `${API}/${d.id}/verify`, as(stranger.session)), { status: 404 });

  const teams = await Promise.all(['A', 'B'].map((n) => h.request('POST', '/v2/teams', { key: owner.adminKey, body: { name: `Team ${n}` } })));
  const [a, b] = teams.map((r) => (r.body as { data: { id: number } }).data.id) as [number, number];
  const teamUser = await logIn(h, await userOn(h, owner.accountId, 'admin', a));
  t.match(await h.request('GET', API, as(teamUser, { teamId: b })), { status: 404, body: { code: 'rest_team_invalid_id' } }, 'a sibling team');
  t.match(await h.request('GET', `${API}/${d.id}`, as(teamUser)), { status: 404 }, "the account's domain from its team");
  t.equal((await h.request('POST', API, as(teamUser, { body: { name: fresh() } }))).status, 201, 'its own team');
});

t.test('verify runs the DNS check now: per record expected, found, ok; verified once published; rate-limited per domain', async (t) => {
  const { session, adminKey } = await signedInOn(h);
  const d = await added(session);
  const first = await h.request('GET', `${API}/${d.id}/verify`, as(session));
  t.equal(first.status, 200);
  t.match(first.body, {
    id: d.id,
    verified: false,
    verification_status: 'draft',
    records: [
      { role: 'dkim', type: 'TXT', name: `tern._domainkey.${d.domain_name}`, expected: /^p=/, found: [], ok: false },
      { role: 'spf', type: 'TXT', expected: 'include:mx.tern.test', found: [], ok: false },
      { role: 'mx', type: 'MX', expected: 'mx.tern.test', found: [], ok: false },
    ],
  });
  publishRecords(dns, d);
  const second = await h.request('GET', `${API}/${d.id}/verify`, as(session));
  t.match(second.body, {
    verified: true,
    verification_status: 'verified',
    records: [{ ok: true }, { ok: true, found: [/include:mx\.tern\.test/] }, { ok: true, found: ['mx.tern.test'] }],
  });
  t.match(await h.request('GET', `/v2/domains/${d.id}`, { key: adminKey }), { body: { data: { verification_status: 'verified' } } }, '/v2 sees it verified');

  const third = await h.request('GET', `${API}/${d.id}/verify`, as(session));
  t.match(third, { status: 429, body: { code: 'rest_too_many_requests' } });
  t.ok(Number(third.headers.get('retry-after')) >= 1, 'Retry-After');
  const other = await added(session);
  t.equal((await h.request('GET', `${API}/${other.id}/verify`, as(session))).status, 200, 'the limit is per domain');
});

t.test('sending-stats gives every live domain of the team with its figures over a period; bad periods are refused', async (t) => {
  const { session } = await signedInOn(h);
  const [a, b] = [await added(session), await added(session)];
  const reply = await h.request('GET', `/api/tern/v2/api/domains/sending-stats?from=2020-01-01&to=2020-12-31`, as(session));
  t.equal(reply.status, 200);
  t.match(reply.body, {
    period: { from: '2020-01-01T00:00:00.000Z', to: '2020-12-31T23:59:59.999Z' },
    domains: [
      { domain_id: a.id, domain_name: a.domain_name, sent: 0, bounced: 0, complained: 0, suppressed: 0, bounce_rate: 0 },
      { domain_id: b.id, sent: 0 },
    ],
  });
  t.match(await h.request('GET', `${API}/sending-stats?from=yesterday`, as(session)), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { from: /ISO 8601/ } } },
  });
  t.match(await h.request('GET', `${API}/sending-stats?from=2021-01-01&to=2020-01-01`, as(session)), { status: 400, body: { data: { params: { from: /after/ } } } });
});
