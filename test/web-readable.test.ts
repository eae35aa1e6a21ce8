// Issue 22 item 15, the smaller things on the pages: the operator's audit log shows each change as
// "field: old → new" (not raw JSON) and names the team; every operator list names a team instead of "#1";
// the amount paid in the operator's payment form is typed in the currency's units and recorded exactly in minor
// units; an address is added to the suppression list by hand from the page, through the same use case as
// the dashboard's POST /api/tern/v2/suppressions.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { formGuardOf, page, signInOverHttp } from './helpers/web-pages.js';
import { INVOICING } from './helpers/billing-setup.js';
import { storedDomain } from './helpers/sending-setup.js';
import { newMessage, recordMessage } from './helpers/new-message.js';

let h: Harness;
let operator: string;
let rest: SignedIn;
let teamCounter = 0;

t.before(async () => {
  h = await startHarness({ overrides: INVOICING });
  const email = await operatorOn(h);
  operator = await signInOverHttp(h, email);
  rest = await logIn(h, email);
});
t.teardown(() => h?.close());

const mainOf = (text: string) => text.slice(text.indexOf('<main'));
const teamNamed = async () => h.account({ name: `Acme & Sons ${++teamCounter}`, credits: 100 });

t.test('the audit log shows each change as field: old → new, names the team, and shows no raw JSON', async (t) => {
  const team = await teamNamed();
  const suspended = await h.request('POST', `/api/tern/v2/admin/tenants/${team.id}/suspend`, { ...withSession(rest), body: { reason: 'Complaints' } });
  t.equal(suspended.status, 200);
  const shown = mainOf((await page(h, 'GET', `/admin/audit-log?target_kind=tenant&target_id=${team.id}`, { cookie: operator })).text);
  t.match(shown, /status<\/span>: active → suspended/, 'the status change');
  t.match(shown, /suspension_reason<\/span>: — → Complaints/, 'a value that was none');
  t.notMatch(shown, /suspended_at<\/span>: — → —/, 'an unchanged field is left out');
  t.notMatch(shown, /\{&quot;|\{"/, 'no JSON object');
  t.match(shown, `<a href="/admin/tenants/${team.id}">Acme &amp; Sons ${teamCounter}</a>`, 'the tenant by its name');
  t.notMatch(shown, `#${team.id}<`);
});

t.test('the operator’s lists name a team, never “#id”', async (t) => {
  const team = await teamNamed();
  const name = `Acme &amp; Sons ${teamCounter}`;
  const domain = await storedDomain(h, team.id, `named-${process.pid}.example`);
  const recipient = { email: 'to@dest.test', name: '', kind: 'to' as const, domain: 'dest.test', state: 'queued' as const, reason: '' };
  await recordMessage(h.rt.store, newMessage({ id: `named-${process.pid}`, teamId: team.id, domainId: domain.id, recipients: [recipient], cost: 0 }));
  await h.rt.store.suppressions.add(team.id, { email: 'gone@dest.test', status: 'bounced', reason: '550', messageId: null });
  const child = await h.request<{ data: { id: number } }>('POST', '/v2/teams', { key: team.key, body: { name: 'Child team' } });
  const logId = (await h.request<Array<{ log_id: number }>>('GET', `/api/tern/v2/admin/logs?tenant_id=${team.id}`, withSession(rest))).body[0]!.log_id;
  for (const path of [
    `/admin/credits?account_id=${team.id}`,
    `/admin/logs?tenant_id=${team.id}`,
    `/admin/logs/${logId}`,
    `/admin/suppressions?tenant_id=${team.id}`,
    `/admin/tenants/${child.body.data.id}`,
    `/admin/tenants?search=Child`,
  ]) {
    const shown = mainOf((await page(h, 'GET', path, { cookie: operator })).text);
    t.match(shown, `<a href="/admin/tenants/${team.id}">${name}</a>`, `${path}: the tenant by its name`);
    t.notMatch(shown, `#${team.id}</a>`, `${path}: not by its number`);
  }
});

t.test('the amount paid is typed in the currency’s units and recorded exactly in minor units; anything else is refused', async (t) => {
  const guard = await formGuardOf(h, operator, '/admin/credits');
  const cases: Array<[string, string, number]> = [
    ['EUR', '19.99', 1999],
    ['EUR', '1234567.89', 123456789],
    ['EUR', '0.1', 10],
    ['EUR', '12', 1200],
    ['JPY', '500', 500],
  ];
  for (const [currency, amount, minor] of cases) {
    const team = await teamNamed();
    const reference = `wire-${team.id}-${process.pid}`;
    const form = { ...guard, account_id: String(team.id), amount: '100', paid_amount: amount, currency, payment_reference: reference, reason: 'Bank transfer' };
    const recorded = await page(h, 'POST', '/admin/credits/payment', { cookie: operator, form });
    t.equal(recorded.status, 303, `${amount} ${currency}: ${recorded.text.slice(0, 200)}`);
    const owner = await logIn(h, await userOn(h, team.id, 'owner'));
    const invoices = await h.request<Array<{ total_minor: number }>>('GET', '/api/tern/v2/api/account/billing/invoices', withSession(owner));
    t.equal(invoices.body[0]?.total_minor, minor, `${amount} ${currency} is ${minor} minor units`);
  }
  for (const [currency, amount] of [
    ['EUR', '12.345'],
    ['EUR', '1,50'],
    ['EUR', '-3'],
    ['EUR', '1e3'],
    ['JPY', '5.5'],
  ]) {
    const team = await teamNamed();
    const form = {
      ...guard,
      account_id: String(team.id),
      amount: '100',
      paid_amount: amount!,
      currency: currency!,
      payment_reference: `bad-${team.id}`,
      reason: 'x',
    };
    const refused = await page(h, 'POST', '/admin/credits/payment', { cookie: operator, form });
    t.equal(refused.status, 400, `${amount} ${currency} is refused`);
    t.match(refused.text, /role="alert">[^<]*Amount paid/, 'in the words of the form');
    t.match(refused.text, `value="${amount}"`, 'what was typed is kept');
    const balance = (await h.request<{ balance: number }>('GET', `/api/tern/v2/admin/tenants/${team.id}`, withSession(rest))).body.balance;
    t.equal(balance, 100, 'and nothing was bought');
  }
  const shown = (await page(h, 'GET', '/admin/credits', { cookie: operator })).text;
  t.notMatch(shown, /in cents/);
  t.match(shown, /name="paid_amount"/);
});

t.test('an address is added to the suppression list by hand from the page, as the dashboard’s REST route adds one', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'admin'));
  const guard = await formGuardOf(h, cookie, '/suppressions');
  const shown = await page(h, 'GET', '/suppressions', { cookie });
  t.match(shown.text, /id="add-suppression"/, 'the form is offered');
  const added = await page(h, 'POST', '/suppressions/add', { cookie, form: { ...guard, email: 'Someone@Example.com', reason: 'Asked us by phone' } });
  t.equal(added.status, 303);
  t.match(added.headers.get('location'), /done=added/);
  const listed = await h.request<{ data: Array<{ email: string; status: string; reason: string }> }>('GET', '/v2/suppressions', { key: account.key });
  t.same(
    listed.body.data.map((s) => [s.email, s.status, s.reason]),
    [['someone@example.com', 'suppressed', 'Asked us by phone']],
    'listed as added by hand',
  );
  const bad = await page(h, 'POST', '/suppressions/add', { cookie, form: { ...guard, email: 'not an address', reason: '' } });
  t.equal(bad.status, 400);
  t.match(bad.text, /role="alert"/);
  t.match(bad.text, 'value="not an address"', 'what was typed is kept');
  const session = await logIn(h, await userOn(h, account.id, 'admin'));
  const viaRest = await h.request('POST', '/api/tern/v2/suppressions', { ...withSession(session), body: { email: 'other@example.com' } });
  t.equal(viaRest.status, 201, viaRest.text);
  const badRest = await h.request('POST', '/api/tern/v2/suppressions', { ...withSession(session), body: { email: 'nope@' } });
  t.equal(badRest.status, 400, badRest.text);
  t.match(badRest.body, { code: 'rest_invalid_param', data: { status: 400 } });
  const after = await h.request<{ data: unknown[] }>('GET', '/v2/suppressions', { key: account.key });
  t.equal(after.body.data.length, 2, 'only the two valid addresses are listed');
  const viewer = await signInOverHttp(h, await userOn(h, account.id, 'viewer'));
  t.notMatch((await page(h, 'GET', '/suppressions', { cookie: viewer })).text, /id="add-suppression"/, 'no form for a viewer');
  const forged = await page(h, 'POST', '/suppressions/add', { cookie: viewer, form: { ...(await formGuardOf(h, viewer, '/suppressions')), email: 'x@example.com' } });
  t.equal(forged.status, 403);
});
