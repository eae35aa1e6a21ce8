// One request id per HTTP request: a sane incoming X-Request-Id is kept, any other is replaced by a fresh
// one; every response carries it, and every log line written for the request, by the HTTP layer or the core, is bound to it.
import t from 'tap';
import { Writable } from 'node:stream';
import { startHarness, type Harness } from './helpers/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface LogLine {
  level: number;
  msg: string;
  req_id?: string;
  route?: string;
  err?: unknown;
}

/** A harness whose log lines (at info and above) are kept, parsed, for the test to read. */
async function loggingHarness(): Promise<{ h: Harness; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text.trim()) lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  const h = await startHarness({ env: { TERNMAIL_LOG_LEVEL: 'info' }, logDestination: destination });
  return { h, lines };
}

t.test('a sane incoming X-Request-Id comes back on every response: routes, sends, 404s and body errors', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const { key } = await h.account();
  const id = (name: string) => ({ 'X-Request-Id': `trace.${name}_1-A` });
  const cases: Array<[string, Promise<{ status: number; headers: Headers }>, string]> = [
    ['admin route', h.request('GET', '/v2/teams', { key, headers: id('teams') }), 'teams'],
    ['admin refusal', h.request('GET', '/v2/teams', { headers: id('nokey') }), 'nokey'],
    ['unknown route', h.request('GET', '/v2/nowhere', { headers: id('404') }), '404'],
    ['send refusal', h.request('POST', '/v2/emails', { body: {}, headers: id('send') }), 'send'],
    ['send body too large', h.request('POST', '/v2/emails', { rawBody: `{"a":"${'x'.repeat(h.config.api.sendBodyLimitBytes)}"}`, headers: id('413') }), '413'],
    ['send invalid JSON', h.request('POST', '/v2/emails', { rawBody: '{"from":', headers: id('json') }), 'json'],
    ['admin invalid JSON', h.request('POST', '/v2/teams', { key, rawBody: '{"name":', headers: id('adminjson') }), 'adminjson'],
    ['the OpenAPI document', h.request('GET', '/v2/openapi.json', { headers: id('doc') }), 'doc'],
  ];
  for (const [label, reply, name] of cases) {
    const res = await reply;
    t.equal(res.headers.get('x-request-id'), `trace.${name}_1-A`, `${label} (${res.status}) echoes the request id`);
  }
  const undecodable = await h.raw('GET', '/v2/%E0%A4%A', { headers: { 'X-Request-Id': 'trace-bad-path' } });
  t.equal(undecodable.status, 400);
  t.equal(undecodable.headers['x-request-id'], 'trace-bad-path', 'a path that cannot be decoded echoes it too');
});

t.test('a request without a sane X-Request-Id gets a fresh one, different per request', async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  const seen = new Set<string>();
  for (const incoming of [undefined, '', 'has space', 'x'.repeat(129), 'semi;colon', 'ünicode']) {
    const headers: Record<string, string> = incoming === undefined ? {} : { 'X-Request-Id': incoming };
    const res = await h.request('GET', '/v2/teams', { headers });
    const id = res.headers.get('x-request-id') ?? '';
    t.match(id, UUID, `${JSON.stringify(incoming)} is replaced by a generated id`);
    seen.add(id);
  }
  t.equal(seen.size, 6, 'each request has its own id');
  const longest = 'a'.repeat(128);
  t.equal((await h.request('GET', '/v2/teams', { headers: { 'X-Request-Id': longest } })).headers.get('x-request-id'), longest, '128 characters are kept');
});

t.test('an unexpected failure answers 500 without internals, and its log line carries the request id', async (t) => {
  const { h, lines } = await loggingHarness();
  t.teardown(() => h.close().catch(() => undefined));
  const { key } = await h.account();
  const sendKey = await h.request('POST', '/v2/api-keys', { key, body: { name: 'app' } });
  t.equal(sendKey.status, 201, sendKey.text);
  // A real failure nobody planned for: the database goes away under the running API.
  await h.rt.store.close();

  const admin = await h.request('GET', '/v2/domains', { key, headers: { 'X-Request-Id': 'trace-admin-500' } });
  t.equal(admin.status, 500, admin.text);
  t.equal(admin.headers.get('x-request-id'), 'trace-admin-500');
  t.same(admin.body, { status_code: 500, message: 'Internal error; it has been logged', errors: { code: 'internal_error' } }, 'the admin shape, no internals');

  const send = await h.request('POST', '/v2/emails', {
    key: sendKey.body.data.api_key,
    body: { from: { email: 'a@example.com' }, to: [{ email: 'b@example.com' }], subject: 's', text: 't' },
    headers: { 'X-Request-Id': 'trace-send-500' },
  });
  t.equal(send.status, 500, send.text);
  t.equal(send.headers.get('x-request-id'), 'trace-send-500');
  t.same(send.body, { status_code: 500, error_type: 'internal_error', message: 'Internal error; it has been logged', errors: {} }, 'the sending shape, no internals');

  for (const [id, route] of [
    ['trace-admin-500', 'GET /v2/domains'],
    ['trace-send-500', 'POST /v2/emails'],
  ] as const) {
    const logged = lines.filter((l) => l.req_id === id);
    t.ok(logged.length > 0, `${route} wrote log lines bound to ${id}`);
    const failure = logged.find((l) => l.level === 50 && l.msg === 'unexpected error');
    t.ok(failure, `its 500 is logged at error level with req_id ${id}`);
    t.equal(failure?.route, route, 'and names the route');
    t.match(JSON.stringify(failure?.err), /SQLITE/, 'the log line, not the body, holds the cause');
  }
  const unbound = lines.filter((l) => /unexpected error|temporarily unavailable/.test(l.msg) && !l.req_id);
  t.same(unbound, [], 'no HTTP failure is logged without its request id');
});

t.test('what the core logs while serving a request carries that request’s id: domain added, key created, message accepted', async (t) => {
  const { h, lines } = await loggingHarness();
  t.teardown(() => h.close());
  const { key } = await h.account({ credits: 10 });
  const domain = await h.request('POST', '/v2/domains', { key, body: { name: 'logged.example.com' }, headers: { 'X-Request-Id': 'trace-domain' } });
  t.equal(domain.status, 201, domain.text);
  await h.rt.store.domains.recordCheck(domain.body.data.id as string, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  const sendKey = await h.request('POST', '/v2/api-keys', { key, body: { name: 'app' }, headers: { 'X-Request-Id': 'trace-key' } });
  t.equal(sendKey.status, 201, sendKey.text);
  const sent = await h.request('POST', '/v2/emails', {
    key: sendKey.body.data.api_key,
    body: { from: { email: 'a@logged.example.com' }, to: [{ email: 'b@dest.test' }], subject: 's', text: 't' },
    headers: { 'X-Request-Id': 'trace-send' },
  });
  t.equal(sent.status, 200, sent.text);
  for (const [msg, id] of [
    ['domain added', 'trace-domain'],
    ['sending key created', 'trace-key'],
    ['message accepted', 'trace-send'],
  ] as const) {
    const line = lines.find((l) => l.msg === msg);
    t.equal(line?.req_id, id, `"${msg}" is logged with req_id ${id}`);
  }
});
