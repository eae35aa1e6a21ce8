// The Suppressions page (issue 13) over real HTTP and in Chromium: a recipient the MX sink refuses with 550 is
// listed after its hard bounce, searched and filtered; removed through the page (the account's daily removals
// left shown, a refusal past the limit), which the core and /v2 then see; the CSV export read row by row; a
// viewer offered no removal and its forged one refused; another account's address not removable; markup in
// a reason shown as text; no serious accessibility violation at desktop size or at 360 px.
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { settled, startMailWorld, type MailWorld } from './helpers/mail-world.js';
import { userOn } from './helpers/dashboard-session.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { DESKTOP, PHONE, screenshots } from './helpers/screenshots.js';
import type { SuppressionStatus } from '../shared/domain/suppression.js';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';
const DAILY_LIMIT = 3;

let w: MailWorld;
let browser: TestBrowser;
let ownerEmail: string;
let ownerCookie: string;
let bouncedMessage: string;

t.before(async () => {
  w = await startMailWorld({ overrides: { limits: { suppressionRemovalsPerDay: DAILY_LIMIT } } });
  w.sink.rcptReply = (address) => (address.startsWith('gone') ? { code: 550, message: '5.1.1 Recipient address rejected: User unknown' } : null);
  browser = await startBrowser();
  ownerEmail = await userOn(w.h, w.accountId, 'owner');
  ownerCookie = await signInOverHttp(w.h, ownerEmail);
  const sent = await w.h.request<{ message_id: string }>('POST', '/v2/emails', {
    key: w.sendingKey,
    body: { from: { email: 'news@example.com' }, to: [{ email: 'gone@dest.test' }], subject: 'Hello', text: 'x' },
  });
  if (sent.status !== 200) throw new Error(sent.text);
  bouncedMessage = sent.body.message_id;
  await settled(w, bouncedMessage);
  await suppress(w.teamId, [
    { email: 'manual@dest.test', status: 'suppressed', reason: `asked ${SCRIPT} ${IMG}` },
    { email: 'annoyed@dest.test', status: 'complained', reason: 'abuse, "spam" report' },
  ]);
});
t.teardown(async () => {
  await browser?.close();
  await w?.close();
});

async function suppress(teamId: number, entries: Array<{ email: string; status: SuppressionStatus; reason: string }>): Promise<void> {
  for (const e of entries) await w.h.rt.store.suppressions.add(teamId, { ...e, messageId: null });
}

const asOwner = (path: string) => page(w.h, 'GET', path, { cookie: ownerCookie });
const removalsLeft = (text: string) => /id="removals-left">(\d+) of (\d+) removals left today/.exec(text)?.slice(1, 3).map(Number);

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

t.test('a recipient refused with 550 is listed after its hard bounce, with its message, and found by search and reason', async (t) => {
  const shown = await asOwner('/suppressions');
  t.equal(shown.status, 200, shown.text.slice(0, 300));
  const row = shown.text.split('<tr>').find((r) => r.includes('<th scope="row">gone@dest.test</th>')) ?? '';
  t.match(row, /<span class="status bad">hard bounce<\/span>/);
  t.match(row, '550 5.1.1 Recipient address rejected', 'the reply that caused it');
  t.match(row, `href="/logs/${bouncedMessage}"`, 'a link to the message that bounced');
  t.same(removalsLeft(shown.text), [DAILY_LIMIT, DAILY_LIMIT], 'the daily removals left are shown');
  t.match(shown.text, /id="suppression-total">3 addresses/);
  const bySearch = await asOwner('/suppressions?search=gone');
  t.match(bySearch.text, 'gone@dest.test');
  t.notMatch(bySearch.text, 'manual@dest.test');
  const byReason = await asOwner('/suppressions?status=complained');
  t.match(byReason.text, 'annoyed@dest.test');
  t.notMatch(byReason.text, 'gone@dest.test');
  t.match(byReason.text, /<option value="complained" selected>/, 'the filter stays chosen');
  const bad = await asOwner('/suppressions?status=forgotten');
  t.equal(bad.status, 400);
  t.match(bad.text, /<p class="error" role="alert">Reason must be one of: hard bounce, complaint, added by hand.<\/p>/);
});

t.test('a reason holding markup is written as text', async (t) => {
  const shown = await asOwner('/suppressions?search=manual');
  t.match(shown.text, '&lt;script&gt;alert(1)&lt;/script&gt;');
  t.match(shown.text, '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
  t.notMatch(shown.text, SCRIPT);
  t.notMatch(shown.text, '<img src=x');
});

t.test('the Export CSV link downloads the filtered list, read row by row', async (t) => {
  const shown = await asOwner('/suppressions?status=bounced');
  const href = /<a class="button" id="export-csv" href="([^"]+)" download>/.exec(shown.text)?.[1]?.replaceAll('&amp;', '&');
  t.equal(href, '/suppressions/export?status=bounced', 'the link carries the filter');
  const res = await fetch(`${w.h.url}${href!}`, { headers: { cookie: ownerCookie } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="suppressions-team-\d+-\d{4}-\d{2}-\d{2}\.csv"$/);
  const [header, ...rows] = csvRows(await res.text());
  t.same(header, ['email', 'status', 'reason', 'message_id', 'created_at']);
  t.equal(rows.length, 1, 'the bounced address only');
  t.match(rows[0], ['gone@dest.test', 'bounced', /550 5\.1\.1/, bouncedMessage, /^\d{4}-\d{2}-\d{2}T/]);
  const all = csvRows(await (await fetch(`${w.h.url}/suppressions/export`, { headers: { cookie: ownerCookie } })).text());
  t.same(
    all
      .slice(1)
      .map((r) => r[0])
      .sort(),
    ['annoyed@dest.test', 'gone@dest.test', 'manual@dest.test'],
    'every address',
  );
  t.equal(all.find((r) => r[0] === 'annoyed@dest.test')?.[2], 'abuse, "spam" report', 'a quoted field read back whole');
  const bad = await page(w.h, 'GET', '/suppressions/export?status=forgotten', { cookie: ownerCookie });
  t.equal(bad.status, 400);
});

t.test('a viewer sees no removal, and its forged removal is refused 403 and removes nothing', async (t) => {
  const cookie = await signInOverHttp(w.h, await userOn(w.h, w.accountId, 'viewer'));
  const shown = await page(w.h, 'GET', '/suppressions', { cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, 'annoyed@dest.test', 'the viewer reads the list');
  t.notMatch(shown.text, 'action="/suppressions/remove"', 'no remove button');
  t.notMatch(shown.text, 'removals left today');
  t.match(shown.text, 'id="export-csv"', 'the export reads: it is there');
  const guard = await formGuardOf(w.h, cookie, '/suppressions');
  const forged = await page(w.h, 'POST', '/suppressions/remove', { cookie, form: { ...guard, email: 'annoyed@dest.test' }, headers: { origin: w.h.url } });
  t.equal(forged.status, 403);
  t.equal(await w.h.rt.store.suppressions.isSuppressed(w.teamId, 'annoyed@dest.test'), true, 'still suppressed');
  t.same(removalsLeft((await asOwner('/suppressions')).text), [DAILY_LIMIT, DAILY_LIMIT], 'no removal was counted');
});

t.test('another account’s address cannot be removed from here: 404, and its entry stays', async (t) => {
  const other = await w.h.account();
  await suppress(other.id, [{ email: 'theirs@dest.test', status: 'bounced', reason: '550' }]);
  const guard = await formGuardOf(w.h, ownerCookie, '/suppressions');
  const refused = await page(w.h, 'POST', '/suppressions/remove', { cookie: ownerCookie, form: { ...guard, email: 'theirs@dest.test' }, headers: { origin: w.h.url } });
  t.equal(refused.status, 404);
  t.match(refused.text, 'theirs@dest.test is not on the suppression list');
  t.equal(await w.h.rt.store.suppressions.isSuppressed(other.id, 'theirs@dest.test'), true);
  const empty = await page(w.h, 'POST', '/suppressions/remove', { cookie: ownerCookie, form: { ...guard, email: '  ' }, headers: { origin: w.h.url } });
  t.equal(empty.status, 400);
  t.match(empty.text, 'Give the address to remove');
  t.same(removalsLeft(empty.text), [DAILY_LIMIT, DAILY_LIMIT], 'neither used an allowance');
});

t.test('removing through the page takes the address off the list, as the core and /v2 see it, and counts one removal', async (t) => {
  const guard = await formGuardOf(w.h, ownerCookie, '/suppressions');
  const removed = await page(w.h, 'POST', '/suppressions/remove', { cookie: ownerCookie, form: { ...guard, email: 'annoyed@dest.test' }, headers: { origin: w.h.url } });
  t.equal(removed.status, 303);
  t.equal(removed.headers.get('location'), '/suppressions?done=removed');
  t.equal(await w.h.rt.store.suppressions.isSuppressed(w.teamId, 'annoyed@dest.test'), false);
  const v2 = (await w.h.request<{ data: Array<{ email: string }> }>('GET', '/v2/suppressions', { key: w.adminKey })).body.data.map((s) => s.email);
  t.notOk(v2.includes('annoyed@dest.test'), '/v2 no longer lists it');
  const after = await asOwner('/suppressions?done=removed');
  t.match(after.text, /<p class="notice" role="status">The address is removed/);
  t.same(removalsLeft(after.text), [DAILY_LIMIT - 1, DAILY_LIMIT]);
});

async function signInInBrowser(): Promise<Page> {
  return signedInTab(browser, w.h.url, ownerEmail);
}

async function checkAccessibleAtBothSizes(t: Test, p: Page): Promise<void> {
  await p.setViewportSize(DESKTOP);
  t.same(await seriousViolations(p), [], 'no serious accessibility violation');
  t.equal(await p.locator('img[src="x"]').count(), 0, 'the reason made no element');
  await p.setViewportSize(PHONE);
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, 'nothing overflows at 360 px');
  t.same(await seriousViolations(p), [], 'nor at 360 px');
  await p.setViewportSize(DESKTOP);
}

t.test('in Chromium: the list is accessible at both sizes, and Remove asks first, then removes', async (t) => {
  const p = await signInInBrowser();
  const questions: string[] = [];
  p.on('dialog', (d) => {
    questions.push(d.message());
    void d.accept();
  });
  await p.goto(`${w.h.url}/suppressions`);
  t.equal(await p.getAttribute('nav.sections a[aria-current="page"]', 'href'), '/suppressions');
  await checkAccessibleAtBothSizes(t, p);
  await screenshots(p, 'suppressions');
  const remove = p.locator('tr', { has: p.locator('th', { hasText: 'gone@dest.test' }) }).locator('button', { hasText: 'Remove' });
  await Promise.all([p.waitForURL((u) => u.searchParams.get('done') === 'removed'), remove.click()]);
  t.match(questions, [/Remove gone@dest\.test from the suppression list\?/], 'the confirmation asked');
  t.match(await p.textContent('.notice'), 'The address is removed');
  t.equal(await w.h.rt.store.suppressions.isSuppressed(w.teamId, 'gone@dest.test'), false);
  t.equal(alertFree(questions), true, 'no script of a reason ran');
  await p.close();
});

/** Every dialog was a removal's confirmation, none an alert a reason's markup raised. */
const alertFree = (questions: readonly string[]): boolean => questions.every((q) => q.startsWith('Remove '));

t.test('past the account’s daily removals, a removal is refused on the page and the address stays', async (t) => {
  await suppress(w.teamId, [
    { email: 'one@dest.test', status: 'bounced', reason: '550' },
    { email: 'two@dest.test', status: 'bounced', reason: '550' },
  ]);
  const guard = await formGuardOf(w.h, ownerCookie, '/suppressions');
  const post = (email: string) => page(w.h, 'POST', '/suppressions/remove', { cookie: ownerCookie, form: { ...guard, email }, headers: { origin: w.h.url } });
  t.equal((await post('one@dest.test')).status, 303, 'the third removal of the day');
  const refused = await post('two@dest.test');
  t.equal(refused.status, 429);
  t.match(refused.text, `<p class="error" role="alert">The account has used its ${DAILY_LIMIT} suppression removals for today (UTC).</p>`, 'the page says why');
  t.match(refused.headers.get('retry-after') ?? '', /^\d+$/, 'and when to try again');
  t.same(removalsLeft(refused.text), [0, DAILY_LIMIT]);
  t.equal(await w.h.rt.store.suppressions.isSuppressed(w.teamId, 'two@dest.test'), true);
});
