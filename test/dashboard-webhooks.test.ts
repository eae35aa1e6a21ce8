// The dashboard's webhooks over real HTTP: GET/POST /api/tern/v2/webhooks, PUT/DELETE /webhooks/{webhook_hash}
// (the /v2 rules and items with opaque ids, the secret shown once) and GET /webhooks/logs (every delivery attempt,
// filtered by webhook, result and date); viewers, other teams and other accounts are refused.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { newMessage, queuedRecipients, recordMessage } from './helpers/new-message.js';
import { recordComplaint } from '../shared/queue/effects.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h.close());

const HOOKS = '/api/tern/v2/webhooks';
const URL_A = 'https://hooks.example.com/tern';
let counter = 0;

async function ownerOf(accountId: number): Promise<SignedIn> {
  return logIn(h, await userOn(h, accountId, 'owner'));
}

async function created(s: SignedIn, body: Record<string, unknown> = { url: URL_A, events: ['bounced'] }): Promise<{ id: string; secret: string }> {
  const made = await h.request('POST', HOOKS, { ...withSession(s), body });
  if (made.status !== 201) throw new Error(made.text);
  return made.body as { id: string; secret: string };
}

/** A delivery attempt of `webhookId` recorded for the team, as the dispatcher records them. */
async function attempt(teamId: number, webhookId: number, statusCode: number | null): Promise<void> {
  const id = `dashhook-${process.pid}-${++counter}`;
  await recordMessage(h.rt.store, newMessage({ id, teamId, domainId: null, recipients: queuedRecipients(1), cost: 0 }));
  const [recipient] = await h.rt.store.messages.recipientsOf(id);
  const applied = await recordComplaint(h.rt.store.transaction, { recipientId: recipient!.id, reason: 'abuse' });
  const error = statusCode === null ? 'timed out' : null;
  await h.rt.store.feedback.logDelivery({ webhookId, teamId, eventId: applied!.eventId!, eventType: 'complaint', url: URL_A, statusCode, error, latencyMs: 40 });
}

t.test('a webhook is registered with its secret once, listed as /v2 lists it with an opaque id, changed and deleted', async (t) => {
  const account = await h.account();
  const s = await ownerOf(account.id);
  const made = await created(s, { title: 'Shop', url: URL_A, events: ['bounced', 'complaint'], include_message: true });
  t.match(made, { id: /^wh_[0-9a-z]+$/, title: 'Shop', url: URL_A, events: ['bounced', 'complaint'], status: 'active', include_message: true, secret: /^whsec_/ });
  const list = await h.request('GET', HOOKS, withSession(s));
  t.equal(list.headers.get('x-wp-total'), '1');
  const [item] = list.body as Array<Record<string, unknown>>;
  t.notOk('secret' in item!, 'the secret is never listed');
  const v2 = (await h.request('GET', '/v2/webhooks', { key: account.key })).body as { data: Array<Record<string, unknown>> };
  t.same({ ...item, id: 0 }, { ...v2.data[0], id: 0 }, 'the /v2 item but for its id');
  const changed = await h.request('PUT', `${HOOKS}/${made.id}`, { ...withSession(s), body: { status: 'inactive', events: ['complaint'] } });
  t.equal(changed.status, 200, changed.text);
  t.match(changed.body, { id: made.id, status: 'inactive', events: ['complaint'] });
  const removed = await h.request('DELETE', `${HOOKS}/${made.id}`, withSession(s));
  t.same(removed.body, { deleted: true, id: made.id });
  t.equal((await h.request('DELETE', `${HOOKS}/${made.id}`, withSession(s))).status, 404, 'gone');
});

t.test('the /v2 rules refuse bad urls, events and empty changes; integer and unknown ids answer 404', async (t) => {
  const account = await h.account();
  const s = await ownerOf(account.id);
  const made = await created(s);
  const badUrl = await h.request('POST', HOOKS, { ...withSession(s), body: { url: 'http://127.0.0.1:9/x', events: ['bounced'] } });
  t.equal(badUrl.status, 400);
  t.match(badUrl.body, { code: 'rest_invalid_param', data: { params: { url: /Invalid webhook url/ } } });
  const badEvent = await h.request('POST', HOOKS, { ...withSession(s), body: { url: URL_A, events: ['opened'] } });
  t.match(badEvent.body, { code: 'rest_invalid_param', data: { params: { events: String } } });
  const noEvents = await h.request('POST', HOOKS, { ...withSession(s), body: { url: URL_A, events: [] } });
  t.match(noEvents.body, { code: 'rest_invalid_param' });
  const empty = await h.request('PUT', `${HOOKS}/${made.id}`, { ...withSession(s), body: {} });
  t.equal(empty.status, 400, 'a change of nothing');
  const v2 = (await h.request('GET', '/v2/webhooks', { key: account.key })).body as { data: Array<{ id: number }> };
  const bare = await h.request('DELETE', `${HOOKS}/${v2.data[0]!.id}`, withSession(s));
  t.equal(bare.status, 404, 'the bare integer names nothing');
  t.match(bare.body, { code: 'rest_webhook_invalid_id' });
  t.equal((await h.request('PUT', `${HOOKS}/sk_1`, { ...withSession(s), body: { title: 'x' } })).status, 404, 'a key id is not a webhook id');
});

t.test('the delivery log lists every attempt, filtered by webhook, result and date', async (t) => {
  const account = await h.account();
  const s = await ownerOf(account.id);
  const a = await created(s);
  const b = await created(s, { url: 'https://other.example.com/', events: ['complaint'] });
  const v2 = (await h.request('GET', '/v2/webhooks', { key: account.key })).body as { data: Array<{ id: number; url: string }> };
  const idA = v2.data.find((w) => w.url === URL_A)!.id;
  const idB = v2.data.find((w) => w.url !== URL_A)!.id;
  await attempt(account.id, idA, 200);
  await attempt(account.id, idA, 500);
  await attempt(account.id, idB, null);
  const all = await h.request('GET', `${HOOKS}/logs`, withSession(s));
  t.equal(all.status, 200, all.text);
  t.equal(all.headers.get('x-wp-total'), '3');
  t.match((all.body as unknown[])[0], {
    webhook: b.id,
    event: 'complaint',
    result: 'failed',
    status_code: null,
    error: 'timed out',
    latency_ms: 40,
    attempted_at: String,
  });
  const ofA = await h.request('GET', `${HOOKS}/logs?webhook=${a.id}`, withSession(s));
  t.same(
    (ofA.body as Array<{ status_code: number }>).map((d) => d.status_code),
    [500, 200],
    'one webhook’s, newest first',
  );
  const ok = await h.request('GET', `${HOOKS}/logs?result=succeeded`, withSession(s));
  t.same(
    (ok.body as Array<{ status_code: number }>).map((d) => d.status_code),
    [200],
  );
  t.equal((await h.request('GET', `${HOOKS}/logs?result=failed`, withSession(s))).headers.get('x-wp-total'), '2');
  t.equal((await h.request('GET', `${HOOKS}/logs?from=2999-01-01`, withSession(s))).headers.get('x-wp-total'), '0');
  t.equal((await h.request('GET', `${HOOKS}/logs?to=2000-01-01`, withSession(s))).headers.get('x-wp-total'), '0');
  t.equal((await h.request('GET', `${HOOKS}/logs?from=2000-01-01&to=2999-12-31`, withSession(s))).headers.get('x-wp-total'), '3');
  const badDate = await h.request('GET', `${HOOKS}/logs?from=soon`, withSession(s));
  t.match(badDate.body, { code: 'rest_invalid_param', data: { status: 400, params: { from: String } } });
  t.match((await h.request('GET', `${HOOKS}/logs?result=maybe`, withSession(s))).body, { code: 'rest_invalid_param' });
  t.equal((await h.request('GET', `${HOOKS}/logs?webhook=wh_zzzz`, withSession(s))).status, 404, 'an unknown webhook');
});

t.test('a viewer reads but does not change; other teams and accounts are out of reach; sessions are checked', async (t) => {
  const account = await h.account();
  const owner = await ownerOf(account.id);
  const made = await created(owner);
  const viewer = await logIn(h, await userOn(h, account.id, 'viewer'));
  t.equal((await h.request('GET', HOOKS, withSession(viewer))).status, 200);
  t.equal((await h.request('GET', `${HOOKS}/logs`, withSession(viewer))).status, 200);
  t.equal((await h.request('POST', HOOKS, { ...withSession(viewer), body: { url: URL_A, events: ['bounced'] } })).status, 403);
  t.equal((await h.request('PUT', `${HOOKS}/${made.id}`, { ...withSession(viewer), body: { title: 'x' } })).status, 403);
  t.equal((await h.request('DELETE', `${HOOKS}/${made.id}`, withSession(viewer))).status, 403);
  const team = await h.request('POST', '/v2/teams', { key: account.key, body: { name: 'Client' } });
  const teamUser = await logIn(h, await userOn(h, account.id, 'admin', (team.body as { data: { id: number } }).data.id));
  t.equal((await h.request('DELETE', `${HOOKS}/${made.id}`, withSession(teamUser))).status, 404, 'the account’s webhook is not the team user’s');
  t.equal((await h.request('GET', `${HOOKS}/logs?webhook=${made.id}`, withSession(teamUser))).status, 404);
  const other = await h.account();
  t.equal((await h.request('GET', HOOKS, withSession(owner, owner.nonce, { 'X-Account-Id': String(other.id) }))).status, 404);
  t.equal((await h.request('GET', HOOKS)).status, 401);
  t.equal((await h.request('GET', HOOKS, withSession(owner, null))).status, 401);
  t.equal((await h.request('GET', HOOKS, withSession(owner, '0000000000'))).status, 403);
});
