// The team page (issue 13) over real HTTP: the members of the team acted on, invitations sent and revoked
// through the page and seen through the REST invitation routes, child teams created and renamed and seen through
// /v2/teams; bad input answered 400 changing nothing; another account's invitation or team 404; names and emails
// escaped; a viewer offered no form and its forged posts refused 403; and in Chromium no serious accessibility
// violation at desktop size and 360 px.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';
import { storedDomain } from './helpers/sending-setup.js';

let h: Harness;
let browser: TestBrowser;

t.before(async () => {
  h = await startHarness({ overrides: { systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 5, dnsInstructionsPerDomainPerHour: 5 } } });
  // The system sender's domain, verified, on a team of its own: invitations are mailed from it.
  await storedDomain(h, (await h.account({ credits: 1000 })).id, 'example.com');
  browser = await startBrowser();
});
t.teardown(async () => {
  await browser?.close();
  await h?.close();
});

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';
const INVITATIONS = '/api/tern/v2/internal/invitations';
let counter = 0;
const invitee = () => `o'brien&co.${++counter}.${process.pid}@example.com`;

interface World {
  accountId: number;
  key: string;
  email: string;
  cookie: string;
  rest: SignedIn;
}

/** A new account with a signed-in user of `role` (owner by default), whose name holds markup. */
async function world(role: 'owner' | 'admin' | 'viewer' = 'owner', existing?: Pick<World, 'accountId' | 'key'>): Promise<World> {
  const made = existing ? undefined : await h.account();
  const account: Pick<World, 'accountId' | 'key'> = existing ?? { accountId: made!.id, key: made!.key };
  const email = await userOn(h, account.accountId, role);
  const user = (await h.rt.store.users.findByEmail(email))!;
  await h.rt.store.users.update(user.id, { name: `Ann ${SCRIPT}` });
  return { accountId: account.accountId, key: account.key, email, cookie: await signInOverHttp(h, email), rest: await logIn(h, email) };
}

const listed = async (w: World) => (await h.request('GET', INVITATIONS, withSession(w.rest))).body as Array<{ id: number; email: string; role: string; status: string }>;
const main = (text: string) => text.slice(text.indexOf('<main'));

t.test('the members of the team, names escaped, the viewer marked as you', async (t) => {
  const w = await world();
  const shown = await page(h, 'GET', '/team', { cookie: w.cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /<h1>Team<\/h1>/);
  t.match(shown.text, '<th scope="row">Ann &lt;script&gt;alert(1)&lt;/script&gt; <span class="muted">(you)</span></th>');
  t.notMatch(shown.text, SCRIPT);
  t.match(shown.text, `<td>${w.email}</td>`);
  t.match(shown.text, /No invitations yet/);
});

t.test('an invitation sent through the page is listed by the REST route, its email escaped, and revoked', async (t) => {
  const w = await world();
  const guard = await formGuardOf(h, w.cookie, '/team');
  const email = invitee();
  const sent = await page(h, 'POST', '/team/invitations', { cookie: w.cookie, form: { ...guard, email, role: 'admin' } });
  t.equal(sent.status, 303, sent.text.slice(0, 500));
  t.equal(sent.headers.get('location'), '/team?done=invited');
  const [inv] = await listed(w);
  t.match(inv, { email, role: 'admin', status: 'open' });
  const shown = await page(h, 'GET', '/team?done=invited', { cookie: w.cookie });
  t.match(shown.text, /The invitation is sent/);
  t.match(shown.text, `<th scope="row">${email.replace(/&/g, '&amp;').replace(/'/g, '&#39;')}</th>`, 'the email escaped');
  t.match(shown.text, /<span class="status pending">Open<\/span>/);

  const other = await world();
  const foreign = await page(h, 'POST', `/team/invitations/${inv!.id}/revoke`, { cookie: other.cookie, form: await formGuardOf(h, other.cookie, '/team') });
  t.equal(foreign.status, 404, "another account's invitation is not found");
  const revoked = await page(h, 'POST', `/team/invitations/${inv!.id}/revoke`, { cookie: w.cookie, form: guard });
  t.equal(revoked.status, 303);
  t.match((await listed(w))[0], { id: inv!.id, status: 'revoked' });
});

t.test('a bad invitation is answered 400 on the page, what was typed escaped, and nothing is sent', async (t) => {
  const w = await world();
  const guard = await formGuardOf(h, w.cookie, '/team');
  const bad = await page(h, 'POST', '/team/invitations', { cookie: w.cookie, form: { ...guard, email: IMG, role: 'viewer' } });
  t.equal(bad.status, 400);
  t.match(bad.text, /role="alert">Email must be an email address/);
  t.match(bad.text, 'value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
  t.notMatch(bad.text, '<img src=x');
  const role = await page(h, 'POST', '/team/invitations', { cookie: w.cookie, form: { ...guard, email: invitee(), role: 'king' } });
  t.equal(role.status, 400);
  t.match(role.text, /Role must be owner, admin or viewer/);
  t.equal((await listed(w)).length, 0, 'no invitation stored');
});

t.test('child teams created and renamed through the page, as /v2/teams sees them; bad names 400; another account’s team 404', async (t) => {
  const w = await world();
  const guard = await formGuardOf(h, w.cookie, '/team');
  t.match((await page(h, 'GET', '/team', { cookie: w.cookie })).text, /No teams yet/);
  const created = await page(h, 'POST', '/team/teams', { cookie: w.cookie, form: { ...guard, name: `Shop ${SCRIPT}` } });
  t.equal(created.status, 303);
  const teams = (await h.request('GET', '/v2/teams', { key: w.key })).body.data.teams as Array<{ id: number; name: string }>;
  t.equal(teams.length, 1);
  t.equal(teams[0]!.name, `Shop ${SCRIPT}`);
  const shown = await page(h, 'GET', '/team?done=team_created', { cookie: w.cookie });
  t.match(shown.text, /The team is created/);
  t.match(shown.text, '<th scope="row">Shop &lt;script&gt;alert(1)&lt;/script&gt;</th>');
  t.notMatch(shown.text, SCRIPT);

  const short = await page(h, 'POST', '/team/teams', { cookie: w.cookie, form: { ...guard, name: 'x' } });
  t.equal(short.status, 400);
  t.match(short.text, /role="alert"/);
  const id = teams[0]!.id;
  const renamed = await page(h, 'POST', `/team/teams/${id}/rename`, { cookie: w.cookie, form: { ...guard, name: `EU ${IMG}` } });
  t.equal(renamed.status, 303);
  t.equal(((await h.request('GET', '/v2/teams', { key: w.key })).body.data.teams as Array<{ name: string }>)[0]!.name, `EU ${IMG}`);
  const badRename = await page(h, 'POST', `/team/teams/${id}/rename`, { cookie: w.cookie, form: { ...guard, name: ' ' } });
  t.equal(badRename.status, 400);
  t.equal(((await h.request('GET', '/v2/teams', { key: w.key })).body.data.teams as Array<{ name: string }>)[0]!.name, `EU ${IMG}`, 'unchanged');
  t.equal((await h.request('GET', '/v2/teams', { key: w.key })).body.data.teams.length, 1, 'no team made by the bad names');

  const other = await world();
  const foreign = await page(h, 'POST', `/team/teams/${id}/rename`, { cookie: other.cookie, form: { ...(await formGuardOf(h, other.cookie, '/team')), name: 'Taken' } });
  t.equal(foreign.status, 404, "another account's team is not found");
});

t.test('a viewer sees the members but no invitations and no form; its forged posts are refused 403 and change nothing', async (t) => {
  const owner = await world();
  const viewer = await world('viewer', owner);
  const shown = await page(h, 'GET', '/team', { cookie: viewer.cookie });
  t.equal(shown.status, 200);
  t.notMatch(main(shown.text), /method="post"/i, 'no posting form');
  t.notMatch(shown.text, /Invitations|Create a team/);
  t.match(shown.text, /<h2>Teams<\/h2>/);
  const guard = await formGuardOf(h, viewer.cookie, '/team');
  t.equal((await page(h, 'POST', '/team/invitations', { cookie: viewer.cookie, form: { ...guard, email: invitee(), role: 'viewer' } })).status, 403);
  t.equal((await page(h, 'POST', '/team/teams', { cookie: viewer.cookie, form: { ...guard, name: 'Forged' } })).status, 403);
  t.equal((await listed(owner)).length, 0, 'no invitation sent');
  t.equal((await h.request('GET', '/v2/teams', { key: owner.key })).body.data.teams.length, 0, 'no team created');
});

t.test('in Chromium: the team page has no serious accessibility violation at desktop size and 360 px, nothing injected', async (t) => {
  const w = await world();
  const guard = await formGuardOf(h, w.cookie, '/team');
  await page(h, 'POST', '/team/teams', { cookie: w.cookie, form: { ...guard, name: `Shop ${IMG}` } });
  await page(h, 'POST', '/team/invitations', { cookie: w.cookie, form: { ...guard, email: invitee(), role: 'viewer' } });
  const p = await signedInTab(browser, h.url, w.email, '/team');
  t.equal(await p.locator('img[src="x"]').count(), 0, 'no injected image');
  t.equal(await p.locator('table').count(), 3, 'members, invitations and teams');
  t.same(await seriousViolations(p), [], 'at desktop size');
  await p.setViewportSize({ width: 360, height: 740 });
  t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, 'nothing overflows at 360 px');
  t.same(await seriousViolations(p), [], 'at 360 px');
  await p.close();
});
