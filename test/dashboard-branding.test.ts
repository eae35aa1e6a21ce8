// The sign-in page's branding over real HTTP (tern-auth/v1 /auth-customizer and /upload-image): an image uploaded
// (checked by content: a PNG with any name passes, text, SVG and a file past the limit are refused) and served at
// /branding/{id}.{ext} with its type; the branding saved, read back and audited with before and after; bad
// colours, an unknown image and a long message refused with data.params and nothing changed; anonymous 401, an
// account's owner 403; and in Chromium, the sign-in and forgot-password pages showing the logo, the colours and a
// `<script>` message as text.
import t from 'tap';
import { startHarness, type Harness, type HttpReply } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { startBrowser } from './helpers/browser.js';
import { signedInTab } from './helpers/web-pages.js';
import { seriousViolations } from './helpers/axe.js';

let h: Harness;
let operator: SignedIn;
t.before(async () => {
  h = await startHarness();
  operator = await logIn(h, await operatorOn(h));
});
t.teardown(() => h.close());

const CUSTOMIZER = '/api/tern-auth/v1/auth-customizer';
const UPLOAD = '/api/tern-auth/v1/upload-image';
const MAX = 524_288;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

interface BrandingBody {
  logo_image_id: string | null;
  logo_url: string | null;
  background_color: string | null;
  button_color: string | null;
  message: string;
  updated_at: string | null;
}

async function upload(s: SignedIn | undefined, content: Buffer, filename = 'logo.png', type = 'image/png'): Promise<HttpReply> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(content)], { type }), filename);
  const res = await fetch(h.url + UPLOAD, { method: 'POST', headers: s ? withSession(s).headers : {}, body: form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

const save = (body: Record<string, unknown>, s: SignedIn = operator) => h.request<BrandingBody>('POST', CUSTOMIZER, { ...withSession(s), body });
const read = () => h.request<BrandingBody>('GET', CUSTOMIZER, withSession(operator));
const brandingEntries = async () => (await h.rt.store.auditLog.list({ targetId: 'sign_in.branding' }, { page: 1, perPage: 50 })).rows;

t.afterEach(async () => {
  await save({ logo_image_id: null, background_color: null, button_color: null, message: '' });
});

t.test('an uploaded image is checked by its content and served at its public path with its type', async (t) => {
  const up = await upload(operator, WEBP, 'logo.png', 'image/png');
  t.equal(up.status, 201, up.text);
  const body = up.body as { id: string; url: string; mime_type: string; filesize: number };
  t.match(body, { id: /^[0-9a-f]{32}$/, mime_type: 'image/webp', filesize: WEBP.length }, 'the type its content says, not its name');
  t.equal(body.url, `${h.url}/branding/${body.id}.webp`);
  const served = await fetch(body.url);
  t.equal(served.status, 200);
  t.equal(served.headers.get('content-type'), 'image/webp');
  t.equal(served.headers.get('x-content-type-options'), 'nosniff');
  t.match(served.headers.get('cache-control'), /immutable/);
  t.ok(Buffer.from(await served.arrayBuffer()).equals(WEBP), 'the bytes uploaded');
  t.equal((await fetch(`${h.url}/branding/${body.id}.png`)).status, 404, 'under another extension: not found');
  t.equal((await fetch(`${h.url}/branding/${'0'.repeat(32)}.png`)).status, 404, 'an unknown image: not found');
  t.equal(((await upload(operator, WEBP)).body as { id: string }).id, body.id, 'the same content again is the same image');
});

t.test('text, an SVG and an image past the limit are refused, and nothing is stored', async (t) => {
  const text = await upload(operator, Buffer.from('just some words'), 'logo.png');
  t.equal(text.status, 400);
  t.match(text.body, { code: 'rest_invalid_param', data: { params: { file: /PNG, JPEG or WebP/ } } });
  const svg = await upload(operator, SVG, 'logo.svg', 'image/svg+xml');
  t.equal(svg.status, 400, 'SVG can carry script: refused');
  t.match(svg.body, { data: { params: { file: /PNG, JPEG or WebP/ } } });
  const large = await upload(operator, Buffer.concat([PNG, Buffer.alloc(MAX)]));
  t.equal(large.status, 400);
  t.match(large.body, { code: 'rest_upload_file_too_big', data: { max_bytes: MAX } });
  const exact = await upload(operator, Buffer.concat([PNG, Buffer.alloc(MAX - PNG.length)]));
  t.equal(exact.status, 201, 'exactly the limit passes');
});

t.test('the branding is saved, read back, shown by its logo URL and audited with before and after', async (t) => {
  const { id } = (await upload(operator, PNG)).body as { id: string };
  const saved = await save({ logo_image_id: id, background_color: '#102030', button_color: '#FFCC00', message: 'Welcome to Acme mail' });
  t.equal(saved.status, 200, saved.text);
  t.same(saved.body, {
    logo_image_id: id,
    logo_url: `${h.url}/branding/${id}.png`,
    background_color: '#102030',
    button_color: '#FFCC00',
    message: 'Welcome to Acme mail',
    updated_at: saved.body.updated_at,
  });
  const partial = await save({ message: 'Only the message' });
  t.match(partial.body, { logo_image_id: id, background_color: '#102030', message: 'Only the message' }, 'the parts not sent stay');
  t.match((await read()).body, { message: 'Only the message', button_color: '#FFCC00' });
  const [last, first] = await brandingEntries();
  t.match(first, { action: 'branding.save', after: { logo_image_id: id, background_color: '#102030', message: 'Welcome to Acme mail' } });
  t.match(last, { action: 'branding.save', before: { message: 'Welcome to Acme mail' }, after: { message: 'Only the message' } });
});

t.test('a colour not #rrggbb, an unknown image or a long message is refused naming it, and nothing changes', async (t) => {
  await save({ message: 'Kept' });
  const entries = (await brandingEntries()).length;
  for (const [body, param] of [
    [{ background_color: 'red' }, 'background_color'],
    [{ button_color: '#12345' }, 'button_color'],
    [{ button_color: '#12345g' }, 'button_color'],
    [{ logo_image_id: 'f'.repeat(32) }, 'logo_image_id'],
    [{ logo_image_id: '../../etc/passwd' }, 'logo_image_id'],
    [{ message: 'x'.repeat(501) }, 'message'],
  ] as const) {
    const refused = await save(body);
    t.equal(refused.status, 400, `${JSON.stringify(body).slice(0, 60)}: 400`);
    t.match(refused.body, { code: 'rest_invalid_param', data: { status: 400, params: { [param]: String } } });
  }
  t.match((await read()).body, { message: 'Kept', logo_image_id: null, background_color: null });
  t.equal((await brandingEntries()).length, entries, 'no audit entry for a refused save');
});

t.test('anonymous callers get 401 and account users 403, for reads, saves and uploads', async (t) => {
  t.equal((await h.request('GET', CUSTOMIZER)).status, 401);
  t.equal((await h.request('POST', CUSTOMIZER, { body: { message: 'x' } })).status, 401);
  t.equal((await upload(undefined, PNG)).status, 401);
  const owner = (await signedInOn(h)).session;
  t.equal((await h.request('GET', CUSTOMIZER, withSession(owner))).status, 403);
  t.equal((await save({ message: 'x' }, owner)).status, 403);
  t.equal((await upload(owner, PNG)).status, 403);
});

t.test('in Chromium the sign-in and forgot-password pages show the logo, the colours and the message as text', async (t) => {
  const { id } = (await upload(operator, PNG)).body as { id: string };
  const message = '<script>document.title="owned"</script> Welcome';
  t.equal((await save({ logo_image_id: id, background_color: '#203040', button_color: '#ffcc00', message })).status, 200);
  const browser = await startBrowser();
  t.teardown(() => browser.close());
  const p = await browser.context.newPage();
  for (const path of ['/wp-login.php', '/forgot-password']) {
    await p.goto(`${h.url}${path}`);
    t.equal(await p.textContent('#branding-message'), message, `${path}: the message as text`);
    t.not(await p.title(), 'owned', `${path}: no script ran`);
    const logo = await p.$eval('img.branding-logo', (img) => ({ src: img.getAttribute('src'), loaded: (img as HTMLImageElement).naturalWidth }));
    t.same(logo, { src: `/branding/${id}.png`, loaded: 1 }, `${path}: the logo, loaded`);
    t.equal(await p.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(32, 48, 64)', `${path}: the background colour`);
    t.equal(await p.$eval('button.primary', (b) => getComputedStyle(b).backgroundColor), 'rgb(255, 204, 0)', `${path}: the button colour`);
    t.equal(await p.$eval('button.primary', (b) => getComputedStyle(b).color), 'rgb(0, 0, 0)', `${path}: black text on a light button`);
  }
  await p.close();
});

t.test('in Chromium an operator sets the logo, colours and message on /admin/branding; a bad colour is said with what was typed', async (t) => {
  const browser = await startBrowser();
  t.teardown(() => browser.close());
  const email = await operatorOn(h);
  const p = await signedInTab(browser, h.url, email, '/admin/branding');
  t.same(await seriousViolations(p), [], 'no serious accessibility violation');
  const before = (await read()).body;
  await p.setInputFiles('#logo', { name: 'logo.webp', mimeType: 'application/octet-stream', buffer: WEBP });
  await p.fill('#background_color', '#112233');
  await p.fill('#button_color', 'red');
  await p.fill('#message', 'Acme mail <b>only</b>');
  await Promise.all([p.waitForLoadState(), p.click('#save-branding')]);
  t.match(await p.textContent('main'), /Button colour must be a colour as #rrggbb/, 'the problem in the form’s words');
  t.equal(await p.inputValue('#button_color'), 'red', 'what was typed is kept');
  t.same((await read()).body, before, 'nothing saved');
  await p.setInputFiles('#logo', { name: 'logo.webp', mimeType: 'application/octet-stream', buffer: WEBP });
  await p.fill('#button_color', '#ffcc00');
  await Promise.all([p.waitForURL(/done=saved/), p.click('#save-branding')]);
  const saved = (await read()).body;
  t.match(saved, { background_color: '#112233', button_color: '#ffcc00', message: 'Acme mail <b>only</b>', logo_url: /\/branding\/[0-9a-f]{32}\.webp$/ });
  t.match(await p.getAttribute('img.branding-logo', 'src'), /\.webp$/, 'the page shows the new logo');
  await p.check('#remove_logo');
  await Promise.all([p.waitForURL(/done=saved/), p.click('#save-branding')]);
  t.match((await read()).body, { logo_image_id: null, background_color: '#112233' }, 'the logo removed, the rest kept');
  const entries = await brandingEntries();
  t.ok(entries.length >= 2, 'each save is in the audit log');
  const owner = await signedInTab(browser, h.url, (await signedInOn(h)).email, '/');
  const refused = await owner.goto(`${h.url}/admin/branding`);
  t.not(refused?.status(), 200, "an account's user does not get the page");
});
