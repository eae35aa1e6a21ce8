// GET /api/tern/v2/api/domains/{domain_hash}/dmarc over real HTTP, Redis, SQLite and a loopback DNS server serving
// `_dmarc` TXT records: no record, a valid one (aligned or not), two records, an invalid one, a failed lookup, the
// organizational domain's record for a subdomain; the suggested record; who may read it; the rate limit.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { startDnsServer } from './helpers/dns-server.js';
import { logIn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const dns = await startDnsServer();
const h = await startHarness({
  env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_VERIFY_INTERVAL_S: '3600' },
  overrides: { verify: { intervalS: 3600, maxDraftAgeDays: 30, lockTtlS: 300, onDemand: { limit: 3, windowS: 60 } } },
});
t.teardown(async () => {
  await h.close();
  await dns.close();
});

const API = '/api/tern/v2/api/domains';
let counter = 0;
const fresh = (base = 'dmarc') => `${base}-${++counter}-${process.pid}.com`;

interface Domain {
  id: string;
  domain_name: string;
}

async function added(s: SignedIn, name = fresh()): Promise<Domain> {
  const reply = await h.request<Domain>('POST', API, { ...withSession(s), body: { name } });
  if (reply.status !== 201) throw new Error(`adding ${name}: ${reply.status} ${reply.text}`);
  return reply.body;
}

const dmarcOf = (s: SignedIn, d: Domain, extra: Record<string, string> = {}) => h.request('GET', `${API}/${d.id}/dmarc`, withSession(s, s.nonce, extra));

t.test('without a record: says so, both identifiers would align under the default relaxed mode, and suggests p=none with reports', async (t) => {
  const { session } = await signedInOn(h);
  const d = await added(session);
  const reply = await dmarcOf(session, d);
  t.equal(reply.status, 200, reply.text);
  t.match(reply.body, {
    id: d.id,
    domain_name: d.domain_name,
    status: 'none',
    record_name: `_dmarc.${d.domain_name}`,
    found: [],
    record: null,
    alignment: {
      dkim: { domain: d.domain_name, selector: 'tern', mode: 'r', aligned: true },
      return_path: { domain: `send.${d.domain_name}`, mode: 'r', aligned: true },
      passes: true,
    },
    suggestion: { name: `_dmarc.${d.domain_name}`, record: `v=DMARC1; p=none; rua=mailto:dmarc@${d.domain_name}` },
  });
});

t.test('a valid record under relaxed alignment: its tags parsed, DKIM and return path aligned, a stricter next step suggested', async (t) => {
  const { session } = await signedInOn(h);
  const d = await added(session);
  const text = `v=DMARC1; p=none; sp=quarantine; pct=50; rua=mailto:agg@${d.domain_name},mailto:x@reports.example!10m; ruf=mailto:f@${d.domain_name}; fo=0:d; adkim=r; aspf=r`;
  dns.set(`_dmarc.${d.domain_name}`, [
    { type: 'TXT', data: text },
    { type: 'TXT', data: 'google-site-verification=abc' },
  ]);
  const reply = await dmarcOf(session, d);
  t.equal(reply.status, 200, reply.text);
  t.match(reply.body, {
    status: 'valid',
    found: [text],
    inherited: false,
    record: {
      p: 'none',
      sp: 'quarantine',
      pct: 50,
      rua: [`mailto:agg@${d.domain_name}`, 'mailto:x@reports.example!10m'],
      ruf: [`mailto:f@${d.domain_name}`],
      adkim: 'r',
      aspf: 'r',
      fo: ['0', 'd'],
    },
    alignment: { dkim: { aligned: true, mode: 'r' }, return_path: { aligned: true, mode: 'r' }, passes: true },
    suggestion: {
      record: `v=DMARC1; p=quarantine; sp=quarantine; pct=50; rua=mailto:agg@${d.domain_name},mailto:x@reports.example!10m; ruf=mailto:f@${d.domain_name}; fo=0:d; adkim=r; aspf=r`,
    },
  });
});

t.test('strict SPF alignment: the return path (send.<domain>) does not align, DKIM (d= the domain) still does', async (t) => {
  const { session } = await signedInOn(h);
  const d = await added(session);
  dns.set(`_dmarc.${d.domain_name}`, [{ type: 'TXT', data: 'v=DMARC1; p=reject; adkim=s; aspf=s' }]);
  const reply = await dmarcOf(session, d);
  t.equal(reply.status, 200, reply.text);
  t.match(reply.body, {
    status: 'valid',
    record: { p: 'reject', sp: 'reject', pct: 100, rua: [], adkim: 's', aspf: 's', fo: ['0'] },
    alignment: {
      dkim: { domain: d.domain_name, mode: 's', aligned: true },
      return_path: { domain: `send.${d.domain_name}`, mode: 's', aligned: false },
      passes: true,
    },
    suggestion: null,
  });
});

t.test('two DMARC records are reported as several (invalid per RFC 7489), both shown, and one record suggested', async (t) => {
  const { session } = await signedInOn(h);
  const d = await added(session);
  dns.set(`_dmarc.${d.domain_name}`, [
    { type: 'TXT', data: 'v=DMARC1; p=none' },
    { type: 'TXT', data: 'v=DMARC1; p=reject' },
  ]);
  const reply = await dmarcOf(session, d);
  t.equal(reply.status, 200, reply.text);
  t.match(reply.body, { status: 'several', record: null, suggestion: { record: `v=DMARC1; p=none; rua=mailto:dmarc@${d.domain_name}` } });
  t.same([...(reply.body as { found: string[] }).found].sort(), ['v=DMARC1; p=none', 'v=DMARC1; p=reject']);
});

t.test('a garbled record is reported as invalid, with each problem named', async (t) => {
  const { session } = await signedInOn(h);
  const d = await added(session);
  dns.set(`_dmarc.${d.domain_name}`, [{ type: 'TXT', data: 'v=DMARC1; p=maybe; pct=150; adkim=x' }]);
  const reply = await dmarcOf(session, d);
  t.equal(reply.status, 200, reply.text);
  t.match(reply.body, { status: 'invalid', found: ['v=DMARC1; p=maybe; pct=150; adkim=x'], record: null, suggestion: { record: /^v=DMARC1; p=none; rua=/ } });
  const problems = (reply.body as { problems: string[] }).problems;
  t.equal(problems.length, 3, problems.join(' | '));
  t.match(problems, [/\bp\b/, /pct/, /adkim/]);
});

t.test('a failed lookup (SERVFAIL) is not reported as a missing record', async (t) => {
  const { session } = await signedInOn(h);
  const d = await added(session);
  dns.fail(`_dmarc.${d.domain_name}`);
  const reply = await dmarcOf(session, d);
  t.equal(reply.status, 200, reply.text);
  t.match(reply.body, { status: 'lookup_failed', error: /SERVFAIL|ESERVFAIL/, record: null, suggestion: null });
});

t.test('a subdomain without its own record is covered by its organizational domain’s record (sp applies)', async (t) => {
  const { session } = await signedInOn(h);
  const org = fresh('org');
  const d = await added(session, `mail.${org}`);
  dns.set(`_dmarc.${org}`, [{ type: 'TXT', data: 'v=DMARC1; p=reject; sp=none; aspf=s' }]);
  const reply = await dmarcOf(session, d);
  t.equal(reply.status, 200, reply.text);
  t.match(reply.body, {
    status: 'valid',
    record_name: `_dmarc.${org}`,
    inherited: true,
    policy: 'none',
    record: { p: 'reject', sp: 'none' },
    alignment: { return_path: { domain: `send.mail.${org}`, mode: 's', aligned: false }, dkim: { aligned: true } },
    suggestion: { name: `_dmarc.mail.${org}`, record: 'v=DMARC1; p=quarantine; aspf=s' },
  });
});

t.test('every role reads it; a team user does not reach the account’s domain; another account’s domain is not found', async (t) => {
  const owner = await signedInOn(h);
  const d = await added(owner.session);
  const viewer = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
  t.equal((await dmarcOf(viewer, d)).status, 200, 'a viewer reads');
  const team = await h.request('POST', '/v2/teams', { key: owner.adminKey, body: { name: 'Client' } });
  const teamId = (team.body as { data: { id: number } }).data.id;
  const teamUser = await logIn(h, await userOn(h, owner.accountId, 'admin', teamId));
  t.match(await dmarcOf(teamUser, d), { status: 404, body: { code: 'rest_domain_invalid_id' } });
  const stranger = await signedInOn(h);
  t.match(await dmarcOf(stranger.session, d), { status: 404, body: { code: 'rest_domain_invalid_id' } });
  t.match(await dmarcOf(owner.session, d, { 'X-Account-Id': String(stranger.accountId) }), { status: 404 });
  t.match(await h.request('GET', `${API}/${d.id}/dmarc`), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('GET', `${API}/${d.id}/dmarc`, withSession(owner.session, null)), { status: 401 });
  t.match(await h.request('GET', `${API}/${d.id}/dmarc`, withSession(owner.session, 'abcdef0123')), { status: 403, body: { code: 'rest_cookie_invalid_nonce' } });
  t.match(await h.request('GET', `${API}/no-such-domain/dmarc`, withSession(owner.session)), { status: 404 });
});

t.test('the check is rate-limited per domain as the DNS check on demand is (429 with Retry-After)', async (t) => {
  const { session } = await signedInOn(h);
  const d = await added(session);
  for (let i = 0; i < 3; i++) t.equal((await dmarcOf(session, d)).status, 200);
  const refused = await dmarcOf(session, d);
  t.match(refused, { status: 429, body: { code: 'rest_too_many_requests' } });
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After');
  t.equal((await h.request('GET', `${API}/${d.id}/verify`, withSession(session))).status, 200, 'the verify route keeps its own count');
  t.equal((await dmarcOf(session, await added(session))).status, 200, 'the limit is per domain');
});
