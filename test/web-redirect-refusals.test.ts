// redirect_to after signing in and after switching team, over real HTTP: a value the URL parser turns into a path
// of another host (`/..//evil.example`, its percent-encoded dots, `/./..//`) is refused with 400 before the
// password on GET and POST, and no answer ever carries a Location starting with `//` (issue 22, item 2).
import t from 'tap';
import { startHarness, type Harness } from './helpers/harness.js';
import { PASSWORD, userOn } from './helpers/dashboard-session.js';
import { formGuardOf, page, signInOverHttp } from './helpers/web-pages.js';

const SIGN_IN = '/wp-login.php';
/** Each starts with a single `/` and becomes `//evil.example…` (another host) once its dot segments are resolved. */
const ESCAPING = ['/..//evil.example/path', '/%2e%2e//evil.example/path', '/./..//evil.example', '/.%2e//evil.example', '/..\\/evil.example'];

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h?.close());

t.test('the sign-in page refuses a redirect_to that normalises to another host, on GET and on POST, with no redirect and no session', async (t) => {
  const email = await userOn(h, (await h.account()).id, 'owner');
  for (const target of ESCAPING) {
    const shown = await page(h, 'GET', `${SIGN_IN}?${new URLSearchParams({ redirect_to: target }).toString()}`);
    t.equal(shown.status, 400, `GET with redirect_to=${target} refused`);
    const posted = await page(h, 'POST', SIGN_IN, { form: { email, password: PASSWORD, redirect_to: target } });
    t.equal(posted.status, 400, `POST with redirect_to=${target} refused`);
    t.notOk((posted.headers.get('location') ?? '').startsWith('//'), `no Location to another host for ${target}`);
    t.equal(posted.headers.get('location'), null, 'no redirect at all');
    t.equal(posted.headers.get('set-cookie'), null, 'and no session');
  }
});

t.test('a path of this site with dot segments is still followed, normalised', async (t) => {
  const email = await userOn(h, (await h.account()).id, 'owner');
  const posted = await page(h, 'POST', SIGN_IN, { form: { email, password: PASSWORD, redirect_to: '/a/../domains?x=1' } });
  t.equal(posted.status, 303, posted.text);
  t.equal(posted.headers.get('location'), '/domains?x=1');
});

t.test('switching team refuses a redirect_to that normalises to another host, and switches nothing', async (t) => {
  const account = await h.account();
  const cookie = await signInOverHttp(h, await userOn(h, account.id, 'owner'));
  const guard = await formGuardOf(h, cookie);
  for (const target of ESCAPING) {
    const switched = await page(h, 'POST', '/switch-team', { cookie, form: { _wpnonce: guard._wpnonce!, team: String(account.id), redirect_to: target } });
    t.equal(switched.status, 400, `redirect_to=${target} refused`);
    t.notOk((switched.headers.get('location') ?? '').startsWith('//'), `no Location to another host for ${target}`);
    t.equal(switched.headers.get('set-cookie'), null, 'no team cookie');
  }
});
