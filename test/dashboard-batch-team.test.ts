// A batch item's own X-Account-Id (POST /api/batch/v1 with `headers` per item, as WordPress's batch/v1) is the
// team that item acts on, exactly as the same request sent alone with that header: the caller's rights decide,
// a team the caller may not act on is refused for that item, and the write never lands on the batch's team.
import t from 'tap';
import { startHarness, type Harness, type HttpReply } from './helpers/harness.js';
import { signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

let h: Harness;
let owner: SignedIn;
let teamId: number;
let strangerTeam: number;

interface Key {
  title: string;
}
type Envelope = { status: number; body: { code?: string; name?: string }; headers: Record<string, string> };

t.before(async () => {
  h = await startHarness({ overrides: { dkim: { keyBits: 1024 } } });
  owner = (await signedInOn(h, 'owner')).session;
  const made = await h.request('POST', '/api/tern/v2/api/create-team', { ...withSession(owner), body: { name: 'Child team' } });
  if (made.status !== 201) throw new Error(made.text);
  teamId = Number((made.body as { id: number }).id);
  strangerTeam = (await h.account({ name: 'Stranger' })).id;
});
t.teardown(() => h?.close());

const keysOf = async (team?: number): Promise<string[]> => {
  const headers: Record<string, string> = team === undefined ? {} : { 'X-Account-Id': String(team) };
  const listed = await h.request<Key[]>('GET', '/api/tern/v2/api-keys?per_page=100', withSession(owner, owner.nonce, headers));
  return listed.body.map((k) => k.title);
};

const batch = async (requests: unknown[]): Promise<Envelope[]> => {
  const reply = await h.request('POST', '/api/batch/v1', { ...withSession(owner), body: { requests } });
  if (reply.status !== 207) throw new Error(reply.text);
  return (reply.body as { responses: Envelope[] }).responses;
};

const alone = (team: string, name: string): Promise<HttpReply> =>
  h.request('POST', '/api/tern/v2/api-keys', { ...withSession(owner, owner.nonce, { 'X-Account-Id': team }), body: { name } });

t.test("a batch item's own X-Account-Id makes it act on that team, as the request sent alone would", async (t) => {
  const [item] = await batch([{ path: '/tern/v2/api-keys', body: { name: 'batched into the team' }, headers: { 'X-Account-Id': String(teamId) } }]);
  t.equal(item!.status, 201, JSON.stringify(item!.body));
  t.equal(item!.headers['X-Account-Id'], String(teamId), 'the item answers for the team it acted on');
  t.ok((await keysOf(teamId)).includes('batched into the team'), "the key is the team's");
  t.notOk((await keysOf()).includes('batched into the team'), "the key is not the account's");
});

t.test('batch items without the header act on the batch’s team, and items may act on different teams', async (t) => {
  const [one, two] = await batch([
    { path: '/tern/v2/api-keys', body: { name: 'batched into the account' } },
    { path: '/tern/v2/api-keys', body: { name: 'second into the team' }, headers: { 'x-account-id': String(teamId) } },
  ]);
  t.same([one!.status, two!.status], [201, 201]);
  t.ok((await keysOf()).includes('batched into the account'));
  t.notOk((await keysOf(teamId)).includes('batched into the account'));
  t.ok((await keysOf(teamId)).includes('second into the team'));
});

t.test("a batch item naming another account's team is refused as the request alone is, and writes nothing anywhere", async (t) => {
  const single = await alone(String(strangerTeam), 'alone into a stranger');
  t.ok(single.status >= 400, `the request alone is refused (${single.status})`);
  const [item] = await batch([{ path: '/tern/v2/api-keys', body: { name: 'batched into a stranger' }, headers: { 'X-Account-Id': String(strangerTeam) } }]);
  t.equal(item!.status, single.status, 'the same status');
  t.equal(item!.body.code, (single.body as { code: string }).code, 'the same code');
  t.notOk((await keysOf()).includes('batched into a stranger'), "nothing lands on the caller's account");
  const strangers = await h.rt.store.keys.listSending(strangerTeam, { page: 1, perPage: 100 });
  t.notOk(
    strangers.rows.some((k) => k.title === 'batched into a stranger'),
    'nothing lands on the stranger',
  );
});

t.test('a batch item with a malformed X-Account-Id is refused as the request alone is', async (t) => {
  const single = await alone('not-a-team', 'alone malformed');
  t.equal(single.status, 400);
  const [item] = await batch([{ path: '/tern/v2/api-keys', body: { name: 'batched malformed' }, headers: { 'X-Account-Id': 'not-a-team' } }]);
  t.equal(item!.status, 400);
  t.equal(item!.body.code, (single.body as { code: string }).code);
  t.notOk((await keysOf()).includes('batched malformed'));
});
