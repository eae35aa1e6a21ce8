// The dashboard's keys over real HTTP: GET/POST /api/tern/v2/api-keys and DELETE /api-keys/{key_hash}, the team's
// sending keys as /v2 keeps them (masked, the value shown once, opaque string ids, a revoked key refused at once)
// and the account's admin keys (created by its owner on the main account only, scopes fixed, at most
// limits.adminKeysPerAccount, working on /v2 until revoked); viewers, other teams and other accounts are refused.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

let h: Harness;
t.before(async () => {
  // A short key cache: a revoked admin key must stop working within it.
  h = await startHarness({ overrides: { keys: { cacheTtlS: 1 } } });
});
t.teardown(() => h.close());

const KEYS = '/api/tern/v2/api-keys';

async function ownerOf(accountId: number): Promise<SignedIn> {
  return logIn(h, await userOn(h, accountId, 'owner'));
}

t.test('a key is created with its value once, listed masked with an opaque id, as /v2 lists it', async (t) => {
  const account = await h.account();
  const s = await ownerOf(account.id);
  const made = await h.request('POST', KEYS, { ...withSession(s), body: { name: 'Shop' } });
  t.equal(made.status, 201, made.text);
  const created = made.body as { id: string; api_key: string; key: string };
  t.match(created, { id: /^sk_[0-9a-z]+$/, title: 'Shop', type: 'sending', status: 'active', domain: null, api_key: String });
  const list = await h.request('GET', `${KEYS}?type=sending`, withSession(s));
  t.equal(list.status, 200);
  t.equal(list.headers.get('x-wp-total'), '1');
  const [item] = list.body as Array<Record<string, unknown>>;
  t.notOk('api_key' in item!, 'the value is never listed');
  const v2 = await h.request('GET', '/v2/api-keys', { key: account.key });
  const [v2Item] = (v2.body as { data: Array<Record<string, unknown>> }).data;
  t.same({ ...item, id: v2Item!.id, type: undefined }, { ...v2Item, type: undefined }, 'the /v2 item but for its id');
  t.not(item!.id, v2Item!.id, 'never the bare integer');
  const sent = await h.request('POST', '/v2/emails', { key: created.api_key, body: {} });
  t.not(sent.status, 401, 'the value works as a sending key');
});

t.test('a revoked key is refused at once; an integer id, another kind’s id or an unknown one answers 404', async (t) => {
  const account = await h.account();
  const s = await ownerOf(account.id);
  const made = (await h.request('POST', KEYS, { ...withSession(s), body: { name: 'Shop' } })).body as { id: string; api_key: string };
  const v2Id = (await h.request('GET', '/v2/api-keys', { key: account.key })).body as { data: Array<{ id: number }> };
  t.equal((await h.request('DELETE', `${KEYS}/${v2Id.data[0]!.id}`, withSession(s))).status, 404, 'the bare integer names nothing');
  t.equal((await h.request('DELETE', `${KEYS}/wh_1`, withSession(s))).status, 404, 'a webhook id is not a key id');
  const gone = await h.request('DELETE', `${KEYS}/sk_zzzzz`, withSession(s));
  t.equal(gone.status, 404);
  t.match(gone.body, { code: 'rest_sending_key_invalid_id' });
  const revoked = await h.request('DELETE', `${KEYS}/${made.id}`, withSession(s));
  t.equal(revoked.status, 200, revoked.text);
  t.same(revoked.body, { deleted: true, id: made.id });
  const sent = await h.request('POST', '/v2/emails', { key: made.api_key, body: {} });
  const unknown = await h.request('POST', '/v2/emails', { key: `${made.api_key.slice(0, -4)}zzzz`, body: {} });
  t.equal(sent.status, unknown.status, 'the revoked key stops working: answered as an unknown key');
  t.same(sent.body, unknown.body);
  t.equal((await h.request('GET', `${KEYS}?type=sending`, withSession(s))).headers.get('x-wp-total'), '0');
});

t.test('creation refuses a blank name and a domain that is not the team’s', async (t) => {
  const account = await h.account();
  const s = await ownerOf(account.id);
  const blank = await h.request('POST', KEYS, { ...withSession(s), body: { name: '   ' } });
  t.equal(blank.status, 400);
  t.match(blank.body, { code: 'rest_invalid_param', data: { params: { name: String } } });
  const long = await h.request('POST', KEYS, { ...withSession(s), body: { name: 'x'.repeat(101) } });
  t.match(long.body, { code: 'rest_invalid_param' });
  const domain = await h.request('POST', KEYS, { ...withSession(s), body: { name: 'Shop', domain: 'not-a-domain-of-mine' } });
  t.equal(domain.status, 404);
  t.match(domain.body, { code: 'rest_domain_invalid_id' });
});

t.test('a viewer lists but does not create or revoke; other teams and accounts are out of reach', async (t) => {
  const account = await h.account();
  const owner = await ownerOf(account.id);
  const made = (await h.request('POST', KEYS, { ...withSession(owner), body: { name: 'Shop' } })).body as { id: string };
  const viewer = await logIn(h, await userOn(h, account.id, 'viewer'));
  t.equal((await h.request('GET', KEYS, withSession(viewer))).status, 200);
  t.equal((await h.request('POST', KEYS, { ...withSession(viewer), body: { name: 'X' } })).status, 403);
  t.equal((await h.request('DELETE', `${KEYS}/${made.id}`, withSession(viewer))).status, 403);
  const team = await h.request('POST', '/v2/teams', { key: account.key, body: { name: 'Client' } });
  const teamId = (team.body as { data: { id: number } }).data.id;
  const teamUser = await logIn(h, await userOn(h, account.id, 'admin', teamId));
  t.equal((await h.request('DELETE', `${KEYS}/${made.id}`, withSession(teamUser))).status, 404, 'the account’s key is not the team user’s');
  const up = await h.request('GET', KEYS, withSession(teamUser, teamUser.nonce, { 'X-Account-Id': String(account.id) }));
  t.equal(up.status, 404);
  const other = await h.account();
  const otherOwner = await ownerOf(other.id);
  t.equal((await h.request('DELETE', `${KEYS}/${made.id}`, withSession(otherOwner))).status, 404, 'another account’s key');
  t.equal((await h.request('GET', KEYS, withSession(owner, owner.nonce, { 'X-Account-Id': String(other.id) }))).status, 404);
  t.equal((await h.request('GET', KEYS)).status, 401);
  t.equal((await h.request('GET', KEYS, withSession(owner, null))).status, 401);
  t.equal((await h.request('GET', KEYS, withSession(owner, '0000000000'))).status, 403);
});

interface AdminKeyShown {
  id: string;
  type: string;
  api_key: string;
  key: string;
  scopes: string[];
}

async function adminKeyBy(s: SignedIn, body: Record<string, unknown> = {}) {
  return h.request<AdminKeyShown>('POST', KEYS, { ...withSession(s), body: { type: 'admin', name: 'Deploy', scopes: ['domains:read'], ...body } });
}

t.test('an owner creates an admin key on the main account: its value once, its scopes working on /v2 and nothing more', async (t) => {
  const account = await h.account();
  const s = await ownerOf(account.id);
  const made = await adminKeyBy(s, { scopes: ['domains:read', 'teams:read'] });
  t.equal(made.status, 201, made.text);
  t.match(made.body, { id: /^ak_[0-9a-z]+$/, type: 'admin', title: 'Deploy', status: 'active', scopes: ['domains:read', 'teams:read'], api_key: /^tern_admin_/ });
  const value = made.body.api_key;
  t.equal((await h.request('GET', '/v2/domains', { key: value })).status, 200, 'a granted scope works');
  t.match(await h.request('POST', '/v2/domains', { key: value, body: { name: 'scoped.example' } }), { status: 403, body: { errors: { code: 'insufficient_scope' } } });
  t.match(await h.request('POST', '/v2/api-keys', { key: value, body: { name: 'x' } }), { status: 403 });

  const list = await h.request<Array<Record<string, unknown>>>('GET', KEYS, withSession(s));
  t.equal(list.status, 200);
  const admins = list.body.filter((k) => k.type === 'admin');
  t.equal(admins.length, 2, 'the harness’s key and the new one');
  const shown = admins.find((k) => k.id === made.body.id)!;
  t.match(shown, { type: 'admin', scopes: ['domains:read', 'teams:read'], key: made.body.key, domain: null });
  t.notOk(JSON.stringify(list.body).includes(value.slice(-12)), 'the value is never shown again');
  t.notOk('api_key' in shown);
  t.match((await h.request('GET', `${KEYS}?type=admin`, withSession(s))).headers.get('x-wp-total'), '2');
  t.match((await h.request('GET', `${KEYS}?type=sending`, withSession(s))).headers.get('x-wp-total'), '0');
  t.match(await h.request('GET', `${KEYS}?type=other`, withSession(s)), { status: 400, body: { code: 'rest_invalid_param' } });
});

t.test('both kinds list in one collection, sending keys first, paged across the two', async (t) => {
  const account = await h.account();
  const s = await ownerOf(account.id);
  for (const name of ['A', 'B', 'C']) t.equal((await h.request('POST', KEYS, { ...withSession(s), body: { name } })).status, 201);
  t.equal((await adminKeyBy(s)).status, 201);
  const titles: string[] = [];
  for (const page of [1, 2, 3]) {
    const reply = await h.request<Array<{ title: string; type: string }>>('GET', `${KEYS}?per_page=2&page=${page}`, withSession(s));
    t.equal(reply.headers.get('x-wp-total'), '5');
    titles.push(...reply.body.map((k) => `${k.type}:${k.title}`));
  }
  t.same(titles, ['sending:A', 'sending:B', 'sending:C', 'admin:test key', 'admin:Deploy']);
});

t.test('admin keys are refused to admin and viewer users, on a child team, with unknown scopes, and with sending-key fields', async (t) => {
  const account = await h.account();
  const owner = await ownerOf(account.id);
  const admin = await logIn(h, await userOn(h, account.id, 'admin'));
  const viewer = await logIn(h, await userOn(h, account.id, 'viewer'));
  t.match(await adminKeyBy(admin), { status: 403, body: { code: 'rest_forbidden' } });
  t.match(await adminKeyBy(viewer), { status: 403, body: { code: 'rest_forbidden' } });
  const team = await h.request('POST', '/v2/teams', { key: account.key, body: { name: 'Client' } });
  const teamId = String((team.body as { data: { id: number } }).data.id);
  const onChild = await h.request('POST', KEYS, {
    ...withSession(owner, owner.nonce, { 'X-Account-Id': teamId }),
    body: { type: 'admin', name: 'X', scopes: ['domains:read'] },
  });
  t.match(onChild, { status: 403, body: { code: 'rest_forbidden' } }, 'not on a child team acted on');
  t.match(await adminKeyBy(owner, { scopes: ['domains:read', 'root:all'] }), { status: 400, body: { code: 'rest_invalid_param', data: { params: { scopes: String } } } });
  t.match(await adminKeyBy(owner, { scopes: [] }), { status: 400, body: { code: 'rest_invalid_param' } });
  t.match(await adminKeyBy(owner, { scopes: ['domains:read', 'domains:read'] }), { status: 400, body: { code: 'rest_invalid_param' } });
  t.match(await adminKeyBy(owner, { scopes: undefined }), { status: 400, body: { code: 'rest_invalid_param', data: { params: { scopes: String } } } });
  t.match(await adminKeyBy(owner, { domain: 'any' }), { status: 400, body: { code: 'rest_invalid_param', data: { params: { domain: String } } } });
  t.match(await h.request('POST', KEYS, { ...withSession(owner), body: { name: 'S', scopes: ['domains:read'] } }), {
    status: 400,
    body: { data: { params: { scopes: String } } },
  });
  t.match(await adminKeyBy(owner, { name: '  ' }), { status: 400, body: { data: { params: { name: String } } } });
  t.equal((await h.request('GET', `${KEYS}?type=admin`, withSession(owner))).headers.get('x-wp-total'), '1', 'nothing was created');
});

t.test('an account holds at most limits.adminKeysPerAccount live admin keys: the 11th is refused, a revoked one frees its place', async (t) => {
  const account = await h.account(); // holds one admin key already
  const s = await ownerOf(account.id);
  const made = await Promise.all(Array.from({ length: 10 }, (_, i) => adminKeyBy(s, { name: `K${i}` })));
  const created = made.filter((r) => r.status === 201);
  t.equal(created.length, 9, 'created side by side, the limit still holds');
  const refused = made.find((r) => r.status !== 201)!;
  t.match(refused, { status: 400, body: { code: 'rest_limit_reached', data: { limit: 10 } } });
  t.equal((await h.request('DELETE', `${KEYS}/${created[0]!.body.id}`, withSession(s))).status, 200);
  t.equal((await adminKeyBy(s)).status, 201, 'room again after a revocation');
});

t.test('a revoked admin key stops working on /v2 within the key cache TTL; only the owner revokes, on the main account', async (t) => {
  const account = await h.account();
  const owner = await ownerOf(account.id);
  const made = (await adminKeyBy(owner)).body;
  t.equal((await h.request('GET', '/v2/domains', { key: made.api_key })).status, 200);
  const admin = await logIn(h, await userOn(h, account.id, 'admin'));
  t.match(await h.request('DELETE', `${KEYS}/${made.id}`, withSession(admin)), { status: 403, body: { code: 'rest_forbidden' } });
  const team = await h.request('POST', '/v2/teams', { key: account.key, body: { name: 'Client' } });
  const teamId = String((team.body as { data: { id: number } }).data.id);
  t.equal((await h.request('DELETE', `${KEYS}/${made.id}`, withSession(owner, owner.nonce, { 'X-Account-Id': teamId }))).status, 403);
  const other = await ownerOf((await h.account()).id);
  t.equal((await h.request('DELETE', `${KEYS}/${made.id}`, withSession(other))).status, 404, 'another account’s key');
  t.equal((await h.request('DELETE', `${KEYS}/${made.id.replace('ak_', 'sk_')}`, withSession(owner))).status, 404, 'a sending id of the same number');
  const revoked = await h.request('DELETE', `${KEYS}/${made.id}`, withSession(owner));
  t.equal(revoked.status, 200, revoked.text);
  t.same(revoked.body, { deleted: true, id: made.id });
  const deadline = Date.now() + (h.config.keys.cacheTtlS + 1) * 1000;
  let status = 200;
  while (Date.now() < deadline && status !== 401) status = (await h.request('GET', '/v2/domains', { key: made.api_key })).status;
  t.equal(status, 401, 'refused within the cache TTL');
  t.equal((await h.request('DELETE', `${KEYS}/${made.id}`, withSession(owner))).status, 404, 'revoked once');
  t.equal((await h.request('GET', `${KEYS}?type=admin`, withSession(owner))).headers.get('x-wp-total'), '1');
});
