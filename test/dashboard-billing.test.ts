// The billing routes over real HTTP with real Redis and SQLite: the balance and the ledger an owner sees, credits
// moved to a child team and back, and the ledger holding under concurrent sends (exactly N recipients accepted
// at a balance of N, the balance always the sum of its entries). Only the owner reaches them.
import t, { type Test } from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { sendingKeyOf, storedDomain } from './helpers/sending-setup.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h.close());

const BILLING = '/api/tern/v2/api/account/billing';
const TRANSACTIONS = `${BILLING}/transactions`;
const TRANSFER = `${BILLING}/transfer-credits`;

let domains = 0;
const mail = (domain: string, to = 'bob@dest.test') => ({ from: { email: `news@${domain}` }, to: [{ email: to }], subject: 'Hi', text: 'Hi' });

async function ownerOf(credits: number): Promise<{ id: number; key: string; owner: SignedIn }> {
  const account = await h.account({ credits });
  await h.rt.store.teams.update(account.id, { limitPerSecond: 100_000 });
  return { ...account, owner: await logIn(h, await userOn(h, account.id, 'owner')) };
}

async function childTeam(owner: SignedIn, name = 'Sales'): Promise<number> {
  const made = await h.request('POST', '/api/tern/v2/api/create-team', { ...withSession(owner), body: { name } });
  if (made.status !== 201) throw new Error(made.text);
  return (made.body as { id: number }).id;
}

async function reconciled(t: Test, payerId: number): Promise<number> {
  const { balance, sumOfEntries } = await h.rt.store.credits.reconcile(payerId);
  t.equal(sumOfEntries, balance, `pool ${payerId}: the balance is the sum of its entries`);
  return balance;
}

t.test('an owner sees the balance, its plan and each team, and the ledger with its first grant', async (t) => {
  const { id, owner } = await ownerOf(250);
  const team = await childTeam(owner);
  const billing = await h.request('GET', BILLING, withSession(owner));
  t.equal(billing.status, 200, billing.text);
  t.same(billing.body, {
    balance: 250,
    pool_id: id,
    credits_shared: true,
    plan: 'standard',
    payment_provider: 'offline',
    publishable_key: null,
    card: null,
    auto_recharge: { enabled: false, threshold: null, credits: null },
    teams: [{ id: team, name: 'Sales', credits_shared: true, balance: 250 }],
  });
  const ledger = await h.request('GET', TRANSACTIONS, withSession(owner));
  t.equal(ledger.status, 200);
  t.equal(ledger.headers.get('x-wp-total'), '1');
  t.match(ledger.body, [{ type: 'grant', amount: 250, balance_after: 250, actor: { type: 'cli', id: null }, reference: null, created_at: String }]);
});

t.test('each send is an entry with its message, filtered by type and date; a bad date or type is refused', async (t) => {
  const { id, key, owner } = await ownerOf(10);
  const domain = await storedDomain(h, id, `billing${++domains}.example.com`);
  const sendKey = await sendingKeyOf(h, key);
  const sent = await h.request('POST', '/v2/emails', { key: sendKey, body: { ...mail(domain.name), cc: [{ email: 'carol@dest.test' }] } });
  t.equal(sent.status, 200, sent.text);
  const sends = await h.request('GET', `${TRANSACTIONS}?type=send`, withSession(owner));
  t.match(sends.body, [{ type: 'send', amount: -2, balance_after: 8, reference: sent.body.message_id, actor: { type: 'sending_key', id: String } }]);
  t.equal((sends.body as unknown[]).length, 1);
  const future = await h.request('GET', `${TRANSACTIONS}?from=2999-01-01`, withSession(owner));
  t.same(future.body, [], 'nothing after a future date');
  t.equal((await h.request('GET', `${TRANSACTIONS}?to=2999-01-01`, withSession(owner))).headers.get('x-wp-total'), '2');
  const badDate = await h.request('GET', `${TRANSACTIONS}?from=yesterday`, withSession(owner));
  t.equal(badDate.status, 400);
  t.match(badDate.body, { code: 'rest_invalid_param', data: { params: { from: /ISO 8601/ } } });
  const badType = await h.request('GET', `${TRANSACTIONS}?type=gift`, withSession(owner));
  t.match(badType.body, { code: 'rest_invalid_param', data: { status: 400, params: { type: String } } });
  t.equal(await reconciled(t, id), 8);
});

t.test('credits moved to a team make it pay for itself; moved back in full it draws on its account again', async (t) => {
  const { id, key, owner } = await ownerOf(100);
  const team = await childTeam(owner);
  const moved = await h.request('POST', TRANSFER, { ...withSession(owner), body: { team_id: team, amount: 30 } });
  t.equal(moved.status, 200, moved.text);
  t.same(moved.body, { account_balance: 70, team: { id: team, balance: 30, credits_shared: false } });
  const info = await h.request('GET', '/v2/info', { key, teamId: team });
  t.match(info.body.account, { credit_balance: 30, credits_shared: false }, '/v2 shows the team’s own balance');
  const domain = await storedDomain(h, team, `billing${++domains}.example.com`);
  const sent = await h.request('POST', '/v2/emails', { key: await sendingKeyOf(h, key, team), body: mail(domain.name) });
  t.equal(sent.status, 200, sent.text);
  const teamLedger = await h.request('GET', TRANSACTIONS, withSession(owner, owner.nonce, { 'X-Account-Id': String(team) }));
  t.match(teamLedger.body, [
    { type: 'send', amount: -1, balance_after: 29 },
    { type: 'transfer', amount: 30, reference: `team:${id}`, actor: { type: 'user' } },
  ]);
  const back = await h.request('POST', TRANSFER, { ...withSession(owner), body: { team_id: team, amount: -29 } });
  t.same(back.body, { account_balance: 99, team: { id: team, balance: 0, credits_shared: true } });
  t.equal(await reconciled(t, id), 99);
  t.equal(await reconciled(t, team), 0);
  const billing = await h.request('GET', BILLING, withSession(owner));
  t.match(billing.body, { balance: 99, teams: [{ id: team, credits_shared: true, balance: 99 }] });
});

t.test('a transfer beyond a balance, back from a sharing team, of 0 or to another account’s team changes nothing', async (t) => {
  const { id, owner } = await ownerOf(10);
  const team = await childTeam(owner);
  const tooMuch = await h.request('POST', TRANSFER, { ...withSession(owner), body: { team_id: team, amount: 11 } });
  t.equal(tooMuch.status, 400);
  t.match(tooMuch.body, { code: 'rest_insufficient_credits', data: { status: 400, balance: 10 } });
  const fromSharing = await h.request('POST', TRANSFER, { ...withSession(owner), body: { team_id: team, amount: -1 } });
  t.match(fromSharing.body, { code: 'rest_invalid_param', data: { params: { amount: /none of its own/ } } });
  const zero = await h.request('POST', TRANSFER, { ...withSession(owner), body: { team_id: team, amount: 0 } });
  t.match(zero.body, { code: 'rest_invalid_param', data: { params: { amount: /not 0/ } } });
  const text = await h.request('POST', TRANSFER, { ...withSession(owner), body: { team_id: team, amount: 'five' } });
  t.match(text.body, { code: 'rest_invalid_param', data: { status: 400, params: { amount: String } } });
  const other = await ownerOf(10);
  const otherTeam = await childTeam(other.owner);
  const elsewhere = await h.request('POST', TRANSFER, { ...withSession(owner), body: { team_id: otherTeam, amount: 1 } });
  t.equal(elsewhere.status, 404);
  t.match(elsewhere.body, { code: 'rest_team_invalid_id' });
  const onOther = await h.request('GET', BILLING, withSession(owner, owner.nonce, { 'X-Account-Id': String(other.id) }));
  t.equal(onOther.status, 404, 'another account answers as a missing one');
  t.equal(await reconciled(t, id), 10);
  t.equal(await reconciled(t, other.id), 10);
  t.equal((await h.request('GET', TRANSACTIONS, withSession(owner))).headers.get('x-wp-total'), '1', 'no entry was written');
});

t.test('only the owner reaches billing: admins and viewers 403, anonymous 401', async (t) => {
  const { id } = await ownerOf(10);
  for (const role of ['admin', 'viewer'] as const) {
    const s = await logIn(h, await userOn(h, id, role));
    for (const [method, path] of [
      ['GET', BILLING],
      ['GET', TRANSACTIONS],
      ['POST', TRANSFER],
    ] as const) {
      const res = await h.request(method, path, { ...withSession(s), body: method === 'POST' ? { team_id: 1, amount: 1 } : undefined });
      t.equal(res.status, 403, `${role} ${method} ${path}`);
      t.match(res.body, { code: 'rest_forbidden' });
    }
  }
  t.equal((await h.request('GET', BILLING)).status, 401);
});

t.test('concurrent sends from an account and its sharing team at a balance of N accept exactly N recipients', async (t) => {
  const N = 40;
  const { id, key, owner } = await ownerOf(N);
  const team = await childTeam(owner);
  const senders = await Promise.all(
    [id, team].map(async (teamId) => {
      const domain = await storedDomain(h, teamId, `billing${++domains}.example.com`);
      return { domain: domain.name, key: await sendingKeyOf(h, key, teamId === id ? undefined : teamId) };
    }),
  );
  const replies = await Promise.all(
    Array.from({ length: 100 }, (_, i) => {
      const s = senders[i % 2]!;
      return h.request('POST', '/v2/emails', { key: s.key, body: mail(s.domain, `r${i}@dest.test`) });
    }),
  );
  const accepted = replies.filter((r) => r.status === 200).length;
  t.equal(accepted, N, `${accepted} of 100 accepted`);
  t.equal(replies.filter((r) => r.status === 403).length, 100 - N, 'the rest refused for credits');
  t.equal(await reconciled(t, id), 0);
  const sends = await h.request('GET', `${TRANSACTIONS}?type=send&per_page=100`, withSession(owner));
  t.equal((sends.body as unknown[]).length, N, 'one send entry per accepted message');
});
