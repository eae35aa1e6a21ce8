// The platform's credits and figures over real HTTP (real Redis, SQLite, and the MTA delivering to a loopback
// sink): an operator lists every grant and adjustment, grants and removes credits with a reason (ledger and audit
// log), reads the summary and the platform's stats, and mails a team's owners its low-credit message by hand.
// Account users (owner, admin, viewer) get 403 on every one of these routes; anonymous callers 401.
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { countTo, mailTo } from './helpers/system-mail.js';
import { editEmail, resetEmail } from './helpers/email-templates.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';

const w = await startMailWorld({
  overrides: { systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 10, dnsInstructionsPerDomainPerHour: 5 } },
});
t.teardown(() => w.close());
const h = w.h;
const log = createLogger('test', 'silent');
let operator: SignedIn;
t.before(async () => {
  operator = await logIn(h, await operatorOn(h));
});

const CREDITS = '/api/tern/v2/admin/credits';
const SUMMARY = '/api/tern/v2/admin/credits/summary';
const STATS = '/api/tern/v2/admin/stats';
const lowCredit = (id: number) => `/api/tern/v2/admin/tenants/${id}/send-low-credit-email`;

t.test('an operator grants and removes credits with a reason: ledger entries, audit log, never below zero', async (t) => {
  const { id } = await h.account({ credits: 50 });
  const granted = await h.request('POST', CREDITS, { ...withSession(operator), body: { account_id: id, amount: 200, reason: 'Welcome bonus' } });
  t.equal(granted.status, 201, granted.text);
  t.match(granted.body, { type: 'grant', amount: 200, balance_after: 250, actor: { type: 'operator', id: String }, reason: 'Welcome bonus', pool_id: id });
  const removed = await h.request('POST', CREDITS, { ...withSession(operator), body: { account_id: id, amount: -100, reason: 'Refunded by bank' } });
  t.match(removed.body, { type: 'adjustment', amount: -100, balance_after: 150 });
  const tooMuch = await h.request('POST', CREDITS, { ...withSession(operator), body: { account_id: id, amount: -151, reason: 'Too much' } });
  t.equal(tooMuch.status, 400);
  t.match(tooMuch.body, { code: 'rest_insufficient_credits', data: { balance: 150 } });
  const noReason = await h.request('POST', CREDITS, { ...withSession(operator), body: { account_id: id, amount: 5, reason: '  ' } });
  t.match(noReason.body, { code: 'rest_invalid_param', data: { params: { reason: String } } });
  const missing = await h.request('POST', CREDITS, { ...withSession(operator), body: { account_id: 99_999_999, amount: 5, reason: 'x' } });
  t.equal(missing.status, 404);
  const listed = await h.request('GET', `${CREDITS}?account_id=${id}`, withSession(operator));
  t.same(
    (listed.body as Array<{ type: string; amount: number }>).map((e) => [e.type, e.amount]),
    [
      ['adjustment', -100],
      ['grant', 200],
      ['grant', 50],
    ],
    'every grant and adjustment of the account, newest first; nothing of the refused ones',
  );
  const audit = await h.request('GET', `/api/tern/v2/admin/audit-log?target_kind=tenant&target_id=${id}`, withSession(operator));
  t.match(audit.body, [
    { action: 'credits.remove', before: { balance: 250 }, after: { balance: 150 }, reason: 'Refunded by bank' },
    { action: 'credits.grant', before: { balance: 50 }, after: { balance: 250 }, reason: 'Welcome bonus' },
  ]);
  t.equal((audit.body as unknown[]).length, 2);
  const { balance, sumOfEntries } = await h.rt.store.credits.reconcile(id);
  t.same([balance, sumOfEntries], [150, 150], 'the balance is the sum of its entries');
});

t.test('the credits list filters by type and dates; bad filters are refused', async (t) => {
  const { id } = await h.account({ credits: 10 });
  const sends = await h.request('GET', `${CREDITS}?account_id=${id}&type=send`, withSession(operator));
  t.same(sends.body, []);
  t.equal((await h.request('GET', `${CREDITS}?account_id=${id}&from=2999-01-01`, withSession(operator))).headers.get('x-wp-total'), '0');
  t.match((await h.request('GET', `${CREDITS}?from=soon`, withSession(operator))).body, { code: 'rest_invalid_param', data: { params: { from: String } } });
  t.match((await h.request('GET', `${CREDITS}?type=gift`, withSession(operator))).body, { code: 'rest_invalid_param' });
});

t.test('the summary and the stats follow grants and sends', async (t) => {
  const before = (await h.request('GET', SUMMARY, withSession(operator))).body as Record<string, number>;
  const statsBefore = (await h.request('GET', STATS, withSession(operator))).body as { tenants: { accounts: number }; messages: { pending: number } };
  await h.account({ credits: 40 });
  const sent = await h.request('POST', '/v2/emails', {
    key: w.sendingKey,
    body: { from: { email: `news@${w.domain}` }, to: [{ email: 'stats@dest.test' }], subject: 'Hi', text: 'Hi' },
  });
  t.equal(sent.status, 200, sent.text);
  const after = (await h.request('GET', SUMMARY, withSession(operator))).body as Record<string, number>;
  t.equal(after.granted, before.granted! + 40);
  t.equal(after.used, before.used! + 1);
  t.equal(after.outstanding, before.outstanding! + 40 - 1);
  const stats = await h.request('GET', `${STATS}?days=7`, withSession(operator));
  t.equal(stats.status, 200, stats.text);
  const body = stats.body as {
    window_days: number;
    tenants: { accounts: number };
    series: Array<{ day: string }>;
    messages: Record<string, number>;
    queue_depth: number;
    credits: unknown;
  };
  t.equal(body.window_days, 7);
  t.equal(body.series.length, 7, 'one entry per day');
  t.equal(body.series.at(-1)!.day, new Date().toISOString().slice(0, 10), 'today last');
  t.equal(body.tenants.accounts, statsBefore.tenants.accounts + 1);
  const total = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
  t.equal(total(body.messages), total(statsBefore.messages as unknown as Record<string, number>) + 1, 'the message counted');
  t.match(body.credits, after);
  t.type(body.queue_depth, 'number');
  t.match((await h.request('GET', `${STATS}?days=0`, withSession(operator))).body, { code: 'rest_invalid_param' });
});

t.test("the low-credit email goes to the team's owners by hand and is in the audit log", async (t) => {
  const { id } = await h.account({ credits: 12, name: 'Low one' });
  const owner = `owner-low-${process.pid}@dest.test`;
  const made = await createIdentity(h.rt).users.create(id, { email: owner, role: 'owner' }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  const sent = await h.request('POST', lowCredit(id), withSession(operator));
  t.equal(sent.status, 202, sent.text);
  t.same(sent.body, { sent_to: [owner], balance: 12 });
  const mail = await mailTo(w.sink, owner);
  t.match(mail.parsed.subject, 'Low credit balance: 12 left');
  const audit = await h.request('GET', `/api/tern/v2/admin/audit-log?action=tenant.low_credit_email&target_kind=tenant&target_id=${id}`, withSession(operator));
  t.match(audit.body, [{ action: 'tenant.low_credit_email', after: { balance: 12, sent_to: [owner] } }]);
  t.equal((await h.request('POST', lowCredit(99_999_999), withSession(operator))).status, 404);
});

t.test('an edited low-credit email is the mail the owners receive, the name escaped; turned off, nothing is sent', async (t) => {
  t.teardown(() => resetEmail(h, operator, 'low_balance'));
  const { id } = await h.account({ credits: 9, name: '<script>x</script>' });
  const owner = `owner-edited-${process.pid}@dest.test`;
  const made = await createIdentity(h.rt).users.create(id, { email: owner, role: 'owner' }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  await editEmail(h, operator, 'low_balance', { subject: 'Top up: {{credits.balance}}', body: '<p><b>{{team.name}}</b> has {{credits.balance}} credits.</p>' });
  t.equal((await h.request('POST', lowCredit(id), withSession(operator))).status, 202);
  const { parsed } = await mailTo(w.sink, owner);
  t.equal(parsed.subject, 'Top up: 9');
  t.match(String(parsed.html), '<b>&lt;script&gt;x&lt;/script&gt;</b> has 9 credits.');
  t.notMatch(String(parsed.html), '<script>', 'no markup from the name');
  t.match(parsed.text, '<script>x</script> has 9 credits.', 'the text part, generated');

  await editEmail(h, operator, 'low_balance', { subject: 'Top up', body: '<p>{{credits.balance}}</p>', status: 'disabled' });
  const off = await h.request('POST', lowCredit(id), withSession(operator));
  t.match(off, { status: 503, body: { code: 'rest_system_mail_unavailable', message: /turned off/ } });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.equal(countTo(w.sink, owner), 1, 'nothing more was sent');
});

t.test('account users get 403 on every one of these routes, anonymous callers 401', async (t) => {
  const { id } = await h.account({ credits: 10 });
  for (const role of ['owner', 'admin', 'viewer'] as const) {
    const s = await logIn(h, await userOn(h, id, role));
    for (const [method, path, body] of [
      ['GET', CREDITS, undefined],
      ['POST', CREDITS, { account_id: id, amount: 5, reason: 'mine' }],
      ['GET', SUMMARY, undefined],
      ['GET', STATS, undefined],
      ['POST', lowCredit(id), undefined],
    ] as const) {
      const res = await h.request(method, path, { ...withSession(s), body });
      t.equal(res.status, 403, `${role} ${method} ${path}`);
    }
  }
  t.equal((await h.request('GET', STATS)).status, 401);
  t.equal((await h.rt.store.teams.get(id))!.creditBalance, 10, 'nothing was granted');
});
