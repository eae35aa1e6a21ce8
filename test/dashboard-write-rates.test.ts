// The dashboard's changes count against the account's write allowance, the same Redis window /v2 counts
// against (core/write-rates.ts): RateLimit-* on each counted answer, 429 rest_too_many_requests with
// Retry-After past the limit, reads never counted, domain creation in its own bucket, each batch item counted.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { signedInOn, withSession } from './helpers/dashboard-session.js';
import { formGuardOf, page, signInOverHttp } from './helpers/web-pages.js';

const WRITES = 3;
const DOMAIN_CREATES = 2;
let h: Harness;

t.before(async () => {
  h = await startHarness({ overrides: { dkim: { keyBits: 1024 }, limits: { writesPerMinute: WRITES, domainCreatesPerMinute: DOMAIN_CREATES } } });
});
t.teardown(() => h?.close());

const webhook = (n: number) => ({ url: `https://hooks.example.com/${n}`, events: ['bounced'] });

t.test('changes are counted per account and refused past the limit with 429 and Retry-After; reads are not counted', async (t) => {
  const { session } = await signedInOn(h, 'owner');
  for (let n = 1; n <= WRITES; n++) {
    const made = await h.request('POST', '/api/tern/v2/webhooks', { ...withSession(session), body: webhook(n) });
    t.equal(made.status, 201, made.text);
    t.equal(made.headers.get('ratelimit-limit'), String(WRITES));
    t.equal(made.headers.get('ratelimit-remaining'), String(WRITES - n));
  }
  const refused = await h.request('POST', '/api/tern/v2/webhooks', { ...withSession(session), body: webhook(9) });
  t.equal(refused.status, 429);
  t.match(refused.body, { code: 'rest_too_many_requests', data: { status: 429 } });
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After');
  t.equal(refused.headers.get('ratelimit-remaining'), '0');
  const listed = await h.request('GET', '/api/tern/v2/webhooks', withSession(session));
  t.equal(listed.status, 200, 'reads still answer');
  t.equal((listed.body as unknown[]).length, WRITES, 'the refused change made nothing');
  t.equal(listed.headers.get('ratelimit-limit'), null, 'a read is not counted');
});

t.test('the allowance is shared with /v2: changes made there count here, and the other way round', async (t) => {
  const { session, adminKey } = await signedInOn(h, 'owner');
  for (let n = 1; n < WRITES; n++) t.equal((await h.request('POST', '/v2/webhooks', { key: adminKey, body: webhook(n) })).status, 201);
  t.equal((await h.request('POST', '/api/tern/v2/webhooks', { ...withSession(session), body: webhook(7) })).status, 201, 'the last one, here');
  t.equal((await h.request('POST', '/v2/webhooks', { key: adminKey, body: webhook(8) })).status, 429, 'then /v2 refuses too');
  t.equal((await h.request('POST', '/api/tern/v2/webhooks', { ...withSession(session), body: webhook(9) })).status, 429);
});

t.test('domain creation has its own bucket, as on /v2', async (t) => {
  const { session } = await signedInOn(h, 'owner');
  const add = (name: string) => h.request('POST', '/api/tern/v2/api/domains', { ...withSession(session), body: { name } });
  for (let n = 1; n <= DOMAIN_CREATES; n++) t.equal((await add(`d${n}-${process.pid}.example.com`)).status, 201);
  const refused = await add(`d9-${process.pid}.example.com`);
  t.equal(refused.status, 429);
  t.equal(refused.headers.get('ratelimit-limit'), String(DOMAIN_CREATES));
  const other = await h.request('POST', '/api/tern/v2/webhooks', { ...withSession(session), body: webhook(1) });
  t.equal(other.status, 201, 'other changes still go through');
});

t.test('each item of a batch is counted, and an item past the limit is refused in its place', async (t) => {
  const { session } = await signedInOn(h, 'owner');
  const requests = Array.from({ length: WRITES + 1 }, (_, n) => ({ path: '/tern/v2/webhooks', body: webhook(n) }));
  const batch = await h.request('POST', '/api/batch/v1', { ...withSession(session), body: { requests } });
  t.equal(batch.status, 207, batch.text);
  const statuses = (batch.body as { responses: Array<{ status: number }> }).responses.map((r) => r.status);
  t.same(statuses, [...Array.from({ length: WRITES }, () => 201), 429]);
});

t.test('the web pages count against the same allowance: a form past it answers 429 and changes nothing; switching team does not count', async (t) => {
  const { session, email } = await signedInOn(h, 'owner');
  for (let n = 1; n <= WRITES; n++) t.equal((await h.request('POST', '/api/tern/v2/webhooks', { ...withSession(session), body: webhook(n) })).status, 201);
  const cookie = await signInOverHttp(h, email);
  const guard = await formGuardOf(h, cookie, '/webhooks');
  t.equal(
    (await page(h, 'POST', '/switch-team', { cookie, form: { _wpnonce: guard._wpnonce!, team: guard._team!, redirect_to: '/' } })).status,
    303,
    'switching team is not a change',
  );
  const refused = await page(h, 'POST', '/webhooks', { cookie, form: { ...guard, url: 'https://hooks.example.com/page', events: 'bounced' } });
  t.equal(refused.status, 429);
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After');
  t.match(refused.text, /Too many changes: at most 3 a minute/);
  t.equal(((await h.request('GET', '/api/tern/v2/webhooks', withSession(session))).body as unknown[]).length, WRITES, 'nothing was made');
});
