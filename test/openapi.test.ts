// GET /v2/openapi.json: a valid OpenAPI 3.1 document that matches the running routes: the same paths,
// the same request bodies (violations answer 422) and the same response shapes for /v2, and every route
// of the dashboard's REST interface (under /api) as its index lists it.
import t from 'tap';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { startHarness, type Harness, type UntypedJson } from './helpers/harness.js';
import { adminRoutes } from '../api/http/admin/index.js';
import { sendingPaths } from '../api/http/send/openapi.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

type Json = Record<string, UntypedJson>;

let h: Harness;
let key: string;
let doc: Json;

t.before(async () => {
  h = await startHarness({ overrides: { dkim: { keyBits: 1024 } } });
  const account = await h.account();
  key = account.key;
  // Many sends in a row below: the per-second sending rate is not what this file tests.
  await h.rt.store.teams.update(account.id, { limitPerSecond: 10_000 });
  doc = (await h.request('GET', '/v2/openapi.json')).body;
});
t.teardown(() => h?.close());

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** Admin operations answer in the admin error shape; the sending ones (POST /v2/emails…) in their own. */
const isAdmin = (method: string, path: string): boolean => adminRoutes.some((r) => r.method === method && r.path === path);

/** The /v2 operations (the dashboard's, under /api, are checked at the end). */
function operations(): Array<{ method: string; path: string; op: Json }> {
  return allOperations().filter((o) => o.path.startsWith('/v2/'));
}

function allOperations(): Array<{ method: string; path: string; op: Json }> {
  const out: Array<{ method: string; path: string; op: Json }> = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS) if (item[method]) out.push({ method: method.toUpperCase(), path, op: item[method] });
  }
  return out;
}

/** A value that satisfies a (TypeBox-generated) JSON schema, for building request bodies. */
function sample(schema: Json, name = ''): unknown {
  if ('const' in schema) return schema.const;
  if (schema.anyOf) return sample(schema.anyOf[0], name);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: Json) => sample(s, name)));
  switch (schema.type) {
    case 'object': {
      const out: Json = {};
      for (const prop of schema.required ?? Object.keys(schema.properties ?? {}).slice(0, 1)) {
        out[prop] = sample(schema.properties[prop], prop);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 1 }, () => sample(schema.items, name));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      if (name === 'email') return 'someone@example.com';
      if (name === 'url') return 'https://hooks.example.com/tern';
      if (name === 'name') return 'sample-name.example.com';
      return 'x'.repeat(Math.max(schema.minLength ?? 1, 2));
    default:
      return null;
  }
}

/** A value of the wrong JSON type for the schema. */
function wrongType(schema: Json): unknown {
  const type = schema.type ?? (schema.anyOf ? typeof schema.anyOf[0].const : 'string');
  return type === 'string' ? 12345 : 'not-the-right-type';
}

function concretePath(path: string, op: Json): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const param = (op.parameters as Json[]).find((p) => p.in === 'path' && p.name === name);
    return param?.schema?.type === 'integer' ? '1' : 'some-id';
  });
}

t.test('GET /v2/openapi.json is a valid OpenAPI 3.1 document', async (t) => {
  const res = await h.request('GET', '/v2/openapi.json');
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.match(doc.openapi, /^3\.1\.\d+$/);
  const result = await new Validator().validate(doc);
  t.same(result, { valid: true }, JSON.stringify(result.errors ?? '').slice(0, 2000));
});

t.test('the validator does reject a broken document (the check can fail)', async (t) => {
  const broken = structuredClone(doc);
  broken.paths['/v2/teams'].get.responses = 'none';
  const result = await new Validator().validate(broken);
  t.equal(result.valid, false);
});

t.test('every route of the interface is in the document, and nothing else is', async (t) => {
  const documented = new Set(operations().map((o) => `${o.method} ${o.path}`));
  const routes = new Set(adminRoutes.map((r) => `${r.method} ${r.path}`));
  for (const [path, item] of Object.entries(sendingPaths())) for (const method of Object.keys(item)) routes.add(`${method.toUpperCase()} ${path}`);
  t.same([...documented].sort(), [...routes].sort());
  t.ok(routes.size >= 18, `${routes.size} routes`);
});

t.test('each operation documents its scopes, security and X-Account-Id as the route does', async (t) => {
  for (const route of adminRoutes) {
    const op = doc.paths[route.path][route.method.toLowerCase()];
    t.same(op['x-required-scopes'], [...route.scopes], `${route.method} ${route.path} scopes`);
    t.same(op.security, [{ adminKey: [] }]);
    const header = (op.parameters as Json[]).find((p) => p.in === 'header' && p.name === 'X-Account-Id');
    t.equal(Boolean(header), !route.forbidsTeamHeader, `${route.method} ${route.path} X-Account-Id`);
    if (route.scopes.length) t.ok(op.responses['403'], 'documents 403');
    if (route.rate) t.ok(op.responses['429'], 'documents 429');
    t.ok(op.responses['401'], 'documents 401');
  }
  t.equal(doc.components.securitySchemes.adminKey.scheme, 'bearer');
});

t.test('every documented operation exists on the server (never route_not_found)', async (t) => {
  for (const { method, path, op } of operations()) {
    for (const withKey of [false, true]) {
      const res = await h.request(method, concretePath(path, op), { key: withKey ? key : undefined, body: op.requestBody ? {} : undefined });
      t.not(res.body?.errors?.code, 'route_not_found', `${method} ${path}`);
      t.not(res.status, 500, `${method} ${path}`);
    }
  }
});

t.test('the list operations document page and per_page as the server enforces them', async (t) => {
  const lists = operations().filter(({ op }) => (op.parameters as Json[]).some((p) => p.name === 'per_page'));
  t.ok(lists.length >= 4, `${lists.length} lists`);
  for (const { method, path, op } of lists) {
    const perPage = (op.parameters as Json[]).find((p) => p.name === 'per_page')!;
    const page = (op.parameters as Json[]).find((p) => p.name === 'page')!;
    t.equal(perPage.schema.minimum, 1);
    t.equal(perPage.schema.maximum, 100);
    t.equal(page.schema.minimum, 1);
    t.equal(perPage.in, 'query');
    const over = await h.request(method, `${path}?per_page=${perPage.schema.maximum + 1}`, { key });
    t.equal(over.status, 422, `${path} per_page above the documented maximum`);
    const at = await h.request(method, `${path}?per_page=${perPage.schema.maximum}`, { key });
    t.equal(at.status, 200, `${path} per_page at the documented maximum`);
  }
});

t.test('every documented request body: leaving out a required property, or a wrong type, answers 422', async (t) => {
  const withBody = operations().filter((o) => o.op.requestBody);
  t.ok(withBody.length >= 7, `${withBody.length} operations take a body`);
  for (const { method, path, op } of withBody) {
    const documented = op.requestBody.content['application/json'].schema as Json;
    // A body documented as alternatives (the batch: an array, or an object with emails) is checked
    // through its object form: leaving out a required property matches no alternative.
    const schema = documented.anyOf ? (documented.anyOf as Json[]).find((s) => s.type === 'object')! : documented;
    t.ok(schema, `${method} ${path} has an object form`);
    const valid = sample(schema) as Json;
    t.ok(ajv.validate(schema, valid), `${method} ${path}: the sample body is valid (${JSON.stringify(valid)})`);
    const url = concretePath(path, op);
    const required: string[] = schema.required ?? [];
    // The admin shape names the field in errors.field; the sending shape keys errors by field.
    const names = (res: { body: Json }, prop: string) =>
      isAdmin(method, path) ? t.equal(res.body.errors.field, prop) : t.ok(prop in res.body.errors, `errors names ${prop}: ${JSON.stringify(res.body.errors)}`);
    for (const prop of required) {
      const body = { ...valid };
      delete body[prop];
      const res = await h.request(method, url, { key, body });
      t.equal(res.status, 422, `${method} ${path} without ${prop}`);
      names(res, prop);
    }
    if (!required.length) {
      const res = await h.request(method, url, { key, body: {} });
      t.equal(res.status, 422, `${method} ${path} with an empty body (nothing to change)`);
    }
    // Wrong types: the admin shape reports the first wrong field; the sending shape has its own order.
    if (!isAdmin(method, path)) continue;
    for (const [prop, propSchema] of Object.entries(schema.properties as Json)) {
      const res = await h.request(method, url, { key, body: { ...valid, [prop]: wrongType(propSchema as Json) } });
      t.equal(res.status, 422, `${method} ${path} with ${prop} of the wrong type`);
      names(res, prop);
    }
    if (schema.additionalProperties === false) {
      const res = await h.request(method, url, { key, body: { ...valid, undocumented_field: 1 } });
      t.equal(res.status, 422, `${method} ${path} with an undocumented field`);
    }
  }
});

t.test('the documented admin body schemas are strict: every one refuses undocumented fields', async (t) => {
  for (const { method, path, op } of operations().filter((o) => o.op.requestBody && isAdmin(o.method, o.path))) {
    t.equal(op.requestBody.content['application/json'].schema.additionalProperties, false, `${method} ${path}`);
  }
});

t.test('responses of every endpoint validate against the documented schemas', async (t) => {
  const covered = new Set<string>();

  /** Sends a request and checks its reply against the document: status documented, body valid. */
  async function check(method: string, template: string, path: string, options: Parameters<Harness['request']>[2] = {}) {
    const res = await h.request(method, path, { key, ...options });
    const op = doc.paths[template][method.toLowerCase()];
    const documented = op.responses[String(res.status)];
    t.ok(documented, `${method} ${template} documents status ${res.status}`);
    const schema = documented?.content?.['application/json']?.schema as Json | undefined;
    if (schema) {
      const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)] : schema;
      const ok = ajv.validate(resolved, res.body);
      t.ok(ok, `${method} ${template} ${res.status} body matches: ${ajv.errorsText(ajv.errors)} ${res.text.slice(0, 300)}`);
    }
    if (res.status < 300) covered.add(`${method} ${template}`);
    return res;
  }

  const team = (await check('POST', '/v2/teams', '/v2/teams', { body: { name: 'Documented team' } })).body.data.id;
  await check('PUT', '/v2/teams/{id}', `/v2/teams/${team}`, { body: { name: 'Renamed team', status: 'suspended' } });
  await check('GET', '/v2/teams', '/v2/teams');
  const domain = (await check('POST', '/v2/domains', '/v2/domains', { body: { name: 'openapi-doc.example.com' } })).body.data.id;
  await check('GET', '/v2/domains', '/v2/domains');
  await check('GET', '/v2/domains/{id}', `/v2/domains/${domain}`);
  await check('GET', '/v2/info', '/v2/info');
  await check('GET', '/v2/info', '/v2/info', { teamId: team });
  const created = await check('POST', '/v2/api-keys', '/v2/api-keys', { body: { name: 'Documented key', domain } });
  await check('POST', '/v2/api-keys', '/v2/api-keys', { body: { name: 'Unrestricted key' } });
  await check('GET', '/v2/api-keys', '/v2/api-keys');
  await check('DELETE', '/v2/api-keys/{id}', `/v2/api-keys/${created.body.data.id}`);
  const hook = await check('POST', '/v2/webhooks', '/v2/webhooks', {
    body: { title: 'Doc hook', url: 'https://hooks.example.com/tern', events: ['bounced', 'complaint'], include_message: true },
  });
  await check('GET', '/v2/webhooks', '/v2/webhooks');
  await check('PUT', '/v2/webhooks/{id}', `/v2/webhooks/${hook.body.data.id}`, { body: { status: 'inactive' } });
  await check('DELETE', '/v2/webhooks/{id}', `/v2/webhooks/${hook.body.data.id}`);
  const info = await h.request('GET', '/v2/info', { key });
  await h.rt.store.suppressions.add(info.body.account.id, { email: 'bounced@example.com', status: 'bounced', reason: 'mailbox unknown', messageId: null });
  await h.rt.store.suppressions.add(info.body.account.id, { email: 'manual@example.com', status: 'suppressed', reason: '', messageId: 'msg-1' });
  await check('GET', '/v2/suppressions', '/v2/suppressions');
  await check('GET', '/v2/suppressions', '/v2/suppressions?search=bounced&status=bounced');
  await check('DELETE', '/v2/suppressions', '/v2/suppressions?email=bounced%40example.com');
  await check('DELETE', '/v2/suppressions', '/v2/suppressions', { body: { email: 'manual@example.com' } });
  // A message to read back: the domain is marked verified as the automatic check would.
  await h.rt.store.domains.recordCheck(domain, { verified: true, dmarcPolicy: null, summary: '', result: {} });
  const message = { from: { email: 'hello@openapi-doc.example.com', name: 'Doc' }, to: [{ email: 'bob@example.net', name: 'Bob' }], subject: 'Documented', text: 'Hi' };
  const sent = await check('POST', '/v2/emails', '/v2/emails', { body: message });
  await check('POST', '/v2/emails/batch', '/v2/emails/batch', { body: [message] });
  await check('GET', '/v2/emails', '/v2/emails');
  await check('GET', '/v2/emails', '/v2/emails?search=Documented&status=pending');
  await check('GET', '/v2/emails/{message_id}', `/v2/emails/${sent.body.message_id}`);
  await check('DELETE', '/v2/domains/{id}', `/v2/domains/${domain}`);

  // Error replies too: documented statuses, AdminError shape.
  await check('PUT', '/v2/teams/{id}', '/v2/teams/999999', { body: { name: 'Nobody' } });
  await check('POST', '/v2/teams', '/v2/teams', { body: { name: 'x' } });
  await check('POST', '/v2/teams', '/v2/teams', { rawBody: '{oops' });
  await check('POST', '/v2/teams', '/v2/teams', { body: { name: 'With header' }, teamId: team });
  await check('POST', '/v2/domains', '/v2/domains', { body: { name: 'localhost' } });
  await check('GET', '/v2/domains/{id}', '/v2/domains/missing');
  await check('GET', '/v2/teams', '/v2/teams', { key: await h.adminKey((await h.account()).id, []) });
  await check('GET', '/v2/info', '/v2/info', { key: 'tern_admin_unknown' });
  await check('POST', '/v2/webhooks', '/v2/webhooks', { body: { url: 'https://hooks.example.com/', events: ['delivered'] } });
  await check('DELETE', '/v2/suppressions', '/v2/suppressions?email=nobody%40example.com');

  await check('GET', '/v2/emails/{message_id}', '/v2/emails/unknown-message');
  await check('POST', '/v2/emails', '/v2/emails', { body: { ...message, subject: undefined } });

  const every = operations()
    .map((o) => `${o.method} ${o.path}`)
    .sort();
  t.same([...covered].sort(), every, 'a successful reply of every endpoint was checked');
});

t.test('the response check can fail: a reply that breaks the documented schema is caught', async (t) => {
  const schema = doc.paths['/v2/teams'].post.responses['201'].content['application/json'].schema;
  t.ok(ajv.validate(schema, { data: { id: 1, name: 'ok', status: 'active' } }));
  t.notOk(ajv.validate(schema, { data: { id: '1', name: 'ok', status: 'active' } }), 'a string id is caught');
  t.notOk(ajv.validate(schema, { data: { id: 1, name: 'ok', status: 'paused' } }), 'an unknown status is caught');
});

// ---- the dashboard's REST interface in the same document ----

t.test('the document lists every route and method the dashboard’s REST index lists, and nothing else under /api', async (t) => {
  const index = (await h.request('GET', '/api/')).body as Json;
  const indexed = new Set<string>();
  for (const [path, route] of Object.entries(index.routes as Json)) {
    for (const method of route.methods as string[]) indexed.add(`${method} /api${path === '/' ? '/' : path}`);
  }
  const documented = new Set(
    allOperations()
      .filter((o) => o.path.startsWith('/api'))
      .map((o) => `${o.method} ${o.path}`),
  );
  t.same([...documented].sort(), [...indexed].sort());
  t.ok(documented.size >= 40, `${documented.size} dashboard operations`);
});

t.test('each dashboard operation documents WordPress’s error body and how its caller signs in', async (t) => {
  const schemes = doc.components.securitySchemes as Json;
  t.match(schemes.dashboardSession, { type: 'apiKey', in: 'cookie', name: 'tern_session' });
  t.match(schemes.dashboardNonce, { type: 'apiKey', in: 'header', name: 'X-WP-Nonce' });
  t.match(schemes.applicationPassword, { type: 'http', scheme: 'basic' });
  for (const { method, path, op } of allOperations().filter((o) => o.path.startsWith('/api'))) {
    const error = op.responses['400'].content['application/json'].schema;
    t.same(error.required, ['code', 'message', 'data'], `${method} ${path}: WordPress's error body`);
    if (op['x-permission'] === 'public') t.same(op.security, [], `${method} ${path} needs no credentials`);
    else
      t.same(
        op.security,
        [{ dashboardSession: [], dashboardNonce: [] }, { applicationPassword: [] }],
        `${method} ${path}: a session with its nonce, or an application password`,
      );
  }
});
