// Platform invitations over real HTTP, with the MTA delivering to a loopback sink: an operator invites a new
// client account's owner; the mail arrives, its link (accepted by the account invitations' route and page)
// creates the account with the configured plan, region and rate, its credits as a ledger grant by the operator,
// and its owner, signed in; it works once. Revoking, replacing, expiry, validation, the audit log, who may call
// the routes (operators only), and the clear error when no system sender is configured (nothing stored).
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { startHarness } from './helpers/harness.js';
import { invitationGrant } from '../shared/domain/platform-invitation.js';
import { logIn, operatorOn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { mailTo } from './helpers/system-mail.js';
import { editEmail, resetEmail } from './helpers/email-templates.js';
import { storeSupport } from './helpers/store-support.js';

const w = await startMailWorld({
  overrides: { systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 3, dnsInstructionsPerDomainPerHour: 5 } },
});
t.teardown(() => w.close());
const h = w.h;
const support = await storeSupport(t, h.dataDir);
const operatorEmail = await operatorOn(h);
const operator = await logIn(h, operatorEmail);

const INVITATIONS = '/api/tern/v2/admin/invitations';
const ACCEPT = '/api/tern-auth/v1/accept-invitation';
const NEW_PASSWORD = 'a new password of mine';
let counter = 0;
const invitee = () => `client-${++counter}-${process.pid}@dest.test`;
const as = (s: SignedIn, body?: unknown) => ({ ...withSession(s), body });

interface Shown {
  id: number;
  email: string;
  account_name: string;
  credits: number;
  status: string;
  invited_by: number | null;
  message_id: string | null;
  account_id: number | null;
  user_id: number | null;
}

async function invite(body: Record<string, unknown>): Promise<Shown> {
  const reply = await h.request<Shown>('POST', INVITATIONS, as(operator, body));
  if (reply.status !== 201) throw new Error(`inviting: ${reply.status} ${reply.text}`);
  return reply.body;
}

const listed = async (): Promise<Shown[]> => (await h.request<Shown[]>('GET', `${INVITATIONS}?per_page=100`, as(operator))).body;

/** The token of the link in the `nth` mail delivered to `email`. */
async function tokenFromMail(email: string, nth = 1): Promise<string> {
  const { parsed } = await mailTo(w.sink, email, nth);
  const link = /https?:\/\/\S+\/accept-invitation\?token=([A-Za-z0-9_-]+)/.exec(parsed.text ?? '');
  if (!link) throw new Error(`no link in: ${parsed.text}`);
  return link[1]!;
}

t.test("the mail's link creates the account with its credits (a ledger grant by the operator) and its owner, signed in, once", async (t) => {
  const email = invitee();
  const shown = await invite({ email, account_name: '  Globex Corp  ', credits: 500 });
  t.match(shown, {
    id: Number,
    email,
    account_name: 'Globex Corp',
    credits: 500,
    status: 'open',
    invited_by: await operatorId(),
    message_id: String,
    account_id: null,
    user_id: null,
  });

  const { parsed } = await mailTo(w.sink, email);
  t.equal(parsed.from?.value[0]?.address, 'tern@example.com');
  t.match(parsed.subject, /Globex Corp/);
  t.match(parsed.text, /500 credits/);
  const token = await tokenFromMail(email);
  t.notOk(await h.rt.store.users.findByEmail(email), 'no user before acceptance');

  const accepted = await h.request<{ user: { id: number; email: string; role: string; team_id: number }; nonce: string }>('POST', ACCEPT, {
    body: { token, name: 'Hank Scorpio', password: NEW_PASSWORD },
  });
  t.equal(accepted.status, 200, accepted.text);
  t.match(accepted.body, { user: { email, name: 'Hank Scorpio', role: 'owner', team_id: Number, must_change_password: false }, nonce: String });
  const accountId = accepted.body.user.team_id;
  const account = await h.rt.store.teams.get(accountId);
  t.match(account, { name: 'Globex Corp', parentId: null, planType: h.rt.config.accounts.defaultPlan, backendRegion: h.rt.config.accounts.defaultRegion });
  t.equal(account?.limitPerSecond, h.rt.config.accounts.defaultLimitPerSecond);
  t.equal(account?.creditBalance, 500);
  const ledger = await h.rt.store.credits.list(accountId, { page: 1, perPage: 10 });
  t.match(ledger.rows, [{ kind: 'grant', amount: 500, balanceAfter: 500, actor: { kind: 'operator', id: String(await operatorId()) } }]);
  t.same(await h.rt.store.credits.reconcile(accountId), { balance: 500, sumOfEntries: 500 });

  const cookie = (accepted.headers.get('set-cookie') ?? '').split(';')[0]!;
  const session = { cookie, nonce: accepted.body.nonce, reply: accepted };
  t.equal((await h.request('GET', '/api/tern/v2/api/domains', withSession(session))).status, 200, 'the session works');
  t.equal((await logIn(h, email, NEW_PASSWORD)).reply.status, 200, 'and the password logs in');

  t.match(await h.request('POST', ACCEPT, { body: { token, name: 'Again', password: NEW_PASSWORD } }), { status: 400, body: { code: 'rest_invitation_invalid' } });
  t.match(
    (await listed()).find((i) => i.id === shown.id),
    { status: 'accepted', account_id: accountId, user_id: accepted.body.user.id },
  );
  t.equal((await h.rt.store.credits.list(accountId, { page: 1, perPage: 10 })).total, 1, 'granted once');
});

t.test('without credits the account starts at zero with no ledger entry; the page shows the account and accepts the form', async (t) => {
  const email = invitee();
  await invite({ email, account_name: 'Initech <b>' });
  const token = await tokenFromMail(email);
  const page = await h.raw('GET', `/accept-invitation?token=${token}`);
  t.equal(page.status, 200);
  t.match(page.text, /open the account <strong>Initech &lt;b&gt;<\/strong>/, 'the name is shown, escaped');
  const done = await h.raw('POST', '/accept-invitation', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, name: 'Bill', password: NEW_PASSWORD }).toString(),
  });
  t.equal(done.status, 200);
  t.match(String(done.headers['set-cookie']), /tern_session=/);
  const user = await h.rt.store.users.findByEmail(email);
  t.ok(user && user.role === 'owner');
  const accountId = user && 'teamId' in user ? user.teamId : 0;
  t.match(await h.rt.store.teams.get(accountId), { name: 'Initech <b>', creditBalance: 0 });
  t.equal((await h.rt.store.credits.list(accountId, { page: 1, perPage: 10 })).total, 0);
});

t.test('an edited platform invitation is the mail the sink receives, the account name escaped in its HTML', async (t) => {
  await editEmail(h, operator, 'platform_invitation', {
    subject: 'Open {{account.name}} now',
    body: '<p>Your account <i>{{account.name}}</i> has {{account.credits}} credits.</p>\n<p>Open it: {{invitation.url}}</p>',
  });
  t.teardown(() => resetEmail(h, operator, 'platform_invitation'));
  const email = invitee();
  await invite({ email, account_name: '<script>alert(1)</script>', credits: 7 });
  const { parsed } = await mailTo(w.sink, email);
  t.equal(parsed.subject, 'Open <script>alert(1)</script> now', 'the subject is text, as typed');
  t.match(String(parsed.html), 'Your account <i>&lt;script&gt;alert(1)&lt;/script&gt;</i> has 7 credits.');
  t.notMatch(String(parsed.html), '<script>', 'no markup from the name');
  t.match(parsed.text, /Your account <script>alert\(1\)<\/script> has 7 credits\.\s+Open it: https?:\/\/\S+\/accept-invitation\?token=/, 'the text part, generated');
  t.ok(await tokenFromMail(email), 'its link is the one that accepts');
});

t.test('an operator revokes an open invitation: its link stops working; revoking twice or an unknown id is refused', async (t) => {
  const email = invitee();
  const shown = await invite({ email, account_name: 'Umbrella', credits: 10 });
  const token = await tokenFromMail(email);
  const revoked = await h.request('DELETE', `${INVITATIONS}/${shown.id}`, as(operator));
  t.match(revoked, { status: 200, body: { deleted: true, previous: { id: shown.id, status: 'revoked' } } });
  t.match(await h.request('POST', ACCEPT, { body: { token, name: 'Late', password: NEW_PASSWORD } }), { status: 400, body: { code: 'rest_invitation_invalid' } });
  t.equal((await h.raw('GET', `/accept-invitation?token=${token}`)).status, 400, 'the page refuses it too');
  t.match(await h.request('DELETE', `${INVITATIONS}/${shown.id}`, as(operator)), { status: 400, body: { code: 'rest_invitation_invalid' } });
  t.match(await h.request('DELETE', `${INVITATIONS}/999999`, as(operator)), { status: 404, body: { code: 'rest_invitation_invalid_id' } });
  t.match(await h.request('DELETE', `${INVITATIONS}/abc`, as(operator)), { status: 404, body: { code: 'rest_no_route' } });
  t.notOk(await h.rt.store.users.findByEmail(email), 'no user made');
});

t.test('each invitation and revocation is in the audit log with the operator, before and after', async (t) => {
  const email = invitee();
  const first = await invite({ email, account_name: 'Soylent', credits: 7 });
  const second = await invite({ email, account_name: 'Soylent Green', credits: 8 });
  await h.request('DELETE', `${INVITATIONS}/${second.id}`, as(operator));
  const audit = await h.request<Array<Record<string, unknown>>>('GET', `/api/tern/v2/admin/audit-log?target_kind=invitation&target_id=${second.id}`, as(operator));
  t.equal(audit.status, 200);
  t.match(audit.body, [
    {
      action: 'invitation.revoke',
      operator: { email: operatorEmail },
      target: { kind: 'invitation', id: String(second.id) },
      before: { status: 'open' },
      after: { status: 'revoked' },
    },
    { action: 'invitation.create', before: null, after: { email, account_name: 'Soylent Green', credits: 8, status: 'open', replaced: first.id } },
  ]);
  t.match(
    (await listed()).filter((i) => i.email === email),
    [
      { id: second.id, status: 'revoked' },
      { id: first.id, status: 'replaced' },
    ],
  );
});

t.test('sending again to the same email replaces the open invitation; an expired one is shown and refused', async (t) => {
  const email = invitee();
  await invite({ email, account_name: 'Old Name' });
  const oldToken = await tokenFromMail(email, 1);
  const second = await invite({ email, account_name: 'New Name' });
  const newToken = await tokenFromMail(email, 2);
  t.match(await h.request('POST', ACCEPT, { body: { token: oldToken, name: 'A', password: NEW_PASSWORD } }), { status: 400, body: { code: 'rest_invitation_invalid' } });
  await support.setPlatformInvitationExpiry(second.id, new Date(Date.now() - 1000).toISOString());
  t.match(await h.request('POST', ACCEPT, { body: { token: newToken, name: 'A', password: NEW_PASSWORD } }), { status: 400, body: { code: 'rest_invitation_expired' } });
  t.match(
    (await listed()).find((i) => i.id === second.id),
    { status: 'expired' },
  );
  t.notOk(await h.rt.store.users.findByEmail(email), 'no user made');
});

t.test('a list newest first, paged with X-WP-Total', async (t) => {
  await invite({ email: invitee(), account_name: 'Page One' });
  const last = await invite({ email: invitee(), account_name: 'Page Two' });
  const page = await h.request<Shown[]>('GET', `${INVITATIONS}?per_page=1`, as(operator));
  t.equal(page.status, 200);
  t.match(page.body, [{ id: last.id }]);
  t.ok(Number(page.headers.get('x-wp-total')) >= 2);
  t.equal(page.headers.get('x-wp-totalpages'), page.headers.get('x-wp-total'));
});

t.test('bad input is refused in the dashboard shape and stores nothing; a used email is refused on sending and on accepting', async (t) => {
  const before = (await listed()).length;
  const post = (body: Record<string, unknown>) => h.request('POST', INVITATIONS, as(operator, body));
  t.match(await post({ email: 'nobody', account_name: 'Valid' }), { status: 400, body: { code: 'rest_invalid_param', data: { params: { email: String } } } });
  t.match(await post({ email: invitee(), account_name: ' x ' }), { status: 400, body: { code: 'rest_invalid_param', data: { params: { account_name: String } } } });
  t.match(await post({ email: invitee(), account_name: 'Valid', credits: -1 }), { status: 400, body: { code: 'rest_invalid_param' } });
  t.match(await post({ email: invitee(), account_name: 'Valid', credits: 1.5 }), { status: 400, body: { code: 'rest_invalid_param' } });
  t.match(await post({ account_name: 'Valid' }), { status: 400, body: { code: 'rest_missing_callback_param' } });
  t.match(await post({ email: invitee() }), { status: 400, body: { code: 'rest_missing_callback_param' } });
  t.match(await post({ email: operatorEmail.toUpperCase(), account_name: 'Valid' }), { status: 400, body: { code: 'existing_user_email' } }, 'an email a user has');
  t.equal((await listed()).length, before, 'nothing stored');

  // The email becomes a user's between the invitation and its acceptance: refused, and no account is made.
  const email = invitee();
  await invite({ email, account_name: 'Taken Meanwhile', credits: 3 });
  const token = await tokenFromMail(email);
  const { id: other } = await h.account();
  const madeBy = (await h.rt.store.users.findByEmail(await userOn(h, other, 'viewer')))!;
  await h.rt.store.users.update(madeBy.id, { email });
  const teams = await h.rt.store.teams.count();
  t.match(await h.request('POST', ACCEPT, { body: { token, name: 'A', password: NEW_PASSWORD } }), { status: 400, body: { code: 'existing_user_email' } });
  t.equal(await h.rt.store.teams.count(), teams, 'no account created');
  // The store's own check, past the core's: the account it inserted is rolled back with the refused owner.
  const [open] = (await listed()).filter((i) => i.email === email);
  const account = { planType: 'standard', backendRegion: 'eu', limitPerSecond: 10 };
  t.equal(await h.rt.store.platformInvitations.accept(open!.id, account, { name: 'A', passwordHash: 'x' }, new Date().toISOString(), invitationGrant), 'email_taken');
  t.equal(await h.rt.store.teams.count(), teams, 'still no account');
  t.match(
    (await listed()).find((i) => i.id === open!.id),
    { status: 'open' },
  );
  t.match(await h.request('POST', ACCEPT, { body: { token, name: 'A', password: 'short' } }), { status: 400, body: { code: 'rest_invalid_param' } });
});

t.test('account owners, admins and viewers get 403 on every platform invitation route; anonymous callers 401', async (t) => {
  const owner = await signedInOn(h);
  const admin = await logIn(h, await userOn(h, owner.accountId, 'admin'));
  const viewer = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
  for (const s of [owner.session, admin, viewer]) {
    t.match(await h.request('GET', INVITATIONS, as(s)), { status: 403, body: { code: 'rest_forbidden' } });
    t.match(await h.request('POST', INVITATIONS, as(s, { email: invitee(), account_name: 'Nope' })), { status: 403, body: { code: 'rest_forbidden' } });
    t.match(await h.request('DELETE', `${INVITATIONS}/1`, as(s)), { status: 403, body: { code: 'rest_forbidden' } });
  }
  t.match(await h.request('GET', INVITATIONS), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('POST', INVITATIONS, { body: { email: invitee(), account_name: 'Nope' } }), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('DELETE', `${INVITATIONS}/1`), { status: 401, body: { code: 'rest_forbidden' } });
});

t.test('without a system sender, inviting answers 503 rest_system_mail_unavailable and stores nothing', async (t) => {
  const bare = await startHarness();
  t.teardown(() => bare.close());
  const op = await logIn(bare, await operatorOn(bare));
  const reply = await bare.request('POST', INVITATIONS, { ...withSession(op), body: { email: invitee(), account_name: 'No Mail', credits: 5 } });
  t.match(reply, { status: 503, body: { code: 'rest_system_mail_unavailable', message: /has not chosen the address Tern sends from/ } });
  t.equal((await bare.request<Shown[]>('GET', INVITATIONS, withSession(op))).body.length, 0, 'no invitation stored');
  t.equal((await bare.request<unknown[]>('GET', '/api/tern/v2/admin/audit-log', withSession(op))).body.length, 0, 'nothing in the audit log');
});

t.test('two acceptances of one link at the same moment: one creates the account, the other is refused', async (t) => {
  const email = invitee();
  await invite({ email, account_name: 'Race Inc', credits: 4 });
  const token = await tokenFromMail(email);
  const teams = await h.rt.store.teams.count();
  const replies = await Promise.all([1, 2].map((n) => h.request('POST', ACCEPT, { body: { token, name: `Racer ${n}`, password: NEW_PASSWORD } })));
  t.same(replies.map((r) => r.status).sort(), [200, 400]);
  t.equal(await h.rt.store.teams.count(), teams + 1, 'one account');
  t.match(replies.find((r) => r.status === 400)?.body, { code: 'rest_invitation_invalid' });
});

/** The operator's user id, as the ledger's actor names it. */
async function operatorId(): Promise<number> {
  return (await h.rt.store.users.findByEmail(operatorEmail))!.id;
}
