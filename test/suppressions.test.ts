// /v2/suppressions over real HTTP: the per-team list with status and search (search counting against the
// shared writes bucket), and removals by query or JSON body under a daily per-account allowance kept in
// Redis, so that every API process (and the dashboard) shares one counter.
import t from 'tap';
import { startHarness, type Harness, type UntypedJson } from './helpers/harness.js';
import { startApi } from '../api/main.js';
import { openRuntime } from '../shared/runtime/runtime.js';
import { createLogger } from '../shared/log.js';
import { redisKeys } from '../shared/redis-keys.js';
import { utcDay } from '../shared/time.js';
import type { SuppressionStatus } from '../shared/domain/suppression.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/** Default limits. */
let h: Harness;
/** suppressionRemovalsPerDay: 3. */
let daily: Harness;
/** writesPerMinute: 3. */
let writes: Harness;

t.before(async () => {
  [h, daily, writes] = await Promise.all([
    startHarness(),
    startHarness({ overrides: { limits: { suppressionRemovalsPerDay: 3 } } }),
    startHarness({ overrides: { limits: { writesPerMinute: 3 } } }),
  ]);
});
t.teardown(async () => {
  await Promise.all([h?.close(), daily?.close(), writes?.close()]);
});

interface Entry {
  email: string;
  status?: SuppressionStatus;
  reason?: string;
  messageId?: string | null;
}

async function suppress(on: Harness, teamId: number, entries: Array<Entry | string>): Promise<void> {
  for (const e of entries) {
    const entry = typeof e === 'string' ? { email: e } : e;
    await on.rt.store.suppressions.add(teamId, {
      email: entry.email,
      status: entry.status ?? 'bounced',
      reason: entry.reason ?? 'hard bounce',
      messageId: entry.messageId === undefined ? null : entry.messageId,
    });
  }
}

async function childTeam(on: Harness, parentId: number, name: string): Promise<number> {
  const parent = await on.rt.store.teams.get(parentId);
  const team = await on.rt.store.teams.createTeam(parent!, name, 25);
  if (team === 'limit_reached') throw new Error('team limit reached');
  return team.id;
}

const emails = (body: { data: Array<{ email: string }> }): string[] => body.data.map((s) => s.email).sort();

const removalKey = (accountId: number): string => redisKeys.suppressionRemovals(accountId, utcDay());

/** Waits, when needed, so that a burst of requests fits in one fixed rate-limit window of 60 s. */
async function freshRateWindow(): Promise<void> {
  const left = 60 - (Math.floor(Date.now() / 1000) % 60);
  if (left < 10) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}

t.test('the list uses the envelope with items email, status, reason, message_id and created_at, newest first', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, [
    { email: 'first@example.com', status: 'bounced', reason: '550 5.1.1 no such user', messageId: 'msg-1' },
    { email: 'second@example.com', status: 'complained', reason: 'complaint', messageId: 'msg-2' },
    { email: 'Third@Example.com', status: 'suppressed', reason: 'manual' },
  ]);
  const res = await h.request('GET', '/v2/suppressions', { key: a.key });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-account-id'), String(a.id));
  t.same(Object.keys(res.body).sort(), ['data', 'page', 'per_page', 'total']);
  t.equal(res.body.total, 3);
  t.equal(res.body.page, 1);
  t.equal(res.body.per_page, 25);
  t.same(
    res.body.data.map((s: { email: string }) => s.email),
    ['third@example.com', 'second@example.com', 'first@example.com'],
    'newest first, addresses in lower case',
  );
  for (const item of res.body.data) {
    t.same(Object.keys(item).sort(), ['created_at', 'email', 'message_id', 'reason', 'status']);
    t.match(item.created_at, ISO);
  }
  t.same(res.body.data[2], {
    email: 'first@example.com',
    status: 'bounced',
    reason: '550 5.1.1 no such user',
    message_id: 'msg-1',
    created_at: res.body.data[2].created_at,
  });
  t.equal(res.body.data[0].message_id, null, 'a manual entry has no message');
  t.equal(res.headers.get('ratelimit-limit'), null, 'a list without search is not rate limited');
});

t.test('the list pages with the usual rules', async (t) => {
  const a = await h.account();
  await suppress(
    h,
    a.id,
    Array.from({ length: 12 }, (_, i) => `user${String(i).padStart(2, '0')}@example.com`),
  );
  const page = await h.request('GET', '/v2/suppressions?page=2&per_page=5', { key: a.key });
  t.equal(page.status, 200);
  t.equal(page.body.total, 12);
  t.equal(page.body.page, 2);
  t.equal(page.body.per_page, 5);
  t.same(
    page.body.data.map((s: { email: string }) => s.email),
    ['user06@example.com', 'user05@example.com', 'user04@example.com', 'user03@example.com', 'user02@example.com'],
  );
  const last = await h.request('GET', '/v2/suppressions?page=3&per_page=5', { key: a.key });
  t.equal(last.body.data.length, 2);
  for (const q of ['per_page=0', 'per_page=101', 'page=0', 'page=x', 'page=101&per_page=100']) {
    const res = await h.request('GET', `/v2/suppressions?${q}`, { key: a.key });
    t.equal(res.status, 422, q);
  }
  const deepest = await h.request('GET', '/v2/suppressions?page=100&per_page=100', { key: a.key });
  t.equal(deepest.status, 200);
  t.same(deepest.body.data, []);
});

t.test('the list filters by status and refuses other statuses', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, [
    { email: 'b1@example.com', status: 'bounced' },
    { email: 'b2@example.com', status: 'bounced' },
    { email: 'c1@example.com', status: 'complained' },
    { email: 's1@example.com', status: 'suppressed' },
  ]);
  const cases: Array<[SuppressionStatus, string[]]> = [
    ['bounced', ['b1@example.com', 'b2@example.com']],
    ['complained', ['c1@example.com']],
    ['suppressed', ['s1@example.com']],
  ];
  for (const [status, expected] of cases) {
    const res = await h.request('GET', `/v2/suppressions?status=${status}`, { key: a.key });
    t.equal(res.status, 200, status);
    t.same(emails(res.body), expected, status);
    t.equal(res.body.total, expected.length);
    t.ok(res.body.data.every((s: { status: string }) => s.status === status));
  }
  for (const status of ['unsubscribed', 'complaint', 'BOUNCED', 'sent']) {
    const res = await h.request('GET', `/v2/suppressions?status=${status}`, { key: a.key });
    t.equal(res.status, 422, status);
    t.equal(res.body.errors.code, 'validation_failed');
  }
});

t.test('search matches part of the address, case-insensitively, and combines with status', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, [
    { email: 'alice@shop.example.com', status: 'bounced' },
    { email: 'bob@shop.example.com', status: 'complained' },
    { email: 'carol@other.example.org', status: 'bounced' },
  ]);
  const cases: Array<[string, string[]]> = [
    ['shop', ['alice@shop.example.com', 'bob@shop.example.com']],
    ['SHOP.Example', ['alice@shop.example.com', 'bob@shop.example.com']],
    ['ali', ['alice@shop.example.com']],
    ['@other', ['carol@other.example.org']],
    ['.org', ['carol@other.example.org']],
    ['nobody', []],
  ];
  for (const [search, expected] of cases) {
    const res = await h.request('GET', `/v2/suppressions?search=${encodeURIComponent(search)}`, { key: a.key });
    t.equal(res.status, 200, search);
    t.same(emails(res.body), expected, search);
    t.equal(res.body.total, expected.length, `${search} total`);
  }
  const both = await h.request('GET', '/v2/suppressions?search=shop&status=complained', { key: a.key });
  t.same(emails(both.body), ['bob@shop.example.com']);
  const long = await h.request('GET', `/v2/suppressions?search=${'a'.repeat(255)}`, { key: a.key });
  t.equal(long.status, 422, 'a search longer than an address is refused');
});

t.test('% and _ in a search are literal characters, not wildcards', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, ['a%b@example.com', 'axb@example.com', 'a_b@example.com', 'ayyb@example.com', 'back\\slash@example.com']);
  const cases: Array<[string, string[]]> = [
    ['%', ['a%b@example.com']],
    ['a%b', ['a%b@example.com']],
    ['_', ['a_b@example.com']],
    ['a_b', ['a_b@example.com']],
    ['\\', ['back\\slash@example.com']],
  ];
  for (const [search, expected] of cases) {
    const res = await h.request('GET', `/v2/suppressions?search=${encodeURIComponent(search)}`, { key: a.key });
    t.equal(res.status, 200, search);
    t.same(emails(res.body), expected, `search ${search}`);
  }
});

t.test('a later bounce or manual entry does not hide an earlier complaint', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, [{ email: 'x@example.com', status: 'bounced', reason: 'soft then hard', messageId: 'm1' }]);
  await suppress(h, a.id, [{ email: 'X@example.com', status: 'complained', reason: 'spam report', messageId: 'm2' }]);
  await suppress(h, a.id, [{ email: 'x@example.com', status: 'bounced', reason: 'bounced again', messageId: 'm3' }]);
  await suppress(h, a.id, [{ email: 'x@example.com', status: 'suppressed', reason: 'manual', messageId: null }]);
  const res = await h.request('GET', '/v2/suppressions', { key: a.key });
  t.equal(res.body.total, 1, 'one entry per address');
  t.match(res.body.data[0], { email: 'x@example.com', status: 'complained', reason: 'spam report', message_id: 'm2' });

  await suppress(h, a.id, [{ email: 'y@example.com', status: 'suppressed', reason: 'manual' }]);
  await suppress(h, a.id, [{ email: 'y@example.com', status: 'bounced', reason: 'hard bounce', messageId: 'm4' }]);
  const y = await h.request('GET', '/v2/suppressions?search=y%40', { key: a.key });
  t.match(y.body.data[0], { email: 'y@example.com', status: 'bounced', reason: 'hard bounce', message_id: 'm4' }, 'a bounce outranks a manual entry');
});

t.test('suppression lists belong to the team named by X-Account-Id', async (t) => {
  const a = await h.account();
  const team = await childTeam(h, a.id, 'Client');
  await suppress(h, a.id, ['root@example.com']);
  await suppress(h, team, ['team@example.com', 'shared@example.com']);
  await suppress(h, a.id, ['shared@example.com']);

  const root = await h.request('GET', '/v2/suppressions', { key: a.key });
  t.same(emails(root.body), ['root@example.com', 'shared@example.com']);
  const child = await h.request('GET', '/v2/suppressions', { key: a.key, teamId: team });
  t.equal(child.headers.get('x-account-id'), String(team));
  t.same(emails(child.body), ['shared@example.com', 'team@example.com']);

  const wrongTeam = await h.request('DELETE', '/v2/suppressions?email=team%40example.com', { key: a.key });
  t.equal(wrongTeam.status, 404, 'the parent cannot remove the child’s entry without naming the team');
  const ok = await h.request('DELETE', '/v2/suppressions?email=shared%40example.com', { key: a.key, teamId: team });
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('x-account-id'), String(team));
  const rootAfter = await h.request('GET', '/v2/suppressions', { key: a.key });
  t.same(emails(rootAfter.body), ['root@example.com', 'shared@example.com'], 'the root’s own entry stays');

  const stranger = await h.account();
  const foreign = await h.request('GET', '/v2/suppressions', { key: stranger.key, teamId: team });
  t.equal(foreign.status, 404);
  const foreignDelete = await h.request('DELETE', '/v2/suppressions?email=team%40example.com', { key: stranger.key, teamId: team });
  t.equal(foreignDelete.status, 404);
});

t.test('DELETE by query removes the address and reports the daily allowance of 500', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, ['gone+tag@example.com', 'kept@example.com']);
  const res = await h.request('DELETE', `/v2/suppressions?email=${encodeURIComponent('gone+tag@example.com')}`, { key: a.key });
  t.equal(res.status, 200);
  t.same(Object.keys(res.body).sort(), ['daily_limit', 'deleted', 'message', 'remaining_today', 'used_today']);
  t.equal(res.body.deleted, true);
  t.type(res.body.message, 'string');
  t.ok(res.body.message.length > 0);
  t.equal(res.body.used_today, 1);
  t.equal(res.body.remaining_today, 499);
  t.equal(res.body.daily_limit, 500);
  const list = await h.request('GET', '/v2/suppressions', { key: a.key });
  t.same(emails(list.body), ['kept@example.com']);
  t.equal(await h.rt.store.suppressions.isSuppressed(a.id, 'gone+tag@example.com'), false);
});

t.test('DELETE by JSON body removes the address, matching it case-insensitively', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, ['mixed@example.com', 'other@example.com']);
  const res = await h.request('DELETE', '/v2/suppressions', { key: a.key, body: { email: 'Mixed@EXAMPLE.com' } });
  t.equal(res.status, 200);
  t.equal(res.body.deleted, true);
  t.equal(res.body.used_today, 1);
  t.equal(res.body.remaining_today, 499);
  t.equal(res.body.daily_limit, 500);
  const list = await h.request('GET', '/v2/suppressions', { key: a.key });
  t.same(emails(list.body), ['other@example.com']);
});

t.test('an address not on the list answers 404 and does not count against the allowance', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, ['one@example.com', 'two@example.com']);
  const first = await h.request('DELETE', '/v2/suppressions?email=one%40example.com', { key: a.key });
  t.equal(first.body.used_today, 1);
  for (const email of ['absent@example.com', 'one@example.com']) {
    const res = await h.request('DELETE', '/v2/suppressions', { key: a.key, body: { email } });
    t.equal(res.status, 404, email);
    t.equal(res.body.errors.code, 'not_found');
  }
  t.equal(await h.rt.redis.get(removalKey(a.id)), '1', 'the counter did not move');
  const second = await h.request('DELETE', '/v2/suppressions?email=two%40example.com', { key: a.key });
  t.equal(second.body.used_today, 2);
  t.equal(second.body.remaining_today, 498);
});

t.test('DELETE without an email, or with an invalid one, answers 422', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, ['valid@example.com']);
  const cases: Array<[string, string, unknown]> = [
    ['no email at all', '/v2/suppressions', undefined],
    ['an empty query value', '/v2/suppressions?email=', undefined],
    ['an empty body', '/v2/suppressions', {}],
    ['an invalid query email', '/v2/suppressions?email=not-an-address', undefined],
    ['two @ in the query', '/v2/suppressions?email=a%40b%40example.com', undefined],
    ['an invalid body email', '/v2/suppressions', { email: 'nope' }],
    ['a body email with spaces', '/v2/suppressions', { email: 'a b@example.com' }],
    ['a body email that is not a string', '/v2/suppressions', { email: 42 }],
    ['an unknown body field', '/v2/suppressions', { email: 'valid@example.com', force: true }],
  ];
  for (const [name, path, body] of cases) {
    const res = await h.request('DELETE', path, { key: a.key, body });
    t.equal(res.status, 422, name);
    t.equal(res.body.errors.code, 'validation_failed', name);
    t.equal(res.body.status_code, 422);
  }
  const broken = await h.request('DELETE', '/v2/suppressions', { key: a.key, rawBody: '{"email":' });
  t.equal(broken.status, 400, 'malformed JSON');
  t.equal(await h.rt.redis.get(removalKey(a.id)), null, 'no refused request counted');
  t.equal(await h.rt.store.suppressions.isSuppressed(a.id, 'valid@example.com'), true);
});

t.test('suppressions need the suppressions scopes; write includes read', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, ['s1@example.com', 's2@example.com']);
  const none = await h.adminKey(a.id, ['webhooks:write']);
  const read = await h.adminKey(a.id, ['suppressions:read']);
  const write = await h.adminKey(a.id, ['suppressions:write']);

  const listNone = await h.request('GET', '/v2/suppressions', { key: none });
  t.equal(listNone.status, 403);
  t.same(listNone.body.errors, { code: 'insufficient_scope', required_scope: 'suppressions:read' });
  t.equal((await h.request('GET', '/v2/suppressions', { key: read })).status, 200);
  t.equal((await h.request('GET', '/v2/suppressions', { key: write })).status, 200, 'write includes read');

  for (const key of [none, read]) {
    const res = await h.request('DELETE', '/v2/suppressions?email=s1%40example.com', { key });
    t.equal(res.status, 403);
    t.same(res.body.errors, { code: 'insufficient_scope', required_scope: 'suppressions:write' });
  }
  t.equal(await h.rt.store.suppressions.isSuppressed(a.id, 's1@example.com'), true, 'refused removals change nothing');
  const ok = await h.request('DELETE', '/v2/suppressions?email=s1%40example.com', { key: write });
  t.equal(ok.status, 200);
  t.equal(ok.body.used_today, 1, 'refused removals did not count');

  t.equal((await h.request('GET', '/v2/suppressions')).status, 401, 'no key');
  t.equal((await h.request('DELETE', '/v2/suppressions?email=s2%40example.com', { key: 'tern_' + 'b'.repeat(43) })).status, 401, 'a sending key');
});

t.test('the removal counter lives in Redis under the account, expiring after the day', async (t) => {
  const a = await h.account();
  const team = await childTeam(h, a.id, 'Counted team');
  await suppress(h, team, ['r1@example.com']);
  const res = await h.request('DELETE', '/v2/suppressions?email=r1%40example.com', { key: a.key, teamId: team });
  t.equal(res.status, 200);
  t.equal(await h.rt.redis.get(removalKey(a.id)), '1', 'counted under the parent account');
  t.equal(await h.rt.redis.get(removalKey(team)), null, 'not under the child team');
  const ttl = await h.rt.redis.ttl(removalKey(a.id));
  t.ok(ttl > 86_400 && ttl <= 2 * 86_400, `expires after the day is over (ttl ${ttl})`);
});

t.test('a second API process shares the same daily counter', async (t) => {
  const a = await h.account();
  await suppress(h, a.id, ['p1@example.com', 'p2@example.com', 'p3@example.com']);
  const rt2 = await openRuntime(h.config, 'second', createLogger('second', 'silent'));
  const api2 = await startApi(h.config, rt2);
  t.teardown(async () => {
    await api2.close();
    await rt2.close();
  });
  t.not(api2.url, h.url);
  const viaSecond = async (email: string) => {
    const res = await fetch(`${api2.url}/v2/suppressions?email=${encodeURIComponent(email)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${a.key}` },
    });
    return { status: res.status, body: (await res.json()) as Record<string, UntypedJson> };
  };
  const one = await h.request('DELETE', '/v2/suppressions?email=p1%40example.com', { key: a.key });
  t.equal(one.body.used_today, 1);
  const two = await viaSecond('p2@example.com');
  t.equal(two.status, 200);
  t.equal(two.body.used_today, 2, 'the second process continues the first one’s count');
  t.equal(two.body.remaining_today, 498);
  const three = await h.request('DELETE', '/v2/suppressions', { key: a.key, body: { email: 'p3@example.com' } });
  t.equal(three.body.used_today, 3, 'and the first continues the second’s');
  t.equal(await h.rt.redis.get(removalKey(a.id)), '3');
  const gone = await viaSecond('p1@example.com');
  t.equal(gone.status, 404, 'the second process sees the first one’s removal');
});

t.test('after the daily limit removals answer 429 with Retry-After; the allowance is the account’s, across its teams', async (t) => {
  const a = await daily.account();
  const team = await childTeam(daily, a.id, 'Child');
  await suppress(daily, a.id, ['a1@example.com', 'a2@example.com']);
  await suppress(daily, team, ['t1@example.com', 't2@example.com', 't3@example.com']);

  const r1 = await daily.request('DELETE', '/v2/suppressions?email=t1%40example.com', { key: a.key, teamId: team });
  t.same({ used: r1.body.used_today, remaining: r1.body.remaining_today, limit: r1.body.daily_limit }, { used: 1, remaining: 2, limit: 3 });
  const r2 = await daily.request('DELETE', '/v2/suppressions', { key: a.key, body: { email: 'a1@example.com' } });
  t.same({ used: r2.body.used_today, remaining: r2.body.remaining_today }, { used: 2, remaining: 1 }, 'the parent’s removal follows the child’s');
  const absent = await daily.request('DELETE', '/v2/suppressions?email=absent%40example.com', { key: a.key, teamId: team });
  t.equal(absent.status, 404);
  const r3 = await daily.request('DELETE', '/v2/suppressions?email=t2%40example.com', { key: a.key, teamId: team });
  t.same({ used: r3.body.used_today, remaining: r3.body.remaining_today }, { used: 3, remaining: 0 });

  const over = await daily.request('DELETE', '/v2/suppressions?email=a2%40example.com', { key: a.key });
  t.equal(over.status, 429);
  t.equal(over.body.status_code, 429);
  t.same(over.body.errors, { code: 'daily_limit_reached', used_today: '3', remaining_today: '0', daily_limit: '3' });
  const retry = Number(over.headers.get('retry-after'));
  t.ok(Number.isInteger(retry) && retry >= 1 && retry <= 86_400, `Retry-After is the time to the next UTC day (${retry})`);
  t.equal(await daily.rt.store.suppressions.isSuppressed(a.id, 'a2@example.com'), true, 'the address stays suppressed');

  const childKey = await daily.adminKey(team, ['suppressions:write']);
  const fromChild = await daily.request('DELETE', '/v2/suppressions', { key: childKey, body: { email: 't3@example.com' } });
  t.equal(fromChild.status, 429, 'a key held by the child team shares the parent’s allowance');
  t.equal(await daily.rt.redis.get(removalKey(a.id)), '3', 'refused removals leave the counter at the limit');

  const b = await daily.account();
  await suppress(daily, b.id, ['b1@example.com']);
  const otherAccount = await daily.request('DELETE', '/v2/suppressions?email=b1%40example.com', { key: b.key });
  t.equal(otherAccount.status, 200, 'another account has its own allowance');
  t.equal(otherAccount.body.used_today, 1);
});

t.test('concurrent removals never exceed the daily limit', async (t) => {
  const a = await daily.account();
  const addresses = Array.from({ length: 6 }, (_, i) => `race${i}@example.com`);
  await suppress(daily, a.id, addresses);
  const results = await Promise.all(addresses.map((email) => daily.request('DELETE', '/v2/suppressions', { key: a.key, body: { email } })));
  t.equal(results.filter((r) => r.status === 200).length, 3);
  t.equal(results.filter((r) => r.status === 429).length, 3);
  t.same(
    results
      .filter((r) => r.status === 200)
      .map((r) => r.body.used_today)
      .sort(),
    [1, 2, 3],
  );
  const left = await daily.request('GET', '/v2/suppressions', { key: a.key });
  t.equal(left.body.total, 3);
  t.equal(await daily.rt.redis.get(removalKey(a.id)), '3');
});

t.test('requests for unlisted addresses never take the last removal from a real one', async (t) => {
  const a = await daily.account();
  await suppress(daily, a.id, ['k1@example.com', 'k2@example.com', 'k3@example.com']);
  for (const email of ['k1@example.com', 'k2@example.com']) {
    t.equal((await daily.request('DELETE', '/v2/suppressions', { key: a.key, body: { email } })).status, 200);
  }
  const unlisted = Array.from({ length: 8 }, (_, i) => daily.request('DELETE', '/v2/suppressions', { key: a.key, body: { email: `none${i}@example.com` } }));
  const real = daily.request('DELETE', '/v2/suppressions', { key: a.key, body: { email: 'k3@example.com' } });
  const [realRes, ...others] = await Promise.all([real, ...unlisted]);
  t.equal(realRes.status, 200, 'the real removal gets the last unit');
  t.equal(realRes.body.used_today, 3);
  t.ok(
    others.every((r) => r.status === 404),
    'the unlisted ones are 404',
  );
});

t.test('the same address removed twice at once counts once', async (t) => {
  const a = await daily.account();
  await suppress(daily, a.id, ['twice@example.com']);
  const both = await Promise.all([0, 1].map(() => daily.request('DELETE', '/v2/suppressions?email=twice%40example.com', { key: a.key })));
  t.same(both.map((r) => r.status).sort(), [200, 404]);
  t.equal(await daily.rt.redis.get(removalKey(a.id)), '1');
});

t.test('a list with search counts against the writes bucket; without search it is not limited', async (t) => {
  await freshRateWindow();
  const a = await writes.account();
  const team = await childTeam(writes, a.id, 'Searched team');
  await suppress(writes, a.id, ['s@example.com']);

  for (let i = 0; i < 6; i++) {
    const plain = await writes.request('GET', '/v2/suppressions', { key: a.key });
    t.equal(plain.status, 200, `plain list ${i + 1}`);
  }
  const empty = await writes.request('GET', '/v2/suppressions?search=', { key: a.key });
  t.equal(empty.status, 200, 'an empty search is no search');

  const remaining: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await writes.request('GET', '/v2/suppressions?search=s%40', { key: a.key });
    t.equal(res.status, 200, `search ${i + 1}`);
    t.equal(res.headers.get('ratelimit-limit'), '3');
    remaining.push(res.headers.get('ratelimit-remaining') ?? '');
  }
  t.same(remaining, ['2', '1']);
  const onTeam = await writes.request('GET', '/v2/suppressions?search=x', { key: a.key, teamId: team });
  t.equal(onTeam.status, 200, 'the third search, on a child team, is in the same account bucket');
  t.equal(onTeam.headers.get('ratelimit-remaining'), '0');

  const over = await writes.request('GET', '/v2/suppressions?search=s', { key: a.key });
  t.equal(over.status, 429);
  t.equal(over.body.errors.code, 'rate_limited');
  const retry = Number(over.headers.get('retry-after'));
  t.ok(retry >= 1 && retry <= 60, `Retry-After within the window (${retry})`);
  t.equal(over.headers.get('ratelimit-remaining'), '0');

  const teamOver = await writes.request('GET', '/v2/suppressions?search=s', { key: a.key, teamId: team });
  t.equal(teamOver.status, 429, 'the child team shares the account’s bucket');
  const removal = await writes.request('DELETE', '/v2/suppressions?email=s%40example.com', { key: a.key });
  t.equal(removal.status, 429, 'removals share the writes bucket');
  t.equal(await writes.rt.redis.get(removalKey(a.id)), null, 'a rate-limited removal does not count');

  const plain = await writes.request('GET', '/v2/suppressions', { key: a.key });
  t.equal(plain.status, 200, 'a list without search still answers');
  t.equal(plain.body.total, 1);

  const other = await writes.account();
  const otherSearch = await writes.request('GET', '/v2/suppressions?search=s', { key: other.key });
  t.equal(otherSearch.status, 200, 'another account has its own bucket');
});
