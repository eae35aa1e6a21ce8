// GET/POST /api/tern/v2/api/account and POST /api/tern/v2/api/icon-upload over real HTTP: the account's /v2
// facts and settings, each field changed and refused (nothing changed), who may change them, and the icon
// upload (multipart, the type by content, at most 1 MB, refused while it streams) served back by its URL.
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { startHarness, type Harness, type HttpReply } from './helpers/harness.js';
import { logIn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';

let h: Harness;
t.before(async () => {
  h = await startHarness();
});
t.teardown(() => h.close());

const ACCOUNT = '/api/tern/v2/api/account';
const UPLOAD = '/api/tern/v2/api/icon-upload';
const MAX = 1_048_576;

/** Tiny valid images, 1×1 pixel each. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);

interface AccountView {
  id: number;
  name: string;
  status: string;
  credit_balance: number;
  default_region: string;
  time_zone: string;
  icon_url: string | null;
}

async function ownerOf(role: 'owner' | 'admin' | 'viewer' = 'owner') {
  const account = await h.account({ credits: 7 });
  return { account, s: await logIn(h, await userOn(h, account.id, role)) };
}

const read = (s: SignedIn, extra: Record<string, string> = {}) => h.request<AccountView>('GET', ACCOUNT, withSession(s, s.nonce, extra));
const change = (s: SignedIn, body: unknown, extra: Record<string, string> = {}) => h.request<AccountView>('POST', ACCOUNT, { ...withSession(s, s.nonce, extra), body });

interface Part {
  field: string;
  content: Buffer | string;
  filename?: string;
  type?: string;
}

/** A multipart upload through fetch (FormData), as a browser sends it. */
async function upload(s: SignedIn | undefined, parts: Part[]): Promise<HttpReply> {
  const form = new FormData();
  for (const p of parts) {
    if (p.filename === undefined) form.append(p.field, String(p.content));
    else
      form.append(p.field, new Blob([typeof p.content === 'string' ? p.content : new Uint8Array(p.content)], { type: p.type ?? 'application/octet-stream' }), p.filename);
  }
  const res = await fetch(h.url + UPLOAD, { method: 'POST', headers: s ? withSession(s).headers : {}, body: form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

const image = (content: Buffer, filename = 'icon.png', type = 'image/png'): Part => ({ field: 'file', content, filename, type });

t.test('the account is read with the /v2 account facts, its default region, time zone UTC and no icon', async (t) => {
  const { account, s } = await ownerOf();
  const got = await read(s);
  t.equal(got.status, 200, got.text);
  t.same(got.body, { id: account.id, name: got.body.name, status: 'active', credit_balance: 7, default_region: 'eu', time_zone: 'UTC', icon_url: null });
  const v2 = await h.request('GET', '/v2/teams', { key: account.key });
  const { id, name, status, credit_balance } = got.body;
  t.same((v2.body as { data: { account: unknown } }).data.account, { id, name, status, credit_balance }, 'the same facts as /v2/teams');
  t.equal(got.headers.get('x-account-id'), String(account.id));
});

t.test('an owner or admin changes each field, one at a time and together, and reads it back', async (t) => {
  for (const role of ['owner', 'admin'] as const) {
    const { s } = await ownerOf(role);
    const steps: Array<[Record<string, unknown>, Partial<AccountView>]> = [
      [{ name: '  Acme Mail ' }, { name: 'Acme Mail' }],
      [{ default_region: 'us' }, { default_region: 'us' }],
      [{ time_zone: 'America/New_York' }, { time_zone: 'America/New_York' }],
      [{ time_zone: 'UTC' }, { time_zone: 'UTC' }],
      [{ time_zone: 'US/Eastern' }, { time_zone: 'US/Eastern' }],
      [{ icon_url: 'https://cdn.example.com/acme.png' }, { icon_url: 'https://cdn.example.com/acme.png' }],
      [{ icon_url: null }, { icon_url: null }],
      [
        { name: 'Acme', default_region: 'eu', time_zone: 'Europe/Paris', icon_url: 'https://x.example/i.webp' },
        { name: 'Acme', default_region: 'eu', time_zone: 'Europe/Paris', icon_url: 'https://x.example/i.webp' },
      ],
    ];
    for (const [body, expected] of steps) {
      const changed = await change(s, body);
      t.equal(changed.status, 200, changed.text);
      t.match(changed.body, expected, `${role}: ${JSON.stringify(body)}`);
      t.same((await read(s)).body, changed.body, 'read back as answered');
    }
  }
});

t.test('each field’s bad value is refused with rest_invalid_param naming it, and nothing changes', async (t) => {
  const { s } = await ownerOf();
  await change(s, { name: 'Before', time_zone: 'Europe/Paris', icon_url: 'https://cdn.example.com/a.png' });
  const before = (await read(s)).body;
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: ' x ' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ default_region: 'mars' }, 'default_region'],
    [{ time_zone: 'Mars/Olympus_Mons' }, 'time_zone'],
    [{ time_zone: 'europe/paris' }, 'time_zone'],
    [{ time_zone: '+01:00' }, 'time_zone'],
    [{ icon_url: 'http://cdn.example.com/a.png' }, 'icon_url'],
    [{ icon_url: 'javascript:alert(1)' }, 'icon_url'],
    [{ icon_url: 'not a url' }, 'icon_url'],
    [{ icon_url: `${h.url}/api/tern/v2/icons/nosuchicon` }, 'icon_url'],
    [{ name: 'Changed', time_zone: 'Nowhere/Land' }, 'time_zone'],
    [{ name: 'Changed', default_region: 'mars' }, 'default_region'],
  ];
  for (const [body, field] of cases) {
    const refused = await change(s, body);
    t.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
    t.match(refused.body, { code: 'rest_invalid_param', data: { status: 400, params: { [field]: String } } });
    t.same((await read(s)).body, before, 'nothing changed');
  }
});

t.test('a viewer reads but changes nothing; a team user reaches no other team; another account answers 404', async (t) => {
  const { account, s: viewer } = await ownerOf('viewer');
  t.equal((await read(viewer)).status, 200);
  const refused = await change(viewer, { name: 'Viewer was here' });
  t.equal(refused.status, 403);
  t.match(refused.body, { code: 'rest_forbidden' });
  t.equal((await upload(viewer, [image(PNG)])).status, 403, 'nor uploads an icon');
  const owner = await logIn(h, await userOn(h, account.id, 'owner'));
  const child = (await h.request('POST', '/api/tern/v2/api/create-team', { ...withSession(owner), body: { name: 'Child' } })).body as { id: number };
  const sibling = (await h.request('POST', '/api/tern/v2/api/create-team', { ...withSession(owner), body: { name: 'Sibling' } })).body as { id: number };
  const onChild = await change(owner, { time_zone: 'Asia/Tokyo' }, { 'X-Account-Id': String(child.id) });
  t.match(onChild.body, { id: child.id, time_zone: 'Asia/Tokyo' }, 'the account’s owner changes a team acted on');
  t.equal((await read(owner)).body.time_zone, 'UTC', 'the account itself is unchanged');
  const teamUser = await logIn(h, await userOn(h, account.id, 'admin', child.id));
  t.equal((await read(teamUser)).body.id, child.id, 'a team user acts on its team');
  for (const other of [sibling.id, account.id]) {
    const away = await change(teamUser, { name: 'Taken' }, { 'X-Account-Id': String(other) });
    t.equal(away.status, 404, 'another team of the account is out of reach');
  }
  const elsewhere = await h.account();
  const refusedElsewhere = await read(owner, { 'X-Account-Id': String(elsewhere.id) });
  t.equal(refusedElsewhere.status, 404);
  t.match(refusedElsewhere.body, { code: 'rest_team_invalid_id' });
  t.equal((await change(owner, { name: 'Taken' }, { 'X-Account-Id': String(elsewhere.id) })).status, 404);
});

t.test('the account routes need a signed-in caller: anonymous and no nonce 401, a wrong nonce 403', async (t) => {
  const { s } = await ownerOf();
  t.equal((await h.request('GET', ACCOUNT)).status, 401);
  t.equal((await h.request('POST', ACCOUNT, { body: { name: 'Anon' } })).status, 401);
  t.equal((await h.request('GET', ACCOUNT, withSession(s, null))).status, 401);
  t.equal((await h.request('POST', ACCOUNT, { ...withSession(s, 'ffffffffff'), body: { name: 'Anon' } })).status, 403);
  t.equal((await upload(undefined, [image(PNG)])).status, 401);
});

t.test('a PNG, a JPEG and a WebP are uploaded, become the icon and are served back with their type', async (t) => {
  const { s } = await ownerOf();
  let previous: string | undefined;
  for (const [content, name, mime] of [
    [PNG, 'icon.png', 'image/png'],
    [JPEG, 'photo.jpg', 'image/jpeg'],
    [WEBP, 'icon.webp', 'image/webp'],
  ] as const) {
    const up = await upload(s, [image(content, name, 'application/octet-stream')]);
    t.equal(up.status, 201, up.text);
    const body = up.body as { id: string; source_url: string; mime_type: string; filesize: number; account: AccountView };
    t.match(body, { id: /^[A-Za-z0-9_-]+$/, mime_type: mime, filesize: content.length });
    t.equal(body.source_url, `${h.url}/api/tern/v2/icons/${body.id}`);
    t.equal(up.headers.get('location'), body.source_url);
    t.equal(body.account.icon_url, body.source_url);
    t.equal((await read(s)).body.icon_url, body.source_url, 'the account shows it');
    const served = await fetch(body.source_url);
    t.equal(served.status, 200);
    t.equal(served.headers.get('content-type'), mime);
    t.equal(served.headers.get('x-content-type-options'), 'nosniff');
    t.match(served.headers.get('cache-control'), /public, max-age=31536000, immutable/);
    t.same(Buffer.from(await served.arrayBuffer()), content, 'the same bytes');
    if (previous) t.equal((await fetch(previous)).status, 404, 'the icon it replaced is gone');
    previous = body.source_url;
  }
  const kept = await change(s, { icon_url: previous, name: 'Round trip' });
  t.equal(kept.status, 200, 'the URL of the uploaded icon is accepted back');
  t.equal(kept.body.icon_url, previous);
  await change(s, { icon_url: null });
  t.equal((await fetch(previous!)).status, 404, 'an icon no longer shown is deleted');
});

t.test('an uploaded icon is public but no other account may name it as its own', async (t) => {
  const { s } = await ownerOf();
  const up = (await upload(s, [image(PNG)])).body as { source_url: string };
  const { s: other } = await ownerOf();
  const refused = await change(other, { icon_url: up.source_url });
  t.equal(refused.status, 400);
  t.match(refused.body, { code: 'rest_invalid_param', data: { params: { icon_url: String } } });
  t.equal((await fetch(up.source_url)).status, 200, 'anyone may fetch it');
  const missing = await fetch(`${h.url}/api/tern/v2/icons/nosuchicon`);
  t.equal(missing.status, 404);
  t.match(await missing.json(), { code: 'rest_icon_invalid_id' });
});

t.test('content that is no PNG, JPEG or WebP is refused whatever its name and declared type, and nothing is stored', async (t) => {
  const { s } = await ownerOf();
  const gif = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');
  for (const [content, name] of [
    [Buffer.from('just some text, not an image\n'), 'icon.png'],
    [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'icon.png'],
    [gif, 'icon.webp'],
  ] as const) {
    const refused = await upload(s, [image(content, name, 'image/png')]);
    t.equal(refused.status, 400, refused.text);
    t.match(refused.body, { code: 'rest_upload_sideload_error', message: /not allowed to upload this file type/ });
  }
  t.equal((await read(s)).body.icon_url, null, 'no icon set');
});

t.test('an icon of 1 MB is accepted and one of 1 MB + 1 byte refused, nothing stored', async (t) => {
  const { s } = await ownerOf();
  const exact = Buffer.concat([PNG, Buffer.alloc(MAX - PNG.length)]);
  const ok = await upload(s, [image(exact)]);
  t.equal(ok.status, 201, ok.text);
  const icon = (await read(s)).body.icon_url;
  const over = await upload(s, [image(Buffer.concat([exact, Buffer.from([0])]))]);
  t.equal(over.status, 400);
  t.match(over.body, { code: 'rest_upload_file_too_big', message: 'This file is too big. Files must be less than 1024 KB in size.' });
  t.equal((await read(s)).body.icon_url, icon, 'the icon is unchanged');
});

t.test('a too large upload is refused while it streams in, before the client has sent it all', async (t) => {
  const { s } = await ownerOf();
  const boundary = 'tern-boundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`;
  const url = new URL(h.url);
  const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: UPLOAD,
        method: 'POST',
        // Announces 20 MB, sends a little over 1 MB, and waits: only an answer given while streaming arrives.
        headers: { ...withSession(s).headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(20 * MAX) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.write(head);
    req.write(Buffer.concat([PNG, Buffer.alloc(MAX + 64 * 1024)]));
    t.teardown(() => req.destroy());
  });
  t.equal(reply.status, 400);
  t.match(JSON.parse(reply.body), { code: 'rest_upload_file_too_big' });
  t.equal((await read(s)).body.icon_url, null);
});

t.test('an upload without a file, with two files, with another field or not multipart is refused, nothing stored', async (t) => {
  const { s } = await ownerOf();
  const cases: Array<[Part[], string]> = [
    [[], 'rest_upload_no_data'],
    [[image(PNG), image(JPEG, 'b.jpg')], 'rest_upload_too_many_files'],
    [[{ field: 'image', content: PNG, filename: 'a.png', type: 'image/png' }], 'rest_upload_unexpected_field'],
    [[{ field: 'title', content: 'My icon' }, image(PNG)], 'rest_upload_unexpected_field'],
    [[image(Buffer.alloc(0))], 'rest_upload_no_data'],
  ];
  for (const [parts, code] of cases) {
    const refused = await upload(s, parts);
    t.equal(refused.status, 400, refused.text);
    t.match(refused.body, { code, data: { status: 400 } });
  }
  const json = await h.request('POST', UPLOAD, { ...withSession(s), body: { file: 'iVBORw0KGgo=' } });
  t.equal(json.status, 400);
  t.match(json.body, { code: 'rest_upload_no_data' });
  t.equal((await read(s)).body.icon_url, null, 'no icon set');
});

t.test('the index lists the account routes; the upload runs in no batch', async (t) => {
  const { s } = await ownerOf();
  const index = await h.request('GET', '/api/tern/v2');
  const routes = (index.body as { routes: Record<string, { methods: string[] }> }).routes;
  t.same(routes['/tern/v2/api/account']?.methods, ['GET', 'POST']);
  t.same(routes['/tern/v2/api/icon-upload']?.methods, ['POST']);
  t.ok(
    Object.keys(routes).some((p) => p.startsWith('/tern/v2/icons/')),
    'the icon route is listed',
  );
  const batch = await h.request('POST', '/api/batch/v1', { ...withSession(s), body: { requests: [{ path: '/tern/v2/api/icon-upload', body: {} }] } });
  t.equal(batch.status, 207);
  t.match(batch.body, { responses: [{ status: 400, body: { code: 'rest_batch_not_allowed' } }] });
});
