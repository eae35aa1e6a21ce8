// The support pages (issue 26): an account's users open tickets at /support (with a file), follow them, reply,
// like or dislike an operator's answer, close and re-open; operators answer on /admin/support with the account's
// context beside the ticket. Over real HTTP: another account's ticket is missing (404) on every page and write, a
// viewer's forged posts are refused (403) and change nothing, bad input is said in the form's words, a file is
// uploaded with the form and downloaded by the ticket's people only. In Chromium with axe-core: a ticket's whole
// life, the operator's answer mailed by Tern to the opener (the loopback sink) with a link to the ticket's page,
// the operator assigning the ticket to itself on its page.
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { operatorOn, PASSWORD, userOn } from './helpers/dashboard-session.js';
import { mailTo } from './helpers/system-mail.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { formGuardOf, page, signInOverHttp, signedInTab, type PageReply } from './helpers/web-pages.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { createLogger } from '../shared/log.js';

const PUBLIC_URL = 'https://dashboard.example.net';
const w = await startMailWorld({
  overrides: {
    systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 10, dnsInstructionsPerDomainPerHour: 5 },
    dashboard: { publicUrl: PUBLIC_URL },
  },
});
t.teardown(() => w.close());
const h = w.h;
const log = createLogger('test', 'silent');

let browser: TestBrowser | undefined;
t.teardown(() => browser?.close());

const signedIn = async (role: 'owner' | 'admin' | 'viewer', accountId = w.accountId) => signInOverHttp(h, await userOn(h, accountId, role));

/** Posts a form (urlencoded) with the guard read off `from`. */
async function post(cookie: string, path: string, form: Record<string, string>, from = '/support'): Promise<PageReply> {
  return page(h, 'POST', path, { cookie, form: { ...(await formGuardOf(h, cookie, from)), ...form }, headers: { origin: h.url } });
}

/** Posts a form with a file (multipart/form-data, as a browser sends the ticket form). */
async function postWithFile(cookie: string, path: string, form: Record<string, string>, file: { name: string; type: string; content: Buffer }, from: string) {
  const body = new FormData();
  for (const [k, v] of Object.entries({ ...(await formGuardOf(h, cookie, from)), ...form })) body.append(k, v);
  body.append('attachment', new Blob([new Uint8Array(file.content)], { type: file.type }), file.name);
  const res = await fetch(h.url + path, { method: 'POST', headers: { cookie, origin: h.url }, body, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const ticketIdOf = (location: string | null): number => Number(/^\/support\/tickets\/(\d+)\?done=opened$/.exec(location ?? '')?.[1]);
const ticketCount = async (teamId = w.accountId) =>
  (await h.rt.store.support.listTickets({ teamId, status: 'all', orderBy: 'id', order: 'desc' }, { page: 1, perPage: 1 })).total;

/** Opens a ticket through the page (no file); its id. */
async function opened(cookie: string, title = 'Mail to example.org bounces'): Promise<number> {
  const reply = await post(cookie, '/support/tickets', { title, content: 'Since this morning.\nEvery message.', client_priority: 'medium' }, '/support/tickets/new');
  if (reply.status !== 303) throw new Error(`open: ${reply.status} ${reply.text.slice(0, 500)}`);
  return ticketIdOf(reply.headers.get('location'));
}

t.test('an owner opens a ticket with a file on the page; the list, the ticket and the download show it', async (t) => {
  const cookie = await signedIn('owner');
  const text = Buffer.from('550 5.1.1 user unknown\n');
  const reply = await postWithFile(
    cookie,
    '/support/tickets',
    { title: 'Bounces <b>again</b>', content: 'See the trace.', product_id: 'sending', client_priority: 'critical' },
    { name: 'trace.txt', type: 'text/plain', content: text },
    '/support/tickets/new',
  );
  t.equal(reply.status, 303, reply.text.slice(0, 300));
  const id = ticketIdOf(reply.headers.get('location'));
  t.ok(id > 0, 'the form leads to the ticket page');
  const shown = await page(h, 'GET', `/support/tickets/${id}?done=opened`, { cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /Your ticket is opened/);
  t.match(shown.text, /Bounces &lt;b&gt;again&lt;\/b&gt;/, 'the title is text, not markup');
  t.match(shown.text, /Critical/);
  t.match(shown.text, /Sending and delivery/);
  const href = new RegExp(`href="(/support/tickets/${id}/attachments/\\d+)"`).exec(shown.text)?.[1];
  t.ok(href, 'the file is linked');
  const file = await fetch(h.url + href!, { headers: { cookie } });
  t.equal(file.status, 200);
  t.equal(file.headers.get('content-type'), 'text/plain');
  t.match(file.headers.get('content-disposition'), /^attachment; filename="trace\.txt"/);
  t.equal(file.headers.get('content-security-policy'), 'sandbox');
  t.same(Buffer.from(await file.arrayBuffer()), text);
  const listed = await page(h, 'GET', '/support?filter_type=open&search=again', { cookie });
  t.match(listed.text, new RegExp(`href="/support/tickets/${id}">#${id} Bounces`));
  const closedOnly = await page(h, 'GET', '/support?filter_type=closed', { cookie });
  t.notMatch(closedOnly.text, new RegExp(`/support/tickets/${id}"`), 'not among the closed ones');
  t.equal((await page(h, 'GET', '/support?filter_type=everything', { cookie })).status, 400, 'an unknown filter is a 400');
});

t.test("another account's ticket is missing: its page, its file and every write answer 404, and nothing changes", async (t) => {
  const cookie = await signedIn('owner');
  const id = await opened(cookie);
  const ticket = await h.rt.store.support.getTicket(id);
  const other = await h.account();
  const stranger = await signedIn('owner', other.id);
  t.equal((await page(h, 'GET', `/support/tickets/${id}`, { cookie: stranger })).status, 404, 'the page');
  t.equal((await page(h, 'GET', `/support/tickets/${id}/attachments/1`, { cookie: stranger })).status, 404, 'a file of it');
  for (const [path, form] of [
    [`/support/tickets/${id}/responses`, { content: 'Me too' }],
    [`/support/tickets/${id}/close`, {}],
    [`/support/tickets/${id}/reopen`, {}],
  ] as const) {
    const refused = await post(stranger, path, form);
    t.equal(refused.status, 404, path);
  }
  t.same(await h.rt.store.support.getTicket(id), ticket, 'the ticket is as it was');
  const operator = await signInOverHttp(h, await operatorOn(h));
  const seen = await page(h, 'GET', `/admin/support/${id}`, { cookie: operator });
  t.equal(seen.status, 200, 'an operator sees every account’s ticket');
  t.match(seen.text, /id="account-context"/, 'with the account beside it');
  t.equal((await page(h, 'GET', '/support/tickets/999999', { cookie })).status, 404, 'an unknown ticket');
});

t.test("a viewer reads the team's tickets; its forged posts are refused (403) and change nothing", async (t) => {
  const owner = await signedIn('owner');
  const id = await opened(owner);
  const viewer = await signedIn('viewer');
  const shown = await page(h, 'GET', `/support/tickets/${id}`, { cookie: viewer });
  t.equal(shown.status, 200, 'a viewer reads the ticket');
  t.notMatch(shown.text, /id="send-reply"|id="close-ticket"/, 'with no form');
  const before = await h.rt.store.support.getTicket(id);
  const count = await ticketCount();
  for (const [path, form] of [
    ['/support/tickets', { title: 'Forged', content: 'Forged' }],
    [`/support/tickets/${id}/responses`, { content: 'Forged' }],
    [`/support/tickets/${id}/close`, {}],
  ] as const) {
    const refused = await post(viewer, path, form);
    t.equal(refused.status, 403, path);
  }
  const big = Buffer.alloc(1024 * 1024, 'a');
  const upload = await postWithFile(viewer, '/support/tickets', { title: 'Forged', content: 'Forged' }, { name: 'a.txt', type: 'text/plain', content: big }, '/support');
  t.equal(upload.status, 403, 'a forged post with a file, refused before the file is taken in');
  t.equal((await page(h, 'GET', '/support/tickets/new', { cookie: viewer })).status, 403, 'the new ticket form is not a viewer’s');
  t.equal(await ticketCount(), count, 'no ticket was opened');
  t.same(await h.rt.store.support.getTicket(id), before, 'the ticket is as it was');
});

t.test('bad input is said in the form’s words, with what was typed; nothing is opened', async (t) => {
  const cookie = await signedIn('admin');
  const count = await ticketCount();
  const blank = await post(cookie, '/support/tickets', { title: '  ', content: 'What I typed' }, '/support/tickets/new');
  t.equal(blank.status, 400);
  t.match(blank.text, /<p class="error" role="alert">Title must not be blank<\/p>/);
  t.match(blank.text, /What I typed<\/textarea>/, 'the message is kept');
  const wrong = await post(cookie, '/support/tickets', { title: 'A', content: 'B', client_priority: 'whenever' }, '/support/tickets/new');
  t.equal(wrong.status, 400);
  t.match(wrong.text, /Priority must be one of: normal, medium, critical/);
  const exe = await postWithFile(
    cookie,
    '/support/tickets',
    { title: 'With a program', content: 'Here' },
    { name: 'run.exe', type: 'application/octet-stream', content: Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00]) },
    '/support/tickets/new',
  );
  t.equal(exe.status, 400);
  t.match(exe.text, /Attachment must be one of: image\/png/);
  const tooLarge = await postWithFile(
    cookie,
    '/support/tickets',
    { title: 'With a large file', content: 'Here' },
    { name: 'big.txt', type: 'text/plain', content: Buffer.alloc(h.config.support.attachments.maxBytes + 1, 'a') },
    '/support/tickets/new',
  );
  t.equal(tooLarge.status, 400);
  t.match(tooLarge.text, new RegExp(`Attachment must be at most ${h.config.support.attachments.maxBytes} bytes`));
  t.equal(await ticketCount(), count, 'no ticket was opened');
  const id = await opened(cookie);
  const empty = await post(cookie, `/support/tickets/${id}/responses`, { content: '' });
  t.equal(empty.status, 400);
  t.match(empty.text, /Message must not be blank/);
  t.equal((await h.rt.store.support.getTicket(id))!.responseCount, 0);
  t.equal((await post(cookie, `/support/tickets/${id}/close`, {})).status, 303);
  const again = await post(cookie, `/support/tickets/${id}/close`, {});
  t.equal(again.status, 409, 'closing a closed ticket');
  t.match(again.text, /already closed|not closed|closed/);
});

t.test("in Chromium: a ticket's whole life, with no serious accessibility violation on any page", async (t) => {
  const email = `support-${process.pid}@dest.test`;
  const users = createIdentity(h.rt).users;
  const made = await users.create(w.accountId, { email, role: 'owner' }, log);
  if (!made.ok) throw new Error(JSON.stringify(made.refusal));
  t.ok((await users.changePassword(made.value.user, { currentPassword: made.value.oneTimePassword, newPassword: PASSWORD }, log)).ok);
  const operatorEmail = await operatorOn(h);
  browser = await startBrowser();

  // The user opens a ticket with a file.
  let p = await signedInTab(browser, h.url, email, '/support');
  t.same(await seriousViolations(p), [], 'the list');
  await Promise.all([p.waitForURL((u) => u.pathname === '/support/tickets/new'), p.click('#new-ticket')]);
  t.same(await seriousViolations(p), [], 'the new ticket form');
  await p.fill('#ticket-title', 'Gmail defers our mail');
  await p.fill('#ticket-content', 'Since 09:00 every message to gmail.com is deferred.');
  await p.selectOption('#ticket-product', 'sending');
  await p.selectOption('#ticket-priority', 'critical');
  await p.setInputFiles('#ticket-file', { name: 'headers.txt', mimeType: 'text/plain', buffer: Buffer.from('421 4.7.0 Try again later\n') });
  await Promise.all([p.waitForURL((u) => /^\/support\/tickets\/\d+$/.test(u.pathname)), p.click('#open-ticket')]);
  const id = Number(new URL(p.url()).pathname.split('/').pop());
  t.match(await p.textContent('p.notice'), /Your ticket is opened/);
  t.match(await p.textContent('#ticket-status'), /New/);
  const href = await p.getAttribute('a[download]', 'href');
  const file = await p.request.get(`${h.url}${href}`);
  t.equal(await file.text(), '421 4.7.0 Try again later\n', 'the file is downloaded as sent');
  t.same(await seriousViolations(p), [], 'the ticket');
  await p.close();

  // An operator answers it on the admin pages.
  p = await signedInTab(browser, h.url, operatorEmail, '/admin/support');
  t.same(await seriousViolations(p), [], "the operator's list");
  await Promise.all([p.waitForURL((u) => u.pathname === `/admin/support/${id}`), p.click(`a[href="/admin/support/${id}"]`)]);
  t.match(await p.textContent('#account-context'), /Credits/, 'the account beside the ticket');
  t.same(await seriousViolations(p), [], "the operator's ticket");
  await p.fill('#reply-content', 'Gmail throttles new senders: we have slowed your sending to it.');
  await Promise.all([p.waitForURL((u) => u.search === '?done=answered'), p.click('#send-reply')]);
  t.match(await p.textContent('p.notice'), /Your answer is added/);
  t.match(await p.textContent('#ticket-status'), /Active/);
  // The operator takes the ticket: the form on its page, then the list of its own.
  const operatorId = (await h.rt.store.users.findByEmail(operatorEmail))!.id;
  await p.selectOption('#assign-agent', String(operatorId));
  await Promise.all([p.waitForURL((u) => u.search === '?done=assigned'), p.click('#assign-ticket')]);
  t.equal(await p.locator('#assign-agent').inputValue(), String(operatorId), 'the assignee is shown');
  t.same(await seriousViolations(p), [], 'the assigned ticket');
  await p.goto(`${h.url}/admin/support-settings?search=anything`);
  t.same(await seriousViolations(p), [], 'the support settings');
  await p.goto(`${h.url}/admin/support?assigned=me`);
  t.equal(await p.locator(`a[href="/admin/support/${id}"]`).count(), 1, "in the operator's own list");
  await p.goto(`${h.url}/admin/support?assigned=none`);
  t.equal(await p.locator(`a[href="/admin/support/${id}"]`).count(), 0, 'not among the unassigned');
  t.match((await h.rt.store.auditLog.list({ action: 'ticket.assign' }, { page: 1, perPage: 5 })).rows[0], { after: { assigned_to: operatorId } }, 'audited');
  await p.close();

  // The user is mailed; the link leads to the ticket's page.
  const { parsed } = await mailTo(w.sink, email);
  t.equal(parsed.subject, `Re: [Ticket #${id}] Gmail defers our mail`);
  const link = /Read it and reply: (\S+)/.exec(parsed.text ?? '')?.[1] ?? '';
  t.equal(link, `${PUBLIC_URL}/support/tickets/${id}`);
  p = await signedInTab(browser, h.url, email, new URL(link).pathname);
  t.match(await p.textContent('li.response.agent'), /Gmail throttles new senders/);

  // The user likes the answer, closes and re-opens the ticket.
  const like = p.locator('li.response.agent button[value="like"]');
  await Promise.all([p.waitForURL((u) => u.search === '?done=liked'), like.click()]);
  t.equal(await p.locator('li.response.agent button[value="like"]').getAttribute('aria-pressed'), 'true', 'the vote is shown');
  t.same(await seriousViolations(p), [], 'the ticket with its answer');
  p.once('dialog', (d) => void d.accept());
  await Promise.all([p.waitForURL((u) => u.search === '?done=closed'), p.click('#close-ticket')]);
  t.match(await p.textContent('#ticket-status'), /Closed/);
  t.equal(await p.locator('#send-reply').count(), 0, 'a closed ticket takes no reply');
  await Promise.all([p.waitForURL((u) => u.search === '?done=reopened'), p.click('#reopen-ticket')]);
  t.match(await p.textContent('#ticket-status'), /Active/);
  t.same(await seriousViolations(p), [], 'the re-opened ticket');
  const stored = await h.rt.store.support.responsesOf(id);
  t.equal(stored[0]?.feedback, 'like', 'the vote is stored');
  await p.close();
});

t.test('the assign form: a forged one from a customer is missing (404), an unknown operator is the page’s 400, nobody unassigns', async (t) => {
  const cookie = await signedIn('owner');
  const id = await opened(cookie);
  const operator = await signInOverHttp(h, await operatorOn(h));
  const forged = await post(cookie, `/admin/support/${id}/assign`, { agent_id: '' });
  t.equal(forged.status, 404, "a customer's post: the operators' pages are missing to a customer");
  const unknown = await post(operator, `/admin/support/${id}/assign`, { agent_id: '99999999' }, `/admin/support/${id}`);
  t.equal(unknown.status, 400);
  t.match(unknown.text, /agent_id must be the id of an operator/);
  const nobody = await post(operator, `/admin/support/${id}/assign`, { agent_id: '' }, `/admin/support/${id}`);
  t.equal(nobody.headers.get('location'), `/admin/support/${id}?done=assigned`);
  t.equal((await h.rt.store.support.getTicket(id))?.assignedTo, null);
});

t.test('the support settings page saves where tickets go and adds a doc (audited, the REST use cases); bad input in the form’s words', async (t) => {
  const operator = await signInOverHttp(h, await operatorOn(h));
  const from = '/admin/support-settings';
  t.equal((await page(h, 'GET', from, { cookie: operator })).status, 200);
  const bad = await post(operator, `${from}/forwarding`, { forward_url: 'http://helpdesk.example.com:9000/in' }, from);
  t.equal(bad.status, 400);
  t.match(bad.text, /Forwarding URL/);
  t.match(bad.text, /value="http:\/\/helpdesk\.example\.com:9000\/in"/, 'what was typed comes back');
  t.same(await h.rt.store.support.settings(), { forwardUrl: null, forwardSecretEnc: null, updatedAt: null }, 'nothing saved');
  const saved = await post(operator, `${from}/forwarding`, { forward_url: 'https://helpdesk.example.com/in' }, from);
  t.equal(saved.status, 200, 'the answer shows the new signing secret, once');
  const secret = /whsec_[A-Za-z0-9+/=]+/.exec(saved.text)?.[0];
  t.ok(secret);
  t.match(await h.rt.store.support.settings(), { forwardUrl: 'https://helpdesk.example.com/in' });
  t.match((await h.rt.store.auditLog.list({ action: 'support.settings' }, { page: 1, perPage: 1 })).rows[0], {
    after: { forward_url: 'https://helpdesk.example.com/in' },
  });
  const shown = (await page(h, 'GET', from, { cookie: operator })).text;
  t.match(shown, /value="https:\/\/helpdesk\.example\.com\/in"/, 'shown on the page');
  t.notOk(shown.includes(secret!), 'the secret is not shown again');

  const noLink = await post(operator, `${from}/docs`, { title: 'SPF <basics>', link: 'ftp://docs.example.com/spf' }, from);
  t.equal(noLink.status, 400);
  t.match(noLink.text, /Link/);
  const added = await post(operator, `${from}/docs`, { title: 'SPF <basics>', link: 'https://docs.example.com/spf' }, from);
  t.equal(added.status, 303);
  const listed = await page(h, 'GET', added.headers.get('location')!, { cookie: operator });
  t.match(listed.text, /SPF &lt;basics&gt;/, 'found by its title, escaped');
  t.equal((await h.rt.store.support.searchDocs('SPF', 10)).length, 1);
  const customer = await signedIn('owner');
  t.equal((await post(customer, `${from}/docs`, { title: 'Mine', link: 'https://docs.example.com/mine' })).status, 404, "a customer's forged post");
  t.equal((await h.rt.store.support.searchDocs('Mine', 10)).length, 0);
});

t.test("the same vote again removes it; only an operator's answer takes a vote", async (t) => {
  const cookie = await signedIn('owner');
  const id = await opened(cookie);
  const operator = await signInOverHttp(h, await operatorOn(h));
  const answered = await post(operator, `/admin/support/${id}/responses`, { content: 'Fixed on our side.' }, `/admin/support/${id}`);
  t.equal(answered.status, 303);
  t.equal(answered.headers.get('location'), `/admin/support/${id}?done=answered`);
  const mine = await post(cookie, `/support/tickets/${id}/responses`, { content: 'Thanks!' });
  t.equal(mine.status, 303);
  const [answer, own] = await h.rt.store.support.responsesOf(id);
  const vote = (responseId: number, value: string) => post(cookie, `/support/tickets/${id}/responses/${responseId}/vote`, { vote: value });
  t.match((await vote(answer!.id, 'like')).headers.get('location'), /\?done=liked#response-/);
  t.match((await vote(answer!.id, 'dislike')).headers.get('location'), /\?done=disliked#/, 'a dislike replaces the like');
  t.match((await vote(answer!.id, 'dislike')).headers.get('location'), /\?done=vote_removed#/, 'the same vote again removes it');
  t.equal((await h.rt.store.support.responsesOf(id))[0]!.feedback, null);
  t.equal((await vote(own!.id, 'like')).status, 404, "the user's own response takes no vote");
  t.equal((await vote(answer!.id, 'love')).status, 400, 'only like or dislike');
  const audit = await page(h, 'GET', '/admin/audit-log', { cookie: operator });
  t.match(audit.text, /ticket\.respond/, "the operator's answer is in the audit log");
});
