// wp/v2 menus and menu-items (the platform's help menu and docs navigation) over real HTTP, as WordPress's
// rest-menus-controller and rest-menu-items-controller tests check them, for anonymous callers, an account's
// viewer and owner, and a platform operator: who may list, read and write; fields per context; create 201 with
// Location; menu items paged 100 at a time; DELETE needs force; a link that could run script is refused.
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

const menu = await h.request<Json>('POST', `${WP}/menus`, { body: { name: 'Help', description: 'The dashboard help menu' }, ...as(operator) });
const menuId = menu.body.id as number;
const newItem = (body: Json, by: SignedIn | null = operator) => h.request<Json>('POST', `${WP}/menu-items`, { body: { menus: menuId, ...body }, ...as(by) });

t.test('only a platform operator creates a menu: 401 anonymous, 403 for account users, 201 with Location', async (t) => {
  t.equal(menu.status, 201);
  t.equal(menu.headers.get('location'), `${h.url}${WP}/menus/${menuId}`);
  t.same(Object.keys(menu.body).sort(), ['_links', 'auto_add', 'description', 'id', 'locations', 'meta', 'name', 'slug']);
  t.same([menu.body.slug, menu.body.locations, menu.body.auto_add], ['help', [], false]);
  const anonymous = await h.request<Json>('POST', `${WP}/menus`, { body: { name: 'X' } });
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  for (const s of [viewer, owner.session]) {
    const refused = await h.request<Json>('POST', `${WP}/menus`, { body: { name: 'X' }, ...as(s) });
    t.same([refused.status, refused.body.code], [403, 'rest_cannot_create']);
  }
  const twice = await h.request<Json>('POST', `${WP}/menus`, { body: { name: 'Help' }, ...as(operator) });
  t.same([twice.status, twice.body.code, twice.body.data.term_id], [400, 'term_exists', menuId]);
});

t.test('anyone lists and reads menus; the edit context is the operator’s', async (t) => {
  const list = await h.request<Json[]>('GET', `${WP}/menus`);
  t.equal(list.status, 200);
  t.equal(list.headers.get('x-wp-total'), '1');
  t.same(
    list.body.map((m) => m.name),
    ['Help'],
  );
  const embed = await h.request<Json>('GET', `${WP}/menus/${menuId}?context=embed`);
  t.same(Object.keys(embed.body).sort(), ['_links', 'id', 'name', 'slug']);
  const edit = await h.request<Json>('GET', `${WP}/menus/${menuId}?context=edit`, as(viewer));
  t.same([edit.status, edit.body.code], [403, 'rest_forbidden_context']);
  const asOperator = await h.request<Json>('GET', `${WP}/menus/${menuId}?context=edit`, as(operator));
  t.equal(asOperator.body.description, 'The dashboard help menu');
  const missing = await h.request<Json>('GET', `${WP}/menus/999999`);
  t.same([missing.status, missing.body.code], [404, 'rest_term_invalid']);
  const category = await h.request<Json>('POST', `${WP}/categories`, { body: { name: 'Not a menu' }, ...as(operator) });
  const wrongTaxonomy = await h.request<Json>('GET', `${WP}/menus/${category.body.id}`);
  t.equal(wrongTaxonomy.status, 404, 'a term of another taxonomy is not a menu');
  await h.request('DELETE', `${WP}/categories/${category.body.id}?force=true`, as(operator));
});

t.test('a menu item is created by an operator only, with its fields, 201 and Location', async (t) => {
  const anonymous = await newItem({ title: 'Docs', url: '/docs' }, null);
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  for (const s of [viewer, owner.session]) {
    const refused = await newItem({ title: 'Docs', url: '/docs' }, s);
    t.same([refused.status, refused.body.code], [403, 'rest_cannot_create']);
  }
  const made = await newItem({ title: 'Getting <b>started</b>', url: 'https://example.com/start?a=1&b=2', target: '_blank', classes: ['help'], menu_order: 1 });
  t.equal(made.status, 201);
  t.equal(made.headers.get('location'), `${h.url}${WP}/menu-items/${made.body.id}`);
  t.same(Object.keys(made.body).sort(), [
    '_links',
    'attr_title',
    'classes',
    'description',
    'id',
    'invalid',
    'menu_order',
    'menus',
    'meta',
    'object',
    'object_id',
    'parent',
    'status',
    'target',
    'title',
    'type',
    'type_label',
    'url',
    'xfn',
  ]);
  t.same(made.body.title, { raw: 'Getting <b>started</b>', rendered: 'Getting &lt;b&gt;started&lt;/b&gt;' });
  t.same(
    [made.body.status, made.body.type, made.body.type_label, made.body.object, made.body.menus, made.body.target, made.body.classes],
    ['publish', 'custom', 'Custom Link', 'custom', menuId, '_blank', ['help']],
  );
  t.equal(made.body.url, 'https://example.com/start?a=1&amp;b=2', 'the url is escaped on output');
  const view = await h.request<Json>('GET', `${WP}/menu-items/${made.body.id}`);
  t.same(view.body.title, { rendered: 'Getting &lt;b&gt;started&lt;/b&gt;' }, 'the raw title is the edit context’s');
  await h.request('DELETE', `${WP}/menu-items/${made.body.id}?force=true`, as(operator));
});

t.test('a menu item link that could run script, or one without a menu, is refused', async (t) => {
  for (const url of [
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'java\tscript:alert(1)',
    ' javascript:alert(1)',
    'data:text/html,<script>x</script>',
    '//evil.example/x',
    'vbscript:x',
  ]) {
    const refused = await newItem({ title: 'Bad', url });
    t.same([refused.status, refused.body.code], [400, 'rest_invalid_param'], JSON.stringify(url));
  }
  const noUrl = await newItem({ title: 'Custom without url' });
  t.same([noUrl.status, noUrl.body.code], [400, 'rest_url_required']);
  const noMenu = await h.request<Json>('POST', `${WP}/menu-items`, { body: { title: 'x', url: '/x' }, ...as(operator) });
  t.same([noMenu.status, noMenu.body.code], [400, 'rest_missing_callback_param']);
  const badMenu = await newItem({ title: 'x', url: '/x', menus: 999999 });
  t.same([badMenu.status, badMenu.body.code], [400, 'invalid_menu_id']);
  const made = await newItem({ title: 'Path', url: '/docs/start#top' });
  t.equal(made.status, 201, 'a path on the site is a fine link');
  const update = await h.request<Json>('POST', `${WP}/menu-items/${made.body.id}`, { body: { url: 'javascript:alert(1)' }, ...as(operator) });
  t.same([update.status, update.body.code], [400, 'rest_invalid_param'], 'an update is checked too');
  await h.request('DELETE', `${WP}/menu-items/${made.body.id}?force=true`, as(operator));
});

t.test('menu items are listed 100 a page by default, in menu order, filtered by menu, with the paging headers', async (t) => {
  const other = await h.request<Json>('POST', `${WP}/menus`, { body: { name: 'Docs navigation' }, ...as(operator) });
  const ids: number[] = [];
  for (let i = 0; i < 102; i++) ids.push((await newItem({ title: `Item ${i}`, url: `/docs/${i}`, menu_order: i + 1 })).body.id as number);
  const elsewhere = await newItem({ title: 'Elsewhere', url: '/x', menus: other.body.id });
  const first = await h.request<Json[]>('GET', `${WP}/menu-items?menus[]=${menuId}`);
  t.equal(first.status, 200);
  t.equal(first.body.length, 100, 'per_page defaults to 100');
  t.same([first.headers.get('x-wp-total'), first.headers.get('x-wp-totalpages')], ['102', '2']);
  t.equal(first.body[0]!.title.rendered, 'Item 0', 'in menu order');
  t.match(first.headers.get('link') ?? '', /page=2[^>]*>; rel="next"/);
  const second = await h.request<Json[]>('GET', `${WP}/menu-items?menus[]=${menuId}&page=2`);
  t.same(
    second.body.map((i) => i.title.rendered),
    ['Item 100', 'Item 101'],
  );
  const tooMany = await h.request<Json>('GET', `${WP}/menu-items?per_page=101`);
  t.same([tooMany.status, tooMany.body.code], [400, 'rest_invalid_param'], 'per_page is at most 100');
  const byOther = await h.request<Json[]>('GET', `${WP}/menu-items?menus=${other.body.id}`);
  t.same(
    byOther.body.map((i) => i.id),
    [elsewhere.body.id],
  );
  const past = await h.request<Json>('GET', `${WP}/menu-items?page=3`);
  t.same([past.status, past.body.code], [400, 'rest_post_invalid_page_number']);
  const drafts = await h.request<Json>('GET', `${WP}/menu-items?status=draft`, as(owner.session));
  t.same([drafts.status, drafts.body.code], [403, 'rest_forbidden_status']);
  for (const id of [...ids, elsewhere.body.id as number]) await h.request('DELETE', `${WP}/menu-items/${id}?force=true`, as(operator));
  await h.request('DELETE', `${WP}/menus/${other.body.id}?force=true`, as(operator));
});

t.test('a menu item is updated and deleted by an operator; DELETE without force is 501', async (t) => {
  const made = await newItem({ title: 'Old', url: '/old' });
  const id = made.body.id as number;
  const refused = await h.request<Json>('POST', `${WP}/menu-items/${id}`, { body: { title: 'x' }, ...as(owner.session) });
  t.same([refused.status, refused.body.code], [403, 'rest_cannot_edit']);
  const updated = await h.request<Json>('PUT', `${WP}/menu-items/${id}`, { body: { title: 'New', attr_title: 'Hint' }, ...as(operator) });
  t.same([updated.status, updated.body.title.raw, updated.body.url, updated.body.attr_title], [200, 'New', '/old', 'Hint']);
  const anonymous = await h.request<Json>('DELETE', `${WP}/menu-items/${id}?force=true`);
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_delete']);
  const trash = await h.request<Json>('DELETE', `${WP}/menu-items/${id}`, as(operator));
  t.same([trash.status, trash.body.code], [501, 'rest_trash_not_supported']);
  const gone = await h.request<Json>('DELETE', `${WP}/menu-items/${id}?force=true`, as(operator));
  t.same([gone.status, gone.body.deleted, gone.body.previous.id], [200, true, id]);
  const again = await h.request<Json>('GET', `${WP}/menu-items/${id}`);
  t.same([again.status, again.body.code], [404, 'rest_post_invalid_id']);
});

t.test('a menu is deleted only with force, by an operator', async (t) => {
  const made = await h.request<Json>('POST', `${WP}/menus`, { body: { name: 'Temporary' }, ...as(operator) });
  const refused = await h.request<Json>('DELETE', `${WP}/menus/${made.body.id}?force=true`, as(owner.session));
  t.same([refused.status, refused.body.code], [403, 'rest_cannot_delete']);
  const trash = await h.request<Json>('DELETE', `${WP}/menus/${made.body.id}`, as(operator));
  t.same([trash.status, trash.body.code], [501, 'rest_trash_not_supported']);
  const renamed = await h.request<Json>('PATCH', `${WP}/menus/${made.body.id}`, { body: { name: 'Renamed' }, ...as(operator) });
  t.same([renamed.status, renamed.body.name], [200, 'Renamed']);
  const gone = await h.request<Json>('DELETE', `${WP}/menus/${made.body.id}?force=true`, as(operator));
  t.same([gone.status, gone.body.deleted, gone.body.previous.name], [200, true, 'Renamed']);
});

t.test('the menu item type is described under /wp/v2/types with its REST base', async (t) => {
  const type = await h.request<Json>('GET', `${WP}/types/nav_menu_item`);
  t.same([type.status, type.body.rest_base, type.body.slug], [200, 'menu-items', 'nav_menu_item']);
  const all = await h.request<Json>('GET', `${WP}/types`);
  t.ok('nav_menu_item' in all.body && 'wp_font_family' in all.body);
});
