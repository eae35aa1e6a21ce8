// The profile and security pages (issue 13) over real HTTP: the name, email and password changed through the
// page and seen through the REST profile; application passwords created (shown once, working as HTTP Basic) and
// revoked; the login security of the account (settings, quick stats, auth log) for its owner only in this test's
// roles, forged posts of a viewer refused; bad input answered 400 changing nothing; names escaped; an operator's
// profile; and in Chromium no serious accessibility violation at desktop size and 360 px.
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { logIn, operatorOn, PASSWORD, userOn, withSession } from './helpers/dashboard-session.js';
import { startBrowser, type TestBrowser } from './helpers/browser.js';
import { seriousViolations } from './helpers/axe.js';
import { formGuardOf, page, signInOverHttp, signedInTab } from './helpers/web-pages.js';

let h: Harness;
let browser: TestBrowser;

t.before(async () => {
  h = await startHarness();
  browser = await startBrowser();
});
t.teardown(async () => {
  await browser?.close();
  await h?.close();
});

const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';
const NEW_PASSWORD = 'another long enough passphrase';

/** A signed-in owner of a new account: its page cookie, its email, its account. */
async function owner(role: 'owner' | 'admin' | 'viewer' = 'owner', accountId?: number) {
  const account = accountId ?? (await h.account()).id;
  const email = await userOn(h, account, role);
  return { email, accountId: account, cookie: await signInOverHttp(h, email) };
}

const restProfile = async (email: string, password = PASSWORD) => (await h.request('GET', '/api/tern/v2/profile', withSession(await logIn(h, email, password)))).body;
const main = (text: string) => text.slice(text.indexOf('<main'));

t.test('the profile shows who the user is; the name is changed through the page and reads back escaped', async (t) => {
  const me = await owner();
  const shown = await page(h, 'GET', '/profile', { cookie: me.cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, new RegExp(`<dd id="profile-email">${me.email.replace(/\./g, '\\.')}</dd>`));
  t.match(shown.text, /<dd>Owner<\/dd>/);
  const guard = await formGuardOf(h, me.cookie, '/profile');
  const saved = await page(h, 'POST', '/profile', { cookie: me.cookie, form: { ...guard, name: `Ann ${SCRIPT}` } });
  t.equal(saved.status, 303);
  t.equal(saved.headers.get('location'), '/profile?done=name_saved');
  t.equal((await restProfile(me.email)).name, `Ann ${SCRIPT}`, 'the REST profile has the new name');
  const after = await page(h, 'GET', '/profile?done=name_saved', { cookie: me.cookie });
  t.match(after.text, /Your name is saved/);
  t.match(after.text, '<dd id="profile-name">Ann &lt;script&gt;alert(1)&lt;/script&gt;</dd>');
  t.notMatch(after.text, SCRIPT, 'never as markup, in the bar either');

  const long = await page(h, 'POST', '/profile', { cookie: me.cookie, form: { ...guard, name: 'x'.repeat(101) } });
  t.equal(long.status, 400);
  t.match(long.text, /role="alert">name must have at most 100 characters/);
  t.equal((await restProfile(me.email)).name, `Ann ${SCRIPT}`, 'unchanged');
});

t.test('the email changes only with the right current password', async (t) => {
  const me = await owner();
  const guard = await formGuardOf(h, me.cookie, '/profile');
  const newEmail = `moved.${process.pid}@example.com`;
  const missing = await page(h, 'POST', '/profile', { cookie: me.cookie, form: { ...guard, email: newEmail, current_password: 'wrong password here' } });
  t.equal(missing.status, 400);
  t.match(missing.text, /role="alert"/);
  t.match(missing.text, `value="${newEmail}"`, 'what was typed is kept');
  const bad = await page(h, 'POST', '/profile', { cookie: me.cookie, form: { ...guard, email: 'not an email', current_password: PASSWORD } });
  t.equal(bad.status, 400);
  t.match(bad.text, /email must be an email address/);
  t.equal((await restProfile(me.email)).email, me.email, 'unchanged');
  const moved = await page(h, 'POST', '/profile', { cookie: me.cookie, form: { ...guard, email: newEmail, current_password: PASSWORD } });
  t.equal(moved.status, 303);
  t.equal(moved.headers.get('location'), '/profile?done=email_changed');
  t.equal((await restProfile(newEmail)).email, newEmail, 'the new email signs in');
});

t.test('the password change: refused when short or with a wrong current one; done, it ends the other sessions only', async (t) => {
  const me = await owner();
  const other = await logIn(h, me.email);
  const guard = await formGuardOf(h, me.cookie, '/profile');
  const short = await page(h, 'POST', '/profile/password', { cookie: me.cookie, form: { ...guard, current_password: PASSWORD, new_password: 'short' } });
  t.equal(short.status, 400);
  t.match(short.text, /role="alert"/);
  const wrong = await page(h, 'POST', '/profile/password', {
    cookie: me.cookie,
    form: { ...guard, current_password: 'not my password at all', new_password: NEW_PASSWORD },
  });
  t.equal(wrong.status, 400);
  t.equal((await h.request('GET', '/api/tern/v2/profile', withSession(other))).status, 200, 'nothing changed: the other session stands');
  const changed = await page(h, 'POST', '/profile/password', { cookie: me.cookie, form: { ...guard, current_password: PASSWORD, new_password: NEW_PASSWORD } });
  t.equal(changed.status, 303);
  t.equal(changed.headers.get('location'), '/profile?done=password_changed');
  t.equal((await page(h, 'GET', '/profile', { cookie: me.cookie })).status, 200, 'this session goes on');
  t.equal((await h.request('GET', '/api/tern/v2/profile', withSession(other))).status, 401, 'the other session ended');
  t.equal((await restProfile(me.email, NEW_PASSWORD)).email, me.email, 'the new password signs in');
});

t.test('application passwords: created and shown once, working as HTTP Basic, listed escaped, revoked', async (t) => {
  const me = await owner();
  const guard = await formGuardOf(h, me.cookie, '/security');
  const empty = await page(h, 'GET', '/security', { cookie: me.cookie });
  t.match(empty.text, /No application passwords yet/);
  const blank = await page(h, 'POST', '/security/application-passwords', { cookie: me.cookie, form: { ...guard, name: '   ' } });
  t.equal(blank.status, 400);
  t.match(blank.text, /role="alert">Name must have 1 to 100 characters/);
  const posted = await page(h, 'POST', '/security/application-passwords', { cookie: me.cookie, form: { ...guard, name: `deploy ${IMG}` } });
  t.equal(posted.status, 303, 'the form is answered with a redirect (a reload posts nothing)');
  t.equal(posted.headers.get('location'), '/security?done=created', 'the password is not in the URL');
  const created = await page(h, 'GET', '/security?done=created', { cookie: me.cookie });
  const password = /<kbd class="secret" id="new-app-password">([^<]+)<\/kbd>/.exec(created.text)?.[1] ?? '';
  t.match(password, /^(\w{4} ){5}\w{4}$/, 'the password, in groups of four');
  t.match(created.text, '<th scope="row">deploy &quot;&gt;&lt;img src=x onerror=alert(1)&gt;</th>', 'its name escaped');
  t.notMatch(created.text, '<img src=x');
  const basic = { headers: { authorization: `Basic ${Buffer.from(`${me.email}:${password}`).toString('base64')}` } };
  const listed = await h.request('GET', '/api/wp/v2/users/me/application-passwords', basic);
  t.equal(listed.status, 200, 'it works as HTTP Basic');
  t.equal(listed.body.length, 1);
  t.notMatch((await page(h, 'GET', '/security', { cookie: me.cookie })).text, password, 'never shown again');

  const other = await owner();
  const theirs = await formGuardOf(h, other.cookie, '/security');
  const foreign = await page(h, 'POST', `/security/application-passwords/${listed.body[0].uuid}/revoke`, { cookie: other.cookie, form: theirs });
  t.equal(foreign.status, 404, "another user's application password is not found");
  const revoked = await page(h, 'POST', `/security/application-passwords/${listed.body[0].uuid}/revoke`, { cookie: me.cookie, form: guard });
  t.equal(revoked.status, 303);
  t.equal(revoked.headers.get('location'), '/security?done=revoked');
  t.equal((await h.request('GET', '/api/wp/v2/users/me/application-passwords', basic)).status, 401, 'it stops working');
});

t.test("the account's login security for its owner: settings saved and checked, the auth log listed, an entry deleted, cleared", async (t) => {
  const me = await owner();
  const rest = await logIn(h, me.email);
  const shown = await page(h, 'GET', '/security', { cookie: me.cookie });
  t.match(shown.text, /<h2>Login security<\/h2>/);
  t.match(shown.text, new RegExp(`<td>${me.email.replace(/\./g, '\\.')}</td>\\s*<td><span class="status good">Signed in</span>`), 'the sign-ins are logged');
  const guard = await formGuardOf(h, me.cookie, '/security');
  const settings = {
    failures_per_email: '7',
    window_minutes: '30',
    session_idle_minutes: '60',
    session_absolute_hours: '24',
    log_retention_days: '45',
    notify_on_lockout: 'on',
    two_step_roles: 'viewer',
  };
  const bad = await page(h, 'POST', '/security/settings', { cookie: me.cookie, form: { ...guard, ...settings, failures_per_email: '2' } });
  t.equal(bad.status, 400);
  t.match(bad.text, /Failed sign-ins per email before a lockout must be an integer from 3 to 50/);
  const before = (await h.request('GET', '/api/tern-auth/v1/settings', withSession(rest))).body;
  t.not(before.failures_per_email, 2, 'nothing changed');
  const saved = await page(h, 'POST', '/security/settings', { cookie: me.cookie, form: { ...guard, ...settings } });
  t.equal(saved.status, 303);
  t.same(
    (await h.request('GET', '/api/tern-auth/v1/settings', withSession(rest))).body,
    {
      failures_per_email: 7,
      window_minutes: 30,
      session_idle_minutes: 60,
      session_absolute_hours: 24,
      log_retention_days: 45,
      notify_on_lockout: true,
      application_passwords: false,
      two_step_roles: ['viewer'],
      magic_link: false,
    },
    'a switch the form did not send is off',
  );

  const log = (await h.request('GET', '/api/tern-auth/v1/auth-logs', withSession(rest))).body as Array<{ id: number }>;
  t.ok(log.length >= 2);
  const other = await owner();
  const foreign = await page(h, 'POST', `/security/auth-log/${log[0]!.id}/delete`, { cookie: other.cookie, form: await formGuardOf(h, other.cookie, '/security') });
  t.equal(foreign.status, 404, "another account's log entry is not found");
  const deleted = await page(h, 'POST', `/security/auth-log/${log[0]!.id}/delete`, { cookie: me.cookie, form: guard });
  t.equal(deleted.status, 303);
  t.equal((await h.request('GET', '/api/tern-auth/v1/auth-logs', withSession(rest))).body.length, log.length - 1);
  const cleared = await page(h, 'POST', '/security/auth-log/clear', { cookie: me.cookie, form: guard });
  t.equal(cleared.status, 303);
  t.equal((await h.request('GET', '/api/tern-auth/v1/auth-logs', withSession(rest))).body.length, 0);
});

t.test('the auth log is filtered by result and searched on the page; where users land is set by default and per role, bad paths said in the form', async (t) => {
  const me = await owner();
  const rest = await logIn(h, me.email);
  const failed = await h.request('POST', '/api/tern-auth/v1/login', { body: { email: me.email, password: 'not the password at all' } });
  t.equal(failed.status, 401);
  const onlyFailures = await page(h, 'GET', '/security?status=failure', { cookie: me.cookie });
  t.equal(onlyFailures.status, 200);
  t.match(onlyFailures.text, /<span class="status bad">Failed<\/span>/, 'the failure is listed');
  t.notMatch(onlyFailures.text, /<span class="status good">Signed in<\/span>/, 'the sign-ins are not');
  t.notMatch(
    (await page(h, 'GET', '/security?search=nobody-matches-this', { cookie: me.cookie })).text,
    /<span class="status (good|bad)">/,
    'a search no entry matches lists none',
  );
  t.equal((await page(h, 'GET', '/security?status=maybe', { cookie: me.cookie })).status, 400, 'a result not in the list is refused');

  const guard = await formGuardOf(h, me.cookie, '/security');
  const wanted = {
    default_login: '/domains',
    default_logout: '',
    owner_login: '',
    owner_logout: '',
    admin_login: '',
    admin_logout: '',
    viewer_login: '/logs?status=bounced',
    viewer_logout: '/forgot-password',
  };
  const bad = await page(h, 'POST', '/security/redirects', { cookie: me.cookie, form: { ...guard, ...wanted, viewer_login: '//evil.example/x' } });
  t.equal(bad.status, 400);
  t.match(bad.text, /Viewers: after signing in must be a path of this site/, 'the problem in the form’s words');
  t.match(bad.text, /value="\/\/evil\.example\/x"/, 'what was typed is shown again');
  t.match(
    (await h.request('GET', '/api/tern-auth/v1/auth-forms-settings', withSession(rest))).body,
    { redirect_settings: { default_login_redirect: null } },
    'nothing changed',
  );
  const saved = await page(h, 'POST', '/security/redirects', { cookie: me.cookie, form: { ...guard, ...wanted } });
  t.equal(saved.status, 303);
  t.equal(saved.headers.get('location'), '/security?done=redirects_saved');
  t.same((await h.request('GET', '/api/tern-auth/v1/auth-forms-settings', withSession(rest))).body, {
    redirect_settings: {
      default_login_redirect: '/domains',
      default_logout_redirect: null,
      redirect_rules: [{ role: 'viewer', login_redirect: '/logs?status=bounced', logout_redirect: '/forgot-password' }],
    },
  });
  t.match((await page(h, 'GET', '/security', { cookie: me.cookie })).text, /id="viewer_login"[^>]*value="\/logs\?status=bounced"/, 'the saved paths are shown');
  const viewer = await owner('viewer', me.accountId);
  const forged = await page(h, 'POST', '/security/redirects', {
    cookie: viewer.cookie,
    form: { ...(await formGuardOf(h, viewer.cookie, '/security')), ...wanted, default_login: '/keys' },
  });
  t.equal(forged.status, 403, "a viewer's forged post is refused");
});

t.test('a viewer sees no login security; its forged posts are refused 403 and change nothing', async (t) => {
  const me = await owner();
  const rest = await logIn(h, me.email);
  const viewer = await owner('viewer', me.accountId);
  const shown = await page(h, 'GET', '/security', { cookie: viewer.cookie });
  t.equal(shown.status, 200);
  t.notMatch(shown.text, /Login security|auth-log|\/security\/settings/);
  const guard = await formGuardOf(h, viewer.cookie, '/security');
  const before = (await h.request('GET', '/api/tern-auth/v1/auth-logs', withSession(rest))).body.length;
  const forged = await page(h, 'POST', '/security/settings', { cookie: viewer.cookie, form: { ...guard, failures_per_email: '40' } });
  t.equal(forged.status, 403);
  t.equal((await page(h, 'POST', '/security/auth-log/clear', { cookie: viewer.cookie, form: guard })).status, 403);
  t.not((await h.request('GET', '/api/tern-auth/v1/settings', withSession(rest))).body.failures_per_email, 40, 'the settings are unchanged');
  t.ok((await h.request('GET', '/api/tern-auth/v1/auth-logs', withSession(rest))).body.length >= before, 'the log is kept');
});

t.test('an operator has a profile and application passwords, no login security', async (t) => {
  const email = await operatorOn(h);
  const cookie = await signInOverHttp(h, email);
  const shown = await page(h, 'GET', '/profile', { cookie });
  t.equal(shown.status, 200);
  t.match(shown.text, /<dd>Platform operator<\/dd>/);
  t.notMatch(main(shown.text), /<dt>Account<\/dt>/);
  const security = await page(h, 'GET', '/security', { cookie });
  t.equal(security.status, 200);
  t.match(security.text, /Application passwords/);
  t.notMatch(security.text, /Login security/);
});

t.test('in Chromium: the profile and security pages have no serious accessibility violation at desktop size and 360 px', async (t) => {
  const me = await owner();
  await page(h, 'POST', '/security/application-passwords', { cookie: me.cookie, form: { ...(await formGuardOf(h, me.cookie, '/security')), name: `ci ${IMG}` } });
  const p = await signedInTab(browser, h.url, me.email);
  for (const path of ['/profile', '/security']) {
    await p.setViewportSize({ width: 1280, height: 800 });
    await p.goto(`${h.url}${path}`);
    t.equal(await p.locator('img[src="x"]').count(), 0, `${path}: no injected image`);
    t.same(await seriousViolations(p), [], `${path} at desktop size`);
    await p.setViewportSize({ width: 360, height: 740 });
    t.equal(await p.evaluate('document.documentElement.scrollWidth <= 360'), true, `${path}: nothing overflows at 360 px`);
    t.same(await seriousViolations(p), [], `${path} at 360 px`);
  }
  await p.close();
});
