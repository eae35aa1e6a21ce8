// The billing page (issue 13) over real HTTP and in Chromium: the owner's balance and ledger (filters), how
// credits are bought on an offline platform, credits moved to a child team and back, the invoices as PDFs
// (read with pdftotext), the billing info form; an admin or viewer of the account gets 403, a forged post
// changes nothing, another account's invoice is 404, names holding markup render as text.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { INVOICING } from './helpers/billing-setup.js';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';
const SCRIPT_SHOWN = '&lt;script&gt;alert(1)&lt;/script&gt;';
const IMG_SHOWN = '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;';
const BILLING = '/api/tern/v2/api/account/billing';
const INFO = '/api/tern/v2/api/account/billing-info';

let h: Harness;
let browser: TestBrowser;
let operator: SignedIn;
let references = 0;

t.before(async () => {
  h = await startHarness({ overrides: INVOICING });
  browser = await startBrowser();
  operator = await logIn(h, await operatorOn(h));
});
t.teardown(async () => {
  await browser?.close();
  await h?.close();
});

interface Owned {
  id: number;
  key: string;
  email: string;
  cookie: string;
  rest: SignedIn;
}

async function ownedAccount(credits = 0): Promise<Owned> {
  const account = await h.account({ credits });
  const email = await userOn(h, account.id, 'owner');
  return { ...account, email, cookie: await signInOverHttp(h, email), rest: await logIn(h, email) };
}

async function childTeam(key: string, name: string): Promise<number> {
  const made = await h.request<{ data: { id: number } }>('POST', '/v2/teams', { key, body: { name } });
  if (made.status >= 300) throw new Error(made.text);
  return made.body.data.id;
}

/** A payment received outside Tern, recorded by the operator over REST: its invoice. */
async function pay(accountId: number, credits: number): Promise<{ id: number; number: string }> {
  const body = {
    account_id: accountId,
    amount: credits,
    reason: 'Bank transfer',
    paid_amount_minor: 1200,
    currency: 'EUR',
    payment_reference: `web-${++references}-${process.pid}`,
  };
  const res = await h.request<{ invoice: { id: number; number: string } }>('POST', '/api/tern/v2/admin/credits', { ...withSession(operator), body });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.invoice;
}

const balanceOf = async (o: Owned) => (await h.request<{ balance: number; teams: Array<{ id: number; balance: number }> }>('GET', BILLING, withSession(o.rest))).body;

t.test('the owner sees the balance, the ledger with its filters, and that the platform grants credits', async (t) => {
  const o = await ownedAccount(300);
  const shown = await page(h, 'GET', '/billing', { cookie: o.cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /<h1>Billing<\/h1>/);
  t.match(shown.text, /id="balance">300</);
  t.match(shown.text, /Credits are granted by the platform/);
  t.match(shown.text, /test grant|grant/);
  t.match(shown.text, /No invoice yet/);
  t.match((await page(h, 'GET', '/billing?type=send', { cookie: o.cookie })).text, /No transaction matches these filters/);
  const bad = await page(h, 'GET', '/billing?type=gift', { cookie: o.cookie });
  t.equal(bad.status, 400);
  t.match(bad.text, /Type must be one of/);
  t.equal((await page(h, 'GET', '/billing?from=soon', { cookie: o.cookie })).status, 400, 'a date that is none is refused');
});

t.test('an admin or a viewer of the account gets 403 on billing, and a forged post changes nothing', async (t) => {
  const o = await ownedAccount(100);
  const team = await childTeam(o.key, 'Side team');
  for (const role of ['admin', 'viewer'] as const) {
    const cookie = await signInOverHttp(h, await userOn(h, o.id, role));
    t.equal((await page(h, 'GET', '/billing', { cookie })).status, 403, `${role}: the page`);
    t.notMatch((await page(h, 'GET', '/', { cookie })).text, /href="\/billing"/, `${role}: no Billing section`);
    const guard = await formGuardOf(h, cookie);
    const forged = await page(h, 'POST', '/billing/transfer', { cookie, form: { ...guard, team_id: String(team), amount: '50' } });
    t.equal(forged.status, 403, `${role}: a transfer`);
    const info = await page(h, 'POST', '/billing/info', { cookie, form: { ...guard, name: 'Mine', address_lines: 'x', city: 'y', country: 'FR' } });
    t.equal(info.status, 403, `${role}: billing info`);
  }
  t.equal((await balanceOf(o)).balance, 100, 'no credit moved');
  t.same((await h.request('GET', INFO, withSession(o.rest))).body, null, 'no billing info saved');
});

t.test('the owner moves credits to a child team and back; bad amounts are refused and change nothing', async (t) => {
  const o = await ownedAccount(100);
  const team = await childTeam(o.key, `Shop ${SCRIPT}`);
  const shown = await page(h, 'GET', '/billing', { cookie: o.cookie });
  t.match(shown.text, `<option value="${team}" >Shop ${SCRIPT_SHOWN}</option>`, "the team's name as text");
  t.notMatch(shown.text, SCRIPT);
  const guard = await formGuardOf(h, o.cookie, '/billing');
  const moved = await page(h, 'POST', '/billing/transfer', { cookie: o.cookie, form: { ...guard, team_id: String(team), amount: '40' } });
  t.equal(moved.status, 303);
  t.equal(moved.headers.get('location'), '/billing?done=transferred');
  t.match(await balanceOf(o), { balance: 60, teams: [{ id: team, balance: 40 }] });
  t.match((await page(h, 'GET', '/billing?done=transferred', { cookie: o.cookie })).text, /The credits are moved/);

  for (const amount of ['500', 'lots', '0']) {
    const refused = await page(h, 'POST', '/billing/transfer', { cookie: o.cookie, form: { ...guard, team_id: String(team), amount } });
    t.equal(refused.status, 400, `${amount}: refused`);
    t.match(refused.text, /role="alert"/, `${amount}: with why`);
  }
  const other = await ownedAccount();
  const elsewhere = await childTeam(other.key, 'Not yours');
  const stranger = await page(h, 'POST', '/billing/transfer', { cookie: o.cookie, form: { ...guard, team_id: String(elsewhere), amount: '10' } });
  t.equal(stranger.status, 404, "another account's team is not found");
  const back = await page(h, 'POST', '/billing/transfer', { cookie: o.cookie, form: { ...guard, team_id: String(team), amount: '-15' } });
  t.equal(back.status, 303);
  t.match(await balanceOf(o), { balance: 75, teams: [{ id: team, balance: 25 }] });
});

t.test('the owner saves billing info through the form; a bad VAT number is shown and changes nothing', async (t) => {
  const o = await ownedAccount();
  const guard = await formGuardOf(h, o.cookie, '/billing');
  const info = {
    name: `Kunde ${IMG}`,
    address_lines: 'Hauptstraße 5\nHinterhaus',
    postal_code: '10115',
    city: 'Berlin',
    region: '',
    country: 'de',
    tax_id: 'DE136695976',
    invoice_email: '',
  };
  const saved = await page(h, 'POST', '/billing/info', { cookie: o.cookie, form: { ...guard, ...info } });
  t.equal(saved.status, 303, saved.text);
  t.match((await h.request('GET', INFO, withSession(o.rest))).body, {
    name: `Kunde ${IMG}`,
    address_lines: ['Hauptstraße 5', 'Hinterhaus'],
    country: 'DE',
    tax_id: 'DE136695976',
    invoice_email: null,
  });
  const shown = await page(h, 'GET', '/billing?done=info_saved', { cookie: o.cookie });
  t.match(shown.text, /Your billing info is saved/);
  t.match(shown.text, `value="Kunde ${IMG_SHOWN}"`, 'the name as text in its field');
  const bad = await page(h, 'POST', '/billing/info', { cookie: o.cookie, form: { ...guard, ...info, city: 'Hamburg', tax_id: 'DE12345' } });
  t.equal(bad.status, 400);
  t.match(bad.text, /role="alert">[^<]*VAT number/);
  t.match(bad.text, 'value="Hamburg"', 'what was typed is kept');
  t.match((await h.request('GET', INFO, withSession(o.rest))).body, { city: 'Berlin', tax_id: 'DE136695976' }, 'nothing changed');

  const several = await page(h, 'POST', '/billing/info', { cookie: o.cookie, form: { ...guard, ...info, address_lines: '', city: ' ', invoice_email: 'nope' } });
  t.equal(several.status, 400);
  t.match(several.text, /Address must be 1 to 3 lines/, 'every problem at once, by its label: the address');
  t.match(several.text, /City must have 1 to 100 characters/, 'the city');
  t.match(several.text, /Invoices mailed to \(empty: the owner\) must be an email address/, 'the invoice email');
  t.notMatch(several.text, /address_lines must|invoice_email must/, 'never a field’s internal name');
});

t.test("the owner downloads an invoice's PDF; another account's invoice is 404", async (t: Test) => {
  const o = await ownedAccount();
  const invoice = await pay(o.id, 10_000);
  const shown = await page(h, 'GET', '/billing', { cookie: o.cookie });
  t.match(shown.text, `href="/billing/invoices/${invoice.id}"`);
  t.match(shown.text, invoice.number);
  t.match(shown.text, /12\.00 EUR/);
  const res = await fetch(`${h.url}/billing/invoices/${invoice.id}`, { headers: { cookie: o.cookie } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/pdf');
  t.equal(res.headers.get('content-disposition'), `attachment; filename="${invoice.number}.pdf"`);
  const text = spawnSync('pdftotext', ['-layout', '-', '-'], { input: Buffer.from(await res.arrayBuffer()) });
  t.equal(text.status, 0);
  t.match(String(text.stdout), invoice.number, 'the PDF is the invoice');
  const other = await ownedAccount();
  t.equal((await page(h, 'GET', `/billing/invoices/${invoice.id}`, { cookie: other.cookie })).status, 404);
  t.equal((await page(h, 'GET', '/billing/invoices/abc', { cookie: o.cookie })).status, 404);
});

t.test('in Chromium the billing page passes axe at desktop size and at 360 px', async (t) => {
  const o = await ownedAccount(50);
  await childTeam(o.key, `Browser ${IMG}`);
  await pay(o.id, 1000);
  const p = await signedInTab(browser, h.url, o.email, '/billing');
  t.equal(await p.textContent('h1'), 'Billing');
  t.same(await seriousViolations(p), [], 'no serious accessibility violation');
  t.equal(await p.locator('img[src="x"]').count(), 0, 'no injected image');
  await p.setViewportSize({ width: 360, height: 740 });
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, 'nothing overflows at 360 px');
  t.same(await seriousViolations(p), [], 'nor at 360 px');
  await p.close();
});
