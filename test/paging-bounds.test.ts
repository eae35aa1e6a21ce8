// A page number far beyond any list (about 1e18, past what SQLite's integers hold once multiplied by the page
// size) is a client's mistake: every list answers it as the paging depth is answered, 400 rest_invalid_param
// on the dashboard's REST routes, the /v2 validation shape on /v2, a 400 page on the web pages, never a 500.
// The lists are walked from the REST index and the OpenAPI document, so a list added later is walked too.
import t from 'tap';
import { startHarness, type Harness, type HttpReply } from './helpers/harness.js';
import { logIn, operatorOn, signedInOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { page, signInOverHttp } from './helpers/web-pages.js';
import { PAGES } from '../api/web/index.js';

type Json = Record<string, unknown>;

let h: Harness;
let owner: SignedIn;
let operator: SignedIn;
let adminKey: string;
let ownerCookie: string;
let operatorCookie: string;

const HUGE = ['1000000000000000000', '99999999999999999999', '9007199254740993'];

t.before(async () => {
  h = await startHarness({ overrides: { dkim: { keyBits: 1024 } } });
  const signed = await signedInOn(h, 'owner');
  owner = signed.session;
  adminKey = signed.adminKey;
  ownerCookie = await signInOverHttp(h, signed.email);
  const operatorEmail = await operatorOn(h);
  operator = await logIn(h, operatorEmail);
  operatorCookie = await signInOverHttp(h, operatorEmail);
});
t.teardown(() => h?.close());

/** The dashboard's list routes: every GET endpoint of the REST index taking `page`. */
async function dashboardLists(): Promise<string[]> {
  const index = (await h.request('GET', '/api/')).body as { routes: Record<string, { endpoints: Array<{ methods: string[]; args: Json }> }> };
  return Object.entries(index.routes)
    .filter(([, route]) => route.endpoints.some((e) => e.methods.includes('GET') && 'page' in e.args))
    .map(([path]) => path.replace(/\{\w+\}/g, '1')); // a list under an item (a post's revisions): the args are checked before the item is looked up
}

/** The /v2 list routes: every GET operation of the OpenAPI document under /v2 taking a `page` query param. */
async function v2Lists(): Promise<string[]> {
  const doc = (await h.request('GET', '/v2/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>> };
  return Object.entries(doc.paths)
    .filter(([path, ops]) => path.startsWith('/v2/') && (ops.get?.parameters ?? []).some((p) => p.name === 'page'))
    .map(([path]) => path);
}

t.test('every dashboard list answers a page number of 1e18 or more with 400 rest_invalid_param naming page', async (t) => {
  const lists = await dashboardLists();
  t.ok(lists.length >= 19, `the index lists the dashboard's lists (${lists.length})`);
  for (const path of lists) {
    const as = path.startsWith('/tern/v2/admin/') ? operator : owner;
    for (const n of HUGE) {
      for (const perPage of ['1', '100']) {
        const reply: HttpReply = await h.request('GET', `/api${path}?page=${n}&per_page=${perPage}`, withSession(as));
        const body = reply.body as { code?: string; data?: { status?: number; params?: Json } };
        t.equal(reply.status, 400, `${path}?page=${n}&per_page=${perPage}: ${reply.text.slice(0, 200)}`);
        t.equal(body.code, 'rest_invalid_param', `${path}: WordPress's code`);
        t.ok(body.data?.params?.page, `${path}: data.params names page`);
      }
    }
  }
});

t.test('every /v2 list answers a page number of 1e18 or more in the /v2 validation shape naming page', async (t) => {
  const lists = await v2Lists();
  t.ok(lists.length >= 5, `the OpenAPI document lists the /v2 lists (${lists.length})`);
  for (const path of lists) {
    for (const n of HUGE) {
      const reply = await h.request('GET', `${path}?page=${n}&per_page=1`, { key: adminKey });
      const body = reply.body as { status_code?: number; errors?: Json };
      t.equal(reply.status, 422, `${path}?page=${n}: ${reply.text.slice(0, 200)}`);
      t.equal(body.status_code, 422, `${path}: status_code in the body`);
      t.equal(body.errors?.field, 'page', `${path}: errors.field names page`);
    }
  }
});

/** Every web page reached by GET with no variable in its path (the sign-in and public pages included). */
const plainPages = (): string[] => [...new Set(PAGES.filter((p) => p.method === 'GET' && !p.path.includes(':')).map((p) => p.path))];

/** The pages showing a list with a pager. */
const LIST_PAGES = {
  owner: ['/domains', '/keys', '/logs', '/suppressions', '/webhooks', '/team', '/security', '/billing', '/support'],
  operator: ['/admin/tenants', '/admin/domains', '/admin/logs', '/admin/suppressions', '/admin/audit-log', '/admin/credits', '/admin/invitations', '/admin/support'],
};

t.test('no web page answers a page number of 1e18 or more with a server error', async (t) => {
  const paths = plainPages();
  t.ok(paths.length >= 20, `the pages walked (${paths.length})`);
  for (const cookie of [ownerCookie, operatorCookie]) {
    for (const path of paths) {
      for (const n of HUGE) {
        const reply = await page(h, 'GET', `${path}?page=${n}`, { cookie });
        t.ok(reply.status < 500, `${path}?page=${n} answers ${reply.status}`);
      }
    }
  }
});

t.test('every list page answers a page number of 1e18 or more with a 400 page saying paging goes no further', async (t) => {
  for (const [role, paths] of Object.entries(LIST_PAGES)) {
    const cookie = role === 'owner' ? ownerCookie : operatorCookie;
    for (const path of paths) {
      for (const n of HUGE) {
        const reply = await page(h, 'GET', `${path}?page=${n}`, { cookie });
        t.equal(reply.status, 400, `${path}?page=${n}`);
        t.match(reply.text, /Paging reaches beyond/, `${path}: the page says why`);
      }
    }
  }
});
