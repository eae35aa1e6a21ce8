// wp/v2 templates and template-parts, and wp-block-editor/v1 export, over real HTTP, as WordPress's
// rest-templates-controller tests check them, for anonymous callers, an account's viewer and owner, and a
// platform operator: ids are `tern//slug` in the caller's own space (a team's, or for an operator the platform's);
// create needs a slug and answers 201 with Location; a missing one is 404 rest_template_not_found; DELETE without
// force is 501 (no trash); the export is a zip of the space's templates and parts for those who may edit them.
import t from 'tap';
import { unzipSync, strFromU8 } from 'fflate';
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
const create = async (base: string, body: Json, by: SignedIn | null) => h.request<Json>('POST', `${WP}/${base}`, { body, ...as(by) });

const HEADER = '<!-- wp:paragraph --><p>Acme header</p><!-- /wp:paragraph -->';

t.test('anonymous callers manage no templates: 401 rest_cannot_manage_templates', async (t) => {
  for (const base of ['templates', 'template-parts']) {
    const list = await h.request<Json>('GET', `${WP}/${base}`);
    t.same([list.status, list.body.code], [401, 'rest_cannot_manage_templates']);
    const read = await h.request<Json>('GET', `${WP}/${base}/tern//header`);
    t.same([read.status, read.body.code], [401, 'rest_cannot_manage_templates']);
    const made = await create(base, { slug: 'x' }, null);
    t.same([made.status, made.body.code], [401, 'rest_cannot_manage_templates']);
  }
});

t.test('an owner creates a template part: 201, Location, the id theme//slug and the fields of the edit context', async (t) => {
  const made = await create('template-parts', { slug: 'header', title: 'Header', content: HEADER, area: 'header', description: 'Top of mail' }, owner.session);
  t.equal(made.status, 201);
  t.equal(made.headers.get('location'), `${h.url}${WP}/template-parts/tern//header`);
  t.match(made.body, {
    id: 'tern//header',
    theme: 'tern',
    slug: 'header',
    source: 'custom',
    origin: null,
    type: 'wp_template_part',
    description: 'Top of mail',
    title: { raw: 'Header', rendered: 'Header' },
    content: { raw: HEADER, block_version: 1 },
    status: 'publish',
    has_theme_file: false,
    area: 'header',
    original_source: 'user',
    author_text: String,
  });
  t.type(made.body.wp_id, 'number');
  t.notOk('is_custom' in made.body, 'a part has no is_custom');
  const missingSlug = await create('template-parts', { title: 'No slug' }, owner.session);
  t.same([missingSlug.status, missingSlug.body.code], [400, 'rest_missing_callback_param']);
  const viewing = await create('template-parts', { slug: 'v' }, viewer);
  t.same([viewing.status, viewing.body.code], [403, 'rest_cannot_create']);

  const read = await h.request<Json>('GET', `${WP}/template-parts/tern//header`, as(viewer));
  t.equal(read.status, 200, "a viewer reads its team's published part");
  t.same(read.body.content, { raw: HEADER }, 'view context: raw, no block_version');
  const encoded = await h.request<Json>('GET', `${WP}/template-parts/tern%2F%2Fheader`, as(viewer));
  t.equal(encoded.body.id, 'tern//header', 'the id may come encoded');
  const edit = await h.request<Json>('GET', `${WP}/template-parts/tern//header?context=edit`, as(viewer));
  t.same([edit.status, edit.body.code], [403, 'rest_forbidden_context']);
  const platform = await h.request<Json>('GET', `${WP}/template-parts/tern//header`, as(operator));
  t.same([platform.status, platform.body.code], [404, 'rest_template_not_found'], "a team's part is not in the platform's space");
  const otherTheme = await h.request<Json>('GET', `${WP}/template-parts/twentytwenty//header`, as(owner.session));
  t.same([otherTheme.status, otherTheme.body.code], [404, 'rest_template_not_found']);

  const areas = await h.request<Json[]>('GET', `${WP}/template-parts?area=footer`, as(owner.session));
  t.same(areas.body, [], 'filtered by area');
  const headers = await h.request<Json[]>('GET', `${WP}/template-parts?area=header`, as(owner.session));
  t.same(
    headers.body.map((p) => p.id),
    ['tern//header'],
  );

  const updated = await h.request<Json>('POST', `${WP}/template-parts/tern//header`, { body: { content: '<p>New</p>', area: 'footer' }, ...as(owner.session) });
  t.same([updated.status, updated.body.content.raw, updated.body.area], [200, '<p>New</p>', 'footer']);
  const noTrash = await h.request<Json>('DELETE', `${WP}/template-parts/tern//header`, as(owner.session));
  t.same([noTrash.status, noTrash.body.code], [501, 'rest_trash_not_supported']);
  const byViewer = await h.request<Json>('DELETE', `${WP}/template-parts/tern//header?force=true`, as(viewer));
  t.same([byViewer.status, byViewer.body.code], [403, 'rest_cannot_delete']);
  const gone = await h.request<Json>('DELETE', `${WP}/template-parts/tern//header?force=true`, as(owner.session));
  t.same([gone.status, gone.body.deleted, gone.body.previous.id], [200, true, 'tern//header']);
  const after = await h.request<Json>('GET', `${WP}/template-parts/tern//header`, as(owner.session));
  t.same([after.status, after.body.code], [404, 'rest_template_not_found']);
});

t.test('templates: is_custom, no area; a taken slug gets the next; drafts are for writers; view keys', async (t) => {
  const made = await create('templates', { slug: 'welcome', title: 'Welcome', content: '<p>Hi</p>' }, owner.session);
  t.same([made.status, made.body.id, made.body.is_custom, 'area' in made.body], [201, 'tern//welcome', true, false]);
  const again = await create('templates', { slug: 'welcome' }, owner.session);
  t.equal(again.body.id, 'tern//welcome-2');
  const draft = await create('templates', { slug: 'later', status: 'draft' }, owner.session);
  const viewed = await h.request<Json[]>('GET', `${WP}/templates`, as(viewer));
  t.same(
    viewed.body.map((x) => x.id),
    ['tern//welcome', 'tern//welcome-2'],
  );
  t.same(Object.keys(viewed.body[0]!).sort(), [
    '_links',
    'author',
    'author_text',
    'content',
    'description',
    'has_theme_file',
    'id',
    'is_custom',
    'modified',
    'origin',
    'original_source',
    'slug',
    'source',
    'status',
    'theme',
    'title',
    'type',
    'wp_id',
  ]);
  const hidden = await h.request<Json>('GET', `${WP}/templates/tern//later`, as(viewer));
  t.same([hidden.status, hidden.body.code], [404, 'rest_template_not_found']);
  const editList = await h.request<Json[]>('GET', `${WP}/templates?context=edit`, as(owner.session));
  t.equal(editList.body.length, 3);
  const embed = await h.request<Json[]>('GET', `${WP}/templates?context=embed`, as(viewer));
  t.notOk('modified' in embed.body[0]!, 'embed leaves modified out');
  t.equal(draft.body.status, 'draft');
  for (const id of ['welcome', 'welcome-2', 'later']) await h.request('DELETE', `${WP}/templates/tern//${id}?force=true`, as(owner.session));
});

/** The export as bytes (fetch, as the zip is not text). */
async function exportOf(by: SignedIn | null): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const res = await fetch(`${h.url}/api/wp-block-editor/v1/export`, as(by));
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

t.test("the export is a zip of the space's templates and parts, for those who may edit them", async (t) => {
  const anonymous = await exportOf(null);
  t.same([anonymous.status, JSON.parse(Buffer.from(anonymous.bytes).toString()).code], [401, 'rest_cannot_export_templates']);
  const viewing = await exportOf(viewer);
  t.same([viewing.status, JSON.parse(Buffer.from(viewing.bytes).toString()).code], [403, 'rest_cannot_export_templates']);
  await create('templates', { slug: 'receipt', content: '<p>Receipt</p>' }, owner.session);
  await create('template-parts', { slug: 'footer', content: '<p>Footer</p>', area: 'footer' }, owner.session);
  await create('template-parts', { slug: 'platform-footer', content: '<p>Platform</p>' }, operator);
  const zip = await exportOf(owner.session);
  t.equal(zip.status, 200);
  t.equal(zip.headers.get('content-type'), 'application/zip');
  t.equal(zip.headers.get('content-disposition'), 'attachment; filename="tern.zip"');
  const files = unzipSync(zip.bytes);
  t.same(Object.keys(files).sort(), ['parts/footer.html', 'templates/receipt.html']);
  t.equal(strFromU8(files['templates/receipt.html']!), '<p>Receipt</p>');
  const platform = unzipSync((await exportOf(operator)).bytes);
  t.same(Object.keys(platform), ['parts/platform-footer.html'], "an operator exports the platform's");
});
