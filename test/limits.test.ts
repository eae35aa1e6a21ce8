// Rate limits and paging over real HTTP with real Redis: the shared 300/min bucket, per account across its
// teams, the 429 headers, and the paging bounds of every list.
import t from 'tap';
import { startHarness, type Harness, type HttpReply } from './helpers/harness.js';

const FAST = { dkim: { keyBits: 1024 } };
const SMALL = 5;

async function createTeam(h: Harness, key: string, name: string): Promise<number> {
  const res = await h.request('POST', '/v2/teams', { key, body: { name } });
  if (res.status !== 201) throw new Error(`team not created: ${res.status} ${res.text}`);
  return res.body.data.id;
}

/** Runs `count` requests with at most `concurrency` in flight; returns the replies in order. */
async function fire(count: number, concurrency: number, one: (i: number) => Promise<HttpReply>): Promise<HttpReply[]> {
  const replies: HttpReply[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        replies[i] = await one(i);
      }
    }),
  );
  return replies;
}

t.test('with the default limit of 300 per minute', async (t) => {
  const h = await startHarness({ overrides: FAST });
  t.teardown(() => h.close());

  t.test('the 301st GET /v2/teams in a minute answers 429 with Retry-After and RateLimit headers', async (t) => {
    t.equal(h.config.limits.writesPerMinute, 300);
    const { key } = await h.account();
    const { key: otherKey } = await h.account();
    const replies = await fire(300, 8, () => h.request('GET', '/v2/teams', { key }));
    t.same([...new Set(replies.map((r) => r.status))], [200], 'the first 300 pass');
    const remaining = replies.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    t.equal(remaining[0], 0, 'the last allowed one has 0 remaining');
    t.equal(remaining[remaining.length - 1], 299, 'the first one has 299 remaining');
    const over = await h.request('GET', '/v2/teams', { key });
    t.equal(over.status, 429);
    t.equal(over.body.status_code, 429);
    t.equal(over.body.errors.code, 'rate_limited');
    const retry = Number(over.headers.get('retry-after'));
    t.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    t.equal(over.headers.get('ratelimit-limit'), '300');
    t.equal(over.headers.get('ratelimit-remaining'), '0');
    const reset = Number(over.headers.get('ratelimit-reset'));
    t.ok(reset >= 1 && reset <= 60, `RateLimit-Reset ${reset}`);
    t.ok(Math.abs(reset - retry) <= 1, 'Reset and Retry-After agree');
    t.notOk(over.body.error_type, 'admin error shape');
    // Reads that are not rate limited still pass, and another account is unaffected.
    t.equal((await h.request('GET', '/v2/info', { key })).status, 200);
    t.equal((await h.request('GET', '/v2/teams', { key: otherKey })).status, 200);
  });
});

t.test('with a small limit', async (t) => {
  const h = await startHarness({ overrides: { ...FAST, limits: { writesPerMinute: SMALL, domainCreatesPerMinute: 3 } } });
  t.teardown(() => h.close());

  /** An account whose writes bucket is already used up (by GET /v2/teams), with a domain to read. */
  async function exhausted(): Promise<{ id: number; key: string; domain: string }> {
    const { id, key } = await h.account();
    const added = await h.request('POST', '/v2/domains', { key, body: { name: `rl-${id}.example.com` } });
    if (added.status !== 201) throw new Error(`domain not added: ${added.text}`);
    for (let i = 0; i < SMALL; i++) {
      const res = await h.request('GET', '/v2/teams', { key });
      if (res.status !== 200) throw new Error(`request ${i} refused early: ${res.status}`);
    }
    return { id, key, domain: added.body.data.id };
  }

  t.test('other writes, GET /v2/domains/{id}, GET /v2/teams and lists with search share one bucket', async (t) => {
    const { id, key, domain } = await exhausted();
    const limited: Array<[string, string, unknown?]> = [
      ['GET', '/v2/teams'],
      ['GET', `/v2/domains/${domain}`],
      ['GET', '/v2/suppressions?search=x'],
      ['POST', '/v2/teams', { name: 'Over the limit' }],
      ['PUT', '/v2/teams/1', { name: 'Over the limit' }],
      ['POST', '/v2/api-keys', { name: 'Over the limit' }],
      ['DELETE', '/v2/api-keys/1'],
      ['POST', '/v2/webhooks', { url: 'https://hooks.example.com/a', events: ['bounced'] }],
      ['PUT', '/v2/webhooks/1', { status: 'inactive' }],
      ['DELETE', '/v2/webhooks/1'],
      ['DELETE', '/v2/suppressions?email=a%40example.com'],
      ['DELETE', `/v2/domains/${domain}`],
    ];
    for (const [method, path, body] of limited) {
      const res = await h.request(method, path, { key, body });
      t.equal(res.status, 429, `${method} ${path}`);
      t.equal(res.body.errors.code, 'rate_limited');
      t.ok(res.headers.get('retry-after'), 'Retry-After');
    }
    t.same(await h.rt.store.teams.children(id), [], 'the refused POST created nothing');
  });

  t.test('lists without search and GET /v2/info are not rate limited', async (t) => {
    const { key } = await exhausted();
    const free = ['/v2/info', '/v2/domains', '/v2/api-keys', '/v2/webhooks', '/v2/suppressions', '/v2/suppressions?status=bounced', '/v2/suppressions?search='];
    for (const path of free) {
      for (let i = 0; i < SMALL + 2; i++) {
        const res = await h.request('GET', path, { key });
        if (res.status !== 200) {
          t.fail(`${path} refused on request ${i}: ${res.status}`);
          break;
        }
      }
      t.pass(`${path} passes beyond the limit`);
      const res = await h.request('GET', path, { key });
      t.equal(res.headers.get('ratelimit-limit'), null, `${path} carries no RateLimit headers`);
    }
  });

  t.test('each of the limited requests counts against the bucket', async (t) => {
    const { key } = await h.account();
    const added = await h.request('POST', '/v2/domains', { key, body: { name: 'count-each.example.com' } });
    const domain = added.body.data.id;
    const sequence: Array<[string, string, unknown?]> = [
      ['GET', `/v2/domains/${domain}`],
      ['GET', '/v2/suppressions?search=someone'],
      ['POST', '/v2/teams', { name: 'Counted team' }],
      ['POST', '/v2/api-keys', { name: 'Counted key' }],
      ['GET', '/v2/teams'],
    ];
    for (const [i, [method, path, body]] of sequence.entries()) {
      const res = await h.request(method, path, { key, body });
      t.ok(res.status < 400, `${method} ${path}: ${res.status}`);
      t.equal(res.headers.get('ratelimit-remaining'), String(SMALL - i - 1), `${method} ${path} leaves ${SMALL - i - 1}`);
    }
    t.equal((await h.request('GET', '/v2/teams', { key })).status, 429);
  });

  t.test('the count is per account owning the key, across all its teams', async (t) => {
    const { key } = await h.account();
    // Two of the five are used creating the teams.
    const a = await createTeam(h, key, 'Team A');
    const b = await createTeam(h, key, 'Team B');
    const childKey = await h.adminKey(b, ['teams:read', 'suppressions:read']);
    t.equal((await h.request('GET', '/v2/teams', { key, teamId: a })).status, 200);
    t.equal((await h.request('GET', '/v2/suppressions?search=q', { key, teamId: b })).status, 200);
    const last = await h.request('GET', '/v2/teams', { key: childKey });
    t.equal(last.status, 200, 'a child’s key shares the parent’s bucket');
    t.equal(last.headers.get('ratelimit-remaining'), '0');
    for (const [label, options] of [
      ['the parent itself', { key }],
      ['acting on team A', { key, teamId: a }],
      ['acting on team B', { key, teamId: b }],
      ['the child’s own key', { key: childKey }],
    ] as const) {
      const res = await h.request('GET', '/v2/suppressions?search=q', options);
      t.equal(res.status, 429, label);
    }
  });

  t.test('another account is unaffected by an exhausted one', async (t) => {
    await exhausted();
    const { key } = await h.account();
    const res = await h.request('GET', '/v2/teams', { key });
    t.equal(res.status, 200);
    t.equal(res.headers.get('ratelimit-remaining'), String(SMALL - 1));
  });

  t.test('requests refused before the limit check (bad key, missing scope) do not count', async (t) => {
    const { id, key } = await h.account();
    const narrow = await h.adminKey(id, ['domains:read']);
    for (let i = 0; i < SMALL + 3; i++) {
      t.equal((await h.request('GET', '/v2/teams', { key: narrow })).status, 403);
    }
    const res = await h.request('GET', '/v2/teams', { key });
    t.equal(res.status, 200);
    t.equal(res.headers.get('ratelimit-remaining'), String(SMALL - 1));
  });

  t.test('domain creation has its own bucket and does not use the shared one', async (t) => {
    const { id, key } = await h.account();
    for (let i = 0; i < 3; i++) {
      const res = await h.request('POST', '/v2/domains', { key, body: { name: `bucket-${id}-${i}.example.com` } });
      t.equal(res.status, 201);
      t.equal(res.headers.get('ratelimit-limit'), '3');
    }
    const over = await h.request('POST', '/v2/domains', { key, body: { name: `bucket-${id}-x.example.com` } });
    t.equal(over.status, 429);
    t.ok(over.headers.get('retry-after'));
    const shared = await h.request('GET', '/v2/teams', { key });
    t.equal(shared.status, 200);
    t.equal(shared.headers.get('ratelimit-remaining'), String(SMALL - 1), 'the shared bucket is untouched');
  });

  t.test('the bucket refills once its oldest requests leave the sliding window, as Retry-After said', async (t) => {
    const { key } = await exhausted();
    t.equal((await h.request('GET', '/v2/teams', { key })).status, 429);
    const waitS = Number((await h.request('GET', '/v2/teams', { key })).headers.get('retry-after'));
    await new Promise((r) => setTimeout(r, waitS * 1000 + 200));
    const res = await h.request('GET', '/v2/teams', { key });
    t.equal(res.status, 200);
  });
});

t.test('paging', async (t) => {
  const h = await startHarness({ overrides: FAST });
  t.teardown(() => h.close());
  const { key } = await h.account();
  const LISTS = ['/v2/domains', '/v2/api-keys', '/v2/webhooks', '/v2/suppressions'];
  const get = (path: string, query: string) => h.request('GET', `${path}?${query}`, { key });

  for (const path of LISTS) {
    t.test(`${path} pages with per_page 25 by default and 1 to 100 allowed`, async (t) => {
      const plain = await h.request('GET', path, { key });
      t.equal(plain.status, 200);
      t.equal(plain.body.page, 1);
      t.equal(plain.body.per_page, 25);
      t.type(plain.body.total, 'number');
      t.ok(Array.isArray(plain.body.data));
      for (const perPage of [1, 100]) {
        const res = await get(path, `per_page=${perPage}`);
        t.equal(res.status, 200, `per_page=${perPage}`);
        t.equal(res.body.per_page, perPage);
      }
      const res = await get(path, 'page=3&per_page=10');
      t.equal(res.body.page, 3);
      t.equal(res.body.per_page, 10);
    });

    t.test(`${path} refuses per_page 0, 101 and abc, and page 0, with 422`, async (t) => {
      for (const [query, field] of [
        ['per_page=0', 'per_page'],
        ['per_page=101', 'per_page'],
        ['per_page=abc', 'per_page'],
        ['per_page=-5', 'per_page'],
        ['per_page=2.5', 'per_page'],
        ['per_page=', 'per_page'],
        ['page=0', 'page'],
        ['page=-1', 'page'],
        ['page=abc', 'page'],
        ['page=1.5', 'page'],
      ] as const) {
        const res = await get(path, query);
        t.equal(res.status, 422, query);
        t.equal(res.body.errors.field, field, query);
      }
    });

    t.test(`${path} refuses paging beyond 10,000 records with 422 and allows exactly 10,000`, async (t) => {
      for (const query of ['page=101&per_page=100', 'page=10001&per_page=1', 'page=401', 'page=9999999999&per_page=100']) {
        const res = await get(path, query);
        t.equal(res.status, 422, query);
        t.equal(res.body.errors.code, 'paging_too_deep', query);
      }
      for (const query of ['page=100&per_page=100', 'page=10000&per_page=1', 'page=400']) {
        const res = await get(path, query);
        t.equal(res.status, 200, query);
        t.same(res.body.data, []);
      }
    });
  }

  t.test('suppressions page through real rows', async (t) => {
    const { id, key: own } = await h.account();
    for (let i = 0; i < 27; i++) {
      await h.rt.store.suppressions.add(id, { email: `p${String(i).padStart(2, '0')}@example.com`, status: 'bounced', reason: '', messageId: null });
    }
    const one = await h.request('GET', '/v2/suppressions', { key: own });
    t.equal(one.body.total, 27);
    t.equal(one.body.data.length, 25);
    const two = await h.request('GET', '/v2/suppressions?page=2', { key: own });
    t.equal(two.body.data.length, 2);
    const emails = new Set([...one.body.data, ...two.body.data].map((s: { email: string }) => s.email));
    t.equal(emails.size, 27, 'no row twice, none missing');
  });
});
