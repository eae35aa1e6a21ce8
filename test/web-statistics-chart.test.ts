// Issue 22 item 15, the statistics page: its labels say the figures count recipients; a team with no mail in the
// last 12 months is told so in one line instead of a table of 12 empty months; and the chart's y axis, drawn by
// uPlot in Chromium, has whole-number ticks (no "0.5 recipients"), with little mail and with none.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { userOn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { storedDomain } from './helpers/sending-setup.js';
import { newMessage, queuedRecipients, recordMessage } from './helpers/new-message.js';

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

const mainOf = (text: string) => text.slice(text.indexOf('<main'));
/** A recipient refused at intake as suppressed: the message is charted at once (Suppressed), no delivery needed. */
const suppressedRecipient = [{ email: 'gone@dest.test', name: '', kind: 'to' as const, domain: 'dest.test', state: 'suppressed' as const, reason: 'suppressed' }];

t.test('a team with no mail in 12 months is told so in one line, not shown 12 empty months', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  const shown = mainOf((await page(h, 'GET', '/statistics', { cookie })).text);
  t.notMatch(shown, /by month, last 12 months/i, 'no table of months');
  t.match(shown, /No mail in the last 12 months/);
});

t.test('the statistics and the overview say their figures count recipients', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  const domain = await storedDomain(h, account.id, `stats-${process.pid}.example`);
  await recordMessage(h.rt.store, newMessage({ id: `stats-${process.pid}`, teamId: account.id, domainId: domain.id, recipients: queuedRecipients(2), cost: 0 }));
  const stats = mainOf((await page(h, 'GET', '/statistics', { cookie })).text);
  t.match(stats, /Recipients by month, last 12 months/);
  t.match(stats, /Recipients by domain/);
  t.match(stats, /Each figure counts recipients/);
  t.match(stats, /<figcaption>Recipients by day/);
  const overview = mainOf((await page(h, 'GET', '/', { cookie })).text);
  t.match(overview, /<figcaption>Recipients per day/);
  t.match(overview, /Recipients by period/);
});

for (const [what, messages] of [
  ['a little mail', 1],
  ['no mail', 0],
] as const) {
  t.test(`the chart’s y axis has whole-number ticks with ${what}`, async (t) => {
    const account = await h.account();
    const email = await userOn(h, account.id, 'owner');
    const domain = await storedDomain(h, account.id, `ticks-${messages}-${process.pid}.example`);
    for (let i = 0; i < messages; i++) {
      await recordMessage(
        h.rt.store,
        newMessage({ id: `ticks-${messages}-${i}-${process.pid}`, teamId: account.id, domainId: domain.id, recipients: suppressedRecipient, cost: 0 }),
      );
    }
    const p = await signedInTab(browser, h.url, email, '/statistics');
    const ticks = (await (await p.waitForSelector('figure.chart[data-y-ticks]', { state: 'attached', timeout: 20_000 })).getAttribute('data-y-ticks')) ?? '';
    t.ok(ticks.split(' ').length >= 2, `ticks drawn: ${ticks}`);
    t.ok(
      ticks.split(' ').every((v) => /^\d+$/.test(v)),
      `every tick a whole number: ${ticks}`,
    );
    t.ok(Number(ticks.split(' ').at(-1)) <= 5, `the axis is scaled to the figures, not to 100: ${ticks}`);
    await p.close();
  });
}
