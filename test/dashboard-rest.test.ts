// The dashboard's WordPress-style REST framework over real HTTP: the REST index and namespace indexes, no
// route, validation worded as WordPress (missing vs invalid, details), permissions for anonymous and
// authenticated callers, paging headers and Link, the batch route in both validation modes, and errors that
// never leak internals. The routes and the strategy are a fixture defined here (a user named by a test header).
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { startHarness, type Harness, type UntypedJson } from './helpers/harness.js';
import { createDashboard, type DashboardAuth } from '../api/http/dashboard/group.js';
import { endpoint, IDENTIFIER, type DashboardRoute } from '../api/http/dashboard/route.js';
import { collectionArgs, oneOf, pageReply } from '../api/http/dashboard/collection.js';
import { invalidNonce, tooManyRequests } from '../api/pipeline/dashboard-errors.js';
import { dashboardPaths } from '../api/http/dashboard/openapi.js';
import { dashboardErrorFor } from '../api/pipeline/refusal-errors.js';

// ---- the fixture: a user named by X-Test-User "name:role:team", and a few routes over an in-memory list ----

interface TestUser {
  name: string;
  role: 'viewer' | 'admin' | 'owner';
  team: number;
}

const testAuth: DashboardAuth<TestUser> = {
  authenticate(_ctx, req) {
    const header = req.headers['x-test-user'];
    if (typeof header !== 'string') return Promise.resolve(undefined);
    if (header === 'bad-nonce') return Promise.reject(invalidNonce());
    const [name, role, team] = header.split(':');
    return Promise.resolve({ name: name!, role: role as TestUser['role'], team: Number(team) });
  },
  teamOf: (user) => user.team,
  accountOf: (user) => user.team,
  permits: (user, permission) => permission === 'read' || (permission === 'write' ? user.role !== 'viewer' : user.role === 'owner'),
  answerHeaders: (user) => ({ 'X-WP-Nonce': `nonce-${user.name}` }),
};

interface Thing {
  id: string;
  name: string;
  status: string;
}
const things: Thing[] = [];
const reset = () => {
  things.length = 0;
  for (let i = 1; i <= 23; i++) things.push({ id: `t${i}`, name: `thing ${i}`, status: i % 2 ? 'active' : 'draft' });
};

const routes: Array<DashboardRoute<TestUser>> = [
  {
    namespace: 'tern/v2',
    path: '/things',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({ ...collectionArgs, status: Type.Optional(oneOf(['active', 'draft', 'gone'], { description: 'Only things in this state.' })) }),
        permission: 'read',
        summary: 'Lists things',
        handle: ({ params, request }) => {
          const all = things.filter((x) => !params.status || x.status === params.status);
          const start = (params.page - 1) * params.per_page;
          return Promise.resolve(pageReply(request, params, all.slice(start, start + params.per_page), all.length));
        },
      }),
      endpoint({
        methods: ['POST'],
        args: Type.Object({
          name: Type.String({ minLength: 1, description: 'The thing’s name.' }),
          size: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
          email: Type.Optional(Type.String({ format: 'email' })),
        }),
        permission: 'write',
        allowBatch: true,
        summary: 'Creates a thing',
        handle: ({ params, user }) => {
          const thing = { id: `t${things.length + 1}`, name: params.name, status: 'draft', by: user?.name };
          things.push(thing);
          return Promise.resolve({ status: 201, body: thing });
        },
      }),
    ],
  },
  {
    namespace: 'tern/v2',
    path: '/things/{thing_id}',
    vars: { thing_id: IDENTIFIER },
    endpoints: [
      endpoint({
        methods: ['DELETE'],
        args: Type.Object({ thing_id: Type.String({ description: 'The thing’s id.' }) }),
        permission: 'write',
        allowBatch: true,
        summary: 'Deletes a thing',
        handle: ({ params }) => {
          const at = things.findIndex((x) => x.id === params.thing_id);
          if (at >= 0) things.splice(at, 1);
          return Promise.resolve({ body: { deleted: at >= 0, id: params.thing_id } });
        },
      }),
    ],
  },
  {
    namespace: 'tern/v2',
    path: '/boom',
    endpoints: [
      endpoint({
        methods: ['GET'],
        args: Type.Object({}),
        permission: 'public',
        summary: 'Fails',
        handle: () => Promise.reject(new Error('secret internals at /etc/tern/secret.key')),
      }),
      endpoint({
        methods: ['POST'],
        args: Type.Object({}),
        permission: 'public',
        summary: 'Is rate-limited',
        handle: () => Promise.reject(tooManyRequests('Too many attempts; retry later.', 30)),
      }),
    ],
  },
  {
    namespace: 'tern-auth/v1',
    path: '/settings',
    endpoints: [
      endpoint({ methods: ['GET'], args: Type.Object({}), permission: 'owner', summary: 'Reads settings', handle: () => Promise.resolve({ body: { lockout: 5 } }) }),
      endpoint({ methods: ['POST'], args: Type.Object({}), permission: 'owner', summary: 'Changes settings', handle: () => Promise.resolve({ body: { lockout: 5 } }) }),
    ],
  },
];

const dashboard = createDashboard({ auth: testAuth, routes, site: { name: 'Tern test', description: 'A fixture' } });

let h: Harness;
t.before(async () => {
  h = await startHarness({ api: { dashboard } });
});
t.beforeEach(reset);
t.teardown(() => h?.close());

const ADMIN = { 'x-test-user': 'ann:admin:7' };
const VIEWER = { 'x-test-user': 'vic:viewer:7' };
const as = (headers: Record<string, string>, body?: unknown) => ({ headers, body });
type J = Record<string, UntypedJson>;

// ---- the index ----

t.test('GET /api and /api/ answer the REST index as WordPress builds it, to an anonymous caller', async (t) => {
  for (const path of ['/api', '/api/']) {
    const res = await h.request('GET', path);
    t.equal(res.status, 200, path);
    const index = res.body as J;
    t.equal(index.name, 'Tern test');
    t.equal(index.description, 'A fixture');
    t.equal(index.url, h.url);
    t.equal(index.home, h.url);
    t.equal(index.gmt_offset, 0);
    t.equal(index.timezone_string, 'UTC');
    t.same(index.namespaces, ['tern/v2', 'tern-auth/v1']);
    t.same(index.authentication, { 'application-passwords': { endpoints: { authorization: `${h.url}/wp-admin/authorize-application.php` } } });
    t.same(Object.keys(index.routes), [
      '/',
      '/batch/v1',
      '/tern/v2',
      '/tern-auth/v1',
      '/tern/v2/things',
      '/tern/v2/things/{thing_id}',
      '/tern/v2/boom',
      '/tern-auth/v1/settings',
    ]);
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
    t.equal(res.headers.get('link'), `<${h.url}/api/>; rel="https://api.w.org/"`);
    t.equal(res.headers.get('access-control-expose-headers'), 'X-WP-Total, X-WP-TotalPages, Link');
    t.equal(res.headers.get('x-account-id'), null, 'an anonymous caller acts on no team');
  }
});

t.test('each route lists its namespace, methods and endpoints with args from the validating schema', async (t) => {
  const { routes: listed } = (await h.request('GET', '/api')).body as { routes: J };
  const things = listed['/tern/v2/things'];
  t.equal(things.namespace, 'tern/v2');
  t.same(things.methods, ['GET', 'POST']);
  t.same(things._links, { self: [{ href: `${h.url}/api/tern/v2/things` }] });
  t.same(things.endpoints[0], {
    methods: ['GET'],
    args: {
      page: { description: 'Current page of the collection.', default: 1, minimum: 1, type: 'integer', required: false },
      per_page: { description: 'Maximum number of items to be returned in result set.', default: 10, minimum: 1, maximum: 100, type: 'integer', required: false },
      status: { type: 'string', enum: ['active', 'draft', 'gone'], description: 'Only things in this state.', required: false },
    },
  });
  t.same(things.endpoints[1].args.name, { minLength: 1, description: 'The thing’s name.', type: 'string', required: true });
  t.same(things.endpoints[1].allow_batch, { v1: true });
  t.notOk('allow_batch' in things.endpoints[0], 'only batchable endpoints say so');
  const one = listed['/tern/v2/things/{thing_id}'];
  t.notOk('_links' in one, 'a route with variables has no self link');
  t.same(listed['/batch/v1'].namespace, '');
  t.same(listed['/batch/v1'].endpoints[0].args.requests.maxItems, 25);
  t.same(listed['/batch/v1'].endpoints[0].args.validation, { type: 'string', enum: ['require-all-validate', 'normal'], default: 'normal', required: false });
});

t.test('GET /api/<namespace> answers that namespace’s routes only, with or without a trailing slash', async (t) => {
  for (const path of ['/api/tern/v2', '/api/tern/v2/']) {
    const res = await h.request('GET', path);
    t.equal(res.status, 200);
    t.equal(res.body.namespace, 'tern/v2');
    t.same(Object.keys(res.body.routes), ['/tern/v2', '/tern/v2/things', '/tern/v2/things/{thing_id}', '/tern/v2/boom']);
    t.same(res.body._links.up, [{ href: `${h.url}/api/` }]);
  }
});

// ---- no route ----

t.test('an unknown path, a known path with another method, and a variable outside its pattern answer rest_no_route 404', async (t) => {
  const expected = { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } };
  for (const [method, path] of [
    ['GET', '/api/nothing'],
    ['GET', '/api/tern/v3'],
    ['PUT', '/api/tern/v2/things'],
    ['GET', '/api/batch/v1'],
    ['DELETE', '/api/tern/v2/things/a.b'],
    ['DELETE', '/api/tern/v2/things/%zz'],
  ]) {
    const res = await h.request(method!, path!, { headers: ADMIN });
    t.equal(res.status, 404, `${method} ${path}`);
    t.same(res.body, expected);
  }
  const v2 = await h.request('GET', '/v2/nothing');
  t.equal(v2.body.errors.code, 'route_not_found', '/v2 keeps its own shape');
});

// ---- permissions ----

t.test('a route that is not public answers rest_forbidden 401 to an anonymous caller and 403 to a user without the right', async (t) => {
  const anonymous = await h.request('GET', '/api/tern/v2/things');
  t.equal(anonymous.status, 401);
  t.same(anonymous.body, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 401 } });
  const viewer = await h.request('POST', '/api/tern/v2/things', as(VIEWER, { name: 'x' }));
  t.equal(viewer.status, 403);
  t.equal(viewer.body.code, 'rest_forbidden');
  t.equal(viewer.headers.get('x-account-id'), '7', 'the team is echoed on a refusal too');
  const admin = await h.request('GET', '/api/tern-auth/v1/settings', { headers: ADMIN });
  t.equal(admin.status, 403, 'owner routes refuse an admin');
  const owner = await h.request('GET', '/api/tern-auth/v1/settings', { headers: { 'x-test-user': 'olga:owner:7' } });
  t.equal(owner.status, 200);
  t.equal(owner.headers.get('x-wp-nonce'), 'nonce-olga', 'the strategy’s headers are on the answer');
});

t.test('credentials the strategy refuses answer its error: a wrong nonce is rest_cookie_invalid_nonce 403', async (t) => {
  const res = await h.request('GET', '/api/tern/v2/things', { headers: { 'x-test-user': 'bad-nonce' } });
  t.equal(res.status, 403);
  t.same(res.body, { code: 'rest_cookie_invalid_nonce', message: 'Cookie check failed', data: { status: 403 } });
});

// ---- validation ----

t.test('missing required params answer rest_missing_callback_param naming them, before the permission is checked', async (t) => {
  for (const headers of [ADMIN, {}]) {
    const res = await h.request('POST', '/api/tern/v2/things', as(headers, {}));
    t.equal(res.status, 400);
    t.same(res.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): name', data: { status: 400, params: ['name'] } });
  }
});

t.test('invalid params answer rest_invalid_param with every invalid one in data.params and data.details', async (t) => {
  const res = await h.request('POST', '/api/tern/v2/things', as(ADMIN, { name: '', size: 11, email: 'not-an-address' }));
  t.equal(res.status, 400);
  t.same(res.body, {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): name, size, email',
    data: {
      status: 400,
      params: { name: 'name must be at least 1 character long.', size: 'size must be between 1 (inclusive) and 10 (inclusive)', email: 'Invalid email address.' },
      details: {
        name: { code: 'rest_too_short', message: 'name must be at least 1 character long.', data: null },
        size: { code: 'rest_out_of_bounds', message: 'size must be between 1 (inclusive) and 10 (inclusive)', data: null },
        email: { code: 'rest_invalid_email', message: 'Invalid email address.', data: null },
      },
    },
  });
  t.equal(things.length, 23, 'nothing was created');
});

t.test('query params are checked with WordPress’s messages: range, type and enum', async (t) => {
  const cases: Array<[string, string, string, J | null]> = [
    ['per_page=101', 'per_page', 'per_page must be between 1 (inclusive) and 100 (inclusive)', null],
    ['page=0', 'page', 'page must be greater than or equal to 1', null],
    ['per_page=abc', 'per_page', 'per_page is not of type integer.', { param: 'per_page' }],
    ['status=bogus', 'status', 'status is not one of active, draft, and gone.', null],
  ];
  for (const [query, param, message, data] of cases) {
    const res = await h.request('GET', `/api/tern/v2/things?${query}`, { headers: VIEWER });
    t.equal(res.status, 400, query);
    t.equal(res.body.code, 'rest_invalid_param');
    t.same(res.body.data.params, { [param]: message });
    t.same(res.body.data.details[param].data, data);
  }
});

t.test('a JSON number or boolean for a string arg is refused with rest_invalid_type, never turned into text; numeric text for a number passes', async (t) => {
  for (const [body, param] of [
    [{ name: 42 }, 'name'],
    [{ name: true }, 'name'],
    [{ name: 'ok', size: true }, 'size'],
    [{ name: 'ok', email: 7 }, 'email'],
  ] as const) {
    const res = await h.request('POST', '/api/tern/v2/things', as(ADMIN, body));
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body.code, 'rest_invalid_param');
    t.same(res.body.data.details[param], {
      code: 'rest_invalid_type',
      message: `${param} is not of type ${param === 'size' ? 'integer' : 'string'}.`,
      data: { param },
    });
  }
  t.equal(things.length, 23, 'nothing was created');
  const created = await h.request('POST', '/api/tern/v2/things', as(ADMIN, { name: 'numeric size', size: '3' }));
  t.equal(created.status, 201, 'WordPress takes numeric text for a number');
  things.pop();
});

t.test('a body that is not JSON answers rest_invalid_json 400', async (t) => {
  const res = await h.request('POST', '/api/tern/v2/things', { headers: ADMIN, rawBody: '{"name": ' });
  t.equal(res.status, 400);
  t.equal(res.body.code, 'rest_invalid_json');
  t.equal(res.body.message, 'Invalid JSON body passed.');
  t.equal(res.body.data.status, 400);
});

t.test('URL variables, query and body make one param set; a body field cannot override a URL variable', async (t) => {
  const created = await h.request('POST', '/api/tern/v2/things?name=from-query', as(ADMIN, {}));
  t.equal(created.status, 201);
  t.equal(created.body.name, 'from-query');
  const body = await h.request('POST', '/api/tern/v2/things?name=from-query', as(ADMIN, { name: 'from-body' }));
  t.equal(body.body.name, 'from-body', 'the body beats the query');
  const deleted = await h.request('DELETE', '/api/tern/v2/things/t3', as(ADMIN, { thing_id: 't4' }));
  t.same(deleted.body, { deleted: true, id: 't3' });
});

// ---- collections ----

t.test('a collection answers a JSON array with X-WP-Total, X-WP-TotalPages and Link keeping the other query args', async (t) => {
  const res = await h.request('GET', '/api/tern/v2/things?per_page=5&page=2&status=active', { headers: VIEWER });
  t.equal(res.status, 200);
  t.ok(Array.isArray(res.body));
  t.same(
    (res.body as Thing[]).map((x) => x.id),
    ['t11', 't13', 't15', 't17', 't19'],
  );
  t.equal(res.headers.get('x-wp-total'), '12');
  t.equal(res.headers.get('x-wp-totalpages'), '3');
  const base = `${h.url}/api/tern/v2/things`;
  t.equal(
    res.headers.get('link'),
    `<${h.url}/api/>; rel="https://api.w.org/", <${base}?per_page=5&page=1&status=active>; rel="prev", <${base}?per_page=5&page=3&status=active>; rel="next"`,
  );
  const first = await h.request('GET', '/api/tern/v2/things', { headers: VIEWER });
  t.equal((first.body as Thing[]).length, 10, 'per_page defaults to 10');
  t.equal(first.headers.get('x-wp-totalpages'), '3');
  t.match(first.headers.get('link'), /rel="next"$/);
  t.notMatch(first.headers.get('link'), /rel="prev"/);
});

t.test('a page past the last one answers rest_invalid_page_number 400', async (t) => {
  const res = await h.request('GET', '/api/tern/v2/things?page=4', { headers: VIEWER });
  t.equal(res.status, 400);
  t.same(res.body, { code: 'rest_invalid_page_number', message: 'The page number requested is larger than the number of pages available.', data: { status: 400 } });
});

// ---- errors ----

t.test('an unexpected failure answers 500 in the WordPress shape without internals; a rate limit 429 with Retry-After', async (t) => {
  const res = await h.request('GET', '/api/tern/v2/boom');
  t.equal(res.status, 500);
  t.same(res.body, { code: 'rest_internal_error', message: 'Internal error; it has been logged.', data: { status: 500 } });
  t.notMatch(res.text, /secret|etc|Error|at /);
  const limited = await h.request('POST', '/api/tern/v2/boom');
  t.equal(limited.status, 429);
  t.equal(limited.headers.get('retry-after'), '30');
  t.same(limited.body, { code: 'rest_too_many_requests', message: 'Too many attempts; retry later.', data: { status: 429 } });
});

// ---- batch ----

const batch = (headers: Record<string, string>, body: unknown) => h.request('POST', '/api/batch/v1', as(headers, body));

t.test('POST /api/batch/v1 runs each request in order with the caller’s identity and answers 207 with each response', async (t) => {
  const res = await batch(ADMIN, {
    requests: [
      { path: '/tern/v2/things', body: { name: 'one' } },
      { path: '/tern/v2/things', body: { size: 3 } },
      { method: 'DELETE', path: '/tern/v2/things/t1' },
      { path: '/tern/v2/things?name=two' },
      { path: '/tern/v2/nothing' },
      { method: 'POST', path: '/tern-auth/v1/settings' },
    ],
  });
  t.equal(res.status, 207);
  const responses = res.body.responses as J[];
  t.same(
    responses.map((r) => r.status),
    [201, 400, 200, 201, 404, 400],
  );
  t.equal(responses[0]!.body.name, 'one');
  t.equal(responses[0]!.body.by, 'ann', 'the item ran as the batch’s caller');
  t.equal(responses[0]!.headers['X-Account-Id'], '7');
  t.equal(responses[1]!.body.code, 'rest_missing_callback_param');
  t.same(responses[2]!.body, { deleted: true, id: 't1' });
  t.equal(responses[3]!.body.name, 'two', 'an item’s path carries its query');
  t.same(responses[4]!.body, { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } });
  t.same(responses[5]!.body, { code: 'rest_batch_not_allowed', message: 'The requested route does not support batch requests.', data: { status: 400 } });
  t.same(things.map((x) => x.name).slice(-2), ['one', 'two']);
});

t.test('an anonymous batch runs its items anonymously: each answers rest_forbidden 401', async (t) => {
  const res = await batch({}, { requests: [{ path: '/tern/v2/things', body: { name: 'x' } }] });
  t.equal(res.status, 207);
  t.equal(res.body.responses[0].status, 401);
  t.equal(res.body.responses[0].body.code, 'rest_forbidden');
});

t.test('with require-all-validate one invalid request means none runs: 207 {failed: validation}', async (t) => {
  const res = await batch(ADMIN, {
    validation: 'require-all-validate',
    requests: [
      { path: '/tern/v2/things', body: { name: 'kept out' } },
      { path: '/tern/v2/things', body: { name: 'x', size: 99 } },
      { method: 'DELETE', path: '/tern/v2/things/t2' },
    ],
  });
  t.equal(res.status, 207);
  t.equal(res.body.failed, 'validation');
  t.equal(res.body.responses[0], null);
  t.equal(res.body.responses[2], null);
  t.equal(res.body.responses[1].status, 400);
  t.equal(res.body.responses[1].body.code, 'rest_invalid_param');
  t.same(res.body.responses[1].body.data.params, { size: 'size must be between 1 (inclusive) and 10 (inclusive)' });
  t.equal(things.length, 23, 'nothing was created');
  t.ok(
    things.some((x) => x.id === 't2'),
    'nothing was deleted',
  );
  const valid = await batch(ADMIN, { validation: 'require-all-validate', requests: [{ path: '/tern/v2/things', body: { name: 'ok' } }] });
  t.same(Object.keys(valid.body), ['responses'], 'all valid: they run');
});

t.test('a batch of 26 requests, none, or an item with another method is refused whole with rest_invalid_param', async (t) => {
  const many = await batch(ADMIN, { requests: Array.from({ length: 26 }, () => ({ path: '/tern/v2/things', body: { name: 'n' } })) });
  t.equal(many.status, 400);
  t.equal(many.body.code, 'rest_invalid_param');
  t.same(many.body.data.params, { requests: 'requests must contain at most 25 items.' });
  t.equal(things.length, 23);
  const none = await batch(ADMIN, { requests: [] });
  t.same(none.body.data.params, { requests: 'requests must contain at least 1 item.' });
  const get = await batch(ADMIN, { requests: [{ method: 'GET', path: '/tern/v2/things' }] });
  t.same(get.body.data.params, { requests: 'requests[0][method] is not one of POST, PUT, PATCH, and DELETE.' });
  const noPath = await batch(ADMIN, { requests: [{ body: {} }] });
  t.same(noPath.body.data.params, { requests: 'path is a required property of requests[0].' });
  const missing = await batch(ADMIN, {});
  t.same(missing.body, { code: 'rest_missing_callback_param', message: 'Missing parameter(s): requests', data: { status: 400, params: ['requests'] } });
});

// ---- OpenAPI ----

t.test('the OpenAPI paths come from the same definitions: every route and method, args as parameters or body', async (t) => {
  const paths = dashboardPaths(dashboard.routes) as Record<string, J>;
  const listed = Object.keys(((await h.request('GET', '/api')).body as { routes: J }).routes).map((p) => `/api${p === '/' ? '/' : p}`);
  t.same(Object.keys(paths).sort(), listed.sort(), 'the same routes as the index');
  const list = paths['/api/tern/v2/things']!.get;
  t.same(
    list.parameters.map((p: J) => [p.name, p.in, p.required]),
    [
      ['page', 'query', false],
      ['per_page', 'query', false],
      ['status', 'query', false],
    ],
  );
  const create = paths['/api/tern/v2/things']!.post;
  t.same(create.requestBody.content['application/json'].schema.required, ['name']);
  t.same(create['x-allow-batch'], { v1: true });
  t.same(
    paths['/api/tern/v2/things/{thing_id}']!.delete.parameters.map((p: J) => [p.name, p.in]),
    [['thing_id', 'path']],
  );
  t.ok(paths['/api/tern/v2/things']!.get.responses['401'], 'a non-public endpoint documents rest_forbidden');
});

// ---- /v2 untouched ----

t.test('the /v2 admin validation answers are worded as before', async (t) => {
  const { key } = await h.account();
  const body = await h.request('POST', '/v2/teams', { key, body: {} });
  t.equal(body.status, 422);
  t.same(body.body, { status_code: 422, message: 'name is required', errors: { code: 'validation_failed', field: 'name' } });
  const typed = await h.request('POST', '/v2/teams', { key, body: { name: 5 } });
  t.same(typed.body, { status_code: 422, message: 'name must be string', errors: { code: 'validation_failed', field: 'name' } });
  const query = await h.request('GET', '/v2/domains?per_page=abc', { key });
  t.same(query.body, { status_code: 422, message: 'per_page must be integer', errors: { code: 'validation_failed', field: 'per_page' } });
  const unknown = await h.request('POST', '/v2/teams', { key, body: { name: 'x', colour: 'red' } });
  t.same(unknown.body, { status_code: 422, message: 'colour is not a known field', errors: { code: 'validation_failed', field: 'colour' } });
  const none = await h.request('POST', '/v2/teams', { key });
  t.same(none.body, { status_code: 422, message: 'A JSON request body is required', errors: { code: 'validation_failed', field: 'body' } });
  const path = await h.request('DELETE', '/v2/api-keys/abc', { key });
  t.equal(path.status, 422);
  t.same(path.body.errors, { code: 'validation_failed', field: 'id' });
});

t.test('the core’s management refusals are worded in the dashboard’s shape, from one table', async (t) => {
  const missing = dashboardErrorFor({ kind: 'not_found', what: 'domain', message: 'Domain not found' });
  t.same([missing.status, missing.body()], [404, { code: 'rest_domain_invalid_id', message: 'Domain not found', data: { status: 404 } }]);
  const field = dashboardErrorFor({ kind: 'invalid_field', field: 'region', message: 'region is not one of eu and us.' });
  t.same(field.body().data, {
    status: 400,
    params: { region: 'region is not one of eu and us.' },
    details: { region: { code: 'rest_invalid_param', message: 'region is not one of eu and us.', data: null } },
  });
  const daily = dashboardErrorFor({ kind: 'daily_limit_reached', limit: 500, retryAfterS: 3600 });
  t.same([daily.status, daily.headers], [429, { 'Retry-After': '3600' }]);
  const limit = dashboardErrorFor({ kind: 'limit_reached', what: 'webhooks', limit: 100 });
  t.equal(limit.body().code, 'rest_limit_reached');
});
