// Sign-in with a provider in a real browser (Chromium): the sign-in page offers "Sign in with Google" once an
// operator turned it on; a click goes to the provider (the local double, which answers for the test's user at
// once) and back, and the browser lands signed in on the dashboard, with no password typed.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, userOn, withSession } from './helpers/dashboard-session.js';
import { startBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { startProviderDouble } from './harness/provider-double.js';

const double = await startProviderDouble();
t.teardown(() => double.close());
const h = await startHarness({ env: { TERNMAIL_SOCIAL_ALLOW_HTTP_LOOPBACK: 'true' } });
t.teardown(() => h.close());
const browser = await startBrowser();
t.teardown(() => browser.close());

t.test('a click on "Sign in with Google" on the sign-in page lands the user signed in', async (t) => {
  const operator = await logIn(h, await operatorOn(h));
  const enabled = await h.request('POST', '/api/tern-auth/v1/social-auth-settings', {
    ...withSession(operator),
    body: { provider: 'google', enabled: true, client_id: double.clientId, client_secret: double.clientSecret, issuer: double.url },
  });
  t.equal(enabled.status, 200, enabled.text);
  const account = await h.account({ name: 'Provider Sign-in Ltd' });
  const email = await userOn(h, account.id, 'owner');
  double.identity = { subject: `browser-${process.pid}`, email, emailVerified: true };

  const p = await browser.context.newPage();
  await p.goto(`${h.url}/wp-login.php`);
  const button = p.locator('#sign-in-google');
  t.equal(await button.textContent(), 'Sign in with Google');
  t.equal(await p.locator('#sign-in-github').count(), 0, 'GitHub is off, so not offered');
  t.same(await seriousViolations(p), [], 'the sign-in page with its provider button');
  await Promise.all([p.waitForURL((url) => url.origin === h.url && url.pathname === '/'), button.click()]);
  t.match(await p.locator('main h1').textContent(), 'Overview', "the account's overview, signed in");
  t.match(await p.content(), 'Provider Sign-in Ltd', 'of the user’s account');
  const cookies = await browser.context.cookies(h.url);
  t.ok(
    cookies.some((c) => c.name === 'tern_session'),
    'with the session cookie',
  );
  t.match(await h.rt.store.authLog.list(account.id, { page: 1, perPage: 1 }), { rows: [{ email, result: 'success', method: 'google' }] });
  await p.close();
});
