// Invitations over real HTTP, with the MTA delivering to a loopback sink: the invitation mail arrives with a
// working link (its token taken from the delivered mail, accepted over HTTP, the new user signed in and able
// to log in), accepted once, refused when expired, revoked or replaced, the page's form, who may invite whom,
// bad input, and the clear error when no system sender is configured (nothing stored, nothing sent).
import t from 'tap';
import { startMailWorld } from './helpers/mail-world.js';
import { startHarness } from './helpers/harness.js';
import { logIn, PASSWORD, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { mailTo } from './helpers/system-mail.js';
import { storeSupport } from './helpers/store-support.js';

const w = await startMailWorld({
  overrides: { systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 3, dnsInstructionsPerDomainPerHour: 5 } },
});
t.teardown(() => w.close());
const h = w.h;
const support = await storeSupport(t, h.dataDir);

const SEND = '/api/tern/v2/internal/send-invitation';
const LIST = '/api/tern/v2/internal/invitations';
const ACCEPT = '/api/tern-auth/v1/accept-invitation';
const NEW_PASSWORD = 'a new password of mine';
let counter = 0;
const invitee = () => `invitee-${++counter}-${process.pid}@dest.test`;
const as = (s: SignedIn, o: { body?: unknown; teamId?: number } = {}) => ({ ...withSession(s), ...o });

interface Shown {
  id: number;
  email: string;
  role: string;
  team_id: number;
  status: string;
  message_id: string | null;
}

async function invite(s: SignedIn, body: Record<string, unknown>): Promise<Shown> {
  const reply = await h.request<Shown>('POST', SEND, as(s, { body }));
  if (reply.status !== 201) throw new Error(`inviting: ${reply.status} ${reply.text}`);
  return reply.body;
}

/** The token of the link in the `nth` invitation mail delivered to `email`, after checking the link's shape. */
async function tokenFromMail(email: string, nth = 1): Promise<string> {
  const { parsed } = await mailTo(w.sink, email, nth);
  const link = /https?:\/\/\S+\/accept-invitation\?token=([A-Za-z0-9_-]+)/.exec(parsed.text ?? '');
  if (!link) throw new Error(`no link in: ${parsed.text}`);
  if (!link[0].startsWith(`${h.url}/accept-invitation?token=`)) throw new Error(`link not on the dashboard: ${link[0]}`);
  return link[1]!;
}

t.test('without a signed-in caller the invitation routes answer 401, a cookie without its nonce too, a wrong nonce 403', async (t) => {
  const { session } = await signedInOn(h);
  t.match(await h.request('POST', SEND, { body: { email: invitee(), role: 'viewer' } }), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('GET', LIST, withSession(session, null)), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('DELETE', `${LIST}/1`, withSession(session, 'abcdef0123')), { status: 403, body: { code: 'rest_cookie_invalid_nonce' } });
});

t.test('the invitation mail arrives with a link that creates the user, signs them in, and works once', async (t) => {
  const owner = await signedInOn(h);
  const email = invitee();
  const shown = await invite(owner.session, { email, role: 'admin' });
  t.match(shown, { id: Number, email, role: 'admin', team_id: owner.accountId, status: 'open', message_id: String });

  const { parsed } = await mailTo(w.sink, email);
  t.equal(parsed.from?.value[0]?.address, 'tern@example.com');
  t.match(String(parsed.html), /<a href="http:\/\/127\.0\.0\.1:\d+\/accept-invitation\?token=/);
  const token = await tokenFromMail(email);
  const logged = await h.request<{ data: { source: string } }>('GET', `/v2/emails/${shown.message_id}`, { key: w.adminKey });
  t.equal(logged.body.data.source, 'system', "the mail is in the system sender's log");

  const accepted = await h.request<{ user: { email: string; role: string; team_id: number }; nonce: string }>('POST', ACCEPT, {
    body: { token, name: 'New Admin', password: NEW_PASSWORD },
  });
  t.equal(accepted.status, 200);
  t.match(accepted.body, { user: { email, name: 'New Admin', role: 'admin', team_id: owner.accountId, must_change_password: false }, nonce: String });
  const cookie = (accepted.headers.get('set-cookie') ?? '').split(';')[0]!;
  t.match(accepted.headers.get('set-cookie'), /HttpOnly/i);
  const signedIn = { cookie, nonce: accepted.body.nonce, reply: accepted };
  t.equal((await h.request('GET', '/api/tern/v2/api/domains', withSession(signedIn))).status, 200, 'the session works');
  t.equal((await logIn(h, email, NEW_PASSWORD)).reply.status, 200, 'and the password logs in');

  t.match(await h.request('POST', ACCEPT, { body: { token, name: 'Again', password: NEW_PASSWORD } }), { status: 400, body: { code: 'rest_invitation_invalid' } });
  const list = await h.request<Shown[]>('GET', LIST, as(owner.session));
  t.match(list.body, [{ id: shown.id, status: 'accepted' }]);
});

t.test('an expired invitation is refused, by the route and by the page', async (t) => {
  const owner = await signedInOn(h);
  const email = invitee();
  const shown = await invite(owner.session, { email, role: 'viewer' });
  const token = await tokenFromMail(email);
  await support.setInvitationExpiry(shown.id, new Date(Date.now() - 1000).toISOString());
  t.match(await h.request('POST', ACCEPT, { body: { token, name: 'Late', password: NEW_PASSWORD } }), { status: 400, body: { code: 'rest_invitation_expired' } });
  const page = await h.raw('GET', `/accept-invitation?token=${token}`);
  t.equal(page.status, 400);
  t.match(page.text, /expired/);
  t.match((await h.request<Shown[]>('GET', LIST, as(owner.session))).body, [{ id: shown.id, status: 'expired' }]);
  t.notOk(await h.rt.store.users.findByEmail(email), 'no user made');
});

t.test('a revoked invitation is refused; revoking twice or an unknown one is refused', async (t) => {
  const owner = await signedInOn(h);
  const email = invitee();
  const shown = await invite(owner.session, { email, role: 'viewer' });
  const token = await tokenFromMail(email);
  const revoked = await h.request('DELETE', `${LIST}/${shown.id}`, as(owner.session));
  t.match(revoked, { status: 200, body: { deleted: true, previous: { id: shown.id, status: 'revoked' } } });
  t.match(await h.request('POST', ACCEPT, { body: { token, name: 'Too late', password: NEW_PASSWORD } }), { status: 400, body: { code: 'rest_invitation_invalid' } });
  t.match(await h.request('DELETE', `${LIST}/${shown.id}`, as(owner.session)), { status: 400, body: { code: 'rest_invitation_invalid' } });
  t.match(await h.request('DELETE', `${LIST}/999999`, as(owner.session)), { status: 404, body: { code: 'rest_invitation_invalid_id' } });
  t.match(await h.request('DELETE', `${LIST}/abc`, as(owner.session)), { status: 404, body: { code: 'rest_no_route' } });
});

t.test('sending again to the same email replaces the open invitation: the old link stops working', async (t) => {
  const owner = await signedInOn(h);
  const email = invitee();
  const first = await invite(owner.session, { email, role: 'viewer' });
  const oldToken = await tokenFromMail(email, 1);
  const second = await invite(owner.session, { email, role: 'admin' });
  const newToken = await tokenFromMail(email, 2);
  t.match((await h.request<Shown[]>('GET', LIST, as(owner.session))).body, [
    { id: second.id, status: 'open', role: 'admin' },
    { id: first.id, status: 'replaced' },
  ]);
  t.match(await h.request('POST', ACCEPT, { body: { token: oldToken, name: 'Old', password: NEW_PASSWORD } }), {
    status: 400,
    body: { code: 'rest_invitation_invalid' },
  });
  t.match(await h.request('POST', ACCEPT, { body: { token: newToken, name: 'New', password: NEW_PASSWORD } }), { status: 200, body: { user: { role: 'admin' } } });
});

t.test('the page shows a form for the link and accepts it by a form post, escaping what it shows', async (t) => {
  const owner = await signedInOn(h);
  const email = invitee();
  await invite(owner.session, { email, role: 'viewer' });
  const token = await tokenFromMail(email);
  const page = await h.raw('GET', `/accept-invitation?token=${token}`);
  t.equal(page.status, 200);
  t.match(page.headers['content-type'], /text\/html/);
  t.equal(page.headers['referrer-policy'], 'same-origin', 'the token in the URL never leaves the site in a Referer');
  t.match(page.headers['content-security-policy'], /default-src 'none'/);
  t.match(page.text, new RegExp(`<input type="hidden" name="token"\\s+value="${token}"`));
  t.match(page.text, email);

  const form = (fields: Record<string, string>) =>
    h.raw('POST', '/accept-invitation', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const short = await form({ token, name: '<b>Eve</b>', password: 'short' });
  t.equal(short.status, 400, 'a bad field is said next to the form');
  t.match(short.text, /password must have 12 to 200 characters/);
  t.match(short.text, /value="&lt;b&gt;Eve&lt;\/b&gt;"/, 'the name typed comes back escaped');
  t.notMatch(short.text, /<b>Eve<\/b>/);

  const done = await form({ token, name: 'Eve', password: NEW_PASSWORD });
  t.equal(done.status, 200);
  t.match(String(done.headers['set-cookie']), /tern_session=/);
  t.match(done.text, /signed in/);
  t.equal((await logIn(h, email, NEW_PASSWORD)).reply.status, 200);
  t.equal((await h.raw('GET', '/accept-invitation?token=unknown-token')).status, 400, 'an unknown token is refused');
});

t.test('who may invite whom: viewers never, admins not owners, teams only within the account', async (t) => {
  const owner = await signedInOn(h);
  const viewer = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
  const admin = await logIn(h, await userOn(h, owner.accountId, 'admin'));
  t.match(await h.request('POST', SEND, as(viewer, { body: { email: invitee(), role: 'viewer' } })), { status: 403, body: { code: 'rest_forbidden' } });
  t.match(await h.request('GET', LIST, as(viewer)), { status: 403, body: { code: 'rest_forbidden' } });
  t.match(await h.request('POST', SEND, as(admin, { body: { email: invitee(), role: 'owner' } })), { status: 403, body: { code: 'rest_forbidden' } });
  t.equal((await h.request('POST', SEND, as(owner.session, { body: { email: invitee(), role: 'owner' } }))).status, 201, 'an owner invites an owner');

  const team = (await h.request<{ data: { id: number } }>('POST', '/v2/teams', { key: owner.adminKey, body: { name: 'Client' } })).body.data.id;
  const onTeam = await invite(admin, { email: invitee(), role: 'admin', team_id: team });
  t.equal(onTeam.team_id, team);
  t.match(await h.request('POST', SEND, as(owner.session, { body: { email: invitee(), role: 'owner', team_id: team } })), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { role: /owner belongs to the account/ } } },
  });
  const other = await signedInOn(h);
  t.match(await h.request('POST', SEND, as(owner.session, { body: { email: invitee(), role: 'viewer', team_id: other.accountId } })), {
    status: 404,
    body: { code: 'rest_team_invalid_id' },
  });
  const mine = (await h.request<Shown[]>('GET', LIST, as(owner.session))).body;
  t.match(
    await h.request('DELETE', `${LIST}/${mine[0]!.id}`, as(other.session)),
    { status: 404, body: { code: 'rest_invitation_invalid_id' } },
    "another account's invitation",
  );

  // A user of one team invites to that team only, and sees only its invitations.
  const teamAdmin = await logIn(h, await userOn(h, owner.accountId, 'admin', team));
  t.equal((await invite(teamAdmin, { email: invitee(), role: 'viewer' })).team_id, team);
  t.match(await h.request('POST', SEND, as(teamAdmin, { body: { email: invitee(), role: 'viewer', team_id: owner.accountId } })), {
    status: 404,
    body: { code: 'rest_team_invalid_id' },
  });
  const seen = (await h.request<Shown[]>('GET', LIST, as(teamAdmin))).body;
  t.ok(seen.length === 2 && seen.every((i) => i.team_id === team), 'its team’s invitations only');
});

t.test('bad input is refused in the dashboard shape and stores nothing', async (t) => {
  const owner = await signedInOn(h);
  t.match(await h.request('POST', SEND, as(owner.session, { body: { email: 'nobody', role: 'viewer' } })), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { email: String } } },
  });
  t.match(await h.request('POST', SEND, as(owner.session, { body: { email: invitee(), role: 'king' } })), { status: 400, body: { code: 'rest_invalid_param' } });
  t.match(await h.request('POST', SEND, as(owner.session, { body: { role: 'viewer' } })), { status: 400, body: { code: 'rest_missing_callback_param' } });
  t.match(
    await h.request('POST', SEND, as(owner.session, { body: { email: owner.email, role: 'viewer' } })),
    { status: 400, body: { code: 'existing_user_email' } },
    'an email that has a user',
  );
  t.match(await h.request('POST', ACCEPT, { body: { token: 'x', name: 'A', password: PASSWORD } }), { status: 400, body: { code: 'rest_invitation_invalid' } });
  t.equal((await h.request<Shown[]>('GET', LIST, as(owner.session))).body.length, 0, 'nothing stored');

  // A refused acceptance leaves the invitation open; an email taken meanwhile is refused clearly.
  const email = invitee();
  await invite(owner.session, { email, role: 'viewer' });
  const token = await tokenFromMail(email);
  t.match(await h.request('POST', ACCEPT, { body: { token, name: 'A', password: 'short' } }), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { password: String } } },
  });
  t.match(await h.request('POST', ACCEPT, { body: { token, name: '   ', password: NEW_PASSWORD } }), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { name: String } } },
  });
  // A user made meanwhile (by the operator) with the same address in another case.
  const madeBy = (await h.rt.store.users.findByEmail(await userOn(h, owner.accountId, 'viewer')))!;
  await h.rt.store.users.update(madeBy.id, { email: email.toUpperCase() });
  t.match(await h.request('POST', ACCEPT, { body: { token, name: 'A', password: NEW_PASSWORD } }), { status: 400, body: { code: 'existing_user_email' } });
});

t.test('invitations to one address are rate-limited like all mail Tern sends (429 with Retry-After)', async (t) => {
  const owner = await signedInOn(h);
  const email = invitee();
  for (let i = 0; i < 3; i++) await invite(owner.session, { email, role: 'viewer' });
  const refused = await h.request('POST', SEND, as(owner.session, { body: { email, role: 'viewer' } }));
  t.match(refused, { status: 429, body: { code: 'rest_too_many_requests' } });
  t.ok(Number(refused.headers.get('retry-after')) > 0);
});

t.test('without a system sender, an invitation is made all the same and its link given to the inviter, in that answer only', async (t) => {
  const bare = await startHarness();
  t.teardown(() => bare.close());
  const { session, adminKey } = await signedInOn(bare);
  const email = invitee();
  const reply = await bare.request<Shown & { invitation_link: string; mail_problem: string }>('POST', SEND, as(session, { body: { email, role: 'viewer' } }));
  t.match(reply, { status: 201, body: { email, status: 'open', message_id: null, invitation_link: /\/accept-invitation\?token=[A-Za-z0-9_-]{43}$/ } });
  t.notMatch(reply.body.mail_problem, /systemMail|TERNMAIL_/, 'the reason is meant for the user, naming no setting');
  const listed = (await bare.request<Array<Record<string, unknown>>>('GET', LIST, as(session))).body;
  t.equal(listed.length, 1, 'the invitation is stored');
  t.notOk('invitation_link' in listed[0]!, 'the list never shows the link again');
  t.equal((await bare.request<{ data: unknown[] }>('GET', '/v2/emails', { key: adminKey })).body.data.length, 0, 'no message recorded');
  const token = new URL(reply.body.invitation_link).searchParams.get('token')!;
  const accepted = await bare.request('POST', ACCEPT, { body: { token, name: 'Linked', password: NEW_PASSWORD } });
  t.equal(accepted.status, 200, 'the link works');
});

t.test('two acceptances of one link at the same moment: one creates the user, the other is refused', async (t) => {
  const owner = await signedInOn(h);
  const email = invitee();
  await invite(owner.session, { email, role: 'viewer' });
  const token = await tokenFromMail(email);
  const replies = await Promise.all([1, 2].map((n) => h.request('POST', ACCEPT, { body: { token, name: `Racer ${n}`, password: NEW_PASSWORD } })));
  t.same(replies.map((r) => r.status).sort(), [200, 400]);
  t.match(replies.find((r) => r.status === 400)?.body, { code: 'rest_invitation_invalid' });
});

t.test('with dashboard.publicUrl set, the link in the mail leads there, whatever Host the request named', async (t) => {
  const behindProxy = await startMailWorld({
    overrides: {
      systemMail: { from: 'tern@example.com', fromName: 'Tern', perRecipientPerHour: 3, dnsInstructionsPerDomainPerHour: 5 },
      dashboard: { publicUrl: 'https://dashboard.example.net' },
    },
  });
  t.teardown(() => behindProxy.close());
  const { session } = await signedInOn(behindProxy.h);
  const email = invitee();
  const reply = await behindProxy.h.request('POST', SEND, { ...withSession(session), body: { email, role: 'viewer' } });
  t.equal(reply.status, 201);
  const { parsed } = await mailTo(behindProxy.sink, email);
  t.match(parsed.text, /https:\/\/dashboard\.example\.net\/accept-invitation\?token=[A-Za-z0-9_-]{43}\b/);
});
