// wp/v2 navigation (wp_navigation menus) and wp-block-editor/v1 navigation-fallback over real HTTP, for anonymous
// callers, an account's viewer and owner, and a platform operator: menus are the editors' material (signed-in
// readers only, written by the owner's writers); the fallback answers the owner's newest published menu, creating
// one listing the pages when there is none, and only for those who may write menus.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const h = await startHarness({});
t.teardown(() => h.close());

const WP = '/api/wp/v2';
const FALLBACK = '/api/wp-block-editor/v1/navigation-fallback';
const operator: SignedIn = await logIn(h, await operatorOn(h));
const owner = await signedInOn(h, 'owner');
const viewer: SignedIn = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
const as = (s: SignedIn | null) => (s ? withSession(s) : {});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- WordPress's answers are read field by field, as a client does
type Json = Record<string, any>;
const createMenu = async (body: Json, by: SignedIn | null) => h.request<Json>('POST', `${WP}/navigation`, { body, ...as(by) });

const LINKS = '<!-- wp:navigation-link {"label":"Docs","url":"/docs"} /-->';

t.test('the navigation fallback is refused to anonymous callers (401) and viewers (403)', async (t) => {
  const anonymous = await h.request<Json>('GET', FALLBACK);
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  const viewing = await h.request<Json>('GET', FALLBACK, as(viewer));
  t.same([viewing.status, viewing.body.code], [403, 'rest_cannot_create']);
  const none = await h.request<Json[]>('GET', `${WP}/navigation?status=publish`, as(owner.session));
  t.same(none.body, [], 'nothing was created for them');
});

t.test('the fallback creates a published "Navigation" listing the pages once, then answers it again', async (t) => {
  const first = await h.request<Json>('GET', FALLBACK, as(owner.session));
  t.equal(first.status, 200);
  t.same(Object.keys(first.body).sort(), ['_links', 'id']);
  t.same(first.body._links.self, [{ embeddable: true, href: `${h.url}${WP}/navigation/${first.body.id}` }]);
  const menu = await h.request<Json>('GET', `${WP}/navigation/${first.body.id}?context=edit`, as(owner.session));
  t.same([menu.status, menu.body.title.raw, menu.body.status, menu.body.content.raw], [200, 'Navigation', 'publish', '<!-- wp:page-list /-->']);
  const second = await h.request<Json>('GET', FALLBACK, as(owner.session));
  t.equal(second.body.id, first.body.id, 'the existing menu is answered, none created');
  const byOperator = await h.request<Json>('GET', FALLBACK, as(operator));
  t.equal(byOperator.status, 200);
  t.not(byOperator.body.id, first.body.id, "the operator's fallback is the platform's own menu");
  const embedded = await h.request<Json>('GET', `${FALLBACK}?_embed=self`, as(owner.session));
  t.equal(embedded.body._embedded?.self?.[0]?.id, first.body.id, 'the menu embeds');
  for (const [id, by] of [
    [first.body.id, owner.session],
    [byOperator.body.id, operator],
  ] as const)
    await h.request('DELETE', `${WP}/navigation/${id}?force=true`, as(by));
});

t.test('the fallback answers the newest published menu of the owner', async (t) => {
  const older = await createMenu({ title: 'Old', content: LINKS, status: 'publish', date: '2026-01-01T00:00:00' }, owner.session);
  const newer = await createMenu({ title: 'New', content: LINKS, status: 'publish', date: '2026-02-01T00:00:00' }, owner.session);
  const draft = await createMenu({ title: 'Draft', content: LINKS }, owner.session);
  const found = await h.request<Json>('GET', FALLBACK, as(owner.session));
  t.equal(found.body.id, newer.body.id);
  for (const made of [older, newer, draft]) await h.request('DELETE', `${WP}/navigation/${made.body.id}?force=true`, as(owner.session));
});

t.test('menus: created by writers with 201 and Location, read by signed-in members, not by anonymous callers', async (t) => {
  const anonymous = await createMenu({ title: 'x' }, null);
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  const viewing = await createMenu({ title: 'x' }, viewer);
  t.same([viewing.status, viewing.body.code], [403, 'rest_cannot_create']);
  const made = await createMenu({ title: 'Main <menu>', content: LINKS, status: 'publish' }, owner.session);
  t.equal(made.status, 201);
  t.equal(made.headers.get('location'), `${h.url}${WP}/navigation/${made.body.id}`);
  t.same(made.body.title, { raw: 'Main <menu>', rendered: 'Main &lt;menu&gt;' });
  t.equal(made.body.type, 'wp_navigation');
  const read = await h.request<Json>('GET', `${WP}/navigation/${made.body.id}`, as(viewer));
  t.equal(read.status, 200);
  t.same(Object.keys(read.body).sort(), [
    '_links',
    'class_list',
    'content',
    'date',
    'date_gmt',
    'guid',
    'id',
    'meta',
    'modified',
    'modified_gmt',
    'slug',
    'status',
    'template',
    'title',
    'type',
  ]);
  t.notOk('raw' in read.body.content, 'view context: no raw content');
  const anonRead = await h.request<Json>('GET', `${WP}/navigation/${made.body.id}`);
  t.same([anonRead.status, anonRead.body.code], [401, 'rest_forbidden']);
  const anonList = await h.request<Json[]>('GET', `${WP}/navigation`);
  t.same([anonList.status, anonList.body], [200, []]);
  const list = await h.request<Json[]>('GET', `${WP}/navigation?per_page=1`, as(viewer));
  t.same([list.headers.get('x-wp-total'), list.headers.get('x-wp-totalpages')], ['1', '1']);
  const trashed = await h.request<Json>('DELETE', `${WP}/navigation/${made.body.id}`, as(owner.session));
  t.same([trashed.status, trashed.body.status], [200, 'trash']);
  const gone = await h.request<Json>('DELETE', `${WP}/navigation/${made.body.id}?force=true`, as(owner.session));
  t.same([gone.status, gone.body.deleted], [200, true]);
});

t.test('menus keep revisions and autosaves', async (t) => {
  const made = await createMenu({ title: 'Versioned', content: 'v1', status: 'publish' }, owner.session);
  await h.request('POST', `${WP}/navigation/${made.body.id}`, { body: { content: 'v2' }, ...as(owner.session) });
  const revisions = await h.request<Json[]>('GET', `${WP}/navigation/${made.body.id}/revisions?context=edit`, as(owner.session));
  t.same(
    revisions.body.map((r) => r.content.raw),
    ['v2', 'v1'],
  );
  const anonymous = await h.request<Json>('GET', `${WP}/navigation/${made.body.id}/revisions`);
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_read']);
  const saved = await h.request<Json>('POST', `${WP}/navigation/${made.body.id}/autosaves`, { body: { content: 'v3' }, ...as(owner.session) });
  t.equal(saved.status, 200);
  const autosaves = await h.request<Json[]>('GET', `${WP}/navigation/${made.body.id}/autosaves?context=edit`, as(owner.session));
  t.same(
    autosaves.body.map((r) => r.content.raw),
    ['v3'],
  );
  await h.request('DELETE', `${WP}/navigation/${made.body.id}?force=true`, as(owner.session));
});
