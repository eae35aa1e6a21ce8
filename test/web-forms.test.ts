// The dashboard's forms as a person meets them (issue 22, items 10 and 13): a page write is held to the same
// rules as the REST route doing the same (a team name /v2/teams refuses is refused by the team page too); every
// form answers a success with a redirect to a page (a reload makes nothing twice) while a secret made by it is
// still shown once; a refused form keeps what was typed and says every problem at once, in the words of its
// labels, never a field's internal name. Over real HTTP and in Chromium.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { userOn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';

let h: Harness;
let browser: TestBrowser;

t.before(async () => {
  h = await startHarness();
  browser = await startBrowser();
});
t.teardown(async () => {
  await browser?.close();
  await h?.close();
});

const teamsOf = async (key: string) => (await h.request('GET', '/v2/teams', { key })).body.data.teams as Array<{ id: number; name: string }>;

t.test('a team name of 150 characters is refused by the team page as /v2/teams refuses it, on creating and on renaming, and nothing changes', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  const guard = await formGuardOf(h, cookie, '/team');
  const long = 'n'.repeat(150);
  t.equal((await h.request('POST', '/v2/teams', { key: account.key, body: { name: long } })).status, 422, '/v2/teams refuses it');

  const created = await page(h, 'POST', '/team/teams', { cookie, form: { ...guard, name: long } });
  t.equal(created.status, 400, created.text.slice(0, 300));
  t.match(created.text, /role="alert"[^>]*>[^<]*Name of the team must have 2 to 100 characters/);
  t.same(await teamsOf(account.key), [], 'no team created');

  const made = await h.request('POST', '/v2/teams', { key: account.key, body: { name: 'Shop' } });
  const renamed = await page(h, 'POST', `/team/teams/${made.body.data.id}/rename`, { cookie, form: { ...guard, name: long } });
  t.equal(renamed.status, 400, renamed.text.slice(0, 300));
  t.match(renamed.text, /must have 2 to 100 characters/);
  t.equal((await teamsOf(account.key))[0]?.name, 'Shop', 'the name is unchanged');
});

t.test('a suppression filter refused is said in the words of the Reason menu, not the stored statuses', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  const refused = await page(h, 'GET', '/suppressions?status=nope', { cookie });
  t.equal(refused.status, 400);
  t.match(refused.text, /Reason must be one of: hard bounce, complaint, added by hand\./);
  t.notMatch(refused.text, /bounced, complained, suppressed/);
});

t.test('in Chromium: reloading the page after creating a key makes no second key, and the key is shown once', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const p = await signedInTab(browser, h.url, email, '/keys');
  await p.fill('#sending-name', 'Web shop');
  await Promise.all([p.waitForURL((u) => u.pathname === '/keys'), p.click('#create-sending-key')]);
  await p.waitForSelector('#new-key');
  t.match(await p.textContent('#new-key'), /^tern_/, 'the new value is shown');
  await p.reload();
  await p.waitForLoadState('load');
  const keys = await h.rt.store.keys.listSending(account.id, { page: 1, perPage: 100 });
  t.equal(keys.total, 1, 'one key, however often the page is reloaded');
  t.equal(await p.locator('#new-key').count(), 0, 'the value is not shown again');
  t.notMatch(p.url(), /tern_/, 'the value was never in the URL');
  await p.close();
});

t.test('in Chromium: the webhook form keeps the URL, the name and the ticks after a refusal', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const p = await signedInTab(browser, h.url, email, '/webhooks');
  await p.fill('#new-title', 'Bounces');
  await p.fill('#new-url', 'https://hooks.example.com/tern');
  await p.uncheck('#new-event-bounced');
  await p.uncheck('#new-event-complaint');
  await p.check('#new-include-message');
  await Promise.all([p.waitForURL((u) => u.pathname === '/webhooks'), p.click('#create-webhook')]);
  await p.waitForSelector('[role="alert"]');
  t.equal(await p.inputValue('#new-url'), 'https://hooks.example.com/tern', 'the URL typed is still there');
  t.equal(await p.inputValue('#new-title'), 'Bounces');
  t.equal(await p.isChecked('#new-event-bounced'), false, 'the events as they were left');
  t.equal(await p.isChecked('#new-include-message'), true);
  t.equal((await h.rt.store.webhooks.list(account.id, { page: 1, perPage: 10 })).total, 0, 'nothing created');
  await p.close();
});

t.test('in Chromium: a webhook form with three problems says all three, each by the label of its field', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const p = await signedInTab(browser, h.url, email, '/webhooks');
  // As an older browser (or a forged post) sends it: the page's own limits are not what stops it.
  await p.evaluate(() => {
    for (const f of Array.from(document.forms)) f.noValidate = true;
    document.querySelector('#new-title')?.removeAttribute('maxlength');
    document.querySelector('#new-url')?.setAttribute('type', 'text');
  });
  await p.fill('#new-title', 't'.repeat(120));
  await p.fill('#new-url', 'ftp://hooks.example.com/x');
  await p.uncheck('#new-event-bounced');
  await p.uncheck('#new-event-complaint');
  await Promise.all([p.waitForURL((u) => u.pathname === '/webhooks'), p.click('#create-webhook')]);
  const alert = (await p.locator('main [role="alert"]').allTextContents()).join(' ');
  t.match(alert, /Name must have at most 100 characters/, 'the name');
  t.match(alert, /Events to send must name at least one event/, 'the events');
  t.match(alert, /URL/, 'and the URL');
  t.notMatch(alert, /\btitle\b|\bevents\b|\burl\b/, 'never the fields’ internal names');
  await p.close();
});

t.test('in Chromium: the login security form says every refused setting at once by its label, never its internal name', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const p = await signedInTab(browser, h.url, email, '/security');
  await p.evaluate(() => {
    for (const f of Array.from(document.forms)) f.noValidate = true;
  });
  await p.fill('#failures_per_email', '2');
  await p.fill('#session_idle_minutes', '0');
  await Promise.all([p.waitForURL((u) => u.pathname.startsWith('/security')), p.click('#save-login-settings')]);
  const alert = (await p.locator('main [role="alert"]').allTextContents()).join(' ');
  t.match(alert, /Failed sign-ins per email before a lockout must be an integer from 3 to 50/);
  t.match(alert, /A session unused this long ends \(minutes\) must be an integer from/);
  t.notMatch(alert, /failuresPerEmail|sessionIdleMinutes|failures_per_email/, 'no internal name');
  t.equal(await p.inputValue('#failures_per_email'), '2', 'what was typed is kept');
  await p.close();
});
