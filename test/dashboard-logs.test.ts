// The dashboard's message log over real HTTP: GET /api/tern/v2/api/logs answers /v2/emails's items and total as
// a WordPress collection, with its filters; GET /api/tern/v2/api/logs/{log_hash} the full record as /v2; callers
// without a valid session, other accounts and other teams are refused.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { newMessage, queuedRecipients, recordMessage } from './helpers/new-message.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h.close());

const LOGS = '/api/tern/v2/api/logs';
let counter = 0;

/** `n` messages logged for the team (ids returned, oldest first). */
async function logged(teamId: number, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `dashlog-${process.pid}-${++counter}`;
    await recordMessage(h.rt.store, newMessage({ id, teamId, domainId: null, recipients: queuedRecipients(2), cost: 0 }));
    ids.push(id);
  }
  return ids;
}

async function ownerOf(accountId: number): Promise<SignedIn> {
  return logIn(h, await userOn(h, accountId, 'owner'));
}

t.test('the log lists /v2’s items with /v2’s total in X-WP-Total, paged with Link headers', async (t) => {
  const account = await h.account();
  await logged(account.id, 5);
  const s = await ownerOf(account.id);
  const v2 = await h.request('GET', '/v2/emails?per_page=100', { key: account.key });
  const page1 = await h.request('GET', `${LOGS}?per_page=2`, withSession(s));
  t.equal(page1.status, 200, page1.text);
  t.equal(page1.headers.get('x-wp-total'), String((v2.body as { total: number }).total));
  t.equal(page1.headers.get('x-wp-totalpages'), '3');
  t.match(page1.headers.get('link') ?? '', /page=2>; rel="next"/);
  t.same(page1.body, (v2.body as { data: unknown[] }).data.slice(0, 2), 'the same items, newest first');
  const all = await h.request('GET', `${LOGS}?per_page=100`, withSession(s));
  t.same(all.body, (v2.body as { data: unknown[] }).data);
});

t.test('the log takes /v2’s filters and refuses what /v2 refuses', async (t) => {
  const account = await h.account();
  await logged(account.id, 3);
  const s = await ownerOf(account.id);
  for (const query of ['status=pending', 'status=sent', 'search=dashlog*', 'from=2000-01-01&to=2999-12-31', 'domain=nowhere.test']) {
    const v2 = await h.request('GET', `/v2/emails?${query}`, { key: account.key });
    const mine = await h.request('GET', `${LOGS}?${query}`, withSession(s));
    t.equal(mine.status, 200, `${query}: ${mine.text}`);
    t.equal(mine.headers.get('x-wp-total'), String((v2.body as { total: number }).total), query);
    t.same(mine.body, (v2.body as { data: unknown[] }).data, query);
  }
  const badDate = await h.request('GET', `${LOGS}?from=yesterday`, withSession(s));
  t.equal(badDate.status, 400);
  t.match(badDate.body, { code: 'rest_invalid_param', data: { params: { from: /ISO 8601/ } } });
  const badStatus = await h.request('GET', `${LOGS}?status=lost`, withSession(s));
  t.match(badStatus.body, { code: 'rest_invalid_param', data: { status: 400, params: { status: String } } });
  const tooMany = await h.request('GET', `${LOGS}?per_page=101`, withSession(s));
  t.match(tooMany.body, { code: 'rest_invalid_param', data: { params: { per_page: String } } });
  const tooDeep = await h.request('GET', `${LOGS}?per_page=100&page=101`, withSession(s));
  t.match(tooDeep.body, { code: 'rest_invalid_param', data: { params: { page: /beyond/ } } });
});

t.test('one message answers /v2’s full record; another account’s or an unknown id answers 404', async (t) => {
  const account = await h.account();
  const [id] = await logged(account.id, 1);
  const s = await ownerOf(account.id);
  const v2 = await h.request('GET', `/v2/emails/${id!}`, { key: account.key });
  const mine = await h.request('GET', `${LOGS}/${id!}`, withSession(s));
  t.equal(mine.status, 200, mine.text);
  t.same(mine.body, (v2.body as { data: unknown }).data, 'the same record, recipients, attempts and events');
  t.match(mine.body, { recipients: [{ attempts: [] }, { attempts: [] }], events: Array });
  const other = await h.account();
  const [foreign] = await logged(other.id, 1);
  const refused = await h.request('GET', `${LOGS}/${foreign!}`, withSession(s));
  t.equal(refused.status, 404);
  t.match(refused.body, { code: 'rest_message_invalid_id' });
  t.equal((await h.request('GET', `${LOGS}/nope`, withSession(s))).status, 404);
  const otherAccount = await h.request('GET', LOGS, withSession(s, s.nonce, { 'X-Account-Id': String(other.id) }));
  t.equal(otherAccount.status, 404, 'another account as X-Account-Id');
});

t.test('a team user sees its team’s log only; a viewer reads it', async (t) => {
  const account = await h.account();
  const made = await h.request('POST', '/v2/teams', { key: account.key, body: { name: 'Client' } });
  const teamId = (made.body as { data: { id: number } }).data.id;
  const [onTeam] = await logged(teamId, 1);
  await logged(account.id, 2);
  const teamUser = await logIn(h, await userOn(h, account.id, 'viewer', teamId));
  const list = await h.request('GET', LOGS, withSession(teamUser));
  t.equal(list.status, 200, 'a viewer reads');
  t.same(
    (list.body as Array<{ id: string }>).map((m) => m.id),
    [onTeam],
    'its team’s messages only',
  );
  const up = await h.request('GET', LOGS, withSession(teamUser, teamUser.nonce, { 'X-Account-Id': String(account.id) }));
  t.equal(up.status, 404, 'not its account');
});

t.test('the log needs a signed-in caller: anonymous and a cookie without its nonce 401, a wrong nonce 403', async (t) => {
  const account = await h.account();
  const s = await ownerOf(account.id);
  t.equal((await h.request('GET', LOGS)).status, 401);
  t.equal((await h.request('GET', LOGS, withSession(s, null))).status, 401);
  const wrong = await h.request('GET', LOGS, withSession(s, '0123456789'));
  t.equal(wrong.status, 403);
  t.match(wrong.body, { code: 'rest_cookie_invalid_nonce' });
});
