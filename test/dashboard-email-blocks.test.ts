// Tern's invitation mail written in WordPress blocks (issue 27, must show 3), over real HTTP and real SMTP: an
// operator saves the invitation's body as block markup (tern-auth/v1 /wp-default-emails), an owner whose name is
// `<script>` invites to a team named `<script>`, the MTA delivers to the loopback sink, and the message there is
// DKIM-signed (verified by mailauth against the world's DNS), rendered from the blocks as tables with a text part,
// with `<script>` put in every field (block text, a button's URL, an image's alt, raw HTML, the subject, the
// inviter's name, the team's name) escaped or dropped, never executable. A block body is previewed and validated
// like any other; the saved markup comes back as saved.
import t from 'tap';
import escapeHtml from 'escape-html';
import { dkimVerdict, startMailWorld } from './helpers/mail-world.js';
import { logIn, operatorOn, signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { mailTo } from './helpers/system-mail.js';
import { assertInert } from './helpers/inert-html.js';

const w = await startMailWorld({
  overrides: { systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 10, dnsInstructionsPerDomainPerHour: 5 } },
});
t.teardown(() => w.close());
const h = w.h;

const EMAILS = '/api/tern-auth/v1/wp-default-emails';
const operator: SignedIn = await logIn(h, await operatorOn(h));
const as = (s: SignedIn, body?: unknown) => ({ ...withSession(s), ...(body === undefined ? {} : { body }) });
const save = (emailData: Record<string, unknown>) => h.request('POST', `${EMAILS}/save-email-settings`, as(operator, { email_id: 'invitation', email_data: emailData }));
t.afterEach(() => h.request('POST', `${EMAILS}/save-email-settings`, as(operator, { email_id: 'invitation', reset: true })));

const script = (where: string) => `<script>alert("${where}")</script>`;
const block = (name: string, inner: string, attrs?: unknown) =>
  `<!-- wp:${name}${attrs === undefined ? '' : ` ${JSON.stringify(attrs)}`} -->\n${inner}\n<!-- /wp:${name} -->`;

const SUBJECT = `${script('subject')} Join {{team.name}}`;
/** The invitation in blocks, with `<script>` (or a javascript: URL) in each field an author fills. */
const BODY = [
  block('heading', '<h2 class="wp-block-heading">Welcome to {{team.name}}</h2>', { level: 2 }),
  block('paragraph', `<p>{{inviter.name}} invited you as <strong>{{invitation.role}}</strong>. ${script('block text')}</p>`),
  block(
    'image',
    `<figure class="wp-block-image"><img src="https://cdn.example.com/logo.png" alt="${script('alt').replace(/"/g, '&quot;')}" onerror="alert('img')"/></figure>`,
  ),
  block(
    'buttons',
    `<div class="wp-block-buttons">${block('button', '<div class="wp-block-button"><a class="wp-block-button__link" href="{{invitation.url}}">Accept the invitation</a></div>', { style: { color: { background: '#0a7d32' } } })}${block('button', `<div class="wp-block-button"><a class="wp-block-button__link" href="javascript:alert('button')">Not a link ${script('label')}</a></div>`)}</div>`,
    { layout: { type: 'flex', justifyContent: 'center' } },
  ),
  block('separator', '<hr class="wp-block-separator has-alpha-channel-opacity"/>'),
  block('html', `<p onmouseover="alert('raw')">Raw <b>HTML</b>${script('raw')}<iframe src="https://evil.example/"></iframe></p>`),
  block('paragraph', '<p>The link works once, until {{invitation.expires_at}}.</p>'),
].join('\n\n');

const INVITER = script('inviter');
const TEAM = `${script('team')} & co`;

t.test('an invitation written in blocks reaches the sink DKIM-signed, rendered to tables and text, <script> in every field inert', async (t) => {
  const saved = await save({ subject: SUBJECT, body: BODY });
  t.equal(saved.status, 200, saved.text);
  t.match(saved.body, { email: { edited: true }, settings: { subject: SUBJECT, body: BODY } }, 'the block markup is kept as written');

  const owner = await signedInOn(h);
  const named = await h.request('POST', '/api/tern/v2/profile', as(owner.session, { name: INVITER }));
  t.equal(named.status, 200, named.text);
  const team = await h.request('POST', '/api/tern/v2/api/create-team', as(owner.session, { name: TEAM }));
  t.equal(team.status, 201, team.text);
  const email = `blocks-${process.pid}@dest.test`;
  const invited = await h.request(
    'POST',
    '/api/tern/v2/internal/send-invitation',
    as(owner.session, { email, role: 'viewer', team_id: (team.body as { id: number }).id }),
  );
  t.equal(invited.status, 201, invited.text);

  const { sunk, parsed } = await mailTo(w.sink, email);
  const dkim = await dkimVerdict(w, sunk.raw);
  t.equal(dkim.result, 'pass', 'DKIM-signed by the MTA, verified against the published key');
  t.match(dkim.signedHeaders, /from/i);
  t.match(dkim.signedHeaders, /subject/i, 'the subject is signed');

  const accountName = (await h.rt.store.teams.get(owner.accountId))!.name;
  const teamName = `${TEAM} (a team of ${accountName})`;
  t.equal(parsed.subject, `${script('subject')} Join ${teamName}`, 'the subject header is text, as typed');

  const html = String(parsed.html);
  t.match(html, '<table role="presentation"', 'table layout');
  t.notMatch(html, /<style|<link /, 'no stylesheet: inline styles only');
  t.match(html, `<title>${escapeHtml(`${script('subject')} Join ${teamName}`)}</title>`, 'the subject, escaped in the document');
  t.match(html, `>Welcome to ${asText(teamName)}</h2>`, "the team's name, escaped");
  t.match(html, `${asText(`${INVITER} (${owner.email})`)} invited you as <strong>viewer</strong>.`, "the inviter's name, escaped");
  t.notMatch(html, 'alert("block text")', "the block's own <script> is dropped with its content");
  t.match(html, `alt="${escapeHtml(script('alt'))}"`, "the image's alt, escaped in its attribute");
  const link = /<a href="(https?:\/\/[^"]+\/accept-invitation\?token=[A-Za-z0-9_-]{43})" style="[^"]*">Accept the invitation<\/a>/.exec(html);
  t.ok(link, 'the button links to the invitation');
  t.match(html, /<td bgcolor="#0a7d32"/, "the button's colour");
  t.match(html, /<span style="[^"]*">Not a link<\/span>/, 'the javascript: button links nowhere, its <script> gone');
  t.match(html, 'Raw <b>HTML</b>', 'raw HTML kept as far as it is safe');
  assertInert(t, html, ['meta']);
  t.notMatch(html, /<script/i);

  t.match(parsed.text, `Welcome to ${teamName}`, 'the text part says the values as typed');
  t.match(parsed.text, `${INVITER} (${owner.email}) invited you as viewer.`);
  t.match(parsed.text, `Accept the invitation ${link?.[1] ?? 'a link'}`, 'the button in the text part: its label and its link');
  t.match(parsed.text, /The link works once, until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
  t.notMatch(parsed.text, /javascript:|&lt;|<table/, 'no dropped link, no entity, no markup');

  // The button's link is the invitation's: its page offers the invitation to this address.
  const accept = new URL(link?.[1] ?? 'http://missing.invalid/');
  const page = await h.request('GET', `${accept.pathname}${accept.search}`);
  t.equal(page.status, 200, page.text);
  t.match(page.text, `with the email address <strong>${email}</strong>`);
});

t.test('a block body is previewed from its blocks with sample values, and validated like any body, its required link shown in the mail', async (t) => {
  const preview = await h.request('POST', `${EMAILS}/preview`, as(operator, { email_id: 'invitation', email_data: { subject: SUBJECT, body: BODY } }));
  t.equal(preview.status, 200, preview.text);
  const rendered = (preview.body as { rendered_email: { subject: string; html: string; text: string } }).rendered_email;
  t.match(rendered.html, '<a href="https://dash.example.com/accept-invitation?token=sample" style="');
  t.match(rendered.html, '>Welcome to Acme</h2>');
  assertInert(t, rendered.html, ['meta']);
  t.match(rendered.text, 'Accept the invitation https://dash.example.com/accept-invitation?token=sample');

  const missing = await save({ subject: 'Join', body: block('paragraph', '<p>Welcome to {{team.name}}</p>') });
  t.equal(missing.status, 400);
  t.match(missing.body, { code: 'rest_invalid_param', data: { params: { body: /must keep the smartcodes \{\{invitation\.url\}\}/ } } });
  const unknown = await save({ subject: 'Join', body: block('paragraph', '<p><a href="{{invitation.url}}">go</a> {{team.nme}}</p>') });
  t.match(unknown.body, { data: { params: { body: /\{\{team\.nme\}\} is not a smartcode/ } } });
  for (const [where, body] of [
    ['a setting of a block Tern does not know', `<!-- wp:acme/link {"url":"{{invitation.url}}"} /-->${block('paragraph', '<p>Welcome</p>')}`],
    ['the source of an image', block('image', '<figure><img src="{{invitation.url}}" alt=""/></figure>')],
  ]) {
    const hidden = await save({ subject: 'Join', body: body! });
    t.equal(hidden.status, 400, `the link only in ${where!} is refused`);
    t.match(hidden.body, { data: { params: { body: /must show \{\{invitation\.url\}\} in a block the mail shows/ } } });
  }
  t.match((await h.request('GET', `${EMAILS}/find-email?email_id=invitation`, as(operator))).body, { email: { edited: false } }, 'nothing saved');
});

/** A text as it stands in HTML text: its &, < and > escaped (quotes need no escaping outside attributes). */
const asText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
