// An account's and a team's name is one line of text, as a user's profile name is: a name carrying CR, LF, NUL
// or TAB (anywhere, even at an end a trim would drop) is refused with the field named and changes nothing, on
// the dashboard's account route and on /v2/teams alike.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

let h: Harness;
let owner: SignedIn;
let adminKey: string;

t.before(async () => {
  h = await startHarness({ overrides: { dkim: { keyBits: 1024 } } });
  const signed = await signedInOn(h, 'owner');
  owner = signed.session;
  adminKey = signed.adminKey;
});
t.teardown(() => h?.close());

const CONTROLLED = ['Acme\r\nBcc: x@evil.test', 'Acme\nCo', 'Acme\u0000Co', 'Acme\tCo', 'Acme Co\n', '\tAcme Co', 'Acme\rCo'];
const ACCOUNT = '/api/tern/v2/api/account';

t.test('POST /api/tern/v2/api/account refuses a name with CR, LF, NUL or TAB: 400 naming name, the name unchanged', async (t) => {
  const before = await h.request<{ name: string }>('GET', ACCOUNT, withSession(owner));
  for (const name of CONTROLLED) {
    const reply = await h.request('POST', ACCOUNT, { ...withSession(owner), body: { name } });
    t.equal(reply.status, 400, JSON.stringify(name));
    t.match(reply.body, { code: 'rest_invalid_param', data: { params: { name: /one line/ } } }, JSON.stringify(name));
  }
  const after = await h.request<{ name: string }>('GET', ACCOUNT, withSession(owner));
  t.equal(after.body.name, before.body.name, 'the name is unchanged');
  const fine = await h.request<{ name: string }>('POST', ACCOUNT, { ...withSession(owner), body: { name: 'Acme Co' } });
  t.equal(fine.status, 200, 'a one-line name is accepted');
  t.equal(fine.body.name, 'Acme Co');
});

t.test('/v2/teams refuses a team name with CR, LF, NUL or TAB, created or renamed: 422 naming name', async (t) => {
  const made = await h.request<{ data: { id: number; name: string } }>('POST', '/v2/teams', { key: adminKey, body: { name: 'Client' } });
  t.equal(made.status, 201);
  for (const name of CONTROLLED) {
    const created = await h.request('POST', '/v2/teams', { key: adminKey, body: { name } });
    t.equal(created.status, 422, `create ${JSON.stringify(name)}`);
    t.match(created.body, { errors: { field: 'name' } });
    const renamed = await h.request('PUT', `/v2/teams/${made.body.data.id}`, { key: adminKey, body: { name } });
    t.equal(renamed.status, 422, `rename ${JSON.stringify(name)}`);
  }
  const listed = await h.request<{ data: { teams: Array<{ name: string }> } }>('GET', '/v2/teams', { key: adminKey });
  t.same(
    listed.body.data.teams.map((x) => x.name),
    ['Client'],
    'no team was made or renamed',
  );
});
