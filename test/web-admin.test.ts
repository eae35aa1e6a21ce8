// The platform operator's pages (issue 13) over real HTTP and in Chromium: the platform's figures, the teams
// (search, filters, one team with its MTA status), suspending and reactivating a team with a reason (the
// account's pages then show the banner with it), credits granted through the page (seen in the team's billing
// and the audit log page), and the other admin lists. An account's user gets 404 on every /admin page; names
// holding markup render as text; bad input is a 400 that changes nothing.
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { INVOICING } from './helpers/billing-setup.js';
import { storedDomain } from './helpers/sending-setup.js';
import { newMessage, recordMessage } from './helpers/new-message.js';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';
const SCRIPT_SHOWN = '&lt;script&gt;alert(1)&lt;/script&gt;';
const IMG_SHOWN = '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;';

let h: Harness;
let browser: TestBrowser;
let operatorEmail: string;
let operator: string;
/** The same operator on the REST routes, to check what the pages did. */
let rest: SignedIn;

t.before(async () => {
  h = await startHarness({ overrides: INVOICING });
  browser = await startBrowser();
  operatorEmail = await operatorOn(h);
  operator = await signInOverHttp(h, operatorEmail);
  rest = await logIn(h, operatorEmail);
});
t.teardown(async () => {
  await browser?.close();
  await h?.close();
});

/** The audit log of a team, newest first, as the REST route lists it. */
async function auditOf(targetId: number): Promise<Array<{ action: string; reason: string; after: Record<string, unknown> }>> {
  const found = await h.request<Array<{ action: string; reason: string; after: Record<string, unknown> }>>(
    'GET',
    `/api/tern/v2/admin/audit-log?target_kind=tenant&target_id=${targetId}`,
    withSession(rest),
  );
  return found.body;
}

const teamNamed = async (name: string, credits = 0) => h.account({ name, credits });

t.test('an account user gets 404 on every /admin page, and its forged action changes nothing', async (t) => {
  const account = await h.account();
  const owner = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  for (const path of [
    '/admin',
    '/admin/tenants',
    `/admin/tenants/${account.id}`,
    '/admin/domains',
    '/admin/logs',
    '/admin/credits',
    '/admin/invitations',
    '/admin/suppressions',
    '/admin/audit-log',
  ]) {
    t.equal((await page(h, 'GET', path, { cookie: owner })).status, 404, path);
  }
  const guard = await formGuardOf(h, owner);
  const forged = await page(h, 'POST', `/admin/tenants/${account.id}/suspend`, { cookie: owner, form: { ...guard, reason: 'mine now' } });
  t.equal(forged.status, 404);
  t.equal((await h.rt.store.teams.get(account.id))?.status, 'active', 'the tenant is still active');
});

t.test('the platform page shows teams, recipients by status and by day, the queue and credits', async (t) => {
  await teamNamed('Platform figures', 75);
  const shown = await page(h, 'GET', '/admin', { cookie: operator });
  t.equal(shown.status, 200);
  t.match(shown.text, /<h1>Platform<\/h1>/);
  const stats = (await h.request<{ tenants: { accounts: number }; credits: { outstanding: number } }>('GET', '/api/tern/v2/admin/stats', withSession(rest))).body;
  t.match(shown.text, new RegExp(`id="accounts">${stats.tenants.accounts}<`), 'the accounts counted');
  t.match(shown.text, new RegExp(`id="outstanding">${stats.credits.outstanding}<`), 'the credits outstanding');
  t.match(shown.text, /id="queue-depth">0</);
  t.match(shown.text, /data-src="\/api\/tern\/v2\/admin\/stats\?days=30"/, 'the chart is drawn from the stats route');
  t.match(shown.text, /<caption>\s*Recipients per day, last 30 days\s*<\/caption>/, 'and its numbers are in a table');
  t.equal((await page(h, 'GET', '/', { cookie: operator })).headers.get('location'), '/admin', "an operator opening an account's page lands here");
});

t.test('the teams list searches by name, filters, and writes names as text', async (t) => {
  const evil = await teamNamed(`Evil ${SCRIPT}`);
  await teamNamed(`Evil ${IMG}`);
  const found = await page(h, 'GET', `/admin/tenants?search=${encodeURIComponent('Evil')}`, { cookie: operator });
  t.equal(found.status, 200);
  t.match(found.text, `Evil ${SCRIPT_SHOWN}`);
  t.match(found.text, `Evil ${IMG_SHOWN}`);
  t.notMatch(found.text, SCRIPT);
  t.notMatch(found.text, '<img src=x');
  t.match(found.text, `href="/admin/tenants/${evil.id}"`);
  t.match(found.text, /2 tenants/);
  const suspendedOnly = await page(h, 'GET', '/admin/tenants?search=Evil&status=suspended', { cookie: operator });
  t.match(suspendedOnly.text, /No tenant matches these filters/);
  const teams = await page(h, 'GET', '/admin/tenants?kind=team&search=Evil', { cookie: operator });
  t.match(teams.text, /No tenant matches/);
  const bad = await page(h, 'GET', '/admin/tenants?status=asleep', { cookie: operator });
  t.equal(bad.status, 400);
  t.match(bad.text, /Status must be one of: active, suspended/);
  t.equal((await page(h, 'GET', '/admin/tenants?page=100000', { cookie: operator })).status, 400, 'paging too deep is refused');
});

t.test('a team page: its facts, users, MTA status; its name as text; an unknown team is 404', async (t) => {
  const shop = await teamNamed(`Shop ${SCRIPT}`, 120);
  const owner = await userOn(h, shop.id, 'owner');
  const shown = await page(h, 'GET', `/admin/tenants/${shop.id}`, { cookie: operator });
  t.equal(shown.status, 200);
  t.match(shown.text, `<h1>Tenant: Shop ${SCRIPT_SHOWN}</h1>`);
  t.notMatch(shown.text, SCRIPT);
  t.match(shown.text, /id="balance">120</);
  t.match(shown.text, owner, 'its owner is listed');
  t.match(shown.text, /id="mta-depth">0</);
  t.match(shown.text, /id="suspend"/, 'an active tenant may be suspended');
  t.equal((await page(h, 'GET', '/admin/tenants/99999999', { cookie: operator })).status, 404);
  t.equal((await page(h, 'GET', '/admin/tenants/abc', { cookie: operator })).status, 404);
});

t.test('an operator suspends a team with a reason: the account sees the banner with it; reactivated, it is gone', async (t) => {
  const shop = await teamNamed('Suspended shop');
  const owner = await signInOverHttp(h, await userOn(h, shop.id, 'owner'));
  const guard = await formGuardOf(h, operator, `/admin/tenants/${shop.id}`);
  const noReason = await page(h, 'POST', `/admin/tenants/${shop.id}/suspend`, { cookie: operator, form: { ...guard, reason: '  ' } });
  t.equal(noReason.status, 400);
  t.match(noReason.text, /role="alert">reason must have 1 to 500 characters/);
  t.equal((await h.rt.store.teams.get(shop.id))?.status, 'active', 'nothing changed');

  const reason = `Spam complaints ${IMG}`;
  const suspended = await page(h, 'POST', `/admin/tenants/${shop.id}/suspend`, { cookie: operator, form: { ...guard, reason } });
  t.equal(suspended.status, 303);
  t.equal(suspended.headers.get('location'), `/admin/tenants/${shop.id}?done=suspended`);
  const team = await h.rt.store.teams.get(shop.id);
  t.match(team, { status: 'suspended', suspendedBy: 'platform', suspension: { reason } });
  const after = await page(h, 'GET', `/admin/tenants/${shop.id}?done=suspended`, { cookie: operator });
  t.match(after.text, /The tenant is suspended/);
  t.match(after.text, /id="reactivate"/);
  t.match(after.text, `Spam complaints ${IMG_SHOWN}`);
  const banner = await page(h, 'GET', '/', { cookie: owner });
  t.match(banner.text, `<strong>This team is suspended:</strong> Spam complaints ${IMG_SHOWN}`, "the account's pages show why");

  const reactivated = await page(h, 'POST', `/admin/tenants/${shop.id}/reactivate`, { cookie: operator, form: { ...guard, reason: 'Cleaned its lists' } });
  t.equal(reactivated.status, 303);
  t.equal((await h.rt.store.teams.get(shop.id))?.status, 'active');
  t.notMatch((await page(h, 'GET', '/', { cookie: owner })).text, /This team is suspended/);
  const audit = await auditOf(shop.id);
  t.same(
    audit.map((e) => [e.action, e.reason]),
    [
      ['tenant.reactivate', 'Cleaned its lists'],
      ['tenant.suspend', reason],
    ],
  );
});

t.test('the low-credit email without a system sender: the team page says why, nothing is audited', async (t) => {
  const shop = await teamNamed('Low shop');
  await userOn(h, shop.id, 'owner');
  const guard = await formGuardOf(h, operator, `/admin/tenants/${shop.id}`);
  const refused = await page(h, 'POST', `/admin/tenants/${shop.id}/low-credit-email`, { cookie: operator, form: guard });
  t.equal(refused.status, 503);
  t.match(refused.text, /role="alert">Tern cannot send email yet[^<]*Choose Tern’s sender on the Platform page \(\/admin\)\./, 'the operator is told where to set it up');
  t.same(await auditOf(shop.id), []);
});

t.test('an operator grants credits through the page: the team sees them on its billing page, the audit log page shows why', async (t) => {
  const shop = await teamNamed('Granted shop', 10);
  const owner = await signInOverHttp(h, await userOn(h, shop.id, 'owner'));
  const shown = await page(h, 'GET', `/admin/credits?account_id=${shop.id}`, { cookie: operator });
  t.equal(shown.status, 200);
  t.match(shown.text, `id="grant-account" name="account_id" value="${shop.id}"`, 'the form is filled with the tenant asked for');
  const guard = await formGuardOf(h, operator, '/admin/credits');
  const reason = `Welcome ${SCRIPT}`;
  const granted = await page(h, 'POST', '/admin/credits', { cookie: operator, form: { ...guard, account_id: String(shop.id), amount: '250', reason } });
  t.equal(granted.status, 303);
  t.equal(granted.headers.get('location'), `/admin/credits?account_id=${shop.id}&done=granted`);
  const listed = await page(h, 'GET', `/admin/credits?account_id=${shop.id}&done=granted`, { cookie: operator });
  t.match(listed.text, /The credits are granted/);
  t.match(listed.text, `Welcome ${SCRIPT_SHOWN}`);
  t.notMatch(listed.text, SCRIPT);
  t.match((await page(h, 'GET', '/billing', { cookie: owner })).text, /id="balance">260</, "the tenant's billing page shows the new balance");
  const audit = await page(h, 'GET', `/admin/audit-log?target_kind=tenant&target_id=${shop.id}`, { cookie: operator });
  t.equal(audit.status, 200);
  t.match(audit.text, /credits\.grant/);
  t.match(audit.text, `Welcome ${SCRIPT_SHOWN}`);
  t.match(audit.text, operatorEmail);
  t.match(audit.text, /balance<\/span>: 10 → 260/, 'the balance before and after');
  t.match((await page(h, 'GET', '/admin/audit-log?action=credits.grant', { cookie: operator })).text, `Welcome ${SCRIPT_SHOWN}`);
  t.equal((await page(h, 'GET', '/admin/audit-log?action=delete.everything', { cookie: operator })).status, 400);
  t.equal((await page(h, 'GET', '/admin/audit-log?target_id=a%20b', { cookie: operator })).status, 400);

  const removed = await page(h, 'POST', '/admin/credits', { cookie: operator, form: { ...guard, account_id: String(shop.id), amount: '-60', reason: 'Refund' } });
  t.equal(removed.status, 303);
  t.match(removed.headers.get('location'), /done=removed/);
  const balance = async () => (await h.request<{ balance: number }>('GET', `/api/tern/v2/admin/tenants/${shop.id}`, withSession(rest))).body.balance;
  t.equal(await balance(), 200);
});

t.test('a refused grant or payment is shown on the page with what was typed, and changes nothing', async (t) => {
  const shop = await teamNamed('Refused shop', 20);
  const guard = await formGuardOf(h, operator, '/admin/credits');
  const cases: Array<[Record<string, string>, RegExp, number]> = [
    [{ account_id: String(shop.id), amount: '5', reason: ' ' }, /reason must have 1 to 500 characters/, 400],
    [{ account_id: 'abc', amount: '5', reason: 'Typo' }, /The account must be given by its id/, 400],
    [{ account_id: String(shop.id), amount: '-21', reason: 'Too much' }, /role="alert"/, 400],
    [{ account_id: String(shop.id), amount: 'ten', reason: 'Words' }, /amount must be a whole number/, 400],
    [{ account_id: '99999999', amount: '5', reason: 'Nobody' }, /Account not found/, 404],
  ];
  for (const [form, why, status] of cases) {
    const refused = await page(h, 'POST', '/admin/credits', { cookie: operator, form: { ...guard, ...form } });
    t.equal(refused.status, status, JSON.stringify(form));
    t.match(refused.text, why);
    t.match(refused.text, `value="${form.reason}"`, 'the reason typed is kept');
  }
  const noCurrency = await page(h, 'POST', '/admin/credits/payment', {
    cookie: operator,
    form: { ...guard, account_id: String(shop.id), amount: '1000', paid_amount: '12.00', currency: 'euros', payment_reference: 'wire-1', reason: 'Paid' },
  });
  t.equal(noCurrency.status, 400);
  t.match(noCurrency.text, /currency must be an ISO 4217 code/);
  const detail = await h.request<{ balance: number }>('GET', `/api/tern/v2/admin/tenants/${shop.id}`, withSession(rest));
  t.equal(detail.body.balance, 20, 'the balance is as it was');
  t.same(await auditOf(shop.id), [], 'nothing audited');
  t.equal((await page(h, 'GET', '/admin/credits?type=gift', { cookie: operator })).status, 400, 'a type that is none is refused');
});

t.test("an operator records a payment received outside Tern: a purchase, and its invoice on the team's billing page", async (t) => {
  const shop = await teamNamed('Paying shop');
  const owner = await signInOverHttp(h, await userOn(h, shop.id, 'owner'));
  const guard = await formGuardOf(h, operator, '/admin/credits');
  const form = {
    ...guard,
    account_id: String(shop.id),
    amount: '10000',
    paid_amount: '12.00',
    currency: 'EUR',
    payment_reference: `wire-${process.pid}`,
    reason: 'Bank transfer',
  };
  const recorded = await page(h, 'POST', '/admin/credits/payment', { cookie: operator, form });
  t.equal(recorded.status, 303);
  t.match(recorded.headers.get('location'), /done=payment_recorded/);
  const billing = await page(h, 'GET', '/billing', { cookie: owner });
  t.match(billing.text, /id="balance">10000</);
  t.match(billing.text, /WEB-\d{6}/, 'its invoice is listed');
  const again = await page(h, 'POST', '/admin/credits/payment', { cookie: operator, form });
  t.equal(again.status, 400);
  t.match(again.text, /This payment is already recorded/);
  t.match((await page(h, 'GET', `/admin/credits?account_id=${shop.id}&type=purchase`, { cookie: operator })).text, `wire-${process.pid}`);
});

/** A team with a domain, a message whose subject holds markup, and a suppressed address: the lists' rows. */
async function teamWithMail(tag: string): Promise<{ id: number; logId: number }> {
  const shop = await teamNamed(`Mail ${tag} ${SCRIPT}`);
  const domain = await storedDomain(h, shop.id, `${tag}.example`);
  const id = `${tag}-${process.pid}`;
  const recipient = { email: `to.${tag}@dest.test`, name: '', kind: 'to' as const, domain: 'dest.test', state: 'queued' as const, reason: '' };
  const queued = await recordMessage(h.rt.store, {
    ...newMessage({ id, teamId: shop.id, domainId: domain.id, recipients: [recipient], cost: 0 }),
    subject: `Hello ${IMG}`,
  });
  if (queued === 'insufficient_balance') throw new Error('not recorded');
  await h.rt.store.suppressions.add(shop.id, { email: `gone.${tag}@dest.test`, status: 'bounced', reason: `550 ${SCRIPT}`, messageId: null });
  const listed = await h.request<Array<{ log_id: number }>>('GET', `/api/tern/v2/admin/logs?tenant_id=${shop.id}`, withSession(rest));
  return { id: shop.id, logId: listed.body[0]!.log_id };
}

t.test('the domains, logs and suppressions of every team: filtered, one message with its recipients, markup as text', async (t) => {
  const { id, logId } = await teamWithMail('lists');
  const domains = await page(h, 'GET', `/admin/domains?tenant_id=${id}`, { cookie: operator });
  t.equal(domains.status, 200);
  t.match(domains.text, 'lists.example');
  t.match(domains.text, `Mail lists ${SCRIPT_SHOWN}`);
  t.match((await page(h, 'GET', '/admin/domains?search=lists&status=draft', { cookie: operator })).text, /No domain matches/);
  t.equal((await page(h, 'GET', '/admin/domains?status=gone', { cookie: operator })).status, 400);

  const logs = await page(h, 'GET', `/admin/logs?tenant_id=${id}`, { cookie: operator });
  t.equal(logs.status, 200);
  t.match(logs.text, `href="/admin/logs/${logId}">Hello ${IMG_SHOWN}</a>`);
  t.notMatch(logs.text, '<img src=x');
  t.match((await page(h, 'GET', `/admin/logs?tenant_id=${id}&status=bounced`, { cookie: operator })).text, /No message matches/);
  t.equal((await page(h, 'GET', '/admin/logs?from=yesterday', { cookie: operator })).status, 400, 'a date that is none is refused');
  const one = await page(h, 'GET', `/admin/logs/${logId}`, { cookie: operator });
  t.equal(one.status, 200);
  t.match(one.text, `<h1>Message: Hello ${IMG_SHOWN}</h1>`);
  t.match(one.text, 'to.lists@dest.test');
  t.equal((await page(h, 'GET', '/admin/logs/99999999', { cookie: operator })).status, 404);

  const suppressed = await page(h, 'GET', `/admin/suppressions?tenant_id=${id}`, { cookie: operator });
  t.equal(suppressed.status, 200);
  t.match(suppressed.text, 'gone.lists@dest.test');
  t.match(suppressed.text, `550 ${SCRIPT_SHOWN}`);
  t.notMatch(suppressed.text, SCRIPT);
  t.match((await page(h, 'GET', `/admin/suppressions?tenant_id=${id}&status=complained`, { cookie: operator })).text, /No suppressed address matches/);
  t.equal((await page(h, 'GET', '/admin/suppressions?status=angry', { cookie: operator })).status, 400);
});

t.test('invitations: a refused invitation is shown with what was typed and sends nothing; an unknown one cannot be revoked', async (t) => {
  const shown = await page(h, 'GET', '/admin/invitations', { cookie: operator });
  t.equal(shown.status, 200);
  t.match(shown.text, /No invitation yet/);
  const guard = await formGuardOf(h, operator, '/admin/invitations');
  const badEmail = await page(h, 'POST', '/admin/invitations', {
    cookie: operator,
    form: { ...guard, email: 'not an email', account_name: `New ${SCRIPT}`, credits: '10' },
  });
  t.equal(badEmail.status, 400);
  t.match(badEmail.text, /role="alert"/);
  t.match(badEmail.text, `value="New ${SCRIPT_SHOWN}"`, 'the name typed is kept, as text');
  const taken = await page(h, 'POST', '/admin/invitations', { cookie: operator, form: { ...guard, email: operatorEmail, account_name: 'Taken', credits: '0' } });
  t.equal(taken.status, 400, 'an email a user already has is refused');
  t.match(taken.text, /role="alert"/);
  const listed = await h.request<unknown[]>('GET', '/api/tern/v2/admin/invitations', withSession(rest));
  t.same(listed.body, [], 'no invitation was made');
  const revoke = await page(h, 'POST', '/admin/invitations/99999/revoke', { cookie: operator, form: guard });
  t.equal(revoke.status, 404);
});

async function signInInBrowser(email: string): Promise<Page> {
  return signedInTab(browser, h.url, email, '/admin');
}

async function checkAccessible(t: Test, p: Page, path: string): Promise<void> {
  await p.setViewportSize({ width: 1280, height: 900 });
  await p.goto(`${h.url}${path}`);
  t.same(await seriousViolations(p), [], `${path}: no serious accessibility violation`);
  t.equal(await p.locator('img[src="x"]').count(), 0, `${path}: no injected image`);
  await p.setViewportSize({ width: 360, height: 740 });
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, `${path}: nothing overflows at 360 px`);
  t.same(await seriousViolations(p), [], `${path}: nor at 360 px`);
}

t.test('in Chromium every admin page passes axe at desktop size and at 360 px', async (t) => {
  const shop = await teamNamed(`Browser ${IMG}`, 10);
  const mail = await teamWithMail('browser');
  const p = await signInInBrowser(operatorEmail);
  await p.waitForSelector('figure.chart canvas', { timeout: 20_000 });
  t.pass('the platform chart is drawn from the REST route');
  for (const path of [
    '/admin',
    '/admin/tenants?search=Browser',
    `/admin/tenants/${shop.id}`,
    '/admin/domains',
    '/admin/logs',
    `/admin/logs/${mail.logId}`,
    '/admin/credits',
    '/admin/invitations',
    '/admin/suppressions',
    '/admin/audit-log',
  ])
    await checkAccessible(t, p, path);
  await p.close();
});
