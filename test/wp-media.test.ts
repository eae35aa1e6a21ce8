// The media collection (wp/v2/media) over real HTTP, for anonymous callers, a viewer, an owner and an operator:
// uploads by multipart and by raw body (201 and Location), the raw upload's Content-Disposition and Content-Type
// required, a Content-MD5 that does not match (412), a type its name does not carry refused, a file past the limit
// refused; the file served at its source_url with its type and headers that keep it from running (an HTML file is
// never served inline); the list's paging headers and a page past the end; _fields; context=edit refused to a
// viewer; a change of title and alt text; a delete refused without force and removing the file with it; the
// operator's platform-wide files; post-process and the image editor refused.
import t from 'tap';
import { createHash } from 'node:crypto';
import { startHarness, type Harness, type HttpReply } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

const MAX = 4096;
const MEDIA = '/api/wp/v2/media';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const HTML = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

interface MediaItem {
  id: number;
  title: { raw?: string; rendered: string };
  alt_text: string;
  source_url: string;
  mime_type: string;
  media_type: string;
  media_details: Record<string, unknown>;
  author: number;
  status: string;
  [field: string]: unknown;
}

let h: Harness;
let owner: SignedIn;
let viewer: SignedIn;
let operator: SignedIn;
t.before(async () => {
  h = await startHarness({ overrides: { media: { maxBytes: MAX } } });
  const made = await signedInOn(h, 'owner');
  owner = made.session;
  viewer = await logIn(h, await userOn(h, made.accountId, 'viewer'));
  operator = await logIn(h, await operatorOn(h));
});
t.teardown(() => h.close());

const headersOf = (s: SignedIn | undefined, extra: Record<string, string> = {}): Record<string, string> => (s ? withSession(s, s.nonce, extra).headers : extra);

async function send(method: string, path: string, s: SignedIn | undefined, body?: BodyInit, headers: Record<string, string> = {}): Promise<HttpReply<MediaItem>> {
  const res = await fetch(h.url + path, { method, headers: headersOf(s, headers), body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as MediaItem, text };
}

function multipart(content: Buffer, filename: string, type = 'application/octet-stream'): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(content)], { type }), filename);
  return form;
}

const upload = (s: SignedIn | undefined, content: Buffer, filename: string) => send('POST', MEDIA, s, multipart(content, filename));
const raw = (s: SignedIn | undefined, content: Buffer, headers: Record<string, string>) => send('POST', MEDIA, s, new Uint8Array(content), headers);
const json = (method: string, path: string, s: SignedIn | undefined, body?: unknown) =>
  send(method, path, s, body === undefined ? undefined : JSON.stringify(body), body === undefined ? {} : { 'Content-Type': 'application/json' });

async function uploaded(s: SignedIn, content = PNG, filename = 'logo.png'): Promise<MediaItem> {
  const reply = await upload(s, content, filename);
  if (reply.status !== 201) throw new Error(`upload: ${reply.status} ${reply.text}`);
  return reply.body;
}

t.test('an owner uploads by multipart: 201, Location, the type and size its content says', async (t) => {
  const reply = await upload(owner, PNG, 'logo.png');
  t.equal(reply.status, 201, reply.text);
  const item = reply.body;
  t.equal(reply.headers.get('location'), `${h.url}${MEDIA}/${item.id}`);
  t.match(item, {
    type: 'attachment',
    status: 'inherit',
    title: { raw: 'logo', rendered: 'logo' },
    alt_text: '',
    media_type: 'image',
    mime_type: 'image/png',
    media_details: { width: 1, height: 1, filesize: PNG.length },
    comment_status: 'closed',
    slug: 'logo',
  });
  t.match(item.source_url, new RegExp(`^${h.url}/media/[0-9a-f]{32}/logo\\.png$`), 'an unguessable public path');
  t.match(item._links, { self: [{ href: `${h.url}${MEDIA}/${item.id}` }], collection: [{ href: `${h.url}${MEDIA}` }], author: [{ embeddable: true }] });
  t.ok(typeof item.author === 'number' && item.author > 0, 'its author is the uploader');
});

t.test('a raw upload needs Content-Type and Content-Disposition, and its Content-MD5 must match', async (t) => {
  const md5 = createHash('md5').update(PNG).digest('hex');
  const ok = await raw(owner, PNG, { 'Content-Type': 'image/png', 'Content-Disposition': 'attachment; filename="raw pixel.png"', 'Content-MD5': md5 });
  t.equal(ok.status, 201, ok.text);
  t.equal(ok.headers.get('location'), `${h.url}${MEDIA}/${ok.body.id}`);
  t.match(ok.body, { mime_type: 'image/png', title: { raw: 'raw pixel' } });
  t.match(ok.body.source_url, /\/raw%20pixel\.png$/);
  const base64 = await raw(owner, PNG, {
    'Content-Type': 'image/png',
    'Content-Disposition': 'attachment; filename=b64.png',
    'Content-MD5': createHash('md5').update(PNG).digest('base64'),
  });
  t.equal(base64.status, 201, 'an RFC 1864 (base64) Content-MD5 is read too');

  const noDisposition = await raw(owner, PNG, { 'Content-Type': 'image/png' });
  t.equal(noDisposition.status, 400);
  t.match(noDisposition.body, { code: 'rest_upload_no_content_disposition', data: { status: 400 } });
  const noName = await raw(owner, PNG, { 'Content-Type': 'image/png', 'Content-Disposition': 'attachment' });
  t.match(noName.body, { code: 'rest_upload_no_content_disposition' }, 'a disposition without a filename');
  const noType = await raw(owner, PNG, { 'Content-Disposition': 'attachment; filename=x.png' });
  t.equal(noType.status, 400);
  t.match(noType.body, { code: 'rest_upload_no_content_type' });
  const mismatch = await raw(owner, PNG, { 'Content-Type': 'image/png', 'Content-Disposition': 'attachment; filename=x.png', 'Content-MD5': '0'.repeat(32) });
  t.equal(mismatch.status, 412);
  t.match(mismatch.body, { code: 'rest_upload_hash_mismatch', data: { status: 412 } });
});

t.test('a file whose name does not carry its type, a type not accepted, an empty file and one past the limit are refused', async (t) => {
  const before = (await json('GET', `${MEDIA}?per_page=100`, owner)).headers.get('x-wp-total');
  const html = await upload(owner, HTML, 'innocent.png');
  t.equal(html.status, 400, 'HTML bytes named .png');
  t.match(html.body, { code: 'rest_upload_sideload_error', message: /text\/plain.*\.txt/ });
  const svg = await upload(owner, SVG, 'logo.svg');
  t.equal(svg.status, 400, 'an SVG (it can carry script)');
  t.match(svg.body, { code: 'rest_upload_sideload_error' });
  const exe = await raw(owner, Buffer.from('4d5a90000300000004000000ffff0000', 'hex'), {
    'Content-Type': 'image/png',
    'Content-Disposition': 'attachment; filename=a.png',
  });
  t.match(exe.body, { code: 'rest_upload_sideload_error' }, 'bytes of no accepted type');
  const empty = await raw(owner, Buffer.alloc(0), { 'Content-Type': 'text/plain', 'Content-Disposition': 'attachment; filename=a.txt' });
  t.equal(empty.status, 400);
  t.match(empty.body, { code: 'rest_upload_no_data' });
  const big = await upload(owner, Buffer.concat([PNG, Buffer.alloc(MAX)]), 'big.png');
  t.equal(big.status, 400);
  t.match(big.body, { code: 'rest_upload_file_too_big', data: { max_bytes: MAX } });
  const bigRaw = await raw(owner, Buffer.alloc(MAX + 1, 'a'), { 'Content-Type': 'text/plain', 'Content-Disposition': 'attachment; filename=big.txt' });
  t.match(bigRaw.body, { code: 'rest_upload_file_too_big' }, 'a raw body past the limit');
  t.equal((await json('GET', `${MEDIA}?per_page=100`, owner)).headers.get('x-wp-total'), before, 'nothing was stored');
});

t.test('the file is served at its source_url with its type, nosniff, a sandbox and inline for images only', async (t) => {
  const image = await uploaded(owner);
  const served = await fetch(image.source_url);
  t.equal(served.status, 200, 'anyone with the URL reads it (no session)');
  t.equal(served.headers.get('content-type'), 'image/png');
  t.equal(served.headers.get('x-content-type-options'), 'nosniff');
  t.equal(served.headers.get('content-security-policy'), "default-src 'none'; sandbox");
  t.match(served.headers.get('content-disposition'), /^inline; filename="logo\.png"/);
  t.equal(served.headers.get('content-length'), String(PNG.length));
  t.match(served.headers.get('cache-control'), /public, max-age=\d+/);
  t.ok(Buffer.from(await served.arrayBuffer()).equals(PNG), 'the bytes uploaded');

  // HTML named .txt is text as far as Tern is concerned: kept as text/plain and only ever downloaded.
  const page = await uploaded(owner, HTML, 'page.txt');
  t.equal(page.mime_type, 'text/plain');
  const text = await fetch(page.source_url);
  t.equal(text.headers.get('content-type'), 'text/plain; charset=utf-8', 'never text/html');
  t.match(text.headers.get('content-disposition'), /^attachment; filename="page\.txt"/, 'not inline');
  t.equal(text.headers.get('content-security-policy'), "default-src 'none'; sandbox");
  await text.arrayBuffer();

  const key = new URL(image.source_url).pathname.split('/')[2]!;
  t.equal((await fetch(`${h.url}/media/${key}/other.png`)).status, 404, 'another name under the key');
  t.equal((await fetch(`${h.url}/media/${'0'.repeat(32)}/logo.png`)).status, 404, 'an unknown key');
  t.equal((await fetch(`${h.url}/media/not-a-key/logo.png`)).status, 404);
});

t.test('the list pages with X-WP-Total, X-WP-TotalPages and Link, and a page past the end is refused', async (t) => {
  const fresh = (await signedInOn(h, 'owner')).session;
  const ids = [];
  for (const name of ['a.png', 'b.png', 'c.png']) ids.push((await uploaded(fresh, PNG, name)).id);
  const first = await json('GET', `${MEDIA}?per_page=2&orderby=id&order=asc`, fresh);
  t.equal(first.status, 200, first.text);
  t.equal(first.headers.get('x-wp-total'), '3', 'the team’s files only');
  t.equal(first.headers.get('x-wp-totalpages'), '2');
  t.same(
    (first.body as unknown as MediaItem[]).map((m) => m.id),
    ids.slice(0, 2),
  );
  t.match(first.headers.get('link'), /[?&]page=2[^>]*>; rel="next"/);
  const second = await json('GET', `${MEDIA}?per_page=2&page=2&orderby=id&order=asc`, fresh);
  t.same(
    (second.body as unknown as MediaItem[]).map((m) => m.id),
    ids.slice(2),
  );
  t.match(second.headers.get('link'), /rel="prev"/);
  const past = await json('GET', `${MEDIA}?per_page=2&page=3`, fresh);
  t.equal(past.status, 400);
  t.match(past.body, { code: 'rest_post_invalid_page_number' });
  const search = await json('GET', `${MEDIA}?search=b.png`, fresh);
  t.same(
    (search.body as unknown as MediaItem[]).map((m) => m.id),
    [ids[1]],
    'search by file name',
  );
  const text = await uploaded(fresh, Buffer.from('plain words'), 'notes.txt');
  const files = await json('GET', `${MEDIA}?media_type=file`, fresh);
  t.same(
    (files.body as unknown as MediaItem[]).map((m) => m.id),
    [text.id],
    'media_type=file',
  );
});

t.test('_fields keeps the fields asked for; context=embed drops the view-only ones', async (t) => {
  const item = await uploaded(owner);
  const some = await json('GET', `${MEDIA}/${item.id}?_fields=id,source_url,media_details.width`, owner);
  t.same(some.body, { id: item.id, source_url: item.source_url, media_details: { width: 1 } });
  const embed = await json('GET', `${MEDIA}/${item.id}?context=embed`, owner);
  t.notOk('status' in embed.body || 'description' in embed.body, 'no status or description in embed');
  t.same(embed.body.title, { rendered: 'logo' }, 'no raw title outside edit');
  const view = await json('GET', `${MEDIA}/${item.id}`, owner);
  t.notOk('raw' in view.body.title, 'view: rendered only');
  const edit = await json('GET', `${MEDIA}/${item.id}?context=edit`, owner);
  t.equal(edit.body.title.raw, 'logo', 'edit: the raw title, for a writer');
});

t.test('a viewer reads its team’s media but cannot ask for context=edit, upload, change or delete', async (t) => {
  const item = await uploaded(owner);
  const list = await json('GET', MEDIA, viewer);
  t.equal(list.status, 200);
  t.ok(
    (list.body as unknown as MediaItem[]).some((m) => m.id === item.id),
    'the owner’s upload is in the viewer’s list',
  );
  t.equal((await json('GET', `${MEDIA}/${item.id}`, viewer)).status, 200);
  for (const path of [`${MEDIA}?context=edit`, `${MEDIA}/${item.id}?context=edit`]) {
    const refused = await json('GET', path, viewer);
    t.equal(refused.status, 403, path);
    t.match(refused.body, { code: 'rest_forbidden_context' });
  }
  t.match((await json('GET', `${MEDIA}?status=private`, viewer)).body, { code: 'rest_forbidden_status' });
  const up = await upload(viewer, PNG, 'v.png');
  t.equal(up.status, 403);
  t.match(up.body, { code: 'rest_cannot_create' });
  const change = await json('POST', `${MEDIA}/${item.id}`, viewer, { title: 'mine' });
  t.equal(change.status, 403);
  t.match(change.body, { code: 'rest_cannot_edit' });
  const del = await json('DELETE', `${MEDIA}/${item.id}?force=true`, viewer);
  t.equal(del.status, 403);
  t.match(del.body, { code: 'rest_cannot_delete' });
});

t.test('anonymous callers read nothing and upload nothing through REST', async (t) => {
  const item = await uploaded(owner);
  for (const [method, path] of [
    ['GET', MEDIA],
    ['GET', `${MEDIA}/${item.id}`],
    ['DELETE', `${MEDIA}/${item.id}?force=true`],
  ] as const) {
    const reply = await json(method, path, undefined);
    t.equal(reply.status, 401, `${method} ${path}`);
  }
  t.equal((await upload(undefined, PNG, 'a.png')).status, 401);
  t.equal((await fetch(item.source_url)).status, 200, 'the file stays reachable at its source_url');
});

t.test('an owner changes the title and alt text; the parts not sent stay', async (t) => {
  const item = await uploaded(owner);
  t.equal((await json('POST', `${MEDIA}/${item.id}`, owner, { caption: 'Kept' })).status, 200);
  const changed = await json('POST', `${MEDIA}/${item.id}`, owner, { title: 'Company <logo>', alt_text: 'Our logo' });
  t.equal(changed.status, 200, changed.text);
  t.match(changed.body, {
    title: { raw: 'Company <logo>', rendered: 'Company &lt;logo&gt;' },
    alt_text: 'Our logo',
    caption: { raw: 'Kept', rendered: '<p>Kept</p>\n' },
  });
  const patched = await json('PATCH', `${MEDIA}/${item.id}`, owner, { title: { raw: 'Raw form' } });
  t.match(patched.body, { title: { raw: 'Raw form' }, alt_text: 'Our logo' }, 'the title as {raw}, alt text kept');
  t.match((await json('GET', `${MEDIA}/${item.id}?context=edit`, owner)).body, { title: { raw: 'Raw form' }, alt_text: 'Our logo' });
  t.match((await json('POST', `${MEDIA}/999999999`, owner, { title: 'x' })).body, { code: 'rest_post_invalid_id' });
});

t.test('a delete without force is refused (no trash); with force it removes the row and the file', async (t) => {
  const item = await uploaded(owner);
  const trash = await json('DELETE', `${MEDIA}/${item.id}`, owner);
  t.equal(trash.status, 501);
  t.match(trash.body, { code: 'rest_trash_not_supported' });
  t.equal((await fetch(item.source_url)).status, 200, 'still there');
  const gone = await json('DELETE', `${MEDIA}/${item.id}?force=true`, owner);
  t.equal(gone.status, 200, gone.text);
  t.match(gone.body, { deleted: true, previous: { id: item.id, source_url: item.source_url, title: { raw: 'logo' } } });
  t.equal((await fetch(item.source_url)).status, 404, 'the file is gone');
  t.match((await json('GET', `${MEDIA}/${item.id}`, owner)).body, { code: 'rest_post_invalid_id', data: { status: 404 } });
  t.equal((await json('DELETE', `${MEDIA}/${item.id}?force=true`, owner)).status, 404, 'a second delete finds nothing');
});

t.test('an operator keeps platform-wide files and acts on every team’s; another account sees none of them', async (t) => {
  const teamFile = await uploaded(owner);
  const platformFile = await uploaded(operator, PNG, 'platform.png');
  const all = await json('GET', `${MEDIA}?per_page=100&include=${teamFile.id},${platformFile.id}&orderby=include`, operator);
  t.same(
    (all.body as unknown as MediaItem[]).map((m) => m.id),
    [teamFile.id, platformFile.id],
    'the operator lists both',
  );
  t.equal((await json('POST', `${MEDIA}/${teamFile.id}`, operator, { alt_text: 'set by the platform' })).body.alt_text, 'set by the platform');
  t.match((await json('GET', `${MEDIA}/${platformFile.id}`, owner)).body, { code: 'rest_post_invalid_id' }, 'a team does not see the platform’s files');
  const stranger = (await signedInOn(h, 'owner')).session;
  t.match((await json('GET', `${MEDIA}/${teamFile.id}`, stranger)).body, { code: 'rest_post_invalid_id' }, 'nor another account’s');
  t.equal((await json('DELETE', `${MEDIA}/${teamFile.id}?force=true`, stranger)).status, 404);
  t.equal((await json('DELETE', `${MEDIA}/${platformFile.id}?force=true`, operator)).status, 200);
});

t.test('post-process answers the file; the image editor is refused as Tern has no image library', async (t) => {
  const image = await uploaded(owner);
  const processed = await json('POST', `${MEDIA}/${image.id}/post-process`, owner, { action: 'create-image-subsizes' });
  t.equal(processed.status, 200, processed.text);
  t.equal(processed.body.id, image.id);
  t.equal((await json('POST', `${MEDIA}/${image.id}/post-process`, owner, { action: 'resize' })).status, 400, 'another action');
  const rotate = [{ type: 'rotate', args: { angle: 90 } }];
  const edit = await json('POST', `${MEDIA}/${image.id}/edit`, owner, { src: image.source_url, modifiers: rotate });
  t.equal(edit.status, 501);
  t.match(edit.body, { code: 'tern_image_editing_unsupported' });
  t.match((await json('POST', `${MEDIA}/${image.id}/edit`, owner, { src: `${h.url}/media/${'1'.repeat(32)}/x.png`, modifiers: rotate })).body, {
    code: 'rest_unknown_attachment',
  });
  t.equal((await json('POST', `${MEDIA}/${image.id}/edit`, owner, { modifiers: rotate })).status, 400, 'src is required');
  const text = await uploaded(owner, Buffer.from('words'), 'a.txt');
  t.match((await json('POST', `${MEDIA}/${text.id}/edit`, owner, { src: text.source_url, modifiers: rotate })).body, { code: 'rest_cannot_edit_file_type' });
  t.equal((await json('POST', `${MEDIA}/${image.id}/edit`, viewer, { src: image.source_url, modifiers: rotate })).status, 403, 'a viewer may not');
});
