// The dashboard's suppression list over real HTTP: GET /api/tern/v2/suppressions (the /v2 filters and items as a
// WordPress collection) and GET /suppressions/export (the same filters as an RFC 4180 CSV download, streamed
// from the store; its memory bound is measured on a real `ternmail api` process in test/suppression-export-memory.test.ts).
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h.close());

const LIST = '/api/tern/v2/suppressions';
const EXPORT = '/api/tern/v2/suppressions/export';

async function ownerOf(accountId: number): Promise<SignedIn> {
  return logIn(h, await userOn(h, accountId, 'owner'));
}

async function suppress(teamId: number, entries: Array<{ email: string; status: 'bounced' | 'complained' | 'suppressed'; reason: string; messageId?: string }>) {
  for (const e of entries) await h.rt.store.suppressions.add(teamId, { email: e.email, status: e.status, reason: e.reason, messageId: e.messageId ?? null });
}

t.test('the list answers /v2’s items and total with /v2’s filters', async (t) => {
  const account = await h.account();
  await suppress(account.id, [
    { email: 'ann@dest.test', status: 'bounced', reason: '550 no such user' },
    { email: 'bob@dest.test', status: 'complained', reason: 'abuse' },
    { email: 'carl@other.test', status: 'suppressed', reason: 'manual' },
  ]);
  const s = await ownerOf(account.id);
  for (const query of ['', 'status=bounced', 'search=dest.test', 'search=nobody', 'per_page=1&page=2']) {
    const v2 = (await h.request('GET', `/v2/suppressions?${query}`, { key: account.key })).body as { data: unknown[]; total: number };
    const mine = await h.request('GET', `${LIST}?${query}`, withSession(s));
    t.equal(mine.status, 200, `${query}: ${mine.text}`);
    t.equal(mine.headers.get('x-wp-total'), String(v2.total), query);
    t.same(mine.body, v2.data, query);
  }
  t.match((await h.request('GET', `${LIST}?status=gone`, withSession(s))).body, { code: 'rest_invalid_param', data: { params: { status: String } } });
  t.match((await h.request('GET', `${LIST}?per_page=0`, withSession(s))).body, { code: 'rest_invalid_param' });
});

t.test('the export is an RFC 4180 CSV attachment of the filtered list, quoting what needs it', async (t) => {
  const account = await h.account();
  await suppress(account.id, [
    { email: 'ann@dest.test', status: 'bounced', reason: '550 5.1.1 "no such user", try later', messageId: 'm1' },
    { email: 'bob@dest.test', status: 'complained', reason: 'line one\nline two' },
  ]);
  const s = await ownerOf(account.id);
  const all = await h.request('GET', EXPORT, withSession(s));
  t.equal(all.status, 200, all.text);
  t.equal(all.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.match(all.headers.get('content-disposition') ?? '', /^attachment; filename="suppressions-team-\d+-\d{4}-\d{2}-\d{2}\.csv"$/);
  const v2 = (await h.request('GET', '/v2/suppressions', { key: account.key })).body as { data: Array<{ created_at: string }> };
  t.equal(
    all.text,
    'email,status,reason,message_id,created_at\r\n' +
      `bob@dest.test,complained,"line one\nline two",,${v2.data[0]!.created_at}\r\n` +
      `ann@dest.test,bounced,"550 5.1.1 ""no such user"", try later",m1,${v2.data[1]!.created_at}\r\n`,
    'header row, CRLF records, quotes doubled, newest first as the list',
  );
  const bounced = await h.request('GET', `${EXPORT}?status=bounced`, withSession(s));
  t.equal(bounced.text.split('\r\n').filter(Boolean).length, 2, 'the same filters: the header and one row');
  const none = await h.request('GET', `${EXPORT}?search=nobody`, withSession(s));
  t.equal(none.text, 'email,status,reason,message_id,created_at\r\n', 'an empty list is the header alone');
  const bad = await h.request('GET', `${EXPORT}?status=gone`, withSession(s));
  t.equal(bad.status, 400);
  t.match(bad.body, { code: 'rest_invalid_param' });
});

t.test('the list and the export are the team’s: other accounts, other teams and bad sessions are refused', async (t) => {
  const account = await h.account();
  await suppress(account.id, [{ email: 'ann@dest.test', status: 'bounced', reason: 'x' }]);
  const viewer = await logIn(h, await userOn(h, account.id, 'viewer'));
  t.equal((await h.request('GET', EXPORT, withSession(viewer))).status, 200, 'a viewer reads');
  const team = await h.request('POST', '/v2/teams', { key: account.key, body: { name: 'Client' } });
  const teamUser = await logIn(h, await userOn(h, account.id, 'admin', (team.body as { data: { id: number } }).data.id));
  t.equal((await h.request('GET', EXPORT, withSession(teamUser))).text, 'email,status,reason,message_id,created_at\r\n', 'its team’s list only');
  t.equal((await h.request('GET', EXPORT, withSession(teamUser, teamUser.nonce, { 'X-Account-Id': String(account.id) }))).status, 404);
  const other = await h.account();
  t.equal((await h.request('GET', LIST, withSession(viewer, viewer.nonce, { 'X-Account-Id': String(other.id) }))).status, 404);
  for (const path of [LIST, EXPORT]) {
    t.equal((await h.request('GET', path)).status, 401);
    t.equal((await h.request('GET', path, withSession(viewer, null))).status, 401);
    t.equal((await h.request('GET', path, withSession(viewer, '0000000000'))).status, 403);
  }
});
