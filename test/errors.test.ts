// The admin error shape over real HTTP: malformed, mistyped, oversized and misdirected requests all get a
// clear {status_code, message, errors.code} answer, never a 500 and never a stack trace.
import t from 'tap';
import { startHarness, type Harness, type UntypedJson } from './helpers/harness.js';
import { ADMIN_ERRORS } from '../shared/errors.js';

let h: Harness;
let key: string;
let teamId: number;

/** Every error reply seen in this file, checked for shape and leaks at the end. */
const seen: Array<{ label: string; status: number; text: string }> = [];

t.before(async () => {
  h = await startHarness();
  ({ key } = await h.account());
  const team = await h.request('POST', '/v2/teams', { key, body: { name: 'Error team' } });
  teamId = team.body.data.id;
});
t.teardown(() => h?.close());

async function call(method: string, path: string, options: Parameters<Harness['request']>[2] = {}) {
  const res = await h.request(method, path, options);
  seen.push({ label: `${method} ${path}`, status: res.status, text: res.text });
  return res;
}

async function raw(method: string, path: string, options: Parameters<Harness['raw']>[2] = {}) {
  const res = await h.raw(method, path, options);
  seen.push({ label: `${method} ${path} (raw)`, status: res.status, text: res.text });
  return res;
}

/** The routes that take a JSON body, with a path that reaches validation. */
const BODY_ROUTES = (): Array<[string, string]> => [
  ['POST', '/v2/teams'],
  ['PUT', `/v2/teams/${teamId}`],
  ['POST', '/v2/api-keys'],
  ['POST', '/v2/domains'],
  ['POST', '/v2/webhooks'],
  ['PUT', '/v2/webhooks/1'],
  ['DELETE', '/v2/suppressions'],
];

t.test('malformed JSON answers 400 invalid_json on every route that takes a body', async (t) => {
  for (const [method, path] of BODY_ROUTES()) {
    for (const rawBody of ['{bad', '{"name": "x",}', "{'name': 'x'}", '{"name": "unterminated']) {
      const res = await call(method, path, { key, rawBody });
      t.equal(res.status, 400, `${method} ${path} ${rawBody}`);
      t.equal(res.body.errors.code, 'invalid_json');
    }
  }
});

t.test('a body that is JSON but not an object answers 422 naming the body', async (t) => {
  for (const rawBody of ['[]', '["name"]', '"name"', '42', 'null', 'true']) {
    const res = await call('POST', '/v2/teams', { key, rawBody });
    t.equal(res.status, 422, rawBody);
    t.equal(res.body.errors.code, 'validation_failed');
    t.equal(res.body.errors.field, 'body');
  }
});

t.test('a missing body where one is required answers 422 naming the body', async (t) => {
  for (const [method, path] of BODY_ROUTES().filter(([m]) => m !== 'DELETE')) {
    const res = await call(method, path, { key });
    t.equal(res.status, 422, `${method} ${path}`);
    t.equal(res.body.errors.field, 'body');
  }
});

t.test('wrong types answer 422 naming the field', async (t) => {
  const cases: Array<[string, string, unknown, string]> = [
    ['POST', '/v2/teams', { name: 123 }, 'name'],
    ['POST', '/v2/teams', { name: { first: 'x' } }, 'name'],
    ['PUT', `/v2/teams/${teamId}`, { status: true }, 'status'],
    ['PUT', `/v2/teams/${teamId}`, { name: null }, 'name'],
    ['POST', '/v2/api-keys', { name: 'k', domain: 42 }, 'domain'],
    ['POST', '/v2/domains', { name: ['example.com'] }, 'name'],
    ['POST', '/v2/webhooks', { url: 'https://hooks.example.com/', events: 'bounced' }, 'events'],
    ['POST', '/v2/webhooks', { url: 'https://hooks.example.com/', events: ['bounced'], include_message: 'yes' }, 'include_message'],
    ['DELETE', '/v2/suppressions', { email: 5 }, 'email'],
  ];
  for (const [method, path, body, field] of cases) {
    const res = await call(method, path, { key, body });
    t.equal(res.status, 422, `${method} ${path} ${JSON.stringify(body)}`);
    t.equal(res.body.errors.field, field);
    t.match(res.body.message, field, 'the message names the field');
  }
});

t.test('numbers are not coerced from strings in a body', async (t) => {
  const res = await call('PUT', `/v2/webhooks/1`, { key, body: { include_message: 'true' } });
  t.equal(res.status, 422);
  t.equal(res.body.errors.field, 'include_message');
});

t.test('unknown body fields answer 422 naming the field', async (t) => {
  const cases: Array<[string, string, Record<string, unknown>]> = [
    ['POST', '/v2/teams', { name: 'Good name', credits: 100 }],
    ['PUT', `/v2/teams/${teamId}`, { name: 'Good name', parent_id: 1 }],
    ['POST', '/v2/api-keys', { name: 'k', scopes: ['all'] }],
    ['POST', '/v2/domains', { name: 'example.com', region: 'us' }],
    ['POST', '/v2/webhooks', { url: 'https://hooks.example.com/', events: ['bounced'], secret: 'mine' }],
    ['DELETE', '/v2/suppressions', { email: 'a@example.com', all: true }],
  ];
  for (const [method, path, body] of cases) {
    const res = await call(method, path, { key, body });
    const extra = Object.keys(body).at(-1)!;
    t.equal(res.status, 422, `${method} ${path} ${extra}`);
    t.equal(res.body.errors.field, extra);
  }
  const polluted = await call('POST', '/v2/teams', { key, rawBody: '{"name":"Polluted","__proto__":{"admin":true}}' });
  t.equal(polluted.status, 422, '__proto__ is an unknown field too');
  t.equal(polluted.body.errors.code, 'validation_failed');
  t.equal(polluted.body.errors.field, '__proto__');
  for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
    const res = await call('POST', '/v2/webhooks', { key, rawBody: JSON.stringify({ url: 'https://hooks.example.com/', events: ['bounced'], [name]: 1 }) });
    t.equal(res.status, 422, name);
    t.equal(res.body.errors.code, 'validation_failed', `${name} gets the plain code`);
  }
  t.equal(({} as Record<string, unknown>).admin, undefined, 'no prototype was polluted');
});

t.test('a body over 1 MB answers 413, whether its length is declared or chunked', async (t) => {
  t.equal(h.config.api.bodyLimitBytes, 1024 * 1024);
  const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
  const declared = await call('POST', '/v2/teams', { key, rawBody: big });
  t.equal(declared.status, 413);
  t.equal(declared.body.errors.code, 'payload_too_large');
  const chunks = Array.from({ length: 11 }, () => 'x'.repeat(100_000));
  const chunked = await raw('POST', '/v2/teams', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: ['{"name":"', ...chunks, '"}'],
  });
  t.equal(chunked.status, 413);
  t.equal(chunked.body.errors.code, 'payload_too_large');
  t.equal((await h.rt.store.teams.children((await h.request('GET', '/v2/info', { key })).body.account.id)).length, 1, 'nothing was created');
  // The server stays healthy afterwards.
  t.equal((await call('GET', '/v2/info', { key })).status, 200);
});

t.test('a body of exactly 1 MB is read (and then validated)', async (t) => {
  const prefix = '{"name":"';
  const suffix = '"}';
  const body = prefix + 'y'.repeat(1024 * 1024 - prefix.length - suffix.length) + suffix;
  t.equal(Buffer.byteLength(body), 1024 * 1024);
  const res = await call('POST', '/v2/teams', { key, rawBody: body });
  t.equal(res.status, 422, 'not 413: the name is simply too long');
  t.equal(res.body.errors.field, 'name');
});

t.test('a non-JSON content type answers 415', async (t) => {
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
    const res = await call('POST', '/v2/teams', { key, rawBody: '{"name":"Typed"}', headers: { 'content-type': type } });
    t.equal(res.status, 415, type);
    t.equal(res.body.errors.code, 'unsupported_media_type');
  }
  const ok = await call('POST', '/v2/teams', {
    key,
    rawBody: '{"name":"Charset ok"}',
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
  t.equal(ok.status, 201, 'application/json with a charset is accepted');
});

t.test('an unknown route answers 404 route_not_found in the admin shape, with or without a key', async (t) => {
  for (const [method, path] of [
    ['GET', '/v2/nothing-here'],
    ['GET', '/v3/info'],
    ['GET', '/nothing-here'],
    ['PATCH', '/v2/teams'],
    ['POST', '/v2/info'],
    ['GET', '/v2/webhooks/1'],
    ['DELETE', '/v2/teams/1'],
  ]) {
    for (const withKey of [true, false]) {
      const res = await call(method!, path!, withKey ? { key } : {});
      t.equal(res.status, 404, `${method} ${path}`);
      t.equal(res.body.errors.code, 'route_not_found');
    }
  }
});

t.test('a path that is not valid percent-encoding answers 400 in the admin shape', async (t) => {
  for (const path of ['/v2/domains/%E0%A4%A', '/v2/domains/%', '/v2/teams/%zz']) {
    const res = await raw('GET', path, { headers: { authorization: `Bearer ${key}` } });
    t.equal(res.status, 400, path);
    t.equal(res.body?.errors?.code, 'invalid_path');
  }
});

t.test('unknown ids answer 404, out-of-range ids never a 500', async (t) => {
  for (const [method, path, body] of [
    ['PUT', '/v2/teams/999999', { name: 'Nobody' }],
    ['PUT', '/v2/teams/99999999999999999999999', { name: 'Nobody' }],
    ['DELETE', '/v2/api-keys/9007199254740993'],
    ['PUT', '/v2/webhooks/123456789012345678901234567890', { status: 'inactive' }],
    ['GET', '/v2/domains/does-not-exist'],
    ['GET', `/v2/domains/${'z'.repeat(64)}`],
  ] as const) {
    const res = await call(method, path, { key, body });
    t.ok(res.status === 404 || res.status === 422, `${method} ${path}: ${res.status}`);
  }
  const longId = await call('GET', `/v2/domains/${'z'.repeat(65)}`, { key });
  t.equal(longId.status, 422);
  const huge = await call('GET', '/v2/info', { key, teamId: '999999999999999' });
  t.equal(huge.status, 404);
  const tooLong = await call('GET', '/v2/info', { key, teamId: '9'.repeat(40) });
  t.equal(tooLong.status, 422);
});

t.test('deeply nested JSON is answered without a 500', async (t) => {
  const depth = 100_000;
  const res = await call('POST', '/v2/teams', { key, rawBody: '['.repeat(depth) + ']'.repeat(depth) });
  t.ok([400, 422].includes(res.status), `status ${res.status}`);
  const nested = await call('POST', '/v2/teams', { key, rawBody: `{"name":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}` });
  t.equal(nested.status, 422);
});

t.test('a key in the wrong place answers in the admin shape', async (t) => {
  const res = await call('GET', '/v2/teams', { headers: { authorization: 'Bearer not-a-tern-key' } });
  t.equal(res.status, 401);
  const scope = await call('GET', '/v2/teams', { key: await h.adminKey((await h.account()).id, []) });
  t.equal(scope.status, 403);
});

t.test('every error reply of this file has the admin shape, a known code and no stack trace', async (t) => {
  const errors = seen.filter((r) => r.status >= 400);
  t.ok(errors.length > 80, `${errors.length} error replies checked`);
  const codes = new Set<string>();
  for (const { label, status, text } of errors) {
    t.not(status, 500, `${label} is not a 500`);
    let body: UntypedJson;
    try {
      body = JSON.parse(text);
    } catch {
      t.fail(`${label}: the body is JSON (${text.slice(0, 60)})`);
      continue;
    }
    t.same(Object.keys(body).sort(), ['errors', 'message', 'status_code'], `${label}: exactly status_code, message, errors`);
    t.equal(body.status_code, status, `${label}: status_code is the HTTP status`);
    t.type(body.message, 'string');
    t.ok(body.message.length > 0);
    t.notOk('error_type' in body, `${label}: no error_type`);
    t.type(body.errors.code, 'string');
    const code = body.errors.code as keyof typeof ADMIN_ERRORS;
    t.equal(ADMIN_ERRORS[code], status, `${label}: ${code} carries its table status`);
    for (const value of Object.values(body.errors)) t.type(value, 'string', `${label}: errors values are flat strings`);
    t.notMatch(text, /\n\s+at \S|\bat [\w.<>]+ \(|\.(ts|js):\d+:\d+|node_modules|\/work\//, `${label}: no stack trace or file path`);
    codes.add(code);
  }
  for (const code of [
    'invalid_json',
    'validation_failed',
    'payload_too_large',
    'unsupported_media_type',
    'route_not_found',
    'invalid_path',
    'not_found',
    'invalid_api_key',
    'insufficient_scope',
  ]) {
    t.ok(codes.has(code), `${code} was exercised`);
  }
});
