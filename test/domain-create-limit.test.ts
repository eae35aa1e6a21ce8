// The domain-creation limit counts names, not requests (issue 22, item 4): each name of POST
// /api/tern/v2/api/domains/bulk (and of the Domains page's bulk form) takes its place in the account's
// domain-creation window (shared with single adds, /v2 included) before its key is made; a call that would pass
// the limit creates what fits and refuses the rest per name, and its RateLimit-* headers say what is left.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { formGuardOf, page, signInOverHttp } from './helpers/web-pages.js';
import { userOn } from './helpers/dashboard-session.js';

const LIMIT = 5;
const BULK = '/api/tern/v2/api/domains/bulk';
let h: Harness;
t.before(async () => {
  h = await startHarness({ overrides: { dkim: { keyBits: 1024 }, limits: { domainCreatesPerMinute: LIMIT } } });
});
t.teardown(() => h?.close());

let counter = 0;
const fresh = () => `limit-${++counter}-${process.pid}.com`;
const names = (n: number) => Array.from({ length: n }, fresh);

interface BulkBody {
  created: number;
  failed: number;
  results: Array<{ name: string; status: number; error?: { code: string } }>;
}

const bulk = (s: SignedIn, list: string[]) => h.request<BulkBody>('POST', BULK, { ...withSession(s), body: { names: list } });
const domainsOf = async (key: string) => (await h.request<{ total: number }>('GET', '/v2/domains', { key })).body.total;

t.test('a bulk add counts each name: the ones past the limit are refused in their place, and the headers are exact', async (t) => {
  const { session, adminKey } = await signedInOn(h, 'owner');
  const two = await bulk(session, names(2));
  t.equal(two.status, 200, two.text);
  t.equal(two.body.created, 2);
  t.equal(two.headers.get('ratelimit-limit'), String(LIMIT));
  t.equal(two.headers.get('ratelimit-remaining'), String(LIMIT - 2), 'two names, two places');
  t.equal(two.headers.get('retry-after'), null, 'nothing refused');
  const asked = names(6);
  const over = await bulk(session, asked);
  t.equal(over.status, 200, over.text);
  t.match(over.body, { created: 3, failed: 3 });
  t.same(
    over.body.results.map((r) => [r.name, r.status]),
    asked.map((name, i) => [name, i < 3 ? 201 : 429]),
    'the first three fit, the rest are refused in order',
  );
  t.match(over.body.results[5], { error: { code: 'rest_too_many_requests', data: { status: 429 } } });
  t.equal(over.headers.get('ratelimit-remaining'), '0');
  t.ok(Number(over.headers.get('retry-after')) >= 1, 'Retry-After for the refused names');
  t.equal(await domainsOf(adminKey), LIMIT, 'exactly the limit created');
  const single = await h.request('POST', '/api/tern/v2/api/domains', { ...withSession(session), body: { name: fresh() } });
  t.equal(single.status, 429, 'a single add is refused too');
  const all = await bulk(session, names(2));
  t.match(all.body, { created: 0, failed: 2 });
  t.same(
    all.body.results.map((r) => r.status),
    [429, 429],
  );
  t.equal(await domainsOf(adminKey), LIMIT);
});

t.test('single adds, on the dashboard and on /v2, and bulk adds share one window', async (t) => {
  const { session, adminKey } = await signedInOn(h, 'owner');
  t.equal((await h.request('POST', '/v2/domains', { key: adminKey, body: { name: fresh() } })).status, 201);
  t.equal((await h.request('POST', '/api/tern/v2/api/domains', { ...withSession(session), body: { name: fresh() } })).status, 201);
  const rest = await bulk(session, names(4));
  t.match(rest.body, { created: LIMIT - 2, failed: 4 - (LIMIT - 2) });
  t.equal(rest.headers.get('ratelimit-remaining'), '0');
  const v2 = await h.request('POST', '/v2/domains', { key: adminKey, body: { name: fresh() } });
  t.equal(v2.status, 429, '/v2 is refused after the bulk call');
  t.equal(await domainsOf(adminKey), LIMIT);
});

t.test('the Domains page’s bulk form counts each name too', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  const guard = await formGuardOf(h, cookie, '/domains');
  const reply = await page(h, 'POST', '/domains/bulk', { cookie, form: { ...guard, names: names(LIMIT + 2).join('\n') } });
  // Something was added: the results wait for the page the form leads to (post/redirect/get).
  t.equal(reply.status, 303, reply.text.slice(0, 500));
  const results = await page(h, 'GET', reply.headers.get('location') ?? '', { cookie });
  t.equal(results.text.match(/Domain creation is limited to 5 domains a minute/g)?.length, 2, 'the two names past the limit are said refused for it');
  t.equal(await domainsOf(account.key), LIMIT, 'the names past the limit were not created');
  const refused = await page(h, 'POST', '/domains/bulk', { cookie, form: { ...guard, names: names(2).join('\n') } });
  t.equal(refused.status, 429, 'a bulk add the limit refuses whole answers 429 with the form');
  const again = await page(h, 'POST', '/domains', { cookie, form: { ...guard, name: fresh() } });
  t.equal(again.status, 429, 'and the window is full for a single add');
});
