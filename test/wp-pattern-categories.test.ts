// wp/v2 wp_pattern_category (the block editor's pattern categories) over real HTTP, served by the same taxonomy
// controller as categories and tags: anyone lists and reads them, a platform operator writes them, paging
// headers, create 201 with Location, DELETE needs force; the taxonomy is described in /wp/v2/taxonomies.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const h = await startHarness({});
t.teardown(() => h.close());

const WP = '/api/wp/v2';
const BASE = `${WP}/wp_pattern_category`;
const operator: SignedIn = await logIn(h, await operatorOn(h));
const owner = await signedInOn(h, 'owner');
const viewer: SignedIn = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
const as = (s: SignedIn | null) => (s ? withSession(s) : {});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- WordPress's answers are read field by field, as a client does
type Json = Record<string, any>;

t.test('only a platform operator creates a pattern category: 401, 403, then 201 with Location', async (t) => {
  const anonymous = await h.request<Json>('POST', BASE, { body: { name: 'Headers' } });
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  for (const s of [viewer, owner.session]) {
    const refused = await h.request<Json>('POST', BASE, { body: { name: 'Headers' }, ...as(s) });
    t.same([refused.status, refused.body.code], [403, 'rest_cannot_create']);
  }
  const made = await h.request<Json>('POST', BASE, { body: { name: 'Call to action', description: 'Buttons' }, ...as(operator) });
  t.equal(made.status, 201);
  t.equal(made.headers.get('location'), `${h.url}${BASE}/${made.body.id}`);
  t.same([made.body.taxonomy, made.body.slug, made.body.count], ['wp_pattern_category', 'call-to-action', 0]);
  t.notOk('parent' in made.body, 'a flat taxonomy has no parent');
  await h.request('DELETE', `${BASE}/${made.body.id}?force=true`, as(operator));
});

t.test('anyone lists pattern categories by name with paging headers; edit context is the operator’s', async (t) => {
  const ids: number[] = [];
  for (const name of ['Banners', 'Footers', 'Headers']) ids.push((await h.request<Json>('POST', BASE, { body: { name }, ...as(operator) })).body.id as number);
  const page = await h.request<Json[]>('GET', `${BASE}?per_page=2`);
  t.equal(page.status, 200);
  t.same(
    page.body.map((c) => c.name),
    ['Banners', 'Footers'],
  );
  t.same([page.headers.get('x-wp-total'), page.headers.get('x-wp-totalpages')], ['3', '2']);
  t.match(page.headers.get('link') ?? '', /per_page=2[^>]*page=2[^>]*>; rel="next"/);
  const past = await h.request<Json[]>('GET', `${BASE}?per_page=2&page=5`);
  t.same([past.status, past.body], [200, []], 'a page past the end of terms is empty');
  t.same(Object.keys(page.body[0]!).sort(), ['_links', 'count', 'description', 'id', 'link', 'meta', 'name', 'slug', 'taxonomy']);
  const embed = await h.request<Json>('GET', `${BASE}/${ids[0]}?context=embed`);
  t.same(Object.keys(embed.body).sort(), ['_links', 'id', 'link', 'name', 'slug', 'taxonomy']);
  const edit = await h.request<Json>('GET', `${BASE}?context=edit`, as(owner.session));
  t.same([edit.status, edit.body.code], [403, 'rest_forbidden_context']);
  const tag = await h.request<Json>('POST', `${WP}/tags`, { body: { name: 'Only a tag' }, ...as(operator) });
  t.equal((await h.request<Json>('GET', `${BASE}/${tag.body.id}`)).status, 404, 'a tag is not a pattern category');
  await h.request('DELETE', `${WP}/tags/${tag.body.id}?force=true`, as(operator));
  for (const id of ids) await h.request('DELETE', `${BASE}/${id}?force=true`, as(operator));
});

t.test('a pattern category is updated by an operator and deleted only with force', async (t) => {
  const made = await h.request<Json>('POST', BASE, { body: { name: 'Old' }, ...as(operator) });
  const refused = await h.request<Json>('POST', `${BASE}/${made.body.id}`, { body: { name: 'x' }, ...as(viewer) });
  t.same([refused.status, refused.body.code], [403, 'rest_cannot_edit']);
  const renamed = await h.request<Json>('PATCH', `${BASE}/${made.body.id}`, { body: { name: 'New', slug: 'new' }, ...as(operator) });
  t.same([renamed.status, renamed.body.name, renamed.body.slug], [200, 'New', 'new']);
  const trash = await h.request<Json>('DELETE', `${BASE}/${made.body.id}`, as(operator));
  t.same([trash.status, trash.body.code], [501, 'rest_trash_not_supported']);
  const gone = await h.request<Json>('DELETE', `${BASE}/${made.body.id}?force=true`, as(operator));
  t.same([gone.status, gone.body.deleted, gone.body.previous.name], [200, true, 'New']);
  t.equal((await h.request<Json>('GET', `${BASE}/${made.body.id}`)).status, 404);
});

t.test('the taxonomy is described with its REST base and the wp_block type', async (t) => {
  const all = await h.request<Json>('GET', `${WP}/taxonomies`);
  t.same(Object.keys(all.body).sort(), ['category', 'post_tag', 'wp_pattern_category']);
  const one = await h.request<Json>('GET', `${WP}/taxonomies/wp_pattern_category`);
  t.same([one.status, one.body.rest_base, one.body.types, one.body.hierarchical], [200, 'wp_pattern_category', ['wp_block'], false]);
  const ofBlocks = await h.request<Json>('GET', `${WP}/taxonomies?type=wp_block`);
  t.same(Object.keys(ofBlocks.body), ['wp_pattern_category']);
});
