// The mail Tern sends itself, edited by operators over real HTTP (tern-auth/v1 /wp-default-emails), with the
// MTA delivering to a loopback sink: the emails listed and found, a preview with sample values, an edit of the
// invitation changing the invitation mail the sink receives (a team named `<script>` escaped in it), a body
// without a required smartcode refused, an email that may not be off refused off, a reset, the layout's from
// name, reply-to and footer in the mail; anonymous 401, an account's owner 403; every change in the audit log.
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { logIn, operatorOn, PASSWORD, signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { signInInBrowser, startBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { mailTo } from './helpers/system-mail.js';

const w = await startMailWorld({
  overrides: { systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 10, dnsInstructionsPerDomainPerHour: 5 } },
});
t.teardown(() => w.close());
const h = w.h;

const EMAILS = '/api/tern-auth/v1/wp-default-emails';
const operator: SignedIn = await logIn(h, await operatorOn(h));
const as = (s: SignedIn, body?: unknown) => ({ ...withSession(s), ...(body === undefined ? {} : { body }) });
let counter = 0;
const invitee = () => `tpl-${++counter}-${process.pid}@dest.test`;

const save = (emailId: string, emailData: Record<string, unknown>, s = operator) =>
  h.request('POST', `${EMAILS}/save-email-settings`, as(s, { email_id: emailId, email_data: emailData }));

async function invite(owner: SignedIn, email: string, teamId?: number): Promise<void> {
  const reply = await h.request('POST', '/api/tern/v2/internal/send-invitation', { ...as(owner, { email, role: 'viewer', ...(teamId ? { team_id: teamId } : {}) }) });
  if (reply.status !== 201) throw new Error(`inviting: ${reply.status} ${reply.text}`);
}

const auditActions = async () => (await h.rt.store.auditLog.list({ targetKind: 'platform' }, { page: 1, perPage: 50 })).rows.map((e) => e.action);

t.afterEach(async () => {
  for (const id of ['invitation', 'lockout_notice']) await h.request('POST', `${EMAILS}/save-email-settings`, as(operator, { email_id: id, reset: true }));
  await h.request('POST', `${EMAILS}/save-template-settings`, as(operator, { logo_url: null, primary_color: '#1a56db', footer: '', from_name: null, reply_to: null }));
});

t.test('operators list the emails and find one with its smartcodes and default; others are refused', async (t) => {
  const list = await h.request('GET', EMAILS, as(operator));
  t.equal(list.status, 200);
  const indexes = (list.body as { emailIndexes: Array<{ name: string; can_disable: boolean; required_smartcodes: string[]; status: string }> }).emailIndexes;
  t.same(
    indexes.map((e) => e.name),
    ['invitation', 'password_reset', 'two_step_code', 'lockout_notice', 'platform_invitation', 'dns_instructions', 'low_balance', 'support_response', 'magic_link'],
  );
  t.match(indexes[0], { can_disable: false, required_smartcodes: ['{{invitation.url}}'], status: 'active' });
  const byName = new Map(indexes.map((e) => [e.name, e]));
  t.match(byName.get('platform_invitation'), { can_disable: false, required_smartcodes: ['{{invitation.url}}'] });
  t.match(byName.get('dns_instructions'), { can_disable: false, required_smartcodes: ['{{dns.records}}'] });
  t.match(byName.get('low_balance'), { can_disable: true, required_smartcodes: ['{{credits.balance}}'] });
  t.match(byName.get('support_response'), { can_disable: true, required_smartcodes: ['{{response.content}}'] });
  t.match((await h.request('GET', `${EMAILS}/find-email?email_id=support_response`, as(operator))).body, {
    settings: { subject: 'Re: [Ticket #{{ticket.id}}] {{ticket.title}}' },
    smartcodes: [{ code: '{{ticket.id}}' }, { code: '{{ticket.title}}' }, { code: '{{ticket.url}}' }],
  });
  const found = await h.request('GET', `${EMAILS}/find-email?email_id=invitation`, as(operator));
  t.match(found.body, {
    email: { name: 'invitation' },
    settings: { subject: /\{\{account\.name\}\}/ },
    smartcodes: [{ code: '{{invitation.url}}' }],
    default_content: { body: /\{\{invitation\.url\}\}/ },
  });
  t.match((await h.request('GET', `${EMAILS}/find-email?email_id=nope`, as(operator))).body, {
    code: 'rest_invalid_param',
    data: { status: 400, params: { email_id: String } },
  });
  t.equal((await h.request('GET', EMAILS)).status, 401, 'anonymous');
  const owner = await signedInOn(h);
  t.equal((await h.request('GET', EMAILS, as(owner.session))).status, 403, "an account's owner is no operator");
  t.equal((await save('invitation', { subject: 'x', body: '{{invitation.url}}' }, owner.session)).status, 403);
});

t.test('a preview renders a draft with sample values, escaped, and its text part; nothing is saved', async (t) => {
  const reply = await h.request(
    'POST',
    `${EMAILS}/preview`,
    as(operator, {
      email_id: 'invitation',
      email_data: { subject: 'Join {{account.name}}', body: '<p>From {{inviter.name}}: <a href="{{invitation.url}}">accept</a></p>' },
    }),
  );
  t.equal(reply.status, 200, reply.text);
  const rendered = (reply.body as { rendered_email: { subject: string; html: string; text: string } }).rendered_email;
  t.equal(rendered.subject, 'Join Acme');
  t.match(rendered.html, 'From Ada Lovelace (ada@example.com): <a href="https://dash.example.com/accept-invitation?token=sample">accept</a>');
  t.match(rendered.text, 'From Ada Lovelace (ada@example.com): accept https://dash.example.com/accept-invitation?token=sample');
  t.match((await h.request('GET', `${EMAILS}/find-email?email_id=invitation`, as(operator))).body, { email: { edited: false } }, 'not saved');
});

t.test('an edited invitation is the mail the sink receives, a team named <script> escaped in it; the default comes back on reset', async (t) => {
  const owner = await signedInOn(h);
  const team = await h.request('POST', '/api/tern/v2/api/create-team', { ...as(owner.session, { name: '<script>alert(1)</script> & co' }) });
  t.equal(team.status, 201, team.text);
  const teamId = (team.body as { id: number }).id;
  const edited = await save('invitation', {
    subject: 'Come and join {{team.name}}',
    body: '<p>Welcome to <b>{{team.name}}</b>.</p>\n<p>Start here: {{invitation.url}}</p>',
  });
  t.equal(edited.status, 200, edited.text);
  t.match(edited.body, { email: { edited: true }, settings: { subject: 'Come and join {{team.name}}' } });
  const email = invitee();
  await invite(owner.session, email, teamId);
  const { parsed } = await mailTo(w.sink, email);
  const accountName = (await h.rt.store.teams.get(owner.accountId))!.name;
  t.equal(parsed.subject, `Come and join <script>alert(1)</script> & co (a team of ${accountName})`, 'the subject is text: as typed');
  const html = String(parsed.html);
  t.match(html, 'Welcome to <b>&lt;script&gt;alert(1)&lt;/script&gt; &amp; co');
  t.notMatch(html, '<script>', 'no markup from the name');
  t.match(
    parsed.text,
    /Welcome to <script>alert\(1\)<\/script> & co \(a team of .*\)\.\s+Start here: https?:\/\/\S+\/accept-invitation\?token=[A-Za-z0-9_-]{43}/,
    'the text part, generated, as typed',
  );

  const reset = await h.request('POST', `${EMAILS}/save-email-settings`, as(operator, { email_id: 'invitation', reset: true }));
  t.match(reset.body, { email: { edited: false }, settings: { subject: 'You are invited to {{account.name}} on Tern' } });
  const second = invitee();
  await invite(owner.session, second);
  t.match((await mailTo(w.sink, second)).parsed.subject, /^You are invited to .* on Tern$/);
  const actions = await auditActions();
  t.ok(actions.includes('email_template.save') && actions.includes('email_template.reset'), 'both in the audit log');
});

t.test('a body without a required smartcode, an unknown smartcode, or a required email turned off is refused, and nothing changes', async (t) => {
  const missing = await save('invitation', { subject: 'Join', body: '<p>Welcome.</p>' });
  t.equal(missing.status, 400);
  t.match(missing.body, { code: 'rest_invalid_param', data: { status: 400, params: { body: /must keep the smartcodes \{\{invitation\.url\}\}/ } } });
  t.match((await save('invitation', { subject: 'Join', body: '{{invitation.url}} {{invitation.urll}}' })).body, {
    data: { params: { body: /\{\{invitation\.urll\}\} is not a smartcode/ } },
  });
  t.match((await save('invitation', { subject: 'Join', body: '{{invitation.url}}', status: 'disabled' })).body, {
    data: { params: { enabled: /cannot be turned off/ } },
  });
  for (const [id, body] of [
    ['platform_invitation', '{{invitation.url}}'],
    ['dns_instructions', '<pre>{{dns.records}}</pre>'],
  ])
    t.match((await save(id!, { subject: 'x', body: body!, status: 'disabled' })).body, { data: { params: { enabled: /cannot be turned off/ } } }, `${id} stays on`);
  t.match((await save('dns_instructions', { subject: 'x', body: '<p>{{domain.name}}</p>' })).body, { data: { params: { body: /\{\{dns\.records\}\}/ } } });
  t.match((await save('support_response', { subject: 'x', body: '{{response.content}} {{#ticket.ur}}x{{/ticket.ur}}' })).body, {
    data: { params: { body: /\{\{ticket\.ur\}\} is not a smartcode/ } },
  });
  t.match((await save('invitation', { subject: 'Two\nlines', body: '{{invitation.url}}' })).body, { data: { params: { subject: /one line/ } } });
  t.match((await h.request('GET', `${EMAILS}/find-email?email_id=invitation`, as(operator))).body, { email: { edited: false } }, 'nothing saved');
  const off = await save('lockout_notice', { subject: 'Locked: {{lockout.email}}', body: '<p>{{lockout.email}}</p>', status: 'disabled' });
  t.equal(off.status, 200, 'an optional email may be off');
  t.match(off.body, { email: { status: 'disabled' } });
});

t.test('the layout: from name, reply-to, footer and colour in every mail; bad values refused naming each', async (t) => {
  const bad = await h.request(
    'POST',
    `${EMAILS}/save-template-settings`,
    as(operator, { logo_url: 'http://insecure.example/logo.png', primary_color: 'red', reply_to: 'nobody' }),
  );
  t.equal(bad.status, 400);
  t.match(bad.body, { code: 'rest_invalid_param', data: { params: { logoUrl: /https URL/ } } });
  const saved = await h.request(
    'POST',
    `${EMAILS}/save-template-settings`,
    as(operator, { primary_color: '#aa3300', footer: 'Acme Mail, 1 Road', from_name: 'Acme Mail', reply_to: 'help@example.com' }),
  );
  t.equal(saved.status, 200, saved.text);
  t.match((await h.request('GET', `${EMAILS}/template-settings`, as(operator))).body, {
    primary_color: '#aa3300',
    from_name: 'Acme Mail',
    reply_to: 'help@example.com',
    logo_url: null,
  });
  const owner = await signedInOn(h);
  const email = invitee();
  await invite(owner.session, email);
  const { parsed } = await mailTo(w.sink, email);
  t.equal(parsed.from?.value[0]?.name, 'Acme Mail');
  t.equal(parsed.replyTo?.value[0]?.address, 'help@example.com');
  t.match(String(parsed.html), 'a{color:#aa3300}');
  t.match(parsed.text, 'Acme Mail, 1 Road');
  t.ok((await auditActions()).includes('email_layout.save'));
  const cleared = await h.request('POST', `${EMAILS}/save-template-settings`, as(operator, { from_name: null, reply_to: null }));
  t.match(cleared.body, { from_name: null, reply_to: null, footer: 'Acme Mail, 1 Road' }, 'null clears a field; a field not sent stays');
});

t.test('in Chromium: an operator previews, is refused without the link, saves and resets the invitation on /admin/emails', async (t) => {
  const email = await operatorOn(h);
  const browser = await startBrowser();
  t.teardown(() => browser.close());
  const p = await browser.context.newPage();
  await signInInBrowser(p, h.url, email, PASSWORD, (path) => path.startsWith('/admin'));
  await p.goto(`${h.url}/admin/emails`);
  t.same(await seriousViolations(p), [], 'the list of emails');
  for (const id of ['platform_invitation', 'dns_instructions', 'low_balance', 'support_response'])
    t.equal(await p.locator(`a[href="/admin/emails/${id}"]`).count(), 1, `${id} is listed`);
  await Promise.all([p.waitForURL((url) => url.pathname === '/admin/emails/invitation'), p.click('a[href="/admin/emails/invitation"]')]);
  await p.fill('#subject', 'Join {{team.name}} now');
  await p.fill('#body', '<p>Hello from {{inviter.name}}</p>');
  await p.click('#preview');
  t.equal(await (await p.waitForSelector('#preview-subject')).textContent(), 'Join Acme now', 'the preview fills the samples');
  t.match(await p.textContent('#preview-text'), 'Hello from Ada Lovelace (ada@example.com)');
  t.same(await seriousViolations(p), [], 'the email with its preview');
  await p.click('#save-email');
  t.match(await (await p.waitForSelector('p.error, .error li')).textContent(), /Body must keep the smartcodes \{\{invitation\.url\}\}/);
  await p.fill('#body', '<p>Hello from {{inviter.name}}: {{invitation.url}}</p>');
  await p.click('#save-email');
  t.match(await (await p.waitForSelector('p.notice')).textContent(), /The email is saved/);
  t.match((await h.request('GET', `${EMAILS}/find-email?email_id=invitation`, as(operator))).body, {
    email: { edited: true },
    settings: { subject: 'Join {{team.name}} now' },
  });
  p.on('dialog', (d) => void d.accept());
  await p.click('#reset-email');
  t.match(await (await p.waitForSelector('p.notice')).textContent(), /back to its default wording/);
});

t.test('install-plugin is refused, saying Tern has no plugins: 501 for an operator, 403 for an owner, 401 anonymous', async (t) => {
  const path = '/api/tern-auth/v1/install-plugin';
  const refused = await h.request('POST', path, as(operator, {}));
  t.equal(refused.status, 501);
  t.match(refused.body, { code: 'tern_plugins_not_supported', message: /no plugins/, data: { status: 501 } });
  t.equal((await h.request('POST', path, as((await signedInOn(h)).session, {}))).status, 403);
  t.equal((await h.request('POST', path, { body: {} })).status, 401);
});
