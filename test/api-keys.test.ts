// /v2/api-keys over real HTTP: sending keys are created, listed masked, restricted to a domain and revoked;
// admin keys never appear and are limited per account.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { SCOPES } from '../shared/scopes.js';

let h: Harness;
t.before(async () => {
  h = await startHarness({ overrides: { dkim: { keyBits: 1024 } } });
});
t.teardown(() => h?.close());

const SPEC_DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

async function addDomain(key: string, name: string, teamId?: number): Promise<string> {
  const res = await h.request('POST', '/v2/domains', { key, teamId, body: { name } });
  if (res.status !== 201) throw new Error(`domain not added: ${res.status} ${res.text}`);
  return res.body.data.id;
}

async function createTeam(key: string, name: string): Promise<number> {
  const res = await h.request('POST', '/v2/teams', { key, body: { name } });
  if (res.status !== 201) throw new Error(`team not created: ${res.status} ${res.text}`);
  return res.body.data.id;
}

t.test('POST /v2/api-keys creates a sending key and shows its value once', async (t) => {
  const { key } = await h.account();
  const before = Date.now();
  const res = await h.request('POST', '/v2/api-keys', { key, body: { name: 'Website' } });
  t.equal(res.status, 201);
  t.same(Object.keys(res.body.data).sort(), ['api_key', 'created_at', 'id', 'name']);
  const { id, name, api_key: value, created_at: createdAt } = res.body.data;
  t.type(id, 'number');
  t.equal(name, 'Website');
  t.match(value, /^tern_[A-Za-z0-9_-]{43,}$/, 'tern_ and at least 32 random bytes');
  t.notOk(value.startsWith('tern_admin_'), 'never looks like an admin key');
  t.match(createdAt, SPEC_DATE_TIME);
  const stamp = Date.parse(`${createdAt.replace(' ', 'T')}Z`);
  t.ok(Math.abs(stamp - before) < 5000, 'created_at is now, in UTC');
  const resolved = await h.rt.keyCache.resolve(value);
  t.equal(resolved?.kind, 'sending', 'the value works as a sending key');
  const list = await h.request('GET', '/v2/api-keys', { key });
  t.notOk(list.text.includes(value), 'the list never shows the value again');
});

t.test('two keys never share a value', async (t) => {
  const { key } = await h.account();
  const a = await h.request('POST', '/v2/api-keys', { key, body: { name: 'a' } });
  const b = await h.request('POST', '/v2/api-keys', { key, body: { name: 'b' } });
  t.not(a.body.data.api_key, b.body.data.api_key);
});

t.test('GET /v2/api-keys lists keys masked, active, with null domain when unrestricted', async (t) => {
  const { key } = await h.account();
  const created = await h.request('POST', '/v2/api-keys', { key, body: { name: 'Listed' } });
  const value: string = created.body.data.api_key;
  const res = await h.request('GET', '/v2/api-keys', { key });
  t.equal(res.status, 200);
  t.equal(res.body.total, 1);
  t.equal(res.body.page, 1);
  t.equal(res.body.per_page, 25);
  const [item] = res.body.data;
  t.same(Object.keys(item).sort(), ['created_at', 'domain', 'id', 'key', 'status', 'title']);
  t.equal(item.id, created.body.data.id);
  t.equal(item.title, 'Listed');
  t.equal(item.status, 'active');
  t.equal(item.domain, null);
  t.equal(item.created_at, created.body.data.created_at);
  const masked: string = item.key;
  t.not(masked, value, 'not the full key');
  t.ok(masked.startsWith(value.slice(0, 6)), 'shows the start');
  t.ok(masked.endsWith(value.slice(-4)), 'shows the end');
  t.match(masked, /\*{4,}/, 'the middle is masked');
  const visible = masked.replace(/\*/g, '');
  t.ok(visible.length <= 13, `shows at most 13 characters (${visible.length})`);
  t.notOk(value.includes(masked), 'the mask is not a substring of the key');
});

t.test('a key restricted to one of the team’s domains is listed with that domain’s name', async (t) => {
  const { key } = await h.account();
  const domain = await addDomain(key, 'keys-example.com');
  const res = await h.request('POST', '/v2/api-keys', { key, body: { name: 'Restricted', domain } });
  t.equal(res.status, 201);
  const record = await h.rt.keyCache.resolve(res.body.data.api_key);
  t.equal(record?.domainId, domain);
  const list = await h.request('GET', '/v2/api-keys', { key });
  t.equal(list.body.data[0].domain, 'keys-example.com');
});

t.test('a domain of another team, another account or an unknown id answers 404 and creates nothing', async (t) => {
  const { key } = await h.account();
  const team = await createTeam(key, 'Domain holder');
  const childDomain = await addDomain(key, 'child-keys.example.com', team);
  const { key: otherKey } = await h.account();
  const foreignDomain = await addDomain(otherKey, 'foreign-keys.example.com');
  for (const domain of [childDomain, foreignDomain, 'no-such-domain']) {
    const res = await h.request('POST', '/v2/api-keys', { key, body: { name: 'Bad', domain } });
    t.equal(res.status, 404, domain);
    t.equal(res.body.errors.code, 'not_found');
  }
  t.equal((await h.request('GET', '/v2/api-keys', { key })).body.total, 0);
  // The same domain is valid when acting on its team.
  const onTeam = await h.request('POST', '/v2/api-keys', { key, teamId: team, body: { name: 'Good', domain: childDomain } });
  t.equal(onTeam.status, 201);
});

t.test('POST /v2/api-keys validates its body', async (t) => {
  const { key } = await h.account();
  const cases: Array<[unknown, string]> = [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 5 }, 'name'],
    [{ name: 'n'.repeat(101) }, 'name'],
    [{ name: 'ok', domain: 7 }, 'domain'],
    [{ name: 'ok', scopes: ['emails:send'] }, 'scopes'],
    [{ name: 'ok', kind: 'admin' }, 'kind'],
  ];
  for (const [body, field] of cases) {
    const res = await h.request('POST', '/v2/api-keys', { key, body });
    t.equal(res.status, 422, JSON.stringify(body).slice(0, 40));
    t.equal(res.body.errors.field, field);
  }
  t.equal((await h.request('GET', '/v2/api-keys', { key })).body.total, 0, 'nothing was created');
});

t.test('admin keys never appear in the sending-key list and cannot be deleted through it', async (t) => {
  const { id, key } = await h.account();
  const extra = await h.adminKey(id, ['api_keys:read']);
  const list = await h.request('GET', '/v2/api-keys', { key: extra });
  t.equal(list.status, 200);
  t.same(list.body.data, []);
  t.equal(list.body.total, 0);
  const adminIds = (await h.rt.store.keys.listAdmin(id)).map((k) => k.id);
  t.equal(adminIds.length, 2);
  for (const adminId of adminIds) {
    const res = await h.request('DELETE', `/v2/api-keys/${adminId}`, { key });
    t.equal(res.status, 404, `admin key ${adminId}`);
  }
  t.equal((await h.request('GET', '/v2/info', { key: extra })).status, 200, 'the admin key still works');
});

t.test('DELETE /v2/api-keys/{id} revokes the key: deleted true, no longer listed, a second DELETE is 404', async (t) => {
  const { key } = await h.account();
  const keep = await h.request('POST', '/v2/api-keys', { key, body: { name: 'Keep' } });
  const drop = await h.request('POST', '/v2/api-keys', { key, body: { name: 'Drop' } });
  const res = await h.request('DELETE', `/v2/api-keys/${drop.body.data.id}`, { key });
  t.equal(res.status, 200);
  t.same(res.body, { deleted: true });
  const list = await h.request('GET', '/v2/api-keys', { key });
  t.same(
    list.body.data.map((k: { id: number }) => k.id),
    [keep.body.data.id],
  );
  t.equal(list.body.total, 1);
  t.equal(await h.rt.keyCache.resolve(drop.body.data.api_key), undefined, 'the value no longer resolves');
  t.ok(await h.rt.keyCache.resolve(keep.body.data.api_key), 'the other key still does');
  const again = await h.request('DELETE', `/v2/api-keys/${drop.body.data.id}`, { key });
  t.equal(again.status, 404);
  t.equal(again.body.errors.code, 'not_found');
});

t.test('DELETE of another account’s or another team’s key answers 404 and leaves it working', async (t) => {
  const { key } = await h.account();
  const team = await createTeam(key, 'Key team');
  const { key: otherKey } = await h.account();
  const foreign = await h.request('POST', '/v2/api-keys', { key: otherKey, body: { name: 'Foreign' } });
  const onTeam = await h.request('POST', '/v2/api-keys', { key, teamId: team, body: { name: 'On team' } });
  for (const target of [foreign.body.data, onTeam.body.data]) {
    const res = await h.request('DELETE', `/v2/api-keys/${target.id}`, { key });
    t.equal(res.status, 404);
    t.ok(await h.rt.keyCache.resolve(target.api_key), 'still works');
  }
  const childKey = await h.adminKey(team, [...SCOPES]);
  const fromChild = await h.request('DELETE', `/v2/api-keys/${onTeam.body.data.id}`, { key: childKey });
  t.equal(fromChild.status, 200, 'the team’s own key can revoke it');
});

t.test('DELETE /v2/api-keys/{id} with a non-integer id answers 422', async (t) => {
  const { key } = await h.account();
  for (const id of ['abc', '0', '-1', '1.5']) {
    const res = await h.request('DELETE', `/v2/api-keys/${id}`, { key });
    t.equal(res.status, 422, id);
    t.equal(res.body.errors.field, 'id');
  }
});

t.test('removing a domain revokes the keys restricted to it, not the others', async (t) => {
  const { key } = await h.account();
  const domain = await addDomain(key, 'revoke-with-domain.example.com');
  const bound = await h.request('POST', '/v2/api-keys', { key, body: { name: 'Bound', domain } });
  const free = await h.request('POST', '/v2/api-keys', { key, body: { name: 'Free' } });
  const removed = await h.request('DELETE', `/v2/domains/${domain}`, { key });
  t.equal(removed.status, 200);
  t.equal(await h.rt.keyCache.resolve(bound.body.data.api_key), undefined);
  t.ok(await h.rt.keyCache.resolve(free.body.data.api_key));
  const list = await h.request('GET', '/v2/api-keys', { key });
  t.same(
    list.body.data.map((k: { title: string }) => k.title),
    ['Free'],
  );
});

t.test('an account holds at most 10 admin keys, its teams’ keys included; the 11th is refused', async (t) => {
  t.equal(h.config.limits.adminKeysPerAccount, 10);
  const { id, key } = await h.account(); // its first admin key
  const team = await createTeam(key, 'Counts too');
  for (let i = 2; i <= 9; i++) await h.adminKey(id, ['teams:read']);
  await h.adminKey(team, ['teams:read']); // the tenth, held by a child team
  await t.rejects(h.adminKey(id, ['teams:read']), /10 admin keys/, 'the 11th on the account');
  await t.rejects(h.adminKey(team, ['teams:read']), /10 admin keys/, 'the 11th on a child team');
  t.equal((await h.rt.store.keys.listAdmin(id)).length, 10);
  // Another account is unaffected, and sending keys do not count.
  const { id: other } = await h.account();
  t.ok(await h.adminKey(other, ['teams:read']));
  const sending = await h.request('POST', '/v2/api-keys', { key, body: { name: 'Sending still fine' } });
  t.equal(sending.status, 201);
});

t.test('a revoked admin key frees its place', async (t) => {
  const { id } = await h.account();
  for (let i = 2; i <= 10; i++) await h.adminKey(id, []);
  await t.rejects(h.adminKey(id, []));
  const [first] = await h.rt.store.keys.listAdmin(id);
  await h.rt.store.keys.revoke(first!.id, 'admin');
  t.ok(await h.adminKey(id, []));
});

t.test('list paging: 30 keys give 25 on page 1 and 5 on page 2, in creation order', async (t) => {
  const { key } = await h.account();
  const ids: number[] = [];
  for (let i = 0; i < 30; i++) {
    const res = await h.request('POST', '/v2/api-keys', { key, body: { name: `Key ${i}` } });
    ids.push(res.body.data.id);
  }
  const one = await h.request('GET', '/v2/api-keys', { key });
  t.equal(one.body.total, 30);
  t.equal(one.body.data.length, 25);
  const two = await h.request('GET', '/v2/api-keys?page=2', { key });
  t.equal(two.body.page, 2);
  t.equal(two.body.data.length, 5);
  t.same(
    [...one.body.data, ...two.body.data].map((k: { id: number }) => k.id),
    ids,
  );
  const small = await h.request('GET', '/v2/api-keys?page=3&per_page=7', { key });
  t.same(
    small.body.data.map((k: { id: number }) => k.id),
    ids.slice(14, 21),
  );
  t.equal(small.body.per_page, 7);
  const beyond = await h.request('GET', '/v2/api-keys?page=9', { key });
  t.equal(beyond.status, 200);
  t.same(beyond.body.data, []);
  t.equal(beyond.body.total, 30);
});
