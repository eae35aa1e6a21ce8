// The Logs pages (issue 13) over real HTTP and in Chromium: a message sent over /v2 and delivered to the MX sink
// (one recipient accepted, one refused with 550) is found in /logs by its words and filters, paged with the
// filters kept; its page shows each delivery attempt with the remote MX, its reply and its time, the hard
// bounce and the webhook deliveries of it; another account's message answers 404; a subject holding markup
// is shown as text; a bad filter is a 400 on the page; no serious accessibility violation at desktop size or
// at 360 px.
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { settled, startMailWorld, type MailWorld } from './helpers/mail-world.js';
import { userOn } from './helpers/dashboard-session.js';
import { page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { DESKTOP, PHONE, screenshots } from './helpers/screenshots.js';
import { newMessage, queuedRecipients, recordMessage } from './helpers/new-message.js';
import { until } from './helpers/wait.js';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';
const SUBJECT = `Receipt 4711 ${SCRIPT} ${IMG}`;

let w: MailWorld;
let browser: TestBrowser;
let ownerCookie: string;
let ownerEmail: string;
let messageId: string;

t.before(async () => {
  w = await startMailWorld();
  w.sink.rcptReply = (address) => (address === 'gone@dest.test' ? { code: 550, message: `5.1.1 <${address}>: Recipient address rejected: User unknown` } : null);
  browser = await startBrowser();
  ownerEmail = await userOn(w.h, w.accountId, 'owner');
  ownerCookie = await signInOverHttp(w.h, ownerEmail);
  const sent = await w.h.request<{ message_id: string }>('POST', '/v2/emails', {
    key: w.sendingKey,
    body: { from: { email: 'news@example.com', name: 'News' }, to: [{ email: 'bob@dest.test' }, { email: 'gone@dest.test' }], subject: SUBJECT, text: 'x' },
  });
  if (sent.status !== 200) throw new Error(sent.text);
  messageId = sent.body.message_id;
  await settled(w, messageId);
});
t.teardown(async () => {
  await browser?.close();
  await w?.close();
});

const asOwner = (path: string) => page(w.h, 'GET', path, { cookie: ownerCookie });

t.test('the log finds the message by a word of its subject, and by its status; each row links to its page', async (t) => {
  const found = await asOwner('/logs?search=4711');
  t.equal(found.status, 200, found.text.slice(0, 300));
  t.match(found.text, `href="/logs/${messageId}"`, 'the row links to the message');
  t.match(found.text, /<span class="status bad">bounced<\/span>/, 'its status: one recipient bounced');
  t.match(found.text, 'value="4711"', 'the search stays in its field');
  t.match(found.text, /id="log-total">1 message</);
  // A status finds a message with any recipient in it: bob's was delivered, gone's bounced (issue 22, item 6).
  t.match((await asOwner('/logs?status=bounced')).text, `href="/logs/${messageId}"`, 'found as bounced: one recipient bounced');
  t.match((await asOwner('/logs?status=sent')).text, `href="/logs/${messageId}"`, 'found as sent too: the other was delivered');
  const failedOnly = await asOwner('/logs?status=failed');
  t.notMatch(failedOnly.text, `href="/logs/${messageId}"`, 'not as failed: no recipient failed');
  t.match(failedOnly.text, 'No message matches these filters.');
  t.match((await asOwner(`/logs?domain=${w.domain}&from=2000-01-01&to=2999-12-31`)).text, `href="/logs/${messageId}"`, 'by domain name and dates');
  t.notMatch((await asOwner('/logs?to=2000-01-01')).text, `href="/logs/${messageId}"`, 'not before it was sent');
  t.notMatch((await asOwner('/logs?search=nothinglikeit')).text, `href="/logs/${messageId}"`);
});

t.test('a subject holding markup is written as text, on the list and on the message page', async (t) => {
  for (const path of ['/logs', `/logs/${messageId}`]) {
    const shown = await asOwner(path);
    t.match(shown.text, '&lt;script&gt;alert(1)&lt;/script&gt;', `${path}: the script tag as text`);
    t.match(shown.text, '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;', `${path}: the attribute break-out as text`);
    t.notMatch(shown.text, SCRIPT, path);
    t.notMatch(shown.text, '<img src=x', path);
  }
});

t.test('the message page shows each delivery attempt with its remote MX, its reply and its time, and the bounce', async (t) => {
  const shown = await asOwner(`/logs/${messageId}`);
  t.equal(shown.status, 200, shown.text.slice(0, 300));
  t.match(shown.text, /<h1>Receipt 4711 /, 'the subject is the heading');
  t.match(shown.text, 'News &lt;news@example.com&gt;', 'the sender');
  const attempts = /<caption>\s*Every attempt, oldest first\s*<\/caption>([\s\S]*?)<\/table>/.exec(shown.text)?.[1] ?? '';
  const rowOf = (email: string) => attempts.split('<tr>').find((row) => row.includes(`<th scope="row">${email}</th>`)) ?? '';
  const bob = rowOf('bob@dest.test');
  const gone = rowOf('gone@dest.test');
  t.match(bob, /<span class="status good">delivered<\/span>/);
  t.match(bob, 'mx.dest.test', 'the remote MX');
  t.match(bob, /<code class="reply">250 /, 'the reply to the delivery');
  t.match(bob, /\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/, 'the time');
  t.match(gone, /<span class="status bad">bounced<\/span>/);
  t.match(gone, 'mx.dest.test');
  t.match(gone, '550 5.1.1 &lt;gone@dest.test&gt;: Recipient address rejected: User unknown', 'the refusal, word for word');
  const events = /<caption>\s*Bounces and complaints\s*<\/caption>([\s\S]*?)<\/table>/.exec(shown.text)?.[1] ?? '';
  t.match(events, '<th scope="row">gone@dest.test</th>');
  t.match(events, 'hard bounce');
  t.match(shown.text, 'No webhook delivery for this message.');
  t.match(shown.text, 'href="/suppressions?search=gone%40dest.test"', 'the bounced address links to the suppression list');
});

t.test('a viewer reads the message page, which offers nothing to change', async (t) => {
  const cookie = await signInOverHttp(w.h, await userOn(w.h, w.accountId, 'viewer'));
  const shown = await page(w.h, 'GET', `/logs/${messageId}`, { cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, 'Recipient address rejected');
  const forms = [...shown.text.matchAll(/<form[^>]*action="([^"]+)"/g)].map((m) => m[1]);
  t.same(forms, ['/logout'], 'only the frame’s log-out form');
});

t.test('the webhook deliveries of the message’s bounce are listed with their answer', async (t) => {
  const event = await until('the bounce event', async () => (await w.h.rt.store.feedback.eventsOf(messageId))[0] ?? null);
  const base = { webhookId: 1, teamId: w.teamId, eventId: event.id, eventType: 'bounced' as const, url: 'https://hooks.example.com/tern', latencyMs: 42 };
  await w.h.rt.store.feedback.logDelivery({ ...base, statusCode: null, error: 'connection refused' });
  await w.h.rt.store.feedback.logDelivery({ ...base, statusCode: 204, error: null });
  const shown = await asOwner(`/logs/${messageId}`);
  const table = /<caption>\s*Webhook deliveries, oldest first\s*<\/caption>([\s\S]*?)<\/table>/.exec(shown.text)?.[1] ?? '';
  t.match(table, 'https://hooks.example.com/tern');
  t.match(table, /no answer[\s\S]*connection refused[\s\S]*204/, 'the failed attempt, then the accepted one');
  t.match(table, '42 ms');
});

t.test('another account’s message, and an unknown one, answer 404', async (t) => {
  const other = await w.h.account();
  const foreign = `web-logs-foreign-${process.pid}`;
  await recordMessage(w.h.rt.store, newMessage({ id: foreign, teamId: other.id, domainId: null, recipients: queuedRecipients(1), cost: 0 }));
  const refused = await asOwner(`/logs/${foreign}`);
  t.equal(refused.status, 404);
  t.notMatch(refused.text, foreign, 'nothing of it is shown');
  t.equal((await asOwner('/logs/nope')).status, 404);
  t.notMatch((await asOwner('/logs')).text, foreign, 'nor is it listed');
});

t.test('a bad filter is a 400 on the page, saying what is wrong, with the filters still there', async (t) => {
  const badDate = await asOwner('/logs?from=yesterday');
  t.equal(badDate.status, 400);
  t.match(badDate.text, /<p class="error" role="alert">from must be an ISO 8601 date or date-time<\/p>/);
  t.match(badDate.text, 'id="apply-filters"', 'the filters can be corrected');
  const badStatus = await asOwner('/logs?status=lost');
  t.equal(badStatus.status, 400);
  t.match(badStatus.text, /Status must be one of: pending, sent/);
  const tooDeep = await asOwner('/logs?page=100000');
  t.equal(tooDeep.status, 400);
  t.match(tooDeep.text, /Paging reaches beyond/);
});

t.test('the log is paged, 25 a page, and the paging links keep the filters', async (t) => {
  const account = await w.h.account();
  for (let i = 0; i < 27; i++) {
    const id = `web-logs-paged-${process.pid}-${i}`;
    await recordMessage(w.h.rt.store, newMessage({ id, teamId: account.id, domainId: null, recipients: queuedRecipients(1), cost: 0 }));
  }
  const cookie = await signInOverHttp(w.h, await userOn(w.h, account.id, 'viewer'));
  const first = await page(w.h, 'GET', '/logs?status=pending', { cookie });
  t.equal(first.status, 200);
  t.match(first.text, 'Page 1 of 2');
  t.equal((first.text.match(/href="\/logs\/web-logs-paged-/g) ?? []).length, 25);
  const next = /<a href="([^"]+)" rel="next">/.exec(first.text)?.[1]?.replaceAll('&amp;', '&');
  t.equal(next, '/logs?status=pending&page=2', 'the filter is kept');
  const second = await page(w.h, 'GET', next!, { cookie });
  t.equal((second.text.match(/href="\/logs\/web-logs-paged-/g) ?? []).length, 2);
  const empty = await page(w.h, 'GET', '/logs', { cookie: await signInOverHttp(w.h, await userOn(w.h, (await w.h.account()).id, 'owner')) });
  t.match(empty.text, 'No messages yet — send one through the API or SMTP and it shows here.');
});

async function signInInBrowser(): Promise<Page> {
  return signedInTab(browser, w.h.url, ownerEmail);
}

async function checkAccessibleAtBothSizes(t: Test, p: Page, what: string): Promise<void> {
  await p.setViewportSize(DESKTOP);
  t.same(await seriousViolations(p), [], `${what}: no serious accessibility violation`);
  t.equal(await p.locator('img[src="x"]').count(), 0, `${what}: the subject made no element`);
  await p.setViewportSize(PHONE);
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, `${what}: nothing overflows at 360 px`);
  t.same(await seriousViolations(p), [], `${what}: nor at 360 px`);
}

t.test('in Chromium: search the log, open the message; both pages accessible at desktop size and at 360 px', async (t) => {
  const p = await signInInBrowser();
  let alerted = false;
  p.on('dialog', (d) => {
    alerted = true;
    void d.dismiss();
  });
  await p.goto(`${w.h.url}/logs`);
  await p.fill('#search', '4711');
  await Promise.all([p.waitForURL((u) => u.searchParams.get('search') === '4711'), p.click('#apply-filters')]);
  t.equal(await p.getAttribute('nav.sections a[aria-current="page"]', 'href'), '/logs', 'the section is marked current');
  await checkAccessibleAtBothSizes(t, p, 'the log');
  await screenshots(p, 'logs');
  await Promise.all([p.waitForURL((u) => u.pathname === `/logs/${messageId}`), p.click(`a[href="/logs/${messageId}"]`)]);
  t.match(await p.textContent('h1'), SUBJECT, 'the subject as the heading, as text');
  t.match(await p.textContent('main'), 'Recipient address rejected');
  await checkAccessibleAtBothSizes(t, p, 'the message');
  await screenshots(p, 'message');
  t.equal(alerted, false, 'no script of the subject ran');
  await p.close();
});
