// wp/v2 global-styles over real HTTP, read-only as the specification lists it: the theme 'tern''s theme.json
// (anyone) linking the platform's user global styles item (created on first read, the same one every time), the
// item in each context (edit is the operator's), the theme's variations, the revisions (the operator's), and no
// writes: for anonymous callers, an account's viewer and owner, and a platform operator.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const h = await startHarness({});
t.teardown(() => h.close());

const WP = '/api/wp/v2';
const operator: SignedIn = await logIn(h, await operatorOn(h));
const owner = await signedInOn(h, 'owner');
const viewer: SignedIn = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
const as = (s: SignedIn | null) => (s ? withSession(s) : {});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- WordPress's answers are read field by field, as a client does
type Json = Record<string, any>;

const [first, second] = await Promise.all([h.request<Json>('GET', `${WP}/global-styles/themes/tern`), h.request<Json>('GET', `${WP}/global-styles/themes/tern`)]);
const userStylesUrl = first.body._links['wp:user-global-styles'][0].href as string;
const id = Number(userStylesUrl.split('/').pop());

t.test("anyone reads the theme's theme.json, which links the one user global styles item", async (t) => {
  t.equal(first.status, 200);
  t.same(Object.keys(first.body).sort(), ['_links', 'settings', 'styles']);
  t.ok(Array.isArray(first.body.settings.color.palette), 'the theme palette');
  t.equal(second.body._links['wp:user-global-styles'][0].href, userStylesUrl, 'two first reads at once find the same item');
  t.equal(first.body._links.self[0].href, `${h.url}${WP}/global-styles/themes/tern`);
  const unknown = await h.request<Json>('GET', `${WP}/global-styles/themes/twentytwenty`);
  t.same([unknown.status, unknown.body.code], [404, 'rest_theme_not_found']);
});

t.test('the theme has no style variations', async (t) => {
  const variations = await h.request<Json[]>('GET', `${WP}/global-styles/themes/tern/variations`, as(viewer));
  t.same([variations.status, variations.body], [200, []]);
  const unknown = await h.request<Json>('GET', `${WP}/global-styles/themes/other/variations`);
  t.same([unknown.status, unknown.body.code], [404, 'rest_theme_not_found']);
});

t.test('the user global styles are read by anyone; the edit context is the operator’s', async (t) => {
  for (const s of [null, viewer, owner.session]) {
    const view = await h.request<Json>('GET', `${WP}/global-styles/${id}`, as(s));
    t.equal(view.status, 200);
    t.same(Object.keys(view.body).sort(), ['_links', 'id', 'settings', 'styles', 'title']);
    t.same(view.body.title, { rendered: 'Custom Styles' });
  }
  const embed = await h.request<Json>('GET', `${WP}/global-styles/${id}?context=embed`);
  t.same(Object.keys(embed.body).sort(), ['_links', 'id', 'title']);
  const anonymousEdit = await h.request<Json>('GET', `${WP}/global-styles/${id}?context=edit`);
  t.same([anonymousEdit.status, anonymousEdit.body.code], [401, 'rest_forbidden_context']);
  const ownerEdit = await h.request<Json>('GET', `${WP}/global-styles/${id}?context=edit`, as(owner.session));
  t.same([ownerEdit.status, ownerEdit.body.code], [403, 'rest_forbidden_context']);
  const edit = await h.request<Json>('GET', `${WP}/global-styles/${id}?context=edit`, as(operator));
  t.same([edit.status, edit.body.title], [200, { raw: 'Custom Styles', rendered: 'Custom Styles' }]);
  const missing = await h.request<Json>('GET', `${WP}/global-styles/999999`);
  t.same([missing.status, missing.body.code], [404, 'rest_global_styles_not_found']);
});

t.test('global styles are read-only: a write is not a route', async (t) => {
  const write = await h.request<Json>('POST', `${WP}/global-styles/${id}`, { body: { styles: { color: { text: 'red' } } }, ...as(operator) });
  t.equal(write.status, 404);
  t.equal(write.body.code, 'rest_no_route');
});

t.test('the revisions are the operator’s, paged with the headers', async (t) => {
  const anonymous = await h.request<Json>('GET', `${WP}/global-styles/${id}/revisions`);
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_read']);
  const ownerList = await h.request<Json>('GET', `${WP}/global-styles/${id}/revisions`, as(owner.session));
  t.same([ownerList.status, ownerList.body.code], [403, 'rest_cannot_read']);
  const list = await h.request<Json[]>('GET', `${WP}/global-styles/${id}/revisions`, as(operator));
  t.same([list.status, list.body, list.headers.get('x-wp-total'), list.headers.get('x-wp-totalpages')], [200, [], '0', '0']);
  const missing = await h.request<Json>('GET', `${WP}/global-styles/999999/revisions`, as(operator));
  t.same([missing.status, missing.body.code], [404, 'rest_global_styles_not_found']);
  const noRevision = await h.request<Json>('GET', `${WP}/global-styles/${id}/revisions/999999`, as(operator));
  t.equal(noRevision.status, 404);
});
