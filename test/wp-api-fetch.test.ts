// WordPress's own REST client, @wordpress/api-fetch, unmodified, against Tern over real HTTP: its root-URL and
// nonce middlewares configured as a WordPress page configures them (the root from the index's Link header, the
// nonce the login answered), the session cookie sent as a browser would. It creates posts, lists them with the
// paging headers (parse: false gives the Response), embeds their terms, and deletes them.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { logIn, operatorOn } from './helpers/dashboard-session.js';
import type { ApiFetch, APIFetchMiddleware } from '@wordpress/api-fetch';

// api-fetch calls window.fetch, as in a browser; Node's own fetch is that.
(globalThis as unknown as { window: typeof globalThis }).window = globalThis;
// The package's CommonJS build is what Node loads for import(); its default export is the client.
const loaded = (await import('@wordpress/api-fetch')) as unknown as { default: { default?: ApiFetch } & ApiFetch };
const apiFetch: ApiFetch = loaded.default.default ?? loaded.default;

const h = await startHarness({});
t.teardown(() => h.close());

const session = await logIn(h, await operatorOn(h));
const index = await fetch(`${h.url}/api/`);
const root = /<([^>]+)>; rel="https:\/\/api\.w\.org\/"/.exec(index.headers.get('link') ?? '')?.[1];

apiFetch.use(apiFetch.createRootURLMiddleware(root!));
apiFetch.use(apiFetch.createNonceMiddleware(session.nonce));
// The browser's cookie jar: the session cookie goes with every request, as it would from the dashboard's pages.
const withCookie: APIFetchMiddleware = (options, next) => next({ ...options, headers: { ...options.headers, cookie: session.cookie } });
apiFetch.use(withCookie);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- WordPress's answers are read field by field, as a client does
type Json = Record<string, any>;

t.test('the index advertises the API root api-fetch is given', async (t) => {
  t.equal(root, `${h.url}/api/`);
});

t.test('api-fetch creates, lists with paging headers, embeds and deletes posts', async (t) => {
  const category = await apiFetch<Json>({ path: '/wp/v2/categories', method: 'POST', data: { name: 'Changelog' } });
  const made: Json[] = [];
  for (const n of [1, 2, 3]) {
    made.push(
      await apiFetch<Json>({ path: '/wp/v2/posts', method: 'POST', data: { title: `Release ${n}`, content: 'Notes', status: 'publish', categories: [category.id] } }),
    );
  }
  t.same(
    made.map((p) => p.title.raw),
    ['Release 1', 'Release 2', 'Release 3'],
  );
  const response = await apiFetch<Response, false>({ path: '/wp/v2/posts?per_page=2', parse: false });
  t.equal(response.headers.get('X-WP-Total'), '3');
  t.equal(response.headers.get('X-WP-TotalPages'), '2');
  t.match(response.headers.get('Link') ?? '', /rel="next"/);
  const page = (await response.json()) as Json[];
  t.same(
    page.map((p) => p.title.rendered),
    ['Release 3', 'Release 2'],
  );
  const embedded = await apiFetch<Json[]>({ path: '/wp/v2/posts?_embed&per_page=1' });
  t.same(embedded[0]!._embedded['wp:term'][0][0].name, 'Changelog');
  const trashed = await apiFetch<Json>({ path: `/wp/v2/posts/${made[0]!.id}`, method: 'DELETE' });
  t.equal(trashed.status, 'trash');
  const deleted = await apiFetch<Json>({ path: `/wp/v2/posts/${made[1]!.id}?force=true`, method: 'DELETE' });
  t.same([deleted.deleted, deleted.previous.id], [true, made[1]!.id]);
  const refused = (await apiFetch({ path: `/wp/v2/posts/${made[1]!.id}` }).catch((err: unknown) => err)) as Json;
  t.same([refused.code, refused.data.status], ['rest_post_invalid_id', 404], 'an error is thrown as WordPress shapes it');
  const left = await apiFetch<Json[]>({ path: '/wp/v2/posts' });
  t.same(
    left.map((p) => p.id),
    [made[2]!.id],
  );
});

t.test('api-fetch with the X-HTTP-Method-Override middleware (a host refusing PUT and DELETE) still works', async (t) => {
  apiFetch.use(apiFetch.httpV1Middleware);
  const made = await apiFetch<Json>({ path: '/wp/v2/posts', method: 'POST', data: { title: 'Override', status: 'publish' } });
  const updated = await apiFetch<Json>({ path: `/wp/v2/posts/${made.id}`, method: 'PUT', data: { title: 'Overridden' } });
  t.equal(updated.title.raw, 'Overridden');
  const gone = await apiFetch<Json>({ path: `/wp/v2/posts/${made.id}?force=true`, method: 'DELETE' });
  t.equal(gone.deleted, true);
});
