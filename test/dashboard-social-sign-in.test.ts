// Sign-in with a provider (issue 26, FluentAuth's social-auth) over real HTTP, against a local provider double
// (test/harness/provider-double.ts: Google-shaped OpenID Connect and GitHub-shaped OAuth 2 on loopback HTTP): the
// operators' settings (the secret stored sealed and never answered, 400 with data.params, 401, 403, the audit
// entry); a user found by a verified email signs in, is linked, and later signs in by the link alone; an
// unverified email, an unknown email, a wrong, replayed or unbound state, a disabled provider and a locked-out
// email are refused without a session; the auth log names the method; the sign-in page offers only what is on;
// the operators' page saves through the same use case.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { startProviderDouble, type DoubleIdentity } from './harness/provider-double.js';
import { formGuardOf, page, signInOverHttp } from './helpers/web-pages.js';

const double = await startProviderDouble();
t.teardown(() => double.close());
const h = await startHarness({
  env: { TERNMAIL_SOCIAL_ALLOW_HTTP_LOOPBACK: 'true', TERNMAIL_GITHUB_WEB_URL: double.url, TERNMAIL_GITHUB_API_URL: double.url },
});
t.teardown(() => h.close());

const SETTINGS = '/api/tern-auth/v1/social-auth-settings';
const operator: SignedIn = await logIn(h, await operatorOn(h));
const account = await h.account();
const as = (s: SignedIn, body?: unknown) => ({ ...withSession(s), ...(body === undefined ? {} : { body }) });
const save = (body: Record<string, unknown>, s = operator) => h.request('POST', SETTINGS, as(s, body));
let subjects = 1000;

async function enable(provider: 'google' | 'github', enabled = true): Promise<void> {
  const issuer = provider === 'google' ? { issuer: double.url } : {};
  const reply = await save({ provider, enabled, client_id: double.clientId, client_secret: double.clientSecret, ...issuer });
  if (reply.status !== 200) throw new Error(`enabling ${provider}: ${reply.status} ${reply.text}`);
}

interface Flow {
  start: Response;
  callback?: Response;
  callbackUrl?: string;
  binding?: string;
}

/** A browser's trip: the start page, the provider (which answers for `identity`), the callback with the binding cookie. */
async function signInWith(provider: string, identity: DoubleIdentity, o: { redirectTo?: string; state?: string; binding?: string } = {}): Promise<Flow> {
  double.identity = identity;
  const query = o.redirectTo === undefined ? '' : `?${new URLSearchParams({ redirect_to: o.redirectTo }).toString()}`;
  const start = await fetch(`${h.url}/sign-in/with/${provider}${query}`, { redirect: 'manual' });
  if (start.status !== 302) return { start };
  const binding = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const atProvider = await fetch(start.headers.get('location')!, { redirect: 'manual' });
  const callbackUrl = new URL(atProvider.headers.get('location')!);
  if (o.state !== undefined) callbackUrl.searchParams.set('state', o.state);
  const callback = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: o.binding ?? binding } });
  return { start, callback, callbackUrl: callbackUrl.href, binding };
}

const sessionCookieOf = (r: Response | undefined): string | undefined =>
  r?.headers
    .getSetCookie()
    .find((c) => c.startsWith('tern_session='))
    ?.split(';')[0];

async function newUser(): Promise<{ id: number; email: string }> {
  const email = await userOn(h, account.id, 'admin');
  const user = await h.rt.store.users.findByEmail(email);
  return { id: user!.id, email };
}

const identityOf = (email: string, emailVerified = true): DoubleIdentity => ({ subject: String(++subjects), email, emailVerified });
const lastAuthEntry = async () => (await h.rt.store.authLog.list(account.id, { page: 1, perPage: 1 })).rows[0];

t.test('operators read and save a provider: the secret is sealed at rest, never answered, and the save is audited without it', async (t) => {
  const before = await h.request('GET', SETTINGS, as(operator));
  t.equal(before.status, 200, before.text);
  t.match(before.body, {
    settings: {
      google: { enabled: false, client_id: '', client_secret_set: false, issuer: 'https://accounts.google.com', redirect_uri: `${h.url}/sign-in/callback/google` },
      github: { enabled: false, client_secret_set: false, issuer: null, redirect_uri: `${h.url}/sign-in/callback/github` },
    },
  });
  const saved = await save({ provider: 'google', enabled: true, client_id: double.clientId, client_secret: double.clientSecret, issuer: double.url });
  t.equal(saved.status, 200, saved.text);
  t.match(saved.body, { settings: { google: { enabled: true, client_id: double.clientId, client_secret_set: true, issuer: double.url } } });
  t.notMatch(saved.text, double.clientSecret, 'the secret is not in the answer');
  t.notMatch((await h.request('GET', SETTINGS, as(operator))).text, double.clientSecret, 'nor in a later read');
  const row = await h.rt.store.socialSignIn.provider('google');
  t.ok(row?.clientSecretEnc?.startsWith('v1:'), 'stored sealed');
  t.notMatch(row?.clientSecretEnc ?? '', double.clientSecret, 'not as plain text');
  t.equal(h.rt.secrets.open(row!.clientSecretEnc!), double.clientSecret, 'and opens to the secret given');
  const audit = (await h.rt.store.auditLog.list({ targetKind: 'platform' }, { page: 1, perPage: 20 })).rows.find((e) => e.action === 'social_sign_in.save');
  t.match(audit, { target: { kind: 'platform', id: 'social_sign_in.google' }, after: { enabled: true, client_id: double.clientId, client_secret_set: true } });
  t.notMatch(JSON.stringify(audit), double.clientSecret, 'the audit entry has no secret');
  const kept = await save({ provider: 'google', client_id: double.clientId });
  t.match(kept.body, { settings: { google: { client_secret_set: true } } }, 'a save without a secret keeps the stored one');
});

t.test('bad settings are refused with 400 naming each field, and nothing changes', async (t) => {
  const noSecret = await save({ provider: 'github', enabled: true, client_id: 'abc' });
  t.match(noSecret.body, { code: 'rest_invalid_param', data: { status: 400, params: { client_secret: String } } });
  const badIssuer = await save({ provider: 'google', issuer: 'http://issuer.example.com' });
  t.match(badIssuer.body, { data: { status: 400, params: { issuer: /https/ } } });
  const githubIssuer = await save({ provider: 'github', issuer: 'https://github.com' });
  t.match(githubIssuer.body, { data: { status: 400, params: { issuer: String } } });
  const unknown = await save({ provider: 'facebook', enabled: true });
  t.match(unknown.body, { data: { status: 400, params: { provider: String } } });
  t.equal(await h.rt.store.socialSignIn.provider('github'), undefined, 'github was never stored');
});

t.test('anonymous callers get 401 and users who are no operator 403', async (t) => {
  t.equal((await h.request('GET', SETTINGS)).status, 401);
  t.equal((await h.request('POST', SETTINGS, { body: { provider: 'google', enabled: false } })).status, 401);
  const owner = await logIn(h, await userOn(h, account.id, 'owner'));
  t.equal((await h.request('GET', SETTINGS, as(owner))).status, 403);
  t.equal((await save({ provider: 'google', enabled: false }, owner)).status, 403);
});

t.test('a user with a verified email signs in with Google, gets a working session, is linked, and later signs in by the link alone', async (t) => {
  await enable('google');
  const user = await newUser();
  const identity = identityOf(user.email);
  const flow = await signInWith('google', identity, { redirectTo: '/profile' });
  t.equal(flow.start.status, 302);
  t.match(flow.start.headers.get('location'), `${double.url}/authorize?`);
  t.equal(flow.callback?.status, 303, 'signed in');
  t.equal(flow.callback?.headers.get('location'), '/profile', 'to the redirect_to asked for');
  const cookie = sessionCookieOf(flow.callback);
  t.ok(cookie, 'the session cookie is set');
  const profile = await fetch(`${h.url}/profile`, { headers: { cookie: cookie! }, redirect: 'manual' });
  t.equal(profile.status, 200, 'the session opens a signed-in page');
  t.match(await profile.text(), user.email);
  t.match(await lastAuthEntry(), { userId: user.id, email: user.email, result: 'success', method: 'google' }, 'the auth log names the method');
  t.equal(await h.rt.store.socialSignIn.linkOf('google', identity.subject), user.id, 'the subject is linked');
  // The provider's email changes and is no longer verified: the link still signs the same user in.
  const again = await signInWith('google', { ...identity, email: `changed-${identity.subject}@example.org`, emailVerified: false });
  t.equal(again.callback?.status, 303);
  t.ok(sessionCookieOf(again.callback));
  t.match(await lastAuthEntry(), { userId: user.id, result: 'success', method: 'google' });
});

t.test('an issuer that leaves the email out of the ID token is asked its userinfo', async (t) => {
  await enable('google');
  const user = await newUser();
  const flow = await signInWith('google', { ...identityOf(user.email), emailInUserinfoOnly: true });
  t.equal(flow.callback?.status, 303);
  t.ok(sessionCookieOf(flow.callback));
});

t.test('an ID token for another sign-in (its nonce not this one’s) is refused, with no session and no link', async (t) => {
  await enable('google');
  const user = await newUser();
  const identity = { ...identityOf(user.email), wrongNonce: true };
  const flow = await signInWith('google', identity);
  t.equal(flow.callback?.status, 502);
  t.match(await flow.callback!.text(), 'did not complete the sign-in');
  t.notOk(sessionCookieOf(flow.callback));
  t.equal(await h.rt.store.socialSignIn.linkOf('google', identity.subject), undefined);
});

t.test('an unverified email is refused with the sign-in page saying so, and no session', async (t) => {
  await enable('google');
  const user = await newUser();
  const identity = identityOf(user.email, false);
  const flow = await signInWith('google', identity);
  t.equal(flow.callback?.status, 403);
  t.match(await flow.callback!.text(), 'has not verified your email address');
  t.notOk(sessionCookieOf(flow.callback), 'no session');
  t.equal(await h.rt.store.socialSignIn.linkOf('google', identity.subject), undefined, 'no link');
  t.match(await lastAuthEntry(), { userId: user.id, result: 'failure', method: 'google' });
});

t.test('an email no user has is refused, and no user is made', async (t) => {
  await enable('google');
  const email = `stranger-${process.pid}@example.org`;
  const flow = await signInWith('google', identityOf(email));
  t.equal(flow.callback?.status, 403);
  t.match(await flow.callback!.text(), 'No account here uses the email address');
  t.notOk(sessionCookieOf(flow.callback));
  t.equal(await h.rt.store.users.findByEmail(email), undefined);
});

t.test('a wrong state, a replayed callback and a callback without the browser’s binding are refused', async (t) => {
  await enable('google');
  const user = await newUser();
  const wrong = await signInWith('google', identityOf(user.email), { state: 'not-the-state' });
  t.equal(wrong.callback?.status, 400);
  t.match(await wrong.callback!.text(), 'expired or was already used');
  t.notOk(sessionCookieOf(wrong.callback));
  const good = await signInWith('google', identityOf(user.email));
  t.equal(good.callback?.status, 303);
  const replayed = await fetch(good.callbackUrl!, { redirect: 'manual', headers: { cookie: good.binding! } });
  t.equal(replayed.status, 400, 'a state is used once');
  t.notOk(sessionCookieOf(replayed));
  const unbound = await signInWith('google', identityOf(user.email), { binding: 'tern_sign_in_binding=someone-else' });
  t.equal(unbound.callback?.status, 400, "another browser's callback signs nobody in");
  t.notOk(sessionCookieOf(unbound.callback));
});

t.test('a disabled provider is not offered, not started, and a sign-in started before it was turned off is refused', async (t) => {
  await enable('google');
  await enable('github', false);
  const page = await (await fetch(`${h.url}/wp-login.php`)).text();
  t.match(page, 'Sign in with Google');
  t.notMatch(page, 'Sign in with GitHub');
  const start = await fetch(`${h.url}/sign-in/with/github`, { redirect: 'manual' });
  t.equal(start.status, 404);
  t.match(await start.text(), 'not available');
  t.equal((await fetch(`${h.url}/sign-in/with/facebook`, { redirect: 'manual' })).status, 404, 'an unknown provider alike');
  // Started while on, called back after an operator turned it off.
  const user = await newUser();
  double.identity = identityOf(user.email);
  const started = await fetch(`${h.url}/sign-in/with/google`, { redirect: 'manual' });
  const back = (await fetch(started.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!;
  await enable('google', false);
  const callback = await fetch(back, { redirect: 'manual', headers: { cookie: (started.headers.get('set-cookie') ?? '').split(';')[0]! } });
  t.equal(callback.status, 404);
  t.notOk(sessionCookieOf(callback));
  await enable('google');
});

t.test('GitHub signs in a user by its verified primary email, and refuses an unverified one', async (t) => {
  await enable('github');
  const user = await newUser();
  const identity = identityOf(user.email);
  const flow = await signInWith('github', identity);
  t.match(flow.start.headers.get('location'), `${double.url}/login/oauth/authorize?`);
  t.equal(flow.callback?.status, 303, double.refusals.join(', '));
  t.ok(sessionCookieOf(flow.callback));
  t.match(await lastAuthEntry(), { userId: user.id, result: 'success', method: 'github' });
  t.equal(await h.rt.store.socialSignIn.linkOf('github', identity.subject), user.id);
  const other = await newUser();
  const unverified = await signInWith('github', identityOf(other.email, false));
  t.equal(unverified.callback?.status, 403);
  t.notOk(sessionCookieOf(unverified.callback));
});

t.test('an email locked out by failed passwords is locked out for a provider too', async (t) => {
  await enable('google');
  const user = await newUser();
  for (let i = 0; i < h.config.dashboard.login.failuresPerEmail; i++)
    await h.request('POST', '/api/tern-auth/v1/login', { body: { email: user.email, password: 'wrong password' } });
  const flow = await signInWith('google', identityOf(user.email));
  t.equal(flow.callback?.status, 429);
  t.ok(flow.callback?.headers.get('retry-after'));
  t.notOk(sessionCookieOf(flow.callback));
  t.match(await lastAuthEntry(), { userId: user.id, result: 'throttled', method: 'google' });
});

t.test('a redirect_to of another site is refused before the provider is asked', async (t) => {
  await enable('google');
  const start = await fetch(`${h.url}/sign-in/with/google?redirect_to=${encodeURIComponent('//evil.example/')}`, { redirect: 'manual' });
  t.equal(start.status, 400);
  t.notOk(start.headers.get('location'));
});

t.test('operators edit a provider on /admin/sign-in-providers through the same use case; others cannot open it', async (t) => {
  const cookie = await signInOverHttp(h, await operatorOn(h));
  const shown = await page(h, 'GET', '/admin/sign-in-providers', { cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, `<code id="github-redirect-uri">${h.url}/sign-in/callback/github</code>`, 'the redirect URI to register');
  t.notMatch(shown.text, double.clientSecret, 'no secret on the page');
  const guard = await formGuardOf(h, cookie, '/admin/sign-in-providers');
  await save({ provider: 'github', enabled: false, client_secret: '' });
  const refused = await page(h, 'POST', '/admin/sign-in-providers', { cookie, form: { ...guard, provider: 'github', enabled: 'on', client_id: 'gh-page' } });
  t.equal(refused.status, 400);
  t.match(refused.text, 'Client secret');
  t.match(await h.rt.store.socialSignIn.provider('github'), { enabled: false, clientSecretEnc: null }, 'nothing changed');
  const saved = await page(h, 'POST', '/admin/sign-in-providers', {
    cookie,
    form: { ...guard, provider: 'github', enabled: 'on', client_id: 'gh-page', client_secret: 'page-secret-1' },
  });
  t.equal(saved.status, 303, saved.text);
  const row = await h.rt.store.socialSignIn.provider('github');
  t.match(row, { enabled: true, clientId: 'gh-page' });
  t.equal(h.rt.secrets.open(row!.clientSecretEnc!), 'page-secret-1');
  const kept = await page(h, 'POST', '/admin/sign-in-providers', { cookie, form: { ...guard, provider: 'github', client_id: 'gh-page', client_secret: '' } });
  t.equal(kept.status, 303);
  t.match(await h.rt.store.socialSignIn.provider('github'), { enabled: false, clientSecretEnc: row!.clientSecretEnc }, 'unchecked is off; an empty secret keeps it');
  const owner = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  t.not((await page(h, 'GET', '/admin/sign-in-providers', { cookie: owner })).status, 200, 'not for an account’s owner');
});
