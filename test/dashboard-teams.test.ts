// POST /api/tern/v2/api/create-team over real HTTP: as POST /v2/teams (the same item, name rules and limit),
// for an owner or admin of an account; viewers, child teams and callers without a valid session are refused.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession } from './helpers/dashboard-session.js';

let h: Harness;
t.before(async () => {
  h = await startHarness({ overrides: { limits: { teamsPerAccount: 3 } } });
});
t.teardown(() => h.close());

const CREATE = '/api/tern/v2/api/create-team';

t.test('an owner or admin of an account creates a team, shown as /v2 shows it', async (t) => {
  const account = await h.account();
  for (const role of ['owner', 'admin'] as const) {
    const s = await logIn(h, await userOn(h, account.id, role));
    const made = await h.request('POST', CREATE, { ...withSession(s), body: { name: `  Team of ${role} ` } });
    t.equal(made.status, 201, made.text);
    t.match(made.body, { id: Number, name: `Team of ${role}`, status: 'active' });
    const v2 = await h.request('GET', '/v2/teams', { key: account.key });
    t.same(
      (v2.body as { data: { teams: unknown[] } }).data.teams.find((x) => (x as { id: number }).id === (made.body as { id: number }).id),
      made.body,
      'the same item as /v2',
    );
  }
});

t.test('bad names and the account’s team limit are refused as /v2 refuses them', async (t) => {
  const account = await h.account();
  const s = await logIn(h, await userOn(h, account.id, 'owner'));
  const short = await h.request('POST', CREATE, { ...withSession(s), body: { name: ' x ' } });
  t.equal(short.status, 400);
  t.match(short.body, { code: 'rest_invalid_param', data: { params: { name: /2 to 100/ } } });
  const missing = await h.request('POST', CREATE, { ...withSession(s), body: {} });
  t.match(missing.body, { code: 'rest_missing_callback_param', data: { status: 400 } });
  for (let i = 0; i < 3; i++) t.equal((await h.request('POST', CREATE, { ...withSession(s), body: { name: `Team ${i}` } })).status, 201);
  const over = await h.request('POST', CREATE, { ...withSession(s), body: { name: 'One too many' } });
  t.equal(over.status, 400);
  t.match(over.body, { code: 'rest_limit_reached', data: { limit: 3 } });
});

t.test('a viewer, a team user and a child team acted on create no team; another account answers 404', async (t) => {
  const account = await h.account();
  const viewer = await logIn(h, await userOn(h, account.id, 'viewer'));
  const refused = await h.request('POST', CREATE, { ...withSession(viewer), body: { name: 'Nope' } });
  t.equal(refused.status, 403);
  t.match(refused.body, { code: 'rest_forbidden' });
  const owner = await logIn(h, await userOn(h, account.id, 'owner'));
  const child = await h.request('POST', CREATE, { ...withSession(owner), body: { name: 'Child' } });
  const childId = (child.body as { id: number }).id;
  const onChild = await h.request('POST', CREATE, { ...withSession(owner, owner.nonce, { 'X-Account-Id': String(childId) }), body: { name: 'Grandchild' } });
  t.equal(onChild.status, 403, 'a child team makes no teams');
  const teamUser = await logIn(h, await userOn(h, account.id, 'admin', childId));
  t.equal((await h.request('POST', CREATE, { ...withSession(teamUser), body: { name: 'Nope' } })).status, 403);
  const other = await h.account();
  const elsewhere = await h.request('POST', CREATE, { ...withSession(owner, owner.nonce, { 'X-Account-Id': String(other.id) }), body: { name: 'Nope' } });
  t.equal(elsewhere.status, 404);
  const v2 = await h.request('GET', '/v2/teams', { key: account.key });
  t.equal((v2.body as { data: { teams: unknown[] } }).data.teams.length, 1, 'only the owner’s team was made');
});

t.test('creating a team needs a signed-in caller: anonymous and no nonce 401, a wrong nonce 403', async (t) => {
  const account = await h.account();
  const s = await logIn(h, await userOn(h, account.id, 'owner'));
  t.equal((await h.request('POST', CREATE, { body: { name: 'Anon' } })).status, 401);
  t.equal((await h.request('POST', CREATE, { ...withSession(s, null), body: { name: 'Anon' } })).status, 401);
  t.equal((await h.request('POST', CREATE, { ...withSession(s, 'ffffffffff'), body: { name: 'Anon' } })).status, 403);
});
