// The statistics page (issue 13) over real HTTP: the chart's table, the period's totals, the per-domain table
// and the months equal what /api/tern/v2/stats/* and /api/domains/sending-stats answer for the same period; the
// interval, period and domain selectors; bad choices answered 400, another account's domain 404; a viewer reads
// it with no form that writes; and in Chromium no serious accessibility violation at desktop size and 360 px.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { newMessage, recordMessage } from './helpers/new-message.js';
import { storedDomain } from './helpers/sending-setup.js';
import type { NewRecipient } from '../shared/store/message-log.js';

let h: Harness;
let browser: TestBrowser;
let accountId: number;
let ownerEmail: string;
let cookie: string;
let rest: SignedIn;
let one: { id: string; name: string };
let two: { id: string; name: string };

const rcpt = (email: string, state: NewRecipient['state']): NewRecipient => ({
  email,
  name: '',
  kind: 'to',
  domain: 'dest.test',
  state,
  reason: state === 'queued' ? '' : 'not sent',
});
let counter = 0;

/** A message of the account recorded now through the store's write path, its recipients in the given states. */
async function record(domainId: string, states: Array<NewRecipient['state']>): Promise<void> {
  const id = `webstat${++counter}x${process.pid}`;
  const made = await recordMessage(h.rt.store, newMessage({ id, teamId: accountId, domainId, recipients: states.map((s, i) => rcpt(`r${i}@dest.test`, s)) }));
  if (made === 'insufficient_balance') throw new Error('no balance');
}

t.before(async () => {
  h = await startHarness();
  browser = await startBrowser();
  accountId = (await h.account({ credits: 1000 })).id;
  one = await storedDomain(h, accountId, `one-${process.pid}.example.com`);
  two = await storedDomain(h, accountId, `two-${process.pid}.example.com`);
  // A message's status is its recipients' together: one state each keeps the expected figures plain.
  for (const state of ['queued', 'suppressed', 'failed'] as const) await record(one.id, [state]);
  for (const state of ['suppressed', 'suppressed'] as const) await record(two.id, [state]);
  ownerEmail = await userOn(h, accountId, 'owner');
  cookie = await signInOverHttp(h, ownerEmail);
  rest = await logIn(h, ownerEmail);
});
t.teardown(async () => {
  await browser?.close();
  await h?.close();
});

const FIELDS = ['accepted', 'sent', 'bounced', 'complained', 'suppressed', 'failed', 'pending'] as const;
const unescape = (s: string) => s.replace(/&amp;/g, '&');

/** The numbers of the table row headed `head` (a cell's text, rates left out). */
function rowOf(text: string, head: string): number[] {
  const at = text.indexOf(`<th scope="row">${head}</th>`);
  if (at < 0) throw new Error(`no row ${head}`);
  const row = text.slice(at, text.indexOf('</tr>', at));
  return [...row.matchAll(/<td class="number">([\d.]+)<\/td>/g)].map((m) => Number(m[1]));
}
/** The row a REST figure object makes, in the columns' order. */
const restRow = (f: Record<string, number>) => FIELDS.map((k) => f[k]);

/** The REST route the page's chart is drawn from (its data-src). */
const chartSource = (text: string): string => unescape(/data-src="([^"]+)"/.exec(text)?.[1] ?? '');

t.test('the page for an owner: totals, chart table, domains and months equal what the REST statistics answer for the same period', async (t) => {
  const shown = await page(h, 'GET', '/statistics', { cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /<h1>Statistics<\/h1>/);
  t.match(shown.text, /aria-current="page"[^>]*>Statistics|href="\/statistics" aria-current="page"/, 'the section is current');
  const src = chartSource(shown.text);
  t.match(src, /^\/api\/tern\/v2\/stats\/metrics\?interval=day&from=/, 'by day by default');
  const query = src.slice(src.indexOf('?') + 1);
  const period = new URLSearchParams(query);
  const from = period.get('from')!;
  const to = period.get('to')!;
  t.equal(Date.parse(to) - Date.parse(from), 30 * 86_400_000, 'the last 30 days by default');

  const metrics = await h.request('GET', src, withSession(rest));
  t.equal(metrics.status, 200);
  for (const p of metrics.body.points as Array<Record<string, number> & { start: string }>) {
    t.same(rowOf(shown.text, p.start.slice(0, 10)).slice(0, 4), [p.sent, p.bounced, p.complained, p.suppressed], `the chart's row of ${p.start.slice(0, 10)}`);
  }
  const periodQuery = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
  const totals = await h.request('GET', `/api/tern/v2/stats/dashboard?${periodQuery}`, withSession(rest));
  t.same(rowOf(shown.text, 'Last 30 days'), restRow(totals.body), 'the totals');
  t.match(totals.body, { accepted: 5, suppressed: 3, failed: 1, pending: 1 }, 'the messages recorded are counted');

  const byDomain = await h.request('GET', `/api/tern/v2/api/domains/sending-stats?${periodQuery}`, withSession(rest));
  for (const d of byDomain.body.domains as Array<Record<string, number> & { domain_id: string; domain_name: string }>) {
    t.same(rowOf(shown.text, `<a href="/domains/${d.domain_id}">${d.domain_name}</a>`), restRow(d), `the row of ${d.domain_name}`);
  }
  t.equal(byDomain.body.domains.length, 2);

  const monthly = await h.request('GET', '/api/tern/v2/stats/monthly', withSession(rest));
  t.equal(monthly.body.months.length, 12);
  for (const m of monthly.body.months as Array<Record<string, number> & { month: string }>) t.same(rowOf(shown.text, m.month), restRow(m), `the month ${m.month}`);
});

t.test('by hour for one domain: the selectors keep the choice, the chart and totals are that domain’s', async (t) => {
  const shown = await page(h, 'GET', `/statistics?interval=hour&days=3&domain=${one.id}`, { cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /<option value="hour" selected>By hour<\/option>/);
  t.match(shown.text, new RegExp(`<option value="${one.id}" selected>${one.name}</option>`));
  t.match(shown.text, /<optgroup label="By hour">[\s\S]*<option value="3" selected>Last 3 days<\/option>/);
  const src = chartSource(shown.text);
  t.match(src, new RegExp(`interval=hour&.*domain=${one.id}`));
  const metrics = await h.request('GET', src, withSession(rest));
  t.equal(metrics.status, 200);
  t.equal(metrics.body.points.length, 3 * 24 + 1, 'every hour the period touches');
  const total = (metrics.body.points as Array<{ accepted: number }>).reduce((n, p) => n + p.accepted, 0);
  t.equal(total, 3, "the domain's messages by hour");
  t.same(rowOf(shown.text, 'Last 3 days'), [3, 0, 0, 0, 1, 1, 1], "the totals are the domain's alone");
  const last = metrics.body.points.at(-1) as { start: string; accepted: number };
  t.match(shown.text, `<th scope="row">${last.start.slice(0, 13).replace('T', ' ')}:00</th>`, 'hour rows are labelled by hour');
});

t.test('a bad interval or period is a 400 saying what is allowed; another account’s domain is 404', async (t) => {
  const week = await page(h, 'GET', '/statistics?interval=week', { cookie });
  t.equal(week.status, 400);
  t.match(week.text, /The interval must be “hour” or “day”/);
  const long = await page(h, 'GET', '/statistics?interval=hour&days=30', { cookie });
  t.equal(long.status, 400);
  t.match(long.text, /last 24 hours, last 3 days, last 7 days by hour/);
  const other = await h.account();
  const theirs = await storedDomain(h, other.id, `theirs-${process.pid}.example.com`);
  const foreign = await page(h, 'GET', `/statistics?domain=${theirs.id}`, { cookie });
  t.equal(foreign.status, 404);
  t.notMatch(foreign.text, theirs.name);
});

t.test('a viewer reads the statistics and is offered no form that writes', async (t) => {
  const viewerCookie = await signInOverHttp(h, await userOn(h, accountId, 'viewer'));
  const shown = await page(h, 'GET', '/statistics', { cookie: viewerCookie });
  t.equal(shown.status, 200);
  const main = shown.text.slice(shown.text.indexOf('<main'));
  t.notMatch(main, /method="post"/i, 'no posting form on the page');
  t.match(main, /Last 30 days/);
});

t.test('in Chromium: the chart is drawn, no serious accessibility violation at desktop size and at 360 px', async (t) => {
  const p = await signedInTab(browser, h.url, ownerEmail, '/statistics');
  await p.selectOption('#interval', 'hour');
  await p.selectOption('#days', '1');
  await Promise.all([p.waitForURL((u) => u.searchParams.get('interval') === 'hour'), p.click('#show-statistics')]);
  await p.waitForSelector('figure.chart canvas', { timeout: 20_000 });
  t.equal(await p.textContent('h2'), 'Last 24 hours, all domains');
  t.same(await seriousViolations(p), []);
  await p.setViewportSize({ width: 360, height: 740 });
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, 'nothing overflows at 360 px');
  t.same(await seriousViolations(p), [], 'nor at 360 px');
  await p.close();
});
