// wp/v2 posts (the platform's announcements) over real HTTP, as WordPress's rest-posts-controller tests check
// them, for anonymous callers, an account's viewer and owner, and a platform operator: who may list, read and
// write; the collection's paging headers and links, a page past the end, include/exclude/search/slug; the
// server-wide _fields, _embed, _envelope, _method and HEAD; create 201 with Location; the trash and force;
// revisions and autosaves.
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
const createPost = async (body: Json, by: SignedIn | null = operator) => h.request<Json>('POST', `${WP}/posts`, { body, ...as(by) });

const published: number[] = [];
for (const [i, title] of ['Alpha launch', 'Beta notes', 'Gamma changelog'].entries()) {
  const made = await createPost({ title, content: `Body ${i}`, status: 'publish', date: `2026-01-0${i + 1}T10:00:00` });
  published.push(made.body.id as number);
}
const draft = (await createPost({ title: 'Secret plan', content: 'not yet' })).body.id as number;

t.test('only a platform operator creates announcements: 401 anonymous, 403 for account users', async (t) => {
  const anonymous = await createPost({ title: 'x' }, null);
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  for (const s of [viewer, owner.session]) {
    const refused = await createPost({ title: 'x' }, s);
    t.same([refused.status, refused.body.code], [403, 'rest_cannot_create']);
  }
  const made = await createPost({ title: 'Delta <b>news</b>', content: { raw: 'Hello' }, status: 'publish', slug: 'delta-news' });
  t.equal(made.status, 201);
  t.equal(made.headers.get('location'), `${h.url}${WP}/posts/${made.body.id}`);
  t.same(made.body.title, { raw: 'Delta <b>news</b>', rendered: 'Delta &lt;b&gt;news&lt;/b&gt;' }, 'edit context: raw and rendered, escaped');
  t.equal(made.body.slug, 'delta-news');
  const again = await createPost({ title: 'Delta again', slug: 'delta-news', status: 'publish' });
  t.equal(again.body.slug, 'delta-news-2', 'a taken slug gets the next free suffix');
  const exists = await createPost({ id: made.body.id, title: 'x' });
  t.same([exists.status, exists.body.code], [400, 'rest_post_exists']);
  await h.request('DELETE', `${WP}/posts/${made.body.id}?force=true`, as(operator));
  await h.request('DELETE', `${WP}/posts/${again.body.id}?force=true`, as(operator));
});

t.test('anyone lists published posts, newest first, with the paging headers and links keeping the query', async (t) => {
  const all = await h.request<Json[]>('GET', `${WP}/posts`);
  t.equal(all.status, 200);
  t.same(
    all.body.map((p) => p.title.rendered),
    ['Gamma changelog', 'Beta notes', 'Alpha launch'],
  );
  t.equal(all.headers.get('x-wp-total'), '3');
  t.equal(all.headers.get('x-wp-totalpages'), '1');
  t.same(Object.keys(all.body[0]!).sort(), [
    '_links',
    'author',
    'categories',
    'class_list',
    'comment_status',
    'content',
    'date',
    'date_gmt',
    'excerpt',
    'featured_media',
    'format',
    'guid',
    'id',
    'link',
    'meta',
    'modified',
    'modified_gmt',
    'ping_status',
    'slug',
    'status',
    'sticky',
    'tags',
    'template',
    'title',
    'type',
  ]);
  t.notOk('raw' in all.body[0]!.title, 'no raw text in the view context');
  const page1 = await h.request<Json[]>('GET', `${WP}/posts?per_page=2&search=a`);
  t.equal(page1.headers.get('x-wp-totalpages'), '2');
  const link = page1.headers.get('link') ?? '';
  t.match(link, /rel="https:\/\/api\.w\.org\/"/);
  t.match(link, /<[^>]*per_page=2[^>]*page=2[^>]*>; rel="next"/);
  t.match(link, /search=a/, 'the next link keeps the query');
  const page2 = await h.request<Json[]>('GET', `${WP}/posts?per_page=2&page=2`);
  t.equal(page2.body.length, 1);
  t.match(page2.headers.get('link') ?? '', /page=1[^>]*>; rel="prev"/);
  const past = await h.request<Json>('GET', `${WP}/posts?per_page=2&page=3`);
  t.same([past.status, past.body.code], [400, 'rest_post_invalid_page_number']);
  const badPerPage = await h.request<Json>('GET', `${WP}/posts?per_page=101`);
  t.same([badPerPage.status, badPerPage.body.code], [400, 'rest_invalid_param']);
});

t.test('include, exclude, slug, search, order and offset narrow and sort the list; arrays by brackets or commas', async (t) => {
  const ids = async (query: string) => (await h.request<Json[]>('GET', `${WP}/posts?${query}`)).body.map((p) => p.id as number);
  t.same(await ids(`include[]=${published[0]}&include[]=${published[2]}`), [published[2], published[0]]);
  t.same(await ids(`include=${published[0]},${published[1]}&orderby=include`), [published[0], published[1]]);
  t.same(await ids(`exclude=${published[1]}&order=asc`), [published[0], published[2]]);
  t.same(await ids('slug=beta-notes'), [published[1]]);
  t.same(await ids('search=changelog'), [published[2]]);
  t.same(await ids('orderby=title&order=asc&offset=1'), [published[1], published[2]]);
  const badOrder = await h.request<Json>('GET', `${WP}/posts?orderby=nonsense`);
  t.same([badOrder.status, badOrder.body.code], [400, 'rest_invalid_param']);
});

t.test('drafts and the edit context are for those who may edit: rest_forbidden_status and rest_forbidden_context', async (t) => {
  const status = await h.request<Json>('GET', `${WP}/posts?status=draft`);
  t.same([status.status, status.body.code], [401, 'rest_forbidden_status']);
  const edit = await h.request<Json>('GET', `${WP}/posts?context=edit`, as(viewer));
  t.same([edit.status, edit.body.code], [403, 'rest_forbidden_context']);
  const drafts = await h.request<Json[]>('GET', `${WP}/posts?status=draft&context=edit`, as(operator));
  t.same(
    drafts.body.map((p) => p.id),
    [draft],
  );
  t.equal(drafts.body[0]!.title.raw, 'Secret plan');
  const hidden = await h.request<Json>('GET', `${WP}/posts/${draft}`);
  t.same([hidden.status, hidden.body.code], [401, 'rest_forbidden']);
  const hiddenToViewer = await h.request<Json>('GET', `${WP}/posts/${draft}`, as(viewer));
  t.same([hiddenToViewer.status, hiddenToViewer.body.code], [403, 'rest_forbidden']);
  const missing = await h.request<Json>('GET', `${WP}/posts/99999999`);
  t.same([missing.status, missing.body.code, missing.body.message], [404, 'rest_post_invalid_id', 'Invalid post ID.']);
  const embed = await h.request<Json>('GET', `${WP}/posts/${published[0]}?context=embed`);
  t.same(Object.keys(embed.body).sort(), ['_links', 'author', 'date', 'excerpt', 'featured_media', 'id', 'link', 'slug', 'title', 'type']);
});

t.test('_fields, _embed, _envelope, _method and HEAD apply to every answer', async (t) => {
  const category = await h.request<Json>('POST', `${WP}/categories`, { body: { name: 'Releases' }, ...as(operator) });
  t.equal(category.status, 201);
  const tagged = await createPost({ title: 'Tagged', status: 'publish', categories: [category.body.id] });
  t.same(tagged.body.categories, [category.body.id]);
  const fields = await h.request<Json[]>('GET', `${WP}/posts?_fields=id,title.rendered`);
  t.same(Object.keys(fields.body[0]!), ['id', 'title']);
  t.same(Object.keys(fields.body[0]!.title), ['rendered']);
  const embedded = await h.request<Json>('GET', `${WP}/posts/${tagged.body.id}?_embed=wp:term`);
  t.same(
    embedded.body._embedded['wp:term'][0].map((c: Json) => c.name),
    ['Releases'],
  );
  t.same(Object.keys(embedded.body._embedded['wp:term'][0][0]).sort(), ['_links', 'id', 'link', 'name', 'slug', 'taxonomy'], 'embedded with context=embed');
  const enveloped = await h.request<Json>('GET', `${WP}/posts/99999999?_envelope`);
  t.equal(enveloped.status, 200);
  t.same([enveloped.body.status, enveloped.body.body.code], [404, 'rest_post_invalid_id']);
  const head = await fetch(`${h.url}${WP}/posts?per_page=1`, { method: 'HEAD' });
  t.same([head.status, head.headers.get('x-wp-total'), await head.text()], [200, '4', '']);
  const overridden = await h.request<Json>('POST', `${WP}/posts/${tagged.body.id}?_method=DELETE`, as(operator));
  t.same([overridden.status, overridden.body.status], [200, 'trash'], 'POST with _method=DELETE trashes');
  const header = await h.request<Json>('POST', `${WP}/posts/${tagged.body.id}`, { headers: { ...withSession(operator).headers, 'X-HTTP-Method-Override': 'DELETE' } });
  t.same([header.status, header.body.code], [410, 'rest_already_trashed']);
  await h.request('DELETE', `${WP}/posts/${tagged.body.id}?force=true`, as(operator));
  await h.request('DELETE', `${WP}/categories/${category.body.id}?force=true`, as(operator));
});

t.test('DELETE trashes, a second DELETE is 410, force deletes for good; only an operator deletes', async (t) => {
  const made = await createPost({ title: 'Short lived', status: 'publish' });
  const refused = await h.request<Json>('DELETE', `${WP}/posts/${made.body.id}`, as(owner.session));
  t.same([refused.status, refused.body.code], [403, 'rest_cannot_delete']);
  const trashed = await h.request<Json>('DELETE', `${WP}/posts/${made.body.id}`, as(operator));
  t.same([trashed.status, trashed.body.status], [200, 'trash']);
  const again = await h.request<Json>('DELETE', `${WP}/posts/${made.body.id}`, as(operator));
  t.same([again.status, again.body.code], [410, 'rest_already_trashed']);
  t.notOk(
    (await h.request<Json[]>('GET', `${WP}/posts`)).body.some((p) => p.id === made.body.id),
    'a trashed post is not listed',
  );
  const gone = await h.request<Json>('DELETE', `${WP}/posts/${made.body.id}?force=true`, as(operator));
  t.same([gone.status, gone.body.deleted, gone.body.previous.id], [200, true, made.body.id]);
  t.equal((await h.request('GET', `${WP}/posts/${made.body.id}`, as(operator))).status, 404);
});

t.test('revisions keep each saved version; a revision of another post is 404; deleting one needs force', async (t) => {
  const made = await createPost({ title: 'Versioned', content: 'v1', status: 'publish' });
  const other = await createPost({ title: 'Other', content: 'o1', status: 'publish' });
  await h.request('POST', `${WP}/posts/${made.body.id}`, { body: { content: 'v2' }, ...as(operator) });
  const revisions = await h.request<Json[]>('GET', `${WP}/posts/${made.body.id}/revisions`, as(operator));
  t.equal(revisions.status, 200);
  t.same(
    revisions.body.map((r) => r.content.rendered.trim()),
    ['<p>v2</p>', '<p>v1</p>'],
  );
  t.equal(revisions.headers.get('x-wp-total'), '2');
  const anonymous = await h.request<Json>('GET', `${WP}/posts/${made.body.id}/revisions`);
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_read']);
  const revisionId = revisions.body[0]!.id as number;
  const mismatch = await h.request<Json>('GET', `${WP}/posts/${other.body.id}/revisions/${revisionId}`, as(operator));
  t.same([mismatch.status, mismatch.body.code], [404, 'rest_revision_parent_id_mismatch']);
  const noForce = await h.request<Json>('DELETE', `${WP}/posts/${made.body.id}/revisions/${revisionId}`, as(operator));
  t.same([noForce.status, noForce.body.code], [501, 'rest_trash_not_supported']);
  const forced = await h.request<Json>('DELETE', `${WP}/posts/${made.body.id}/revisions/${revisionId}?force=true`, as(operator));
  t.same([forced.status, forced.body.deleted], [200, true]);
});

t.test("an author's autosave of their own draft saves the draft; of a published post it is an autosave revision", async (t) => {
  const own = await createPost({ title: 'My draft', content: 'first' });
  const saved = await h.request<Json>('POST', `${WP}/posts/${own.body.id}/autosaves`, { body: { content: 'second' }, ...as(operator) });
  t.same([saved.status, saved.body.id, saved.body.content.raw], [200, own.body.id, 'second'], 'the draft itself');
  const live = await createPost({ title: 'Live', content: 'public', status: 'publish' });
  const autosave = await h.request<Json>('POST', `${WP}/posts/${live.body.id}/autosaves`, { body: { content: 'work in progress' }, ...as(operator) });
  t.equal(autosave.body.parent, live.body.id);
  t.equal(autosave.body.content.raw, 'work in progress');
  t.equal((await h.request<Json>('GET', `${WP}/posts/${live.body.id}`)).body.content.rendered.trim(), '<p>public</p>', 'the post is unchanged');
  const list = await h.request<Json[]>('GET', `${WP}/posts/${live.body.id}/autosaves`, as(operator));
  t.same(
    list.body.map((a) => a.id),
    [autosave.body.id],
  );
  const none = await h.request<Json>('GET', `${WP}/posts/${own.body.id}/autosaves/${autosave.body.id}`, as(operator));
  t.same([none.status, none.body.code], [404, 'rest_post_no_autosave']);
});
