// Tern's own mail on a first install (issue 22 item 7), over real HTTP: without a system sender the team page
// still lists its members and an invitation is made with its link shown once to the inviter; the operator's
// platform page offers the first verified domain as the sender and one click stores it (audited), after which
// Tern's mail goes from it; a sender set by the configuration wins and the page offers nothing to change it.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { operatorOn, userOn } from './helpers/dashboard-session.js';
import { formGuardOf, page, signInOverHttp } from './helpers/web-pages.js';
import { storedDomain } from './helpers/sending-setup.js';

let h: Harness;

t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h?.close());

const main = (text: string) => text.slice(text.indexOf('<main'));

t.test('without a system sender, an invitation from the team page keeps the member list and shows its link this once', async (t) => {
  const account = await h.account();
  const ownerEmail = await userOn(h, account.id, 'owner');
  const cookie = await signInOverHttp(h, ownerEmail);
  const email = `first-member.${process.pid}@example.com`;
  const sent = await page(h, 'POST', '/team/invitations', { cookie, form: { ...(await formGuardOf(h, cookie, '/team')), email, role: 'viewer' } });
  t.equal(sent.status, 200, 'the page itself answers, carrying the link');
  const shown = main(sent.text);
  t.match(shown, /Tern could not email it/, 'the inviter is told the mail did not go');
  t.match(shown, /has not chosen the address Tern sends from/, 'in a sentence meant for them');
  t.notMatch(shown, /systemMail|TERNMAIL_/, 'naming no setting');
  const link = /id="invitation-link-value">([^<]+)</.exec(shown)?.[1];
  t.match(link, /^http:\/\/127\.0\.0\.1:\d+\/accept-invitation\?token=[A-Za-z0-9_-]{43}$/, 'the link, to copy');
  t.match(shown, '<h2>Members</h2>', 'the member list stays');
  t.match(shown, `<td>${ownerEmail}</td>`);
  t.match(shown, /<span class="status pending">Open<\/span>/, 'the invitation is listed as open');
  const again = await page(h, 'GET', '/team', { cookie });
  t.notMatch(again.text, /invitation-link-value|accept-invitation\?token/, 'the link is not shown again');
  const opened = await page(h, 'GET', new URL(link!).pathname + new URL(link!).search);
  t.equal(opened.status, 200, 'the link opens the acceptance page');
});

t.test("the operator's page offers the first verified domain; one click makes it the sender, audited, and Tern's mail goes from it", async (t) => {
  const operator = await signInOverHttp(h, await operatorOn(h));
  const before = await page(h, 'GET', '/admin', { cookie: operator });
  t.match(main(before.text), /Tern cannot send its own mail yet/);
  t.match(main(before.text), /Verify a domain first/, 'no domain to offer yet');
  t.notMatch(before.text, 'action="/admin/system-sender"');

  const account = await h.account({ credits: 100 });
  await storedDomain(h, account.id, `draft-${process.pid}.com`, true);
  const verified = await storedDomain(h, account.id, `mail-${process.pid}.com`);
  const offered = await page(h, 'GET', '/admin', { cookie: operator });
  t.match(main(offered.text), `noreply@${verified.name}`, 'the verified domain is offered, not the draft');
  const number = /name="domain"\s+value="(\d+)"/.exec(offered.text)?.[1];
  t.ok(number, 'the form names the domain');

  const clicked = await page(h, 'POST', '/admin/system-sender', { cookie: operator, form: { ...(await formGuardOf(h, operator, '/admin')), domain: number! } });
  t.equal(clicked.status, 303);
  t.equal(clicked.headers.get('location'), '/admin?done=system_sender_set');
  const after = await page(h, 'GET', '/admin?done=system_sender_set', { cookie: operator });
  t.match(main(after.text), `Tern sends its own mail from noreply@${verified.name} (chosen on this page)`);
  t.notMatch(after.text, 'action="/admin/system-sender"', 'nothing more is offered');
  t.match(await h.rt.store.system.systemSender(), { address: `noreply@${verified.name}` }, 'stored in the database');
  const audit = await h.rt.store.auditLog.list({ action: 'system_mail.sender' }, { page: 1, perPage: 10 });
  t.match(audit.rows, [{ target: { kind: 'platform', id: 'system_mail.from' }, before: null, after: { address: `noreply@${verified.name}` } }], 'audited');

  const ownerEmail = await userOn(h, account.id, 'owner');
  const cookie = await signInOverHttp(h, ownerEmail);
  const invited = await page(h, 'POST', '/team/invitations', {
    cookie,
    form: { ...(await formGuardOf(h, cookie, '/team')), email: `mailed.${process.pid}@example.com`, role: 'viewer' },
  });
  t.equal(invited.status, 303, 'now the invitation is mailed');
  const [inv] = await h.rt.store.invitations.list(account.id, { page: 1, perPage: 1 }).then((p) => p.rows);
  t.ok(inv?.messageId, 'with the message that carries it');
});

t.test('a sender set by the configuration wins: the page names the setting and refuses a change', async (t) => {
  const configured = await startHarness({
    overrides: { systemMail: { from: `tern@cfg-${process.pid}.com`, fromName: 'Tern', perRecipientPerHour: 5, dnsInstructionsPerDomainPerHour: 5 } },
  });
  t.teardown(() => configured.close());
  const account = await configured.account();
  await storedDomain(configured, account.id, `other-${process.pid}.com`);
  const operator = await signInOverHttp(configured, await operatorOn(configured));
  const shown = await page(configured, 'GET', '/admin', { cookie: operator });
  t.match(main(shown.text), /set by TERNMAIL_SYSTEM_MAIL_FROM/, 'the operator sees where the sender is set');
  t.notMatch(shown.text, 'action="/admin/system-sender"', 'no offer: a stored sender would not be used');
  const forged = await page(configured, 'POST', '/admin/system-sender', {
    cookie: operator,
    form: { ...(await formGuardOf(configured, operator, '/admin')), domain: '1' },
  });
  t.equal(forged.status, 403);
  t.equal(await configured.rt.store.system.systemSender(), null, 'nothing stored');
});
