// The platform's admin routes over real HTTP: a platform operator lists teams with their balance and sending
// figures, ranks them by volume, reads one and what the MTA holds of it, suspends and reactivates it with a
// reason (each recorded in the audit log with before and after). Account users, owners included, get 403 on
// every admin route; an operator gets 403 on every account route; a missing team is 404; bad args change nothing.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { startHarness, type Harness, type UntypedJson } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { newMessage, recordMessage } from './helpers/new-message.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';
import type { NewRecipient } from '../shared/store/message-log.js';
import { finishAlone } from '../shared/queue/finish.js';

let h: Harness;
let operator: SignedIn;
let operatorEmail: string;
/** An account with a child team, and a message history on the account: one sent, one bounced, one deferred. */
let account: { id: number; key: string };
let teamId: number;

const ADMIN = '/api/tern/v2/admin';

const recipient = (email: string): NewRecipient => ({ email, name: '', kind: 'to', domain: email.split('@')[1]!, state: 'queued', reason: '' });

/** Three messages of the account, delivered through the queue's own calls: sent, bounced, deferred (still in flight). */
async function sendingHistory(teamId: number): Promise<void> {
  const outcomes = [
    { to: 'sent' as const, email: 'ok@dest.test', reply: '250 2.0.0 OK' },
    { to: 'bounced' as const, email: 'gone@dest.test', reply: '550 5.1.1 no such user' },
    { to: 'deferred' as const, email: 'later@slow.test', reply: '451 4.7.1 try again later' },
  ];
  for (const o of outcomes) await recordMessage(h.rt.store, newMessage({ id: randomUUID(), teamId, domainId: null, recipients: [recipient(o.email)], cost: 0 }));
  await recordMessage(h.rt.store, newMessage({ id: randomUUID(), teamId, domainId: null, recipients: [recipient('waiting@slow.test')], cost: 0 }));
  const ids = (await h.rt.store.queue.inFlight()).map((r) => r.id);
  const claimed = await h.rt.store.queue.claim(ids, Date.now(), Date.now() + 60_000, 'admin-test');
  const results = outcomes.map((o) => {
    const lease = claimed.find((c) => c.email === o.email)!;
    return { recipientId: lease.id, leaseToken: lease.leaseToken, to: o.to, reply: o.reply, mxHost: null, ip: null, nextAttemptAt: Date.now() + 600_000, hard: true };
  });
  await finishAlone(h.rt.store.transaction, results);
  const waiting = claimed.find((c) => c.email === 'waiting@slow.test')!;
  await h.rt.store.queue.release([waiting], Date.now());
}

t.before(async () => {
  h = await startHarness({ overrides: { dkim: { keyBits: 1024 } } });
  account = await h.account({ name: `Acme ${process.pid}`, credits: 250 });
  const made = await h.request('POST', '/v2/teams', { key: account.key, body: { name: `Acme Child ${process.pid}` } });
  teamId = (made.body as { data: { id: number } }).data.id;
  await sendingHistory(account.id);
  operatorEmail = await operatorOn(h);
  operator = await logIn(h, operatorEmail);
});
t.teardown(() => h?.close());

const asOperator = (method: string, path: string, body?: UntypedJson) => h.request(method, `${ADMIN}${path}`, { ...withSession(operator), body });

t.test('an operator lists every team with its status, balance and sending figures, filtered and searched', async (t) => {
  const all = await asOperator('GET', '/tenants?per_page=100');
  t.equal(all.status, 200, all.text);
  t.ok(Number(all.headers.get('x-wp-total')) >= 2, 'X-WP-Total');
  t.equal(all.headers.get('x-wp-totalpages'), '1');
  const rows = all.body as Array<Record<string, unknown>>;
  t.match(
    rows.find((r) => r.id === account.id),
    {
      name: `Acme ${process.pid}`,
      kind: 'account',
      parent_id: null,
      status: 'active',
      suspension: null,
      balance: 250,
      sending: { window_days: 30, sent: 1, bounced: 1, complained: 0, volume: 2, bounce_rate: 0.5, complaint_rate: 0 },
    },
  );
  t.match(
    rows.find((r) => r.id === teamId),
    { kind: 'team', parent_id: account.id, balance: 250, sending: { volume: 0 } },
    "a team shows its account's pooled balance",
  );

  const searched = await asOperator('GET', `/tenants?search=${encodeURIComponent(`acme child ${process.pid}`)}`);
  t.same(
    (searched.body as Array<{ id: number }>).map((r) => r.id),
    [teamId],
    'search matches part of the name, ASCII case ignored',
  );
  const children = await asOperator('GET', `/tenants?parent_id=${account.id}&kind=team`);
  t.same(
    (children.body as Array<{ id: number }>).map((r) => r.id),
    [teamId],
  );
  const accounts = await asOperator('GET', '/tenants?kind=account&per_page=100');
  t.ok(
    (accounts.body as Array<{ kind: string }>).every((r) => r.kind === 'account'),
    'kind=account lists accounts only',
  );
  const wildcard = await asOperator('GET', '/tenants?search=%25');
  t.same(wildcard.body, [], "LIKE's wildcards in a search are plain characters");
  const paged = await asOperator('GET', '/tenants?per_page=1&page=2');
  t.equal(paged.status, 200);
  t.match(paged.headers.get('link') ?? '', /rel="prev"/);
});

t.test('sending-stats ranks every team by volume over a window of days', async (t) => {
  const ranked = await asOperator('GET', '/tenants/sending-stats?per_page=1');
  t.equal(ranked.status, 200, ranked.text);
  t.match(ranked.body, [{ id: account.id, sending: { window_days: 30, sent: 1, bounced: 1, volume: 2 } }], 'the largest volume first');
  t.ok(Number(ranked.headers.get('x-wp-total')) >= 2, 'every tenant is counted, those that sent nothing too');
  const oneDay = await asOperator('GET', '/tenants/sending-stats?days=1&per_page=1');
  t.match(oneDay.body, [{ id: account.id, sending: { window_days: 1, volume: 2 } }]);
  const tooLong = await asOperator('GET', '/tenants/sending-stats?days=5000');
  t.equal(tooLong.status, 400);
  t.match(tooLong.body, { code: 'rest_invalid_param', data: { params: { days: /1 to 366/ } } });
});

t.test('one team: its figures, its users, domains and teams; a missing one is 404', async (t) => {
  const ownerEmail = await userOn(h, account.id, 'owner');
  const one = await asOperator('GET', `/tenants/${account.id}`);
  t.equal(one.status, 200, one.text);
  t.match(one.body, { id: account.id, kind: 'account', domains_count: 0, teams_count: 1, sending: { volume: 2 } });
  t.ok(
    (one.body as { users: Array<{ email: string }> }).users.some((u) => u.email === ownerEmail),
    'its users',
  );
  const missing = await asOperator('GET', '/tenants/99999999');
  t.equal(missing.status, 404);
  t.match(missing.body, { code: 'rest_team_invalid_id', data: { status: 404 } });
  t.equal((await asOperator('GET', '/tenants/99999999/mta-status')).status, 404);
  t.equal((await asOperator('POST', '/tenants/99999999/suspend', { reason: 'nobody' })).status, 404);
});

t.test("mta-status shows the team's recipients in flight by destination, the oldest and the last errors", async (t) => {
  const status = await asOperator('GET', `/tenants/${account.id}/mta-status`);
  t.equal(status.status, 200, status.text);
  const body = status.body as {
    queue: { depth: number; oldest_queued_at: string; destinations: Array<Record<string, unknown>> };
    last_errors: Array<Record<string, unknown>>;
  };
  t.match(body, { tenant: { id: account.id, status: 'active', suspension: null }, sending: { bounce_rate: 0.5 } });
  t.equal(body.queue.depth, 2, 'the deferred and the waiting recipient');
  t.match(body.queue.destinations, [{ domain: 'slow.test', queued: 0, deferred: 2, sending: 0 }]);
  t.ok(!Number.isNaN(Date.parse(body.queue.oldest_queued_at)), 'the oldest as ISO 8601');
  t.same(body.last_errors.map((e) => e.reply).sort(), ['451 4.7.1 try again later', '550 5.1.1 no such user']);
  t.match(
    body.last_errors.find((e) => e.state === 'bounced'),
    { email: 'gone@dest.test', domain: 'dest.test', attempts: 1 },
  );
});

t.test('an operator suspends and reactivates a team with a reason; each is in the audit log with before and after', async (t) => {
  const suspended = await asOperator('POST', `/tenants/${teamId}/suspend`, { reason: 'phishing reports' });
  t.equal(suspended.status, 200, suspended.text);
  t.match(suspended.body, { id: teamId, status: 'suspended', suspension: { by: 'platform', reason: 'phishing reports' } });
  const shown = await asOperator('GET', `/tenants/${teamId}`);
  t.match(shown.body, { status: 'suspended', suspension: { by: 'platform', reason: 'phishing reports' } }, 'the reason is stored and shown');

  const byOwner = await h.request('PUT', `/v2/teams/${teamId}`, { key: account.key, body: { status: 'active' } });
  t.equal(byOwner.status, 403, "the owner cannot lift the platform's suspension");

  const reactivated = await asOperator('POST', `/tenants/${teamId}/reactivate`, { reason: 'cleared after review' });
  t.equal(reactivated.status, 200, reactivated.text);
  t.match(reactivated.body, { status: 'active', suspension: null });

  const log = await asOperator('GET', `/audit-log?target_kind=tenant&target_id=${teamId}`);
  t.equal(log.status, 200, log.text);
  t.equal(log.headers.get('x-wp-total'), '2');
  const [second, first] = log.body as Array<Record<string, unknown>>;
  t.match(first, {
    operator: { email: operatorEmail },
    action: 'tenant.suspend',
    target: { kind: 'tenant', id: String(teamId) },
    before: { status: 'active', suspended_by: null, suspension_reason: null },
    after: { status: 'suspended', suspended_by: 'platform', suspension_reason: 'phishing reports' },
    reason: 'phishing reports',
  });
  t.match(second, {
    action: 'tenant.reactivate',
    before: { status: 'suspended', suspended_by: 'platform' },
    after: { status: 'active', suspended_by: null, suspension_reason: null },
    reason: 'cleared after review',
  });
  t.ok(Date.parse(String(first!.at)) <= Date.parse(String(second!.at)), 'newest first');
  const byAction = await asOperator('GET', '/audit-log?action=tenant.reactivate');
  t.ok((byAction.body as Array<{ action: string }>).every((e) => e.action === 'tenant.reactivate'));
  const operatorId = (first!.operator as { id: number }).id;
  const mine = await asOperator('GET', `/audit-log?operator_id=${operatorId}`);
  t.ok(Number(mine.headers.get('x-wp-total')) >= 2, 'filtered by operator');
  const nobody = await asOperator('GET', '/audit-log?operator_id=99999999');
  t.same(nobody.body, []);
});

t.test('bad ids, filters and reasons are rest_invalid_param and change nothing', async (t) => {
  const before = await asOperator('GET', `/tenants/${account.id}`);
  const cases: Array<[string, string, unknown, string]> = [
    ['GET', '/tenants?status=gone', undefined, 'status'],
    ['GET', '/tenants?kind=both', undefined, 'kind'],
    ['GET', '/tenants?parent_id=abc', undefined, 'parent_id'],
    ['GET', '/tenants?per_page=500', undefined, 'per_page'],
    ['GET', '/audit-log?action=tenant.delete', undefined, 'action'],
    ['GET', '/audit-log?target_id=a%20b', undefined, 'target_id'],
    ['POST', `/tenants/${account.id}/suspend`, { reason: '' }, 'reason'],
    ['POST', `/tenants/${account.id}/suspend`, { reason: 'two\nlines' }, 'reason'],
    ['POST', `/tenants/${account.id}/suspend`, { reason: '   ' }, 'reason'],
    ['POST', `/tenants/${account.id}/reactivate`, { reason: 'x'.repeat(501) }, 'reason'],
  ];
  for (const [method, path, body, param] of cases) {
    const reply = await asOperator(method, path, body);
    t.equal(reply.status, 400, `${method} ${path}: ${reply.text.slice(0, 200)}`);
    t.match(reply.body, { code: 'rest_invalid_param', data: { params: { [param]: String } } });
  }
  const missingReason = await asOperator('POST', `/tenants/${account.id}/suspend`, {});
  t.match(missingReason.body, { code: 'rest_missing_callback_param' });
  t.equal((await asOperator('GET', '/tenants/abc')).status, 404, 'a path id that is not digits matches no route');
  const after = await asOperator('GET', `/tenants/${account.id}`);
  t.same(after.body, before.body, 'the tenant is unchanged');
  const log = await asOperator('GET', `/audit-log?target_kind=tenant&target_id=${account.id}`);
  t.same(log.body, [], 'nothing was recorded');
});

t.test('owners, admins and viewers get 403 on every admin route; anonymous callers 401', async (t) => {
  const routes: Array<[string, string, unknown]> = [
    ['GET', '/tenants', undefined],
    ['GET', '/tenants/sending-stats', undefined],
    ['GET', `/tenants/${account.id}`, undefined],
    ['GET', `/tenants/${account.id}/mta-status`, undefined],
    ['POST', `/tenants/${account.id}/suspend`, { reason: 'not yours' }],
    ['POST', `/tenants/${account.id}/reactivate`, { reason: 'not yours' }],
    ['GET', '/audit-log', undefined],
  ];
  for (const role of ['owner', 'admin', 'viewer'] as const) {
    const s = await logIn(h, await userOn(h, account.id, role));
    for (const [method, path, body] of routes) {
      const reply = await h.request(method, `${ADMIN}${path}`, { ...withSession(s), body });
      t.equal(reply.status, 403, `${role}: ${method} ${path}`);
      t.match(reply.body, { code: 'rest_forbidden' });
    }
  }
  const anonymous = await h.request('GET', `${ADMIN}/tenants`);
  t.equal(anonymous.status, 401);
  const still = await asOperator('GET', `/tenants/${account.id}`);
  t.match(still.body, { status: 'active' }, 'no refused suspension happened');
});

t.test('an operator gets 403 on account routes, and keeps its own profile and application passwords', async (t) => {
  for (const [method, path] of [
    ['GET', '/api/tern/v2/api/account'],
    ['GET', '/api/tern/v2/api/logs'],
    ['POST', '/api/tern/v2/api/create-team'],
    ['GET', '/api/tern-auth/v1/settings'],
  ] as const) {
    const reply = await h.request(method, path, { ...withSession(operator), body: method === 'POST' ? { name: 'Nope' } : undefined });
    t.equal(reply.status, 403, `${method} ${path}: ${reply.text.slice(0, 200)}`);
    t.match(reply.body, { code: 'rest_forbidden' });
  }
  const withHeader = await h.request('GET', '/api/tern/v2/api/account', { ...withSession(operator, operator.nonce, { 'X-Account-Id': String(account.id) }) });
  t.equal(withHeader.status, 403, 'X-Account-Id makes no operator a member');
  const profile = await h.request('GET', '/api/tern/v2/profile', withSession(operator));
  t.equal(profile.status, 200, profile.text);
  t.match(profile.body, { email: operatorEmail, role: 'operator', team_id: null, account_id: null });
  const created = await h.request('POST', '/api/wp/v2/users/me/application-passwords', { ...withSession(operator), body: { name: 'ops script' } });
  t.equal(created.status, 201, created.text);
  const password = (created.body as { password: string }).password;
  const basic = { authorization: `Basic ${Buffer.from(`${operatorEmail}:${password}`).toString('base64')}` };
  const viaBasic = await h.request('GET', `${ADMIN}/tenants/${account.id}`, { headers: basic });
  t.equal(viaBasic.status, 200, 'an application password reaches the admin routes');
  t.equal((await h.request('GET', '/api/tern/v2/api/account', { headers: basic })).status, 403);
});

t.test("an operator's one-time password must be changed at the first login before any admin route", async (t) => {
  const id = createIdentity(h.rt);
  const made = await id.users.createOperator({ email: `fresh-operator.${process.pid}@example.com`, name: 'Fresh' }, createLogger('test', 'silent'));
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  const first = await logIn(h, made.value.user.email, made.value.oneTimePassword);
  t.equal(first.reply.status, 200, first.reply.text);
  t.match(first.reply.body, { user: { role: 'operator', team_id: null, must_change_password: true } });
  const gated = await h.request('GET', `${ADMIN}/tenants`, withSession(first));
  t.equal(gated.status, 403);
  t.match(gated.body, { code: 'tern_password_change_required' });
  const changed = await h.request('POST', '/api/tern/v2/profile/update-password', {
    ...withSession(first),
    body: { current_password: made.value.oneTimePassword, new_password: 'a brand new operator password' },
  });
  t.equal(changed.status, 200, changed.text);
  const now = await h.request('GET', `${ADMIN}/tenants`, withSession(first));
  t.equal(now.status, 200, 'the admin routes open once the password is changed');
});
