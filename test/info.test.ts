// GET /v2/info over real HTTP: the account summary, the key's description, the pooled balance seen from a
// child team, the rates, and the domain list that only domains:read unlocks.
import t from 'tap';
import { newMessage, queuedRecipients, recordMessage } from './helpers/new-message.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { storeSupport } from './helpers/store-support.js';
import { hashKey } from '../shared/api-key.js';
import { SCOPES } from '../shared/scopes.js';
import { grantCredits } from './helpers/credits.js';

const h = await startHarness();
t.teardown(() => h.close());

let counter = 0;
const freshName = (base: string) => `${base}-${++counter}-${process.pid}.com`;

async function keyId(key: string): Promise<number> {
  const record = await h.rt.store.keys.findByHash(hashKey(key));
  if (!record) throw new Error('key not found');
  return record.id;
}

async function addDomain(hh: Harness, key: string, name: string, teamId?: number): Promise<string> {
  const res = await hh.request('POST', '/v2/domains', { key, body: { name }, teamId });
  if (res.status !== 201) throw new Error(`adding ${name}: ${res.status} ${res.text}`);
  return res.body.data.id as string;
}

async function createTeam(key: string, name = 'Client team'): Promise<number> {
  const res = await h.request('POST', '/v2/teams', { key, body: { name } });
  if (res.status !== 201) throw new Error(`creating team: ${res.status} ${res.text}`);
  return res.body.data.id as number;
}

t.test('the summary needs no scope: a key with only teams:read reads it, without a domain list', async (t) => {
  const { id: accountId, key: full } = await h.account({ credits: 250 });
  await addDomain(h, full, freshName('noscope'));
  const key = await h.adminKey(accountId, ['teams:read']);
  const res = await h.request('GET', '/v2/info', { key });
  t.equal(res.status, 200);
  t.same(Object.keys(res.body).sort(), ['account', 'key']);
  t.notOk('domains' in res.body, 'no domain list without domains:read');
  t.equal(res.body.account.id, accountId);
  t.equal(res.headers.get('x-account-id'), String(accountId));

  const other = await h.adminKey(accountId, ['webhooks:write']);
  const second = await h.request('GET', '/v2/info', { key: other });
  t.equal(second.status, 200);
  t.notOk('domains' in second.body, 'webhooks:write does not unlock domains either');
});

t.test('the account fields describe the account acted on', async (t) => {
  const { id, key } = await h.account({ credits: 321 });
  const res = await h.request('GET', '/v2/info', { key });
  t.equal(res.status, 200);
  const a = res.body.account;
  t.same(Object.keys(a).sort(), ['backend_region', 'bounce_rate', 'complaint_rate', 'credit_balance', 'credits_shared', 'id', 'limit_per_second', 'plan_type', 'status']);
  t.equal(a.id, id);
  t.equal(a.status, 'active');
  t.equal(a.plan_type, 'standard');
  t.equal(a.credit_balance, 321);
  t.equal(a.credits_shared, true);
  t.equal(a.limit_per_second, 10);
  t.equal(a.backend_region, 'eu');
  t.equal(a.bounce_rate, 0, 'nothing sent: a rate of 0, not NaN or null');
  t.equal(a.complaint_rate, 0);

  // The operator's changes (ternmail account update, credits add) show at once.
  await h.rt.store.teams.update(id, { limitPerSecond: 42, planType: 'scale' });
  await grantCredits(h.rt.store, id, 79);
  const updated = (await h.request('GET', '/v2/info', { key })).body.account;
  t.equal(updated.limit_per_second, 42);
  t.equal(updated.plan_type, 'scale');
  t.equal(updated.credit_balance, 400);
});

t.test('the key object describes the admin key, the team acted on and the team owning it', async (t) => {
  const { id: accountId } = await h.account();
  const scopes = ['domains:read', 'teams:write'] as const;
  const key = await h.adminKey(accountId, [...scopes]);
  const res = await h.request('GET', '/v2/info', { key });
  t.equal(res.status, 200);
  const k = res.body.key;
  t.same(Object.keys(k).sort(), ['acting_on', 'id', 'owned_by', 'scopes', 'title', 'type']);
  t.equal(k.id, await keyId(key));
  t.equal(k.title, 'scoped key');
  t.equal(k.type, 'admin');
  t.equal(k.acting_on, accountId);
  t.equal(k.owned_by, accountId);
  t.same([...k.scopes].sort(), [...scopes].sort());

  const all = await h.account();
  const full = await h.request('GET', '/v2/info', { key: all.key });
  t.same([...full.body.key.scopes].sort(), [...SCOPES].sort());
  t.not(full.body.key.id, k.id);
});

t.test('acting on a child team shows that team with the parent’s pooled balance, and the key owned by the parent', async (t) => {
  const parent = await h.account({ credits: 500 });
  const teamId = await createTeam(parent.key);
  const res = await h.request('GET', '/v2/info', { key: parent.key, teamId });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-account-id'), String(teamId));
  t.equal(res.body.account.id, teamId);
  t.equal(res.body.account.credit_balance, 500, 'the pooled figure, not the team’s own 0');
  t.equal(res.body.account.credits_shared, true);
  t.equal(res.body.key.acting_on, teamId);
  t.equal(res.body.key.owned_by, parent.id);
  t.equal(res.body.key.id, await keyId(parent.key));
  const own = await h.rt.store.teams.get(teamId);
  t.equal(own?.creditBalance, 0, 'the team holds no balance of its own');

  await grantCredits(h.rt.store, parent.id, 25);
  const after = await h.request('GET', '/v2/info', { key: parent.key, teamId });
  t.equal(after.body.account.credit_balance, 525, 'credits added to the parent show on the team');
  const parentView = await h.request('GET', '/v2/info', { key: parent.key });
  t.equal(parentView.body.account.credit_balance, 525);
  t.equal(parentView.body.key.acting_on, parent.id);
});

t.test('the domain list appears with domains:read or domains:write and holds the team’s domains as list items', async (t) => {
  const { id: accountId, key: full } = await h.account();
  const teamId = await createTeam(full);
  const first = await addDomain(h, full, freshName('info'));
  const second = await addDomain(h, full, freshName('info'));
  const childDomain = await addDomain(h, full, freshName('child'), teamId);

  for (const scope of ['domains:read', 'domains:write'] as const) {
    const key = await h.adminKey(accountId, [scope]);
    const res = await h.request('GET', '/v2/info', { key });
    t.equal(res.status, 200);
    t.ok(Array.isArray(res.body.domains), `${scope} unlocks the list`);
    t.same(
      res.body.domains.map((d: { id: string }) => d.id),
      [first, second],
      `${scope}: the team’s own domains only`,
    );
  }

  const res = await h.request('GET', '/v2/info', { key: full });
  const listed = await h.request('GET', '/v2/domains', { key: full });
  t.same(res.body.domains, listed.body.data, 'the items are exactly those of GET /v2/domains');
  t.equal(res.body.domains[0].is_default, true);
  t.equal(res.body.domains[1].is_default, false);

  const child = await h.request('GET', '/v2/info', { key: full, teamId });
  t.same(
    child.body.domains.map((d: { id: string }) => d.id),
    [childDomain],
    'acting on the team lists the team’s domains',
  );

  const empty = await h.account();
  const none = await h.request('GET', '/v2/info', { key: empty.key });
  t.same(none.body.domains, [], 'no domains: an empty list, not a missing one');
});

t.test('bounce and complaint rates are fractions of the team’s recipients sent in the reputation window', async (t) => {
  const { id, key } = await h.account();
  const teamId = await createTeam(key);
  const domainId = await addDomain(h, key, freshName('rates'));
  const support = await storeSupport(t, h.dataDir);
  /** A message with `count` recipients, `bounced` of them bounced and `complained` complaining, accepted `daysAgo`. */
  const messageWith = async (count: number, bounced: number, complained: number, daysAgo = 0) => {
    const msgId = `rates${Math.random().toString(36).slice(2)}`;
    const recipients = queuedRecipients(count);
    await recordMessage(h.rt.store, newMessage({ id: msgId, teamId: id, domainId, recipients, body: Buffer.from(''), cost: 0 }));
    const rows = await h.rt.store.messages.recipientsOf(msgId);
    for (const [i, r] of rows.entries()) await support.forceRecipientOutcome(r.id, i < bounced ? 'bounced' : 'sent', i >= count - complained);
    await support.backdateMessage(msgId, new Date(Date.now() - daysAgo * 86_400_000).toISOString());
  };
  await messageWith(150, 3, 1);
  await messageWith(50, 2, 0);
  await messageWith(100, 100, 100, 30); // outside the 7-day window: not counted
  const res = await h.request('GET', '/v2/info', { key });
  t.equal(res.body.account.bounce_rate, 0.025, '5 of 200');
  t.equal(res.body.account.complaint_rate, 0.005, '1 of 200');
  t.type(res.body.account.bounce_rate, 'number');

  const team = await h.request('GET', '/v2/info', { key, teamId });
  t.equal(team.body.account.bounce_rate, 0, 'each team has its own reputation');
  t.equal(team.body.account.complaint_rate, 0);

  // Removing a domain does not wipe the team's history: its recipients still count.
  await h.request('DELETE', `/v2/domains/${domainId}`, { key });
  const after = await h.request('GET', '/v2/info', { key });
  t.equal(after.body.account.bounce_rate, 0.025);
});

t.test('a suspended team shows its status in the summary', async (t) => {
  const { key } = await h.account();
  const teamId = await createTeam(key);
  const put = await h.request('PUT', `/v2/teams/${teamId}`, { key, body: { status: 'suspended' } });
  t.equal(put.status, 200);
  const res = await h.request('GET', '/v2/info', { key, teamId });
  t.equal(res.status, 200);
  t.equal(res.body.account.status, 'suspended');
  t.equal((await h.request('GET', '/v2/info', { key })).body.account.status, 'active', 'the parent stays active');
});

t.test('the summary refuses missing, sending and unknown keys with 401, and other accounts’ teams with 404', async (t) => {
  const { key } = await h.account();
  const sending = await h.request('POST', '/v2/api-keys', { key, body: { name: 'sender' } });
  t.equal(sending.status, 201);
  t.equal((await h.request('GET', '/v2/info')).status, 401);
  t.equal((await h.request('GET', '/v2/info', { key: sending.body.data.api_key })).status, 401);
  t.equal((await h.request('GET', '/v2/info', { key: 'tern_admin_0000000000000000000000000000000000000000000' })).status, 401);
  const other = await h.account();
  const otherTeam = await createTeam(other.key);
  const res = await h.request('GET', '/v2/info', { key, teamId: otherTeam });
  t.equal(res.status, 404);
  t.equal(res.body.status_code, 404);
  t.equal((await h.request('GET', '/v2/info', { key, teamId: other.id })).status, 404);
});

t.test('the summary is a read outside the rate-limited buckets', async (t) => {
  const limited = await startHarness({ overrides: { limits: { writesPerMinute: 2 } } });
  t.teardown(() => limited.close());
  const { key } = await limited.account();
  // Counters use fixed one-minute windows: keep the whole test inside one.
  const leftMs = 60_000 - (Date.now() % 60_000);
  if (leftMs < 10_000) await new Promise((r) => setTimeout(r, leftMs + 200));
  for (let i = 0; i < 2; i++) t.equal((await limited.request('GET', '/v2/teams', { key })).status, 200);
  t.equal((await limited.request('GET', '/v2/teams', { key })).status, 429, 'the writes bucket is spent');
  for (let i = 0; i < 5; i++) {
    const res = await limited.request('GET', '/v2/info', { key });
    t.equal(res.status, 200, `summary ${i + 1} still answers`);
    t.equal(res.headers.get('ratelimit-limit'), null);
  }
});
