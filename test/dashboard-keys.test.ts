// The dashboard's sending keys over real HTTP: GET/POST /api/tern/v2/api-keys and DELETE /api-keys/{key_hash},
// the team's keys as /v2 keeps them (masked, the value shown once, opaque string ids, a revoked key refused at
// once); viewers, other teams and other accounts are refused.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
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
  const list = await h.request('GET', KEYS, withSession(s));
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
  t.equal((await h.request('GET', KEYS, withSession(s))).headers.get('x-wp-total'), '0');
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
