// /v2/teams over real HTTP: creation rules and limits, renames, suspension, pooled credits, reach.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { storeSupport } from './helpers/store-support.js';
import { SCOPES } from '../shared/scopes.js';
import { grantCredits } from './helpers/credits.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h?.close());

async function createTeam(key: string, name: string): Promise<number> {
  const res = await h.request('POST', '/v2/teams', { key, body: { name } });
  if (res.status !== 201) throw new Error(`team not created: ${res.status} ${res.text}`);
  return res.body.data.id;
}

t.test('POST /v2/teams creates an active team and answers 201 with id, name and status', async (t) => {
  const { id, key } = await h.account();
  const res = await h.request('POST', '/v2/teams', { key, body: { name: 'Client One' } });
  t.equal(res.status, 201);
  t.same(Object.keys(res.body.data).sort(), ['id', 'name', 'status']);
  t.type(res.body.data.id, 'number');
  t.equal(res.body.data.name, 'Client One');
  t.equal(res.body.data.status, 'active');
  t.not(res.body.data.id, id);
  const list = await h.request('GET', '/v2/teams', { key });
  t.same(list.body.data.teams, [res.body.data]);
});

t.test('team names of 2 and 100 characters are accepted; 1 and 101 are refused with 422', async (t) => {
  const { key } = await h.account();
  for (const name of ['ab', 'n'.repeat(100)]) {
    const res = await h.request('POST', '/v2/teams', { key, body: { name } });
    t.equal(res.status, 201, `${name.length} characters`);
    t.equal(res.body.data.name, name);
  }
  for (const name of ['a', 'n'.repeat(101), '', ' a ']) {
    const res = await h.request('POST', '/v2/teams', { key, body: { name } });
    t.equal(res.status, 422, `${JSON.stringify(name).slice(0, 12)} (${name.length} characters)`);
    t.equal(res.body.errors.code, 'validation_failed');
    t.equal(res.body.errors.field, 'name');
  }
  const list = await h.request('GET', '/v2/teams', { key });
  t.equal(list.body.data.teams.length, 2, 'only the valid names were created');
});

t.test('POST /v2/teams without a name, or with a name that is not a string, answers 422', async (t) => {
  const { key } = await h.account();
  for (const body of [{}, { name: 42 }, { name: null }, { name: ['ab'] }]) {
    const res = await h.request('POST', '/v2/teams', { key, body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.equal(res.body.errors.field, 'name');
  }
});

t.test('POST /v2/teams with X-Account-Id answers 400 account_id_not_allowed, whatever team it names', async (t) => {
  const { id, key } = await h.account();
  const child = await createTeam(key, 'Existing child');
  for (const header of [child, id, 999_999]) {
    const res = await h.request('POST', '/v2/teams', { key, teamId: header, body: { name: 'Not created' } });
    t.equal(res.status, 400, `X-Account-Id ${header}`);
    t.equal(res.body.errors.code, 'account_id_not_allowed');
  }
  const list = await h.request('GET', '/v2/teams', { key });
  t.same(
    list.body.data.teams.map((x: { name: string }) => x.name),
    ['Existing child'],
  );
});

t.test('a child team’s key cannot create teams (403)', async (t) => {
  const { key } = await h.account();
  const child = await createTeam(key, 'Child with key');
  const childKey = await h.adminKey(child, [...SCOPES]);
  const res = await h.request('POST', '/v2/teams', { key: childKey, body: { name: 'Grandchild' } });
  t.equal(res.status, 403);
  t.equal(res.body.errors.code, 'forbidden');
  const list = await h.request('GET', '/v2/teams', { key });
  t.equal(list.body.data.teams.length, 1, 'nothing was created');
});

t.test('an account holds at most 25 teams: the 26th answers 422 limit_reached, counted per account', async (t) => {
  t.equal(h.config.limits.teamsPerAccount, 25, 'the default limit');
  const { key } = await h.account();
  const { key: otherKey } = await h.account();
  await createTeam(otherKey, 'Other account team');
  for (let i = 1; i <= 25; i++) {
    const res = await h.request('POST', '/v2/teams', { key, body: { name: `Team ${i}` } });
    t.equal(res.status, 201, `team ${i}`);
  }
  const over = await h.request('POST', '/v2/teams', { key, body: { name: 'Team 26' } });
  t.equal(over.status, 422);
  t.equal(over.body.errors.code, 'limit_reached');
  t.equal((await h.request('GET', '/v2/teams', { key })).body.data.teams.length, 25);
  // The other account's team did not count against this one, nor this one's 25 against it.
  const other = await h.request('POST', '/v2/teams', { key: otherKey, body: { name: 'Second of other' } });
  t.equal(other.status, 201);
});

t.test('the team limit is not exceeded by concurrent creations', async (t) => {
  const { key } = await h.account();
  const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => h.request('POST', '/v2/teams', { key, body: { name: `Racer ${i}` } })));
  t.equal(replies.filter((r) => r.status === 201).length, 25);
  t.equal(replies.filter((r) => r.status === 422).length, 5);
  t.equal((await h.request('GET', '/v2/teams', { key })).body.data.teams.length, 25);
});

t.test('a deleted team frees its place and is not listed', async (t) => {
  const { key } = await h.account();
  const gone = await createTeam(key, 'Soon deleted');
  const kept = await createTeam(key, 'Kept');
  await (await storeSupport(t, h.dataDir)).deleteTeam(gone);
  const list = await h.request('GET', '/v2/teams', { key });
  t.same(
    list.body.data.teams.map((x: { id: number }) => x.id),
    [kept],
  );
  const put = await h.request('PUT', `/v2/teams/${gone}`, { key, body: { name: 'Revived' } });
  t.equal(put.status, 404, 'a deleted team cannot be updated');
  const acting = await h.request('GET', '/v2/info', { key, teamId: gone });
  t.equal(acting.status, 404, 'nor acted on');
});

t.test('GET /v2/teams lists only the account’s own teams', async (t) => {
  const { key } = await h.account();
  const { key: otherKey } = await h.account();
  const mine = await createTeam(key, 'Mine');
  await createTeam(otherKey, 'Theirs');
  const res = await h.request('GET', '/v2/teams', { key });
  t.equal(res.status, 200);
  t.same(res.body.data.teams, [{ id: mine, name: 'Mine', status: 'active' }]);
  t.equal(res.body.data.credits_shared, true);
});

t.test('PUT /v2/teams/{id} renames a team', async (t) => {
  const { key } = await h.account();
  const team = await createTeam(key, 'Old name');
  const res = await h.request('PUT', `/v2/teams/${team}`, { key, body: { name: 'New name' } });
  t.equal(res.status, 200);
  t.same(res.body.data, { id: team, name: 'New name', status: 'active' });
  const list = await h.request('GET', '/v2/teams', { key });
  t.equal(list.body.data.teams[0].name, 'New name');
});

t.test('PUT /v2/teams/{id} refuses names outside 2 to 100 characters and leaves the name unchanged', async (t) => {
  const { key } = await h.account();
  const team = await createTeam(key, 'Stable');
  for (const name of ['a', ' b ', 'n'.repeat(101)]) {
    const res = await h.request('PUT', `/v2/teams/${team}`, { key, body: { name } });
    t.equal(res.status, 422, JSON.stringify(name).slice(0, 12));
    t.equal(res.body.errors.field, 'name');
  }
  t.equal((await h.request('GET', '/v2/teams', { key })).body.data.teams[0].name, 'Stable');
});

t.test('PUT /v2/teams/{id} with an empty body, an unknown status or an unknown field answers 422', async (t) => {
  const { key } = await h.account();
  const team = await createTeam(key, 'Strict');
  for (const body of [{}, { status: 'deleted' }, { status: 'Active' }, { colour: 'blue' }]) {
    const res = await h.request('PUT', `/v2/teams/${team}`, { key, body });
    t.equal(res.status, 422, JSON.stringify(body));
  }
});

t.test('PUT /v2/teams/{id} suspends a team and reactivates it', async (t) => {
  const { key } = await h.account();
  const team = await createTeam(key, 'Toggled');
  const suspended = await h.request('PUT', `/v2/teams/${team}`, { key, body: { status: 'suspended' } });
  t.equal(suspended.status, 200);
  t.equal(suspended.body.data.status, 'suspended');
  t.equal((await h.rt.store.teams.get(team))?.suspendedBy, 'account');
  t.equal((await h.request('GET', '/v2/teams', { key })).body.data.teams[0].status, 'suspended');
  const active = await h.request('PUT', `/v2/teams/${team}`, { key, body: { status: 'active' } });
  t.equal(active.status, 200);
  t.same(active.body.data, { id: team, name: 'Toggled', status: 'active' });
  t.equal((await h.request('GET', '/v2/teams', { key })).body.data.teams[0].status, 'active');
});

t.test('a team suspended by the platform cannot be reactivated by its account: 403 suspended_by_platform', async (t) => {
  const { key } = await h.account();
  const team = await createTeam(key, 'Platform suspended');
  const change = await h.rt.store.teams.changeStatus(team, 'suspended', 'platform');
  t.ok(change.ok);
  for (const body of [{ status: 'active' }, { status: 'active', name: 'Sneaky rename' }]) {
    const res = await h.request('PUT', `/v2/teams/${team}`, { key, body });
    t.equal(res.status, 403, JSON.stringify(body));
    t.equal(res.body.errors.code, 'suspended_by_platform');
    t.equal(res.headers.get('x-account-id'), String(team));
  }
  const list = await h.request('GET', '/v2/teams', { key });
  t.same(list.body.data.teams, [{ id: team, name: 'Platform suspended', status: 'suspended' }], 'still suspended, not renamed');
  t.equal((await h.rt.store.teams.get(team))?.suspendedBy, 'platform');
});

t.test('an account suspending a platform-suspended team again does not take the suspension over', async (t) => {
  const { key } = await h.account();
  const team = await createTeam(key, 'Twice suspended');
  await h.rt.store.teams.changeStatus(team, 'suspended', 'platform');
  const res = await h.request('PUT', `/v2/teams/${team}`, { key, body: { status: 'suspended' } });
  t.equal(res.status, 200);
  t.equal(res.body.data.status, 'suspended');
  const again = await h.request('PUT', `/v2/teams/${team}`, { key, body: { status: 'active' } });
  t.equal(again.status, 403, 'reactivating is still refused');
  t.equal(again.body.errors.code, 'suspended_by_platform');
});

t.test('once the platform reactivates it, the account manages the team again', async (t) => {
  const { key } = await h.account();
  const team = await createTeam(key, 'Released');
  await h.rt.store.teams.changeStatus(team, 'suspended', 'platform');
  await h.rt.store.teams.changeStatus(team, 'active', 'platform');
  const res = await h.request('PUT', `/v2/teams/${team}`, { key, body: { status: 'suspended' } });
  t.equal(res.status, 200);
  const back = await h.request('PUT', `/v2/teams/${team}`, { key, body: { status: 'active' } });
  t.equal(back.status, 200);
  t.equal(back.body.data.status, 'active');
});

t.test('PUT on an unknown team, another account’s team or the account itself answers 404', async (t) => {
  const { id, key } = await h.account();
  const { key: otherKey } = await h.account();
  const foreign = await createTeam(otherKey, 'Foreign');
  for (const target of [999_999, foreign, id]) {
    const res = await h.request('PUT', `/v2/teams/${target}`, { key, body: { status: 'suspended' } });
    t.equal(res.status, 404, `team ${target}`);
    t.equal(res.body.errors.code, 'not_found');
  }
  t.equal((await h.rt.store.teams.get(foreign))?.status, 'active', 'the foreign team was not touched');
  t.equal((await h.rt.store.teams.get(id))?.status, 'active', 'the account itself was not touched');
});

t.test('a child team’s key cannot update teams, not even its own (404)', async (t) => {
  const { key } = await h.account();
  const own = await createTeam(key, 'Self');
  const sibling = await createTeam(key, 'Sibling');
  const childKey = await h.adminKey(own, [...SCOPES]);
  for (const target of [own, sibling]) {
    const res = await h.request('PUT', `/v2/teams/${target}`, { key: childKey, body: { status: 'active' } });
    t.equal(res.status, 404, `team ${target}`);
  }
});

t.test('credits are pooled: GET /v2/teams shows the parent’s balance and teams carry none', async (t) => {
  const { id, key } = await h.account({ credits: 1234 });
  const team = await createTeam(key, 'Pooled');
  const res = await h.request('GET', '/v2/teams', { key });
  t.same(res.body.data.account, { id, name: res.body.data.account.name, status: 'active', credit_balance: 1234 });
  t.equal(res.body.data.credits_shared, true);
  t.same(Object.keys(res.body.data.teams[0]).sort(), ['id', 'name', 'status'], 'no balance on a team');
  t.equal((await h.rt.store.teams.get(team))?.creditBalance, 0, 'a child’s own balance is 0');
  await grantCredits(h.rt.store, id, 66);
  const after = await h.request('GET', '/v2/teams', { key });
  t.equal(after.body.data.account.credit_balance, 1300);
  const onChild = await h.request('GET', '/v2/info', { key, teamId: team });
  t.equal(onChild.body.account.credit_balance, 1300, 'the child shows the pooled figure');
  const childKey = await h.adminKey(team, ['teams:read']);
  const asChild = await h.request('GET', '/v2/teams', { key: childKey });
  t.equal(asChild.status, 200);
  t.equal(asChild.body.data.account.id, team, 'a child’s key describes the child, its owner');
  t.equal(asChild.body.data.account.credit_balance, 1300, 'with the pooled balance');
  t.same(asChild.body.data.teams, []);
});

t.test('GET /v2/teams shows each team’s status', async (t) => {
  const { key } = await h.account();
  const a = await createTeam(key, 'Running');
  const b = await createTeam(key, 'Stopped');
  await h.request('PUT', `/v2/teams/${b}`, { key, body: { status: 'suspended' } });
  const res = await h.request('GET', '/v2/teams', { key });
  t.same(res.body.data.teams, [
    { id: a, name: 'Running', status: 'active' },
    { id: b, name: 'Stopped', status: 'suspended' },
  ]);
});
