// wp/v2 blocks (reusable blocks, wp_block) over real HTTP, as WordPress's rest-blocks-controller tests check them,
// for anonymous callers, an account's viewer and owner, and a platform operator: blocks are read by signed-in
// callers only; the title and content are raw in the view context and never rendered; the sync status is meta;
// a team's owner writes its team's blocks and an operator the platform's (the ones Tern's own mail may use);
// create 201 with Location, paging headers, the trash and force, revisions and autosaves.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const h = await startHarness({});
t.teardown(() => h.close());

const WP = '/api/wp/v2';
const operator: SignedIn = await logIn(h, await operatorOn(h));
const owner = await signedInOn(h, 'owner');
const viewer: SignedIn = await logIn(h, await userOn(h, owner.accountId, 'viewer'));
const other = await signedInOn(h, 'owner');
const as = (s: SignedIn | null) => (s ? withSession(s) : {});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- WordPress's answers are read field by field, as a client does
type Json = Record<string, any>;
const createBlock = async (body: Json, by: SignedIn | null) => h.request<Json>('POST', `${WP}/blocks`, { body, ...as(by) });

const MARKUP = '<!-- wp:paragraph --><p>Thanks for writing</p><!-- /wp:paragraph -->';

t.test('anonymous callers may neither create nor read blocks (401); a viewer may not create (403)', async (t) => {
  const anonymous = await createBlock({ title: 'x' }, null);
  t.same([anonymous.status, anonymous.body.code], [401, 'rest_cannot_create']);
  const viewing = await createBlock({ title: 'x' }, viewer);
  t.same([viewing.status, viewing.body.code], [403, 'rest_cannot_create']);
  const platform = await createBlock({ title: 'Platform footer', content: MARKUP, status: 'publish' }, operator);
  t.equal(platform.status, 201);
  const read = await h.request<Json>('GET', `${WP}/blocks/${platform.body.id}`);
  t.same([read.status, read.body.code], [401, 'rest_forbidden'], 'a published platform block is not public');
  const list = await h.request<Json[]>('GET', `${WP}/blocks`);
  t.same([list.status, list.body, list.headers.get('x-wp-total')], [200, [], '0'], 'an anonymous list is empty');
  await h.request('DELETE', `${WP}/blocks/${platform.body.id}?force=true`, as(operator));
});

t.test("an owner creates its team's block: 201, Location, raw title and content, no rendered, the sync status as meta", async (t) => {
  const made = await createBlock({ title: 'Sign-off <b>', content: MARKUP, status: 'publish', meta: { wp_pattern_sync_status: 'unsynced' } }, owner.session);
  t.equal(made.status, 201);
  t.equal(made.headers.get('location'), `${h.url}${WP}/blocks/${made.body.id}`);
  t.same(made.body.title, { raw: 'Sign-off <b>' });
  t.same(made.body.content, { raw: MARKUP, protected: false, block_version: 1 });
  t.same(made.body.meta, { wp_pattern_sync_status: 'unsynced' });
  t.equal(made.body.type, 'wp_block');
  t.notOk('link' in made.body, 'a block is not shown on the site');
  t.notOk('author' in made.body);

  const viewed = await h.request<Json>('GET', `${WP}/blocks/${made.body.id}`, as(viewer));
  t.equal(viewed.status, 200, "a viewer reads its team's published block");
  t.same(viewed.body.content, { raw: MARKUP, protected: false }, 'view context: raw content, no block_version, no rendered');
  t.same(viewed.body.title, { raw: 'Sign-off <b>' });
  t.same(Object.keys(viewed.body).sort(), [
    '_links',
    'class_list',
    'content',
    'date',
    'date_gmt',
    'excerpt',
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
    'wp_pattern_category',
  ]);
  const embedded = await h.request<Json>('GET', `${WP}/blocks/${made.body.id}?context=embed`, as(viewer));
  t.same(Object.keys(embedded.body).sort(), ['_links', 'date', 'excerpt', 'id', 'slug', 'title', 'type']);
  t.same(embedded.body.title, {}, 'embed: the raw title is not shown');
  const editByViewer = await h.request<Json>('GET', `${WP}/blocks/${made.body.id}?context=edit`, as(viewer));
  t.same([editByViewer.status, editByViewer.body.code], [403, 'rest_forbidden_context']);
  const otherTeam = await h.request<Json>('GET', `${WP}/blocks/${made.body.id}`, as(other.session));
  t.same([otherTeam.status, otherTeam.body.code], [403, 'rest_forbidden'], "another team's block is not readable");
  const byOperator = await h.request<Json>('GET', `${WP}/blocks/${made.body.id}?context=edit`, as(operator));
  t.equal(byOperator.status, 200, 'an operator edits any block');
  await h.request('DELETE', `${WP}/blocks/${made.body.id}?force=true`, as(owner.session));
});

t.test('lists page with the headers; drafts are for writers only', async (t) => {
  const ids: number[] = [];
  for (const title of ['One', 'Two', 'Three']) ids.push((await createBlock({ title, content: MARKUP, status: 'publish' }, owner.session)).body.id as number);
  const draft = (await createBlock({ title: 'Draft block' }, owner.session)).body.id as number;
  const page = await h.request<Json[]>('GET', `${WP}/blocks?per_page=2&orderby=id&order=asc`, as(viewer));
  t.equal(page.status, 200);
  t.same(
    page.body.map((b) => b.title.raw),
    ['One', 'Two'],
  );
  t.equal(page.headers.get('x-wp-total'), '3');
  t.equal(page.headers.get('x-wp-totalpages'), '2');
  t.match(page.headers.get('link') ?? '', /rel="next"/);
  const past = await h.request<Json>('GET', `${WP}/blocks?page=9`, as(viewer));
  t.same([past.status, past.body.code], [400, 'rest_post_invalid_page_number']);
  const drafts = await h.request<Json>('GET', `${WP}/blocks?status=draft`, as(viewer));
  t.same([drafts.status, drafts.body.code], [403, 'rest_forbidden_status']);
  const ownDrafts = await h.request<Json[]>('GET', `${WP}/blocks?status=draft&context=edit`, as(owner.session));
  t.same(
    ownDrafts.body.map((b) => b.id),
    [draft],
  );
  const otherList = await h.request<Json[]>('GET', `${WP}/blocks`, as(other.session));
  t.same(otherList.body, [], "another team lists none of this team's blocks");
  for (const id of [...ids, draft]) await h.request('DELETE', `${WP}/blocks/${id}?force=true`, as(owner.session));
});

t.test('DELETE trashes, a second is 410, force deletes; a viewer may not delete', async (t) => {
  const made = await createBlock({ title: 'Gone soon', content: MARKUP, status: 'publish' }, owner.session);
  const refused = await h.request<Json>('DELETE', `${WP}/blocks/${made.body.id}`, as(viewer));
  t.same([refused.status, refused.body.code], [403, 'rest_cannot_delete']);
  const trashed = await h.request<Json>('DELETE', `${WP}/blocks/${made.body.id}`, as(owner.session));
  t.same([trashed.status, trashed.body.status], [200, 'trash']);
  const again = await h.request<Json>('DELETE', `${WP}/blocks/${made.body.id}`, as(owner.session));
  t.same([again.status, again.body.code], [410, 'rest_already_trashed']);
  const gone = await h.request<Json>('DELETE', `${WP}/blocks/${made.body.id}?force=true`, as(owner.session));
  t.same([gone.status, gone.body.deleted, gone.body.previous.title], [200, true, { raw: 'Gone soon' }]);
  const missing = await h.request<Json>('GET', `${WP}/blocks/${made.body.id}`, as(owner.session));
  t.same([missing.status, missing.body.code], [404, 'rest_post_invalid_id']);
});

t.test('revisions keep each saved version; autosaves of a published block are revisions of the author', async (t) => {
  const made = await createBlock({ title: 'Versioned', content: 'v1', status: 'publish' }, owner.session);
  await h.request('POST', `${WP}/blocks/${made.body.id}`, { body: { content: 'v2' }, ...as(owner.session) });
  const revisions = await h.request<Json[]>('GET', `${WP}/blocks/${made.body.id}/revisions?context=edit`, as(owner.session));
  t.equal(revisions.status, 200);
  t.equal(revisions.headers.get('x-wp-total'), '2');
  t.same(
    revisions.body.map((r) => r.content.raw),
    ['v2', 'v1'],
  );
  const byViewer = await h.request<Json>('GET', `${WP}/blocks/${made.body.id}/revisions`, as(viewer));
  t.same([byViewer.status, byViewer.body.code], [403, 'rest_cannot_read']);
  const saved = await h.request<Json>('POST', `${WP}/blocks/${made.body.id}/autosaves`, { body: { content: 'v3 draft' }, ...as(owner.session) });
  t.equal(saved.status, 200);
  t.equal(saved.body.parent, made.body.id);
  const autosaves = await h.request<Json[]>('GET', `${WP}/blocks/${made.body.id}/autosaves?context=edit`, as(owner.session));
  t.same(
    autosaves.body.map((r) => r.content.raw),
    ['v3 draft'],
  );
  const still = await h.request<Json>('GET', `${WP}/blocks/${made.body.id}`, as(owner.session));
  t.equal(still.body.content.raw, 'v2', 'the autosave leaves the published block as it was');
  await h.request('DELETE', `${WP}/blocks/${made.body.id}?force=true`, as(owner.session));
});

t.test("a published platform block is what Tern's own mail renders; a team's is not", async (t) => {
  const platform = await createBlock({ title: 'Platform sign-off', content: MARKUP, status: 'publish' }, operator);
  t.equal(platform.status, 201);
  const read = await h.request<Json>('GET', `${WP}/blocks/${platform.body.id}`, as(viewer));
  t.equal(read.status, 200, "members read the platform's published blocks");
  const write = await h.request<Json>('POST', `${WP}/blocks/${platform.body.id}`, { body: { title: 'x' }, ...as(owner.session) });
  t.same([write.status, write.body.code], [403, 'rest_cannot_edit'], "a team's owner does not edit the platform's block");
  await h.request('DELETE', `${WP}/blocks/${platform.body.id}?force=true`, as(operator));
});
