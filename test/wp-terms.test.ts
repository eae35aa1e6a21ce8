// wp/v2 categories and tags over real HTTP, as WordPress's rest-categories-controller and rest-tags-controller
// tests check them, and the read-only descriptions (types, statuses, taxonomies): anyone reads; only an operator
// writes (401 anonymous, 403 account users); a duplicate is term_exists with the first's id; a page past the end
// is an empty list with the headers; DELETE needs force; counts follow published posts.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const h = await startHarness({});
t.teardown(() => h.close());

const WP = '/api/wp/v2';
const operator: SignedIn = await logIn(h, await operatorOn(h));
const owner = await signedInOn(h, 'owner');
const viewer: SignedIn = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- WordPress's answers are read field by field, as a client does
type Json = Record<string, any>;
const as = (s: SignedIn | null) => (s ? withSession(s) : {});

for (const base of ['categories', 'tags']) {
  t.test(`${base}: only an operator writes; a duplicate is term_exists; DELETE needs force`, async (t) => {
    t.same((await h.request<Json>('POST', `${WP}/${base}`, { body: { name: 'x' } })).status, 401);
    for (const s of [viewer, owner.session]) {
      const refused = await h.request<Json>('POST', `${WP}/${base}`, { body: { name: 'x' }, ...as(s) });
      t.same([refused.status, refused.body.code], [403, 'rest_cannot_create']);
    }
    const missing = await h.request<Json>('POST', `${WP}/${base}`, { body: {}, ...as(operator) });
    t.same([missing.status, missing.body.code], [400, 'rest_missing_callback_param']);
    const made = await h.request<Json>('POST', `${WP}/${base}`, { body: { name: 'Deliverability Tips', description: 'How to land' }, ...as(operator) });
    t.equal(made.status, 201);
    t.equal(made.headers.get('location'), `${h.url}${WP}/${base}/${made.body.id}`);
    t.match(made.body, { name: 'Deliverability Tips', slug: 'deliverability-tips', description: 'How to land', count: 0 });
    const duplicate = await h.request<Json>('POST', `${WP}/${base}`, { body: { name: 'Deliverability tips!' }, ...as(operator) });
    t.same([duplicate.status, duplicate.body.code, duplicate.body.data.term_id], [400, 'term_exists', made.body.id]);
    const read = await h.request<Json>('GET', `${WP}/${base}/${made.body.id}`);
    t.same(
      Object.keys(read.body).sort(),
      ['_links', 'count', 'description', 'id', 'link', 'meta', 'name', 'slug', 'taxonomy', ...(base === 'categories' ? ['parent'] : [])].sort(),
    );
    const embed = await h.request<Json>('GET', `${WP}/${base}/${made.body.id}?context=embed`);
    t.same(Object.keys(embed.body).sort(), ['_links', 'id', 'link', 'name', 'slug', 'taxonomy']);
    const edit = await h.request<Json>('GET', `${WP}/${base}/${made.body.id}?context=edit`, as(viewer));
    t.same([edit.status, edit.body.code], [403, 'rest_forbidden_context']);
    const renamed = await h.request<Json>('POST', `${WP}/${base}/${made.body.id}`, { body: { name: 'Inbox placement' }, ...as(operator) });
    t.equal(renamed.body.name, 'Inbox placement');
    const post = await h.request<Json>('POST', `${WP}/posts`, { body: { title: 'Counted', status: 'publish', [base]: [made.body.id] }, ...as(operator) });
    t.equal((await h.request<Json>('GET', `${WP}/${base}/${made.body.id}`)).body.count, 1, 'a published post counts');
    const noForce = await h.request<Json>('DELETE', `${WP}/${base}/${made.body.id}`, as(operator));
    t.same([noForce.status, noForce.body.code], [501, 'rest_trash_not_supported']);
    const gone = await h.request<Json>('DELETE', `${WP}/${base}/${made.body.id}?force=true`, as(operator));
    t.same([gone.status, gone.body.deleted, gone.body.previous.name], [200, true, 'Inbox placement']);
    const missingTerm = await h.request<Json>('GET', `${WP}/${base}/${made.body.id}`);
    t.same([missingTerm.status, missingTerm.body.code], [404, 'rest_term_invalid']);
    t.same((await h.request<Json>('GET', `${WP}/posts/${post.body.id}`)).body[base], [], 'the post no longer links it');
  });

  t.test(`${base}: lists page with headers; a page past the end is an empty list`, async (t) => {
    const names = ['Alpha', 'Bravo', 'Charlie'];
    for (const name of names) await h.request('POST', `${WP}/${base}`, { body: { name: `${base} ${name}` }, ...as(operator) });
    const first = await h.request<Json[]>('GET', `${WP}/${base}?per_page=2&search=${base}`);
    t.same(
      first.body.map((c) => c.name),
      [`${base} Alpha`, `${base} Bravo`],
      'by name, ascending',
    );
    t.same([first.headers.get('x-wp-total'), first.headers.get('x-wp-totalpages')], ['3', '2']);
    t.match(first.headers.get('link') ?? '', /search=[^>]*>; rel="next"/);
    const past = await h.request<Json[]>('GET', `${WP}/${base}?per_page=2&page=5&search=${base}`);
    t.same([past.status, past.body, past.headers.get('x-wp-total')], [200, [], '3']);
    const bySlug = await h.request<Json[]>('GET', `${WP}/${base}?slug=${base}-charlie`);
    t.same(
      bySlug.body.map((c) => c.name),
      [`${base} Charlie`],
    );
  });
}

t.test('a category has a parent of its own taxonomy', async (t) => {
  const parent = (await h.request<Json>('POST', `${WP}/categories`, { body: { name: 'Guides' }, ...as(operator) })).body;
  const child = await h.request<Json>('POST', `${WP}/categories`, { body: { name: 'DNS guides', parent: parent.id }, ...as(operator) });
  t.equal(child.body.parent, parent.id);
  const tag = (await h.request<Json>('POST', `${WP}/tags`, { body: { name: 'dns' }, ...as(operator) })).body;
  const wrong = await h.request<Json>('POST', `${WP}/categories`, { body: { name: 'Orphan', parent: tag.id }, ...as(operator) });
  t.same([wrong.status, wrong.body.code], [400, 'rest_term_invalid_parent']);
  t.same(
    (await h.request<Json[]>('GET', `${WP}/categories?parent=${parent.id}`)).body.map((c) => c.id),
    [child.body.id],
  );
});

t.test('types, statuses and taxonomies describe the namespace; their edit context is for writers', async (t) => {
  const types = await h.request<Json>('GET', `${WP}/types`);
  t.same(Object.keys(types.body).sort(), ['nav_menu_item', 'page', 'post', 'wp_font_family']);
  t.match(types.body.post, { slug: 'post', rest_base: 'posts', rest_namespace: 'wp/v2', taxonomies: ['category', 'post_tag'] });
  t.notOk('capabilities' in types.body.post, 'capabilities only in the edit context');
  t.same([(await h.request<Json>('GET', `${WP}/types?context=edit`)).status], [401]);
  t.ok('capabilities' in (await h.request<Json>('GET', `${WP}/types/post?context=edit`, as(operator))).body);
  const unknown = await h.request<Json>('GET', `${WP}/types/nope`);
  t.same([unknown.status, unknown.body.code], [404, 'rest_type_invalid']);
  t.same(Object.keys((await h.request<Json>('GET', `${WP}/statuses`)).body), ['publish'], 'anonymous callers see the public status only');
  t.same(Object.keys((await h.request<Json>('GET', `${WP}/statuses`, as(operator))).body), ['publish', 'future', 'draft', 'pending', 'private', 'trash']);
  t.same((await h.request<Json>('GET', `${WP}/statuses/draft`)).status, 401);
  const taxonomies = await h.request<Json>('GET', `${WP}/taxonomies?type=post`);
  t.same(Object.keys(taxonomies.body), ['category', 'post_tag']);
  t.match(taxonomies.body.category, { hierarchical: true, rest_base: 'categories', types: ['post'] });
  t.same((await h.request<Json>('GET', `${WP}/taxonomies/nope`)).body.code, 'rest_taxonomy_invalid');
});
