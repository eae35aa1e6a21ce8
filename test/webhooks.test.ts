// /v2/webhooks over real HTTP: creation with a one-time secret stored sealed, the event and url rules,
// the per-team limit, updates including status, the list envelope, deletion, scopes and X-Account-Id.
import t from 'tap';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startHarness, type Harness, type UntypedJson } from './helpers/harness.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HOOK = 'https://hooks.example.com/tern';

let h: Harness;

t.before(async () => {
  h = await startHarness();
});
t.teardown(async () => {
  await h?.close();
});

interface Caller {
  id: number;
  key: string;
}

async function createTeam(owner: Caller, name: string): Promise<number> {
  const res = await h.request('POST', '/v2/teams', { key: owner.key, body: { name } });
  if (res.status !== 201) throw new Error(`team creation failed: ${res.status} ${res.text}`);
  return res.body.data.id as number;
}

function createHook(caller: Caller, body: Record<string, unknown>, teamId?: number) {
  return h.request('POST', '/v2/webhooks', { key: caller.key, body, teamId });
}

async function newHook(caller: Caller, body: Record<string, unknown> = {}, teamId?: number) {
  const res = await createHook(caller, { url: HOOK, events: ['bounced'], ...body }, teamId);
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${res.text}`);
  return res.body.data as Record<string, UntypedJson>;
}

t.test('creating a webhook returns 201 with every field, a generated secret and the acting team', async (t) => {
  const a = await h.account();
  const res = await createHook(a, { title: 'Bounces', url: HOOK, events: ['bounced', 'complaint'], include_message: true });
  t.equal(res.status, 201);
  t.equal(res.headers.get('x-account-id'), String(a.id));
  const d = res.body.data;
  t.same(Object.keys(d).sort(), ['created_at', 'events', 'id', 'include_message', 'secret', 'status', 'title', 'updated_at', 'url']);
  t.ok(Number.isInteger(d.id), 'id is an integer');
  t.equal(d.title, 'Bounces');
  t.equal(d.url, HOOK);
  t.same(d.events, ['bounced', 'complaint']);
  t.equal(d.status, 'active');
  t.equal(d.include_message, true);
  t.match(d.created_at, ISO_MS);
  t.match(d.updated_at, ISO_MS);
  t.ok(Math.abs(Date.parse(d.created_at) - Date.now()) < 60_000, 'created_at is now');
});

t.test('title and include_message are optional on creation', async (t) => {
  const a = await h.account();
  const res = await createHook(a, { url: HOOK, events: ['complaint'] });
  t.equal(res.status, 201);
  t.equal(res.body.data.title, '');
  t.equal(res.body.data.include_message, false);
  t.same(res.body.data.events, ['complaint']);
});

t.test('the secret is whsec_ and base64 of exactly 32 bytes, different for every webhook', async (t) => {
  const a = await h.account();
  const secrets = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const { secret } = await newHook(a);
    t.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const raw = Buffer.from(secret.slice('whsec_'.length), 'base64');
    t.equal(raw.length, 32, 'decodes to 32 bytes');
    t.equal(`whsec_${raw.toString('base64')}`, secret, 'is canonical base64');
    secrets.add(secret);
  }
  t.equal(secrets.size, 3);
});

t.test('the secret cannot be chosen by the client', async (t) => {
  const a = await h.account();
  const res = await createHook(a, { url: HOOK, events: ['bounced'], secret: 'whsec_mine' });
  t.equal(res.status, 422);
  t.equal(res.body.errors.code, 'validation_failed');
});

t.test('the secret is stored sealed and never shown again', async (t) => {
  const a = await h.account();
  const created = await newHook(a);
  const secret = created.secret as string;
  const secretB64 = secret.slice('whsec_'.length);

  const stored = await h.rt.store.webhooks.get(created.id, a.id);
  t.ok(stored, 'the webhook is stored');
  const sealed = stored!.secretEnc;
  t.notOk(sealed.includes(secret), 'what the store holds does not contain the secret');
  t.notOk(sealed.includes(secretB64), 'nor its base64 part');
  t.equal(h.rt.secrets.open(sealed), secret, 'the secret box gives it back');

  for (const file of ['tern.db', 'tern.db-wal']) {
    const path = join(h.dataDir, file);
    if (existsSync(path)) t.notOk(readFileSync(path).includes(secretB64), `${file} does not contain the secret`);
  }

  const list = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.equal(list.status, 200);
  t.notOk(list.text.includes(secretB64), 'the list does not show the secret');
  t.notOk('secret' in list.body.data[0], 'list items have no secret field');

  const put = await h.request('PUT', `/v2/webhooks/${created.id}`, { key: a.key, body: { title: 'renamed' } });
  t.equal(put.status, 200);
  t.notOk(put.text.includes(secretB64), 'the update response does not show the secret');
  t.notOk('secret' in put.body.data);
  const after = await h.rt.store.webhooks.get(created.id, a.id);
  t.equal(h.rt.secrets.open(after!.secretEnc), secret, 'an update keeps the secret');
});

t.test('events other than bounced and complaint are refused with unsupported_event', async (t) => {
  const a = await h.account();
  for (const events of [['delivered'], ['bounced', 'opened'], ['clicked'], ['unsubscribed'], ['Bounced']]) {
    const res = await createHook(a, { url: HOOK, events });
    t.equal(res.status, 422, JSON.stringify(events));
    t.equal(res.body.errors.code, 'unsupported_event', JSON.stringify(events));
    t.equal(res.body.status_code, 422);
    t.type(res.body.message, 'string');
    t.notOk('error_type' in res.body, 'admin errors have no error_type');
  }
});

t.test('events must be a non-empty array without duplicates', async (t) => {
  const a = await h.account();
  const cases: Array<[string, unknown]> = [
    ['an empty array', []],
    ['duplicates', ['bounced', 'bounced']],
    ['a string', 'bounced'],
    ['an object', { bounced: true }],
    ['null', null],
    ['a number inside', [1]],
  ];
  for (const [name, events] of cases) {
    const res = await createHook(a, { url: HOOK, events });
    t.equal(res.status, 422, name);
    t.type(res.body.errors.code, 'string', `${name} has a code`);
  }
  const missing = await createHook(a, { url: HOOK });
  t.equal(missing.status, 422, 'events is required');
  const list = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.equal(list.body.total, 0, 'nothing was created');
});

t.test('the url rules of the specification apply on creation with code invalid_url', async (t) => {
  const a = await h.account();
  const prefix = 'https://hooks.example.com/';
  const ok = [
    prefix + 'a'.repeat(2048 - prefix.length),
    'https://hooks.example.com:9443/x',
    'http://hooks.example.com/x',
    'http://hooks.example.com:443/x',
    'http://hooks.example.com:8080/x',
  ];
  for (const url of ok) {
    const res = await createHook(a, { url, events: ['bounced'] });
    t.equal(res.status, 201, url.slice(0, 60));
    t.equal(res.body.data.url, url, 'stored as given');
  }
  const bad = [
    prefix + 'a'.repeat(2049 - prefix.length),
    'http://hooks.example.com:8081/x',
    'https://localhost/x',
    'https://api.localhost/x',
    'https://93.184.216.34/x',
    'https://[2001:db8::1]/x',
    'https://10.0.0.1/x',
    'https://192.168.0.1/x',
    'https://169.254.169.254/x',
    'https://[::1]/x',
    'https://0x7f000001/x',
    'https://2130706433/x',
    'https://foo/x',
    'https://example.internal/x',
    'https://host.local/x',
    'ftp://hooks.example.com/x',
    'not a url',
    '',
  ];
  for (const url of bad) {
    const res = await createHook(a, { url, events: ['bounced'] });
    t.equal(res.status, 422, url.slice(0, 60));
    t.equal(res.body.errors.code, 'invalid_url', url.slice(0, 60));
  }
  const typed = await createHook(a, { url: 42, events: ['bounced'] });
  t.equal(typed.status, 422, 'a url that is not a string');
  const missing = await createHook(a, { events: ['bounced'] });
  t.equal(missing.status, 422, 'url is required');
  const list = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.equal(list.body.total, ok.length, 'only the valid ones were created');
});

t.test('a title is at most 100 characters', async (t) => {
  const a = await h.account();
  const ok = await createHook(a, { title: 't'.repeat(100), url: HOOK, events: ['bounced'] });
  t.equal(ok.status, 201);
  t.equal(ok.body.data.title, 't'.repeat(100));
  const long = await createHook(a, { title: 't'.repeat(101), url: HOOK, events: ['bounced'] });
  t.equal(long.status, 422);
  t.equal(long.body.errors.code, 'validation_failed');
  const typed = await createHook(a, { title: 7, url: HOOK, events: ['bounced'] });
  t.equal(typed.status, 422);
  const flag = await createHook(a, { url: HOOK, events: ['bounced'], include_message: 'yes' });
  t.equal(flag.status, 422, 'include_message must be a boolean');
});

t.test('malformed or missing bodies are clear errors, never a 500', async (t) => {
  const a = await h.account();
  const broken = await h.request('POST', '/v2/webhooks', { key: a.key, rawBody: '{"url": ' });
  t.equal(broken.status, 400);
  t.equal(broken.body.errors.code, 'invalid_json');
  const none = await h.request('POST', '/v2/webhooks', { key: a.key });
  t.equal(none.status, 422);
  const array = await h.request('POST', '/v2/webhooks', { key: a.key, body: [HOOK] });
  t.equal(array.status, 422);
});

t.test('a team holds at most 100 webhooks; another team of the same account can still add', async (t) => {
  const a = await h.account();
  for (let i = 0; i < 95; i++) await newHook(a, { title: `hook ${i}` });
  // The last places are raced for: exactly as many succeed as are left.
  const raced = await Promise.all(Array.from({ length: 10 }, () => createHook(a, { url: HOOK, events: ['bounced'] })));
  t.equal(raced.filter((r) => r.status === 201).length, 5, 'concurrent creations stop at the limit');
  t.ok(raced.filter((r) => r.status !== 201).every((r) => r.status === 422 && r.body.errors.code === 'limit_reached'));
  const over = await createHook(a, { url: HOOK, events: ['bounced'] });
  t.equal(over.status, 422);
  t.equal(over.body.errors.code, 'limit_reached');
  const list = await h.request('GET', '/v2/webhooks?per_page=100', { key: a.key });
  t.equal(list.body.total, 100);

  const team = await createTeam(a, 'Second team');
  const other = await createHook(a, { url: HOOK, events: ['bounced'] }, team);
  t.equal(other.status, 201, 'the limit is per team');
  t.equal(other.headers.get('x-account-id'), String(team));

  const removed = await h.request('DELETE', `/v2/webhooks/${list.body.data[0].id}`, { key: a.key });
  t.equal(removed.status, 200);
  const again = await createHook(a, { url: HOOK, events: ['bounced'] });
  t.equal(again.status, 201, 'deleting one frees a place');
});

t.test('PUT changes any field, including status, and moves updated_at only', async (t) => {
  const a = await h.account();
  const created = await newHook(a, { title: 'first' });
  await new Promise((r) => setTimeout(r, 5));
  const res = await h.request('PUT', `/v2/webhooks/${created.id}`, {
    key: a.key,
    body: { title: 'second', url: 'http://other.example.org:8080/in', events: ['complaint'], include_message: true, status: 'inactive' },
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-account-id'), String(a.id));
  const d = res.body.data;
  t.same(Object.keys(d).sort(), ['created_at', 'events', 'id', 'include_message', 'status', 'title', 'updated_at', 'url']);
  t.same(
    { id: d.id, title: d.title, url: d.url, events: d.events, include_message: d.include_message, status: d.status },
    { id: created.id, title: 'second', url: 'http://other.example.org:8080/in', events: ['complaint'], include_message: true, status: 'inactive' },
  );
  t.equal(d.created_at, created.created_at, 'created_at is kept');
  t.match(d.updated_at, ISO_MS);
  t.ok(Date.parse(d.updated_at) > Date.parse(created.updated_at), 'updated_at moves forward');

  const list = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.same(list.body.data[0], d, 'the list shows the stored change');

  const back = await h.request('PUT', `/v2/webhooks/${created.id}`, { key: a.key, body: { status: 'active' } });
  t.equal(back.status, 200);
  t.equal(back.body.data.status, 'active', 'inactive goes back to active');
  t.equal(back.body.data.title, 'second', 'fields not sent are kept');
  t.same(back.body.data.events, ['complaint']);
  t.equal(back.body.data.include_message, true);

  const off = await h.request('PUT', `/v2/webhooks/${created.id}`, { key: a.key, body: { include_message: false, title: '' } });
  t.equal(off.body.data.include_message, false, 'false is a change, not an omission');
  t.equal(off.body.data.title, '', 'a title can be cleared');
});

t.test('PUT validates like creation', async (t) => {
  const a = await h.account();
  const { id } = await newHook(a);
  const cases: Array<[string, unknown, number, string]> = [
    ['an empty body', {}, 422, 'validation_failed'],
    ['an unsupported event', { events: ['opened'] }, 422, 'unsupported_event'],
    ['no events', { events: [] }, 422, ''],
    ['duplicate events', { events: ['complaint', 'complaint'] }, 422, ''],
    ['http on port 8081', { url: 'http://hooks.example.com:8081/' }, 422, 'invalid_url'],
    ['a private address', { url: 'https://10.0.0.1/' }, 422, 'invalid_url'],
    ['localhost', { url: 'https://localhost/' }, 422, 'invalid_url'],
    ['a 2,049-character url', { url: 'https://hooks.example.com/' + 'a'.repeat(2049 - 26) }, 422, 'invalid_url'],
    ['a long title', { title: 'x'.repeat(101) }, 422, 'validation_failed'],
    ['an unknown status', { status: 'paused' }, 422, 'validation_failed'],
    ['an unknown field', { secret: 'whsec_x' }, 422, 'validation_failed'],
  ];
  for (const [name, body, status, code] of cases) {
    const res = await h.request('PUT', `/v2/webhooks/${id}`, { key: a.key, body });
    t.equal(res.status, status, name);
    if (code) t.equal(res.body.errors.code, code, `${name}: ${code}`);
  }
  const none = await h.request('PUT', `/v2/webhooks/${id}`, { key: a.key });
  t.equal(none.status, 422, 'no body at all');
  const list = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.equal(list.body.data[0].url, HOOK, 'nothing changed');
  t.same(list.body.data[0].events, ['bounced']);
});

t.test('a url with CR LF, other control characters or whitespace is refused with invalid_url on POST and PUT, never stored rewritten', async (t) => {
  const a = await h.account();
  const { id } = await newHook(a);
  const urls = [
    'https://hooks.example.com/x\r\nX-Injected: y',
    'https://hooks.example.com/x\nX-Injected: y',
    'https://hooks.example.com/x\t',
    'https://hooks.example.com/a b',
    ' https://hooks.example.com/x',
    'https://hooks.example.com/x ',
    'https://hooks.example.com/x\u0000',
    'https://hooks.example.com/x\u007f',
    'https://hooks.example.com/x\u0085',
  ];
  for (const url of urls) {
    const created = await createHook(a, { url, events: ['bounced'] });
    t.equal(created.status, 422, `POST ${JSON.stringify(url)}`);
    t.equal(created.body.errors?.code, 'invalid_url', `POST ${JSON.stringify(url)}: invalid_url`);
    const updated = await h.request('PUT', `/v2/webhooks/${id}`, { key: a.key, body: { url } });
    t.equal(updated.status, 422, `PUT ${JSON.stringify(url)}`);
    t.equal(updated.body.errors?.code, 'invalid_url', `PUT ${JSON.stringify(url)}: invalid_url`);
  }
  const list = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.equal(list.body.total, 1, 'no webhook was created');
  t.equal(list.body.data[0].url, HOOK, 'the existing url was not changed');
});

t.test('PUT and DELETE of an unknown id or another team’s webhook answer 404', async (t) => {
  const a = await h.account();
  const b = await h.account();
  const team = await createTeam(a, 'Client team');
  const mine = await newHook(a);
  const teams = await newHook(a, {}, team);
  const theirs = await newHook(b);

  for (const [name, id, teamId] of [
    ['an unknown id', 999_999, undefined],
    ['another account’s webhook', theirs.id, undefined],
    ['a child team’s webhook from the parent', teams.id, undefined],
    ['the parent’s webhook from a child team', mine.id, team],
  ] as Array<[string, number, number | undefined]>) {
    const put = await h.request('PUT', `/v2/webhooks/${id}`, { key: a.key, body: { title: 'x' }, teamId });
    t.equal(put.status, 404, `PUT ${name}`);
    t.equal(put.body.errors.code, 'not_found');
    const del = await h.request('DELETE', `/v2/webhooks/${id}`, { key: a.key, teamId });
    t.equal(del.status, 404, `DELETE ${name}`);
  }
  const still = await h.request('GET', '/v2/webhooks', { key: b.key });
  t.equal(still.body.total, 1, 'the other account’s webhook is untouched');
  t.equal(still.body.data[0].title, '');

  const bad = await h.request('PUT', '/v2/webhooks/abc', { key: a.key, body: { title: 'x' } });
  t.equal(bad.status, 422, 'a non-integer id is a validation error');
  for (const id of ['0', '-1', '1.5', '99999999999999999999']) {
    const res = await h.request('DELETE', `/v2/webhooks/${id}`, { key: a.key });
    t.ok(res.status === 404 || res.status === 422, `id ${id} is a clear error (${res.status})`);
    t.type(res.body?.errors?.code, 'string');
  }
  // No row can have an id past the largest safe integer, and PostgreSQL's BIGINT cannot even hold this one.
  const huge = await h.request('DELETE', '/v2/webhooks/99999999999999999999', { key: a.key });
  t.equal(huge.status, 422, 'an id beyond any stored id is a validation error, on every engine');
});

t.test('DELETE answers deleted true, then the webhook is gone', async (t) => {
  const a = await h.account();
  const keep = await newHook(a, { title: 'keep' });
  const drop = await newHook(a, { title: 'drop' });
  const res = await h.request('DELETE', `/v2/webhooks/${drop.id}`, { key: a.key });
  t.equal(res.status, 200);
  t.same(res.body, { deleted: true });
  t.equal(res.headers.get('x-account-id'), String(a.id));
  const again = await h.request('DELETE', `/v2/webhooks/${drop.id}`, { key: a.key });
  t.equal(again.status, 404);
  const put = await h.request('PUT', `/v2/webhooks/${drop.id}`, { key: a.key, body: { status: 'active' } });
  t.equal(put.status, 404);
  const list = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.same(
    list.body.data.map((w: { id: number }) => w.id),
    [keep.id],
  );
  t.equal(await h.rt.store.webhooks.get(drop.id, a.id), undefined, 'the row is removed');
});

t.test('the list uses the envelope and the paging rules', async (t) => {
  const a = await h.account();
  const ids: number[] = [];
  for (let i = 0; i < 30; i++) ids.push((await newHook(a, { title: `w${i}` })).id);

  const first = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.equal(first.status, 200);
  t.same(Object.keys(first.body).sort(), ['data', 'page', 'per_page', 'total']);
  t.equal(first.body.total, 30);
  t.equal(first.body.page, 1);
  t.equal(first.body.per_page, 25, 'default page size');
  t.equal(first.body.data.length, 25);
  t.same(
    first.body.data.map((w: { id: number }) => w.id),
    ids.slice(0, 25),
    'oldest first',
  );
  for (const w of first.body.data) {
    t.same(Object.keys(w).sort(), ['created_at', 'events', 'id', 'include_message', 'status', 'title', 'updated_at', 'url']);
  }

  const second = await h.request('GET', '/v2/webhooks?page=2&per_page=25', { key: a.key });
  t.same(
    second.body.data.map((w: { id: number }) => w.id),
    ids.slice(25),
  );
  t.equal(second.body.page, 2);

  const small = await h.request('GET', '/v2/webhooks?page=3&per_page=7', { key: a.key });
  t.same(
    small.body.data.map((w: { id: number }) => w.id),
    ids.slice(14, 21),
  );
  t.equal(small.body.per_page, 7);

  const past = await h.request('GET', '/v2/webhooks?page=5', { key: a.key });
  t.equal(past.status, 200);
  t.same(past.body.data, []);
  t.equal(past.body.total, 30);

  const deepest = await h.request('GET', '/v2/webhooks?page=100&per_page=100', { key: a.key });
  t.equal(deepest.status, 200, 'exactly 10,000 records deep is allowed');

  for (const q of ['per_page=0', 'per_page=101', 'page=0', 'page=-1', 'page=abc', 'per_page=2.5', 'page=101&per_page=100', 'page=10001']) {
    const res = await h.request('GET', `/v2/webhooks?${q}`, { key: a.key });
    t.equal(res.status, 422, q);
    t.type(res.body.errors.code, 'string');
  }
});

t.test('webhooks need the webhooks scopes; write includes read', async (t) => {
  const a = await h.account();
  const { id } = await newHook(a);
  const none = await h.adminKey(a.id, ['domains:read']);
  const read = await h.adminKey(a.id, ['webhooks:read']);
  const write = await h.adminKey(a.id, ['webhooks:write']);

  const listNone = await h.request('GET', '/v2/webhooks', { key: none });
  t.equal(listNone.status, 403);
  t.same(listNone.body.errors, { code: 'insufficient_scope', required_scope: 'webhooks:read' });

  const listRead = await h.request('GET', '/v2/webhooks', { key: read });
  t.equal(listRead.status, 200);
  t.equal(listRead.body.total, 1);

  for (const [method, path, body] of [
    ['POST', '/v2/webhooks', { url: HOOK, events: ['bounced'] }],
    ['PUT', `/v2/webhooks/${id}`, { title: 'x' }],
    ['DELETE', `/v2/webhooks/${id}`, undefined],
  ] as Array<[string, string, unknown]>) {
    for (const key of [none, read]) {
      const res = await h.request(method, path, { key, body });
      t.equal(res.status, 403, `${method} without webhooks:write`);
      t.equal(res.body.errors.code, 'insufficient_scope');
      t.equal(res.body.errors.required_scope, 'webhooks:write');
    }
  }

  const listWrite = await h.request('GET', '/v2/webhooks', { key: write });
  t.equal(listWrite.status, 200, 'webhooks:write includes webhooks:read');
  const created = await h.request('POST', '/v2/webhooks', { key: write, body: { url: HOOK, events: ['complaint'] } });
  t.equal(created.status, 201);
  const list = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.equal(list.body.total, 2, 'the refused writes changed nothing');
  t.equal(list.body.data[0].title, '');
});

t.test('webhooks without or with a sending key are refused', async (t) => {
  const none = await h.request('GET', '/v2/webhooks');
  t.equal(none.status, 401);
  const sending = await h.request('GET', '/v2/webhooks', { key: 'tern_' + 'a'.repeat(43) });
  t.equal(sending.status, 401);
});

t.test('webhooks belong to the team named by X-Account-Id', async (t) => {
  const a = await h.account();
  const team = await createTeam(a, 'Client one');
  const other = await createTeam(a, 'Client two');

  const onTeam = await newHook(a, { title: 'team hook' }, team);
  const onRoot = await newHook(a, { title: 'root hook' });

  const teamList = await h.request('GET', '/v2/webhooks', { key: a.key, teamId: team });
  t.equal(teamList.headers.get('x-account-id'), String(team));
  t.same(
    teamList.body.data.map((w: { id: number }) => w.id),
    [onTeam.id],
  );

  const rootList = await h.request('GET', '/v2/webhooks', { key: a.key });
  t.equal(rootList.headers.get('x-account-id'), String(a.id));
  t.same(
    rootList.body.data.map((w: { id: number }) => w.id),
    [onRoot.id],
  );

  const otherList = await h.request('GET', '/v2/webhooks', { key: a.key, teamId: other });
  t.same(otherList.body.data, [], 'a sibling team sees none of them');

  const put = await h.request('PUT', `/v2/webhooks/${onTeam.id}`, { key: a.key, teamId: team, body: { status: 'inactive' } });
  t.equal(put.status, 200);
  t.equal(put.headers.get('x-account-id'), String(team));
  t.equal((await h.rt.store.webhooks.get(onTeam.id, team))?.status, 'inactive');

  const stranger = await h.account();
  const foreign = await h.request('GET', '/v2/webhooks', { key: stranger.key, teamId: team });
  t.equal(foreign.status, 404, 'another account’s team is not reachable');

  const del = await h.request('DELETE', `/v2/webhooks/${onTeam.id}`, { key: a.key, teamId: team });
  t.same(del.body, { deleted: true });
});

t.test('a key held by a child team reaches only that team’s webhooks', async (t) => {
  const a = await h.account();
  const team = await createTeam(a, 'Held team');
  const childKey = await h.adminKey(team, ['webhooks:write']);
  const parentHook = await newHook(a);

  const created = await h.request('POST', '/v2/webhooks', { key: childKey, body: { url: HOOK, events: ['bounced'] } });
  t.equal(created.status, 201);
  t.equal(created.headers.get('x-account-id'), String(team));
  t.ok(await h.rt.store.webhooks.get(created.body.data.id, team), 'stored on the child team');

  const list = await h.request('GET', '/v2/webhooks', { key: childKey });
  t.same(
    list.body.data.map((w: { id: number }) => w.id),
    [created.body.data.id],
  );
  const parent = await h.request('GET', '/v2/webhooks', { key: childKey, teamId: a.id });
  t.equal(parent.status, 404, 'the parent is out of reach');
  const put = await h.request('PUT', `/v2/webhooks/${parentHook.id}`, { key: childKey, body: { title: 'x' } });
  t.equal(put.status, 404);
});
