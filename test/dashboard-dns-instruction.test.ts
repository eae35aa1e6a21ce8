// POST /api/tern/v2/api/domains/{domain_hash}/send_dns_instruction over real HTTP, with the MTA delivering to a
// loopback sink: the records arrive (the ones the domain's /v2 view shows), sent by Tern itself (DKIM-signed,
// in the system sender team's log with source `system`), rate-limited per domain and per recipient; bad
// input, other teams and viewers refused; without a configured system sender, a clear error and nothing queued.
import t from 'tap';
import { dkimVerdict, startMailWorld } from './helpers/mail-world.js';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { editEmail, resetEmail } from './helpers/email-templates.js';
import { countTo, mailTo } from './helpers/system-mail.js';
import { pause } from './helpers/wait.js';

const w = await startMailWorld({
  overrides: { systemMail: { from: 'tern@example.com', fromName: 'Tern at Example', perRecipientPerHour: 3, dnsInstructionsPerDomainPerHour: 2 } },
});
t.teardown(() => w.close());
const h = w.h;

const DOMAINS = '/api/tern/v2/api/domains';
const path = (id: string) => `${DOMAINS}/${id}/send_dns_instruction`;
let counter = 0;
const zoneAdmin = () => `zone-${++counter}@dest.test`;
const as = (s: SignedIn, o: { body?: unknown; teamId?: number } = {}) => ({ ...withSession(s), ...o });

interface Shown {
  id: string;
  domain_name: string;
  dns_records: { dkim: { name: string; content: string }; spf: Array<{ type: string; name: string; content: string }> };
}

async function draft(s: SignedIn): Promise<Shown> {
  const reply = await h.request<Shown>('POST', DOMAINS, as(s, { body: { name: `zone-${++counter}-${process.pid}.com` } }));
  if (reply.status !== 201) throw new Error(`adding a domain: ${reply.status} ${reply.text}`);
  return reply.body;
}

t.test('without a signed-in caller the route answers 401, a cookie without its nonce too, a wrong nonce 403', async (t) => {
  const { session } = await signedInOn(h);
  const d = await draft(session);
  t.match(await h.request('POST', path(d.id), { body: { email: zoneAdmin() } }), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('POST', path(d.id), { ...withSession(session, null), body: { email: zoneAdmin() } }), { status: 401 });
  t.match(await h.request('POST', path(d.id), { ...withSession(session, 'abcdef0123'), body: { email: zoneAdmin() } }), {
    status: 403,
    body: { code: 'rest_cookie_invalid_nonce' },
  });
});

t.test('the records arrive at the address given, as the /v2 domain shows them, sent and logged by Tern itself', async (t) => {
  const { session, adminKey } = await signedInOn(h);
  const d = await draft(session);
  const to = zoneAdmin();
  const reply = await h.request<{ message_id: string }>('POST', path(d.id), as(session, { body: { email: to } }));
  t.equal(reply.status, 202);
  t.match(reply.body, { message_id: String, to, domain_hash: d.id, domain_name: d.domain_name, queued: true });

  const { sunk, parsed } = await mailTo(w.sink, to);
  t.equal(parsed.from?.value[0]?.address, 'tern@example.com');
  t.equal(parsed.from?.value[0]?.name, 'Tern at Example');
  t.equal(parsed.subject, `DNS records for ${d.domain_name}`);
  t.equal(parsed.headers.get('auto-submitted'), 'auto-generated');
  const v2 = (await h.request<{ data: Shown }>('GET', `/v2/domains/${d.id}`, { key: adminKey })).body.data;
  for (const r of [v2.dns_records.dkim, ...v2.dns_records.spf]) {
    t.ok(parsed.text?.includes(`${r.name}.${d.domain_name}`), `the text names ${r.name}`);
    t.ok(parsed.text?.includes(r.content), `the text carries the value of ${r.name}`);
    t.ok(String(parsed.html).includes(r.content), `the HTML carries the value of ${r.name}`);
  }
  t.equal((await dkimVerdict(w, sunk.raw)).result, 'pass', 'signed for the system sender’s domain');

  const logged = await h.request<{ data: { source: string; status: string } }>('GET', `/v2/emails/${reply.body.message_id}`, { key: w.adminKey });
  t.equal(logged.status, 200, "in the message log of the sender domain's team");
  t.equal(logged.body.data.source, 'system');
  t.equal((await h.request('GET', `/v2/emails/${reply.body.message_id}`, { key: adminKey })).status, 404, "not in the requester's log");
});

t.test('an edited DNS records email is the mail the sink receives, the records in it', async (t) => {
  const operator = await logIn(h, await operatorOn(h));
  await editEmail(h, operator, 'dns_instructions', { subject: 'Publish these for {{domain.name}}', body: '<p>From {{requester.name}}:</p>\n<pre>{{dns.records}}</pre>' });
  t.teardown(() => resetEmail(h, operator, 'dns_instructions'));
  const { session, email } = await signedInOn(h);
  const d = await draft(session);
  const to = zoneAdmin();
  t.equal((await h.request('POST', path(d.id), as(session, { body: { email: to } }))).status, 202);
  const { parsed } = await mailTo(w.sink, to);
  t.equal(parsed.subject, `Publish these for ${d.domain_name}`);
  t.match(parsed.text, email, 'the requester named');
  t.match(parsed.text, `Name:    ${d.dns_records.dkim.name}.${d.domain_name}`, 'the records, one line each');
  t.match(String(parsed.html), /<pre>1\. TXT record<br> {3}Name: {4}/, 'the lines kept in HTML');
  t.notMatch(parsed.text, 'Once they are published', 'the default wording is gone');
});

t.test('the requester’s name is escaped in the HTML part', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const user = (await h.rt.store.users.findByEmail(email))!;
  await h.rt.store.users.update(user.id, { name: '<script>alert(1)</script> & co' });
  const session = await logIn(h, email);
  const d = await draft(session);
  const to = zoneAdmin();
  t.equal((await h.request('POST', path(d.id), as(session, { body: { email: to } }))).status, 202);
  const { parsed } = await mailTo(w.sink, to);
  t.notOk(String(parsed.html).includes('<script>'), 'no markup from the name');
  t.ok(String(parsed.html).includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; co'));
  t.ok(parsed.text?.includes('<script>alert(1)</script> & co'), 'the text part as typed');
});

t.test('a bad or missing email is refused in the dashboard shape, and nothing is sent', async (t) => {
  const { session } = await signedInOn(h);
  const d = await draft(session);
  const before = w.sink.messages.length;
  t.match(await h.request('POST', path(d.id), as(session, { body: { email: 'not an address' } })), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { email: String } } },
  });
  t.match(await h.request('POST', path(d.id), as(session, { body: {} })), { status: 400, body: { code: 'rest_missing_callback_param' } });
  t.match(await h.request('POST', path('no.such'), as(session, { body: { email: zoneAdmin() } })), { status: 404, body: { code: 'rest_no_route' } });
  await pause(300);
  t.equal(w.sink.messages.length, before);
});

t.test('per domain: the third message within the hour answers 429 with Retry-After', async (t) => {
  const { session } = await signedInOn(h);
  const d = await draft(session);
  for (let i = 0; i < 2; i++) t.equal((await h.request('POST', path(d.id), as(session, { body: { email: zoneAdmin() } }))).status, 202);
  const third = zoneAdmin();
  const refused = await h.request('POST', path(d.id), as(session, { body: { email: third } }));
  t.match(refused, { status: 429, body: { code: 'rest_too_many_requests', data: { status: 429 } } });
  t.ok(Number(refused.headers.get('retry-after')) > 0);
  await pause(500);
  t.equal(countTo(w.sink, third), 0, 'the refused one is not sent');
});

t.test('per recipient: a fourth message to one address within the hour answers 429, whatever the domain', async (t) => {
  const { session } = await signedInOn(h);
  const [a, b] = [await draft(session), await draft(session)];
  const to = zoneAdmin();
  for (const d of [a, a, b]) t.equal((await h.request('POST', path(d.id), as(session, { body: { email: to } }))).status, 202);
  t.match(await h.request('POST', path(b.id), as(session, { body: { email: to } })), { status: 429, body: { code: 'rest_too_many_requests' } });
  await mailTo(w.sink, to, 3);
  await pause(300);
  t.equal(countTo(w.sink, to), 3);
});

t.test('a viewer may not send; another account’s domain and another team answer 404', async (t) => {
  const owner = await signedInOn(h);
  const d = await draft(owner.session);
  const viewer = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
  t.match(await h.request('POST', path(d.id), as(viewer, { body: { email: zoneAdmin() } })), { status: 403, body: { code: 'rest_forbidden' } });

  const other = await signedInOn(h);
  t.match(await h.request('POST', path(d.id), as(other.session, { body: { email: zoneAdmin() } })), { status: 404, body: { code: 'rest_domain_invalid_id' } });
  t.match(await h.request('POST', path(d.id), as(owner.session, { body: { email: zoneAdmin() }, teamId: other.accountId })), {
    status: 404,
    body: { code: 'rest_team_invalid_id' },
  });

  const team = (await h.request<{ data: { id: number } }>('POST', '/v2/teams', { key: owner.adminKey, body: { name: 'Client' } })).body.data.id;
  const teamUser = await logIn(h, await userOn(h, owner.accountId, 'admin', team));
  t.match(
    await h.request('POST', path(d.id), as(teamUser, { body: { email: zoneAdmin() } })),
    { status: 404, body: { code: 'rest_domain_invalid_id' } },
    'a team user does not reach the account’s domain',
  );
});

t.test('with the system sender on a domain not verified, the route answers 503 rest_system_mail_unavailable and nothing is queued', async (t) => {
  const senderDomain = `bare-${process.pid}.com`;
  const bare = await startHarness({
    overrides: { systemMail: { from: `tern@${senderDomain}`, fromName: 'Tern', perRecipientPerHour: 5, dnsInstructionsPerDomainPerHour: 5 } },
  });
  t.teardown(() => bare.close());
  const { session, adminKey } = await signedInOn(bare);
  // The operator added the sender's domain but has not verified it yet.
  const d = (await bare.request<Shown>('POST', DOMAINS, as(session, { body: { name: senderDomain } }))).body;
  const reply = await bare.request('POST', path(d.id), as(session, { body: { email: zoneAdmin() } }));
  t.match(reply, { status: 503, body: { code: 'rest_system_mail_unavailable', message: /the domain Tern sends from is not verified/, data: { status: 503 } } });
  t.equal((await bare.request<{ data: unknown[] }>('GET', '/v2/emails', { key: adminKey })).body.data.length, 0, 'nothing recorded');
  const team = (await bare.rt.store.domains.get(d.id))!.teamId;
  t.equal(await bare.rt.store.statistics.queueDepth(team), 0, 'nothing queued');
});
