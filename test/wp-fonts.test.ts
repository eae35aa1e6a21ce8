// wp/v2 font-families and font-faces (the platform's font library) over real HTTP, as WordPress's
// rest-font-families-controller and rest-font-faces-controller tests check them, for anonymous callers, an
// account's viewer and owner, and a platform operator: only operators (edit_theme_options) use the library;
// settings are validated JSON strings; create 201 with Location; paging headers; a face asked of another family
// is 404; DELETE needs force and a family's faces go with it.
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

const family = (settings: Json, by: SignedIn | null = operator, extra: Json = {}) =>
  h.request<Json>('POST', `${WP}/font-families`, { body: { font_family_settings: JSON.stringify(settings), ...extra }, ...as(by) });
const face = (familyId: number, settings: Json, by: SignedIn | null = operator) =>
  h.request<Json>('POST', `${WP}/font-families/${familyId}/font-faces`, { body: { font_face_settings: JSON.stringify(settings) }, ...as(by) });
const INTER = { name: 'Inter', slug: 'inter', fontFamily: 'Inter, sans-serif', preview: 'https://fonts.example/inter.svg' };

t.test('only a platform operator reads or writes the font library: 401 anonymous, 403 for account users', async (t) => {
  for (const [s, status] of [
    [null, 401],
    [viewer, 403],
    [owner.session, 403],
  ] as const) {
    const list = await h.request<Json>('GET', `${WP}/font-families`, as(s));
    t.same([list.status, list.body.code], [status, 'rest_cannot_read']);
    const created = await family(INTER, s);
    t.same([created.status, created.body.code], [status, 'rest_cannot_create']);
  }
});

t.test('a font family is created 201 with Location, its settings answered as an object', async (t) => {
  const made = await family(INTER);
  t.equal(made.status, 201);
  t.equal(made.headers.get('location'), `${h.url}${WP}/font-families/${made.body.id}`);
  t.same(Object.keys(made.body).sort(), ['_links', 'font_faces', 'font_family_settings', 'id', 'theme_json_version']);
  t.same([made.body.theme_json_version, made.body.font_faces, made.body.font_family_settings], [3, [], INTER]);
  const duplicate = await family({ ...INTER, name: 'Inter again' });
  t.same([duplicate.status, duplicate.body.code], [400, 'rest_duplicate_font_family']);
  const read = await h.request<Json>('GET', `${WP}/font-families/${made.body.id}?context=embed`, as(operator));
  t.same(read.body.font_family_settings.slug, 'inter');
  const ownerRead = await h.request<Json>('GET', `${WP}/font-families/${made.body.id}`, as(owner.session));
  t.same([ownerRead.status, ownerRead.body.code], [403, 'rest_cannot_read']);
  await h.request('DELETE', `${WP}/font-families/${made.body.id}?force=true`, as(operator));
});

t.test('font family settings are validated: JSON, name, slug and fontFamily; theme_json_version 2 to 3', async (t) => {
  const notJson = await h.request<Json>('POST', `${WP}/font-families`, { body: { font_family_settings: '{oops' }, ...as(operator) });
  t.same([notJson.status, notJson.body.code], [400, 'rest_invalid_param']);
  t.match(notJson.body.message, /valid JSON string/);
  for (const key of ['name', 'slug', 'fontFamily']) {
    const missing = await family({ ...INTER, [key]: undefined });
    t.same([missing.status, missing.body.code], [400, 'rest_invalid_param'], key);
    t.match(missing.body.message, `font_family_settings[${key}]`);
  }
  const absent = await h.request<Json>('POST', `${WP}/font-families`, { body: {}, ...as(operator) });
  t.same([absent.status, absent.body.code], [400, 'rest_missing_callback_param']);
  const version = await family(INTER, operator, { theme_json_version: 4 });
  t.same([version.status, version.body.code], [400, 'rest_invalid_param']);
  const two = await family(INTER, operator, { theme_json_version: 2 });
  t.same([two.status, two.body.theme_json_version], [201, 2]);
  const updated = await h.request<Json>('POST', `${WP}/font-families/${two.body.id}`, {
    body: { font_family_settings: JSON.stringify({ name: 'Inter Var' }) },
    ...as(operator),
  });
  t.same([updated.status, updated.body.font_family_settings.name, updated.body.font_family_settings.fontFamily], [200, 'Inter Var', INTER.fontFamily]);
  await h.request('DELETE', `${WP}/font-families/${two.body.id}?force=true`, as(operator));
});

t.test('font families are listed with the paging headers', async (t) => {
  const ids: number[] = [];
  for (const n of [1, 2, 3]) ids.push((await family({ name: `Font ${n}`, slug: `font-${n}`, fontFamily: `Font ${n}` })).body.id as number);
  const page = await h.request<Json[]>('GET', `${WP}/font-families?per_page=2`, as(operator));
  t.equal(page.status, 200);
  t.same([page.headers.get('x-wp-total'), page.headers.get('x-wp-totalpages')], ['3', '2']);
  t.same(
    page.body.map((f) => f.id),
    [ids[2], ids[1]],
    'newest id first',
  );
  t.match(page.headers.get('link') ?? '', /page=2[^>]*>; rel="next"/);
  const bySlug = await h.request<Json[]>('GET', `${WP}/font-families?slug=font-2`, as(operator));
  t.same(
    bySlug.body.map((f) => f.id),
    [ids[1]],
  );
  for (const id of ids) await h.request('DELETE', `${WP}/font-families/${id}?force=true`, as(operator));
});

t.test('font faces: created under their family from http(s) sources, read only through it, deleted with force', async (t) => {
  const inter = (await family(INTER)).body.id as number;
  const other = (await family({ name: 'Other', slug: 'other', fontFamily: 'Other' })).body.id as number;
  const settings = { fontFamily: 'Inter', fontStyle: 'normal', fontWeight: '400', src: 'https://fonts.example/inter-400.woff2' };
  const refused = await face(inter, settings, owner.session);
  t.same([refused.status, refused.body.code], [403, 'rest_cannot_create']);
  const made = await face(inter, settings);
  t.equal(made.status, 201);
  t.equal(made.headers.get('location'), `${h.url}${WP}/font-families/${inter}/font-faces/${made.body.id}`);
  t.same(Object.keys(made.body).sort(), ['_links', 'font_face_settings', 'id', 'parent', 'theme_json_version']);
  t.same([made.body.parent, made.body.font_face_settings], [inter, settings]);
  for (const bad of [{ fontFamily: 'Inter' }, { src: 'https://fonts.example/x.woff2' }, { ...settings, src: 'file:///etc/passwd' }, { ...settings, src: [] }]) {
    const invalid = await face(inter, bad);
    t.same([invalid.status, invalid.body.code], [400, 'rest_invalid_param'], JSON.stringify(bad));
  }
  const noFamily = await face(999999, settings);
  t.same([noFamily.status, noFamily.body.code], [404, 'rest_post_invalid_id']);
  const mismatch = await h.request<Json>('GET', `${WP}/font-families/${other}/font-faces/${made.body.id}`, as(operator));
  t.same([mismatch.status, mismatch.body.code], [404, 'rest_font_face_parent_id_mismatch']);
  const list = await h.request<Json[]>('GET', `${WP}/font-families/${inter}/font-faces`, as(operator));
  t.same([list.status, list.headers.get('x-wp-total'), list.body.map((f) => f.id)], [200, '1', [made.body.id]]);
  const withFaces = await h.request<Json>('GET', `${WP}/font-families/${inter}`, as(operator));
  t.same(withFaces.body.font_faces, [made.body.id]);
  t.equal(withFaces.body._links.font_faces[0].href, `${h.url}${WP}/font-families/${inter}/font-faces/${made.body.id}`);
  const trash = await h.request<Json>('DELETE', `${WP}/font-families/${inter}/font-faces/${made.body.id}`, as(operator));
  t.same([trash.status, trash.body.code], [501, 'rest_trash_not_supported']);
  const gone = await h.request<Json>('DELETE', `${WP}/font-families/${inter}/font-faces/${made.body.id}?force=true`, as(operator));
  t.same([gone.status, gone.body.deleted, gone.body.previous.id], [200, true, made.body.id]);
  await h.request('DELETE', `${WP}/font-families/${other}?force=true`, as(operator));
  await h.request('DELETE', `${WP}/font-families/${inter}?force=true`, as(operator));
});

t.test('a font family is deleted only with force, its faces with it', async (t) => {
  const id = (await family(INTER)).body.id as number;
  const faceId = (await face(id, { fontFamily: 'Inter', src: ['https://fonts.example/a.woff2'] })).body.id as number;
  const refused = await h.request<Json>('DELETE', `${WP}/font-families/${id}?force=true`, as(owner.session));
  t.same([refused.status, refused.body.code], [403, 'rest_cannot_delete']);
  const trash = await h.request<Json>('DELETE', `${WP}/font-families/${id}`, as(operator));
  t.same([trash.status, trash.body.code], [501, 'rest_trash_not_supported']);
  const gone = await h.request<Json>('DELETE', `${WP}/font-families/${id}?force=true`, as(operator));
  t.same([gone.status, gone.body.deleted, gone.body.previous.font_faces], [200, true, [faceId]]);
  const missing = await h.request<Json>('GET', `${WP}/font-families/${id}`, as(operator));
  t.same([missing.status, missing.body.code], [404, 'rest_post_invalid_id']);
  const faceGone = await h.request<Json>('GET', `${WP}/font-families/${id}/font-faces/${faceId}`, as(operator));
  t.equal(faceGone.status, 404);
});
