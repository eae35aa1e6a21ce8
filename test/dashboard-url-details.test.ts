// The block editor's url-details (wp-block-editor/v1) over real HTTP, as WordPress's
// tests/phpunit/tests/rest-api/wpRestUrlDetailsController.php asks of it: users who may edit content only
// (anonymous 401, a viewer 403), the page's title, icon, description and image read from its head (made absolute),
// the answer cached, and the oEmbed proxy's fetch rules: loopback, private, link-local and metadata addresses, a
// name resolving to one, a redirect to one and a port outside 80/443/8080 refused (no_response). Nothing leaves the
// machine: a DNS double, and one page server on loopback exempt by its exact name and port.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { startDnsServer } from './helpers/dns-server.js';
import { startEmbedSite } from './helpers/embed-site.js';
import { redisKeys } from '../shared/redis-keys.js';
import { logIn, operatorOn, signedInOn, withSession } from './helpers/dashboard-session.js';

const dns = await startDnsServer();
const site = await startEmbedSite('allowed.example.com');
const allowed = `allowed.example.com:${site.port}`;
const h = await startHarness({ env: { TERNMAIL_DNS_SERVERS: dns.address, TERNMAIL_URL_FETCH_ALLOW_HOSTS: allowed } });
t.teardown(async () => {
  await h.close();
  await site.close();
  await dns.close();
});
dns.set('allowed.example.com', [{ type: 'A', data: '127.0.0.1' }]);
dns.set('loop.example.com', [{ type: 'A', data: '127.0.0.1' }]);
dns.set('ten.example.com', [{ type: 'A', data: '10.0.0.1' }]);

const owner = withSession((await signedInOn(h, 'owner')).session);
const viewer = withSession((await signedInOn(h, 'viewer')).session);
const operator = withSession(await logIn(h, await operatorOn(h)));
const base = `http://${allowed}`;
const details = (url: string) => `/api/wp-block-editor/v1/url-details?url=${encodeURIComponent(url)}`;

t.test('the index lists the wp-block-editor/v1 namespace and url-details', async (t) => {
  const index = await h.request('GET', '/api');
  t.ok(index.body.namespaces.includes('wp-block-editor/v1'), JSON.stringify(index.body.namespaces));
  t.ok(index.body.routes['/wp-block-editor/v1/url-details']);
});

t.test('anonymous 401, a viewer 403 with WordPress’s message; nothing fetched for them', async (t) => {
  const anonymous = await h.request('GET', details(`${base}/details`));
  t.equal(anonymous.status, 401);
  t.equal(anonymous.body.code, 'rest_forbidden');
  const refused = await h.request('GET', details(`${base}/details`), viewer);
  t.equal(refused.status, 403);
  t.match(refused.body, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to process remote URLs.' });
  t.equal(site.hitsOf('/details'), 0);
});

t.test('an owner gets the page’s title, icon, description and image, then the cached answer', async (t) => {
  const reply = await h.request('GET', details(`${base}/details`), owner);
  t.equal(reply.status, 200, reply.text);
  t.same(reply.body, {
    title: 'Details & more',
    icon: `${base}/favicon.png`,
    description: 'What the page is about',
    image: `${base}/images/cover.jpg`,
  });
  const again = await h.request('GET', details(`${base}/details`), operator);
  t.same(again.body, reply.body, 'an operator may too');
  t.equal(site.hitsOf('/details'), 1, 'the second call was answered from the cache');
  const redirected = await h.request('GET', details(`${base}/to-post`), owner);
  t.match(redirected.body, { title: 'A post', icon: '', description: '', image: '' }, 'a redirect to an allowed page is followed');
});

t.test('a missing or non-http url is rest_invalid_param; a 404 page is no_response; an empty one no_content', async (t) => {
  const missing = await h.request('GET', '/api/wp-block-editor/v1/url-details', owner);
  t.equal(missing.body.code, 'rest_missing_callback_param');
  const bad = await h.request('GET', details('not a url'), owner);
  t.equal(bad.status, 400);
  t.equal(bad.body.code, 'rest_invalid_param');
  const ftp = await h.request('GET', details('ftp://example.com/file'), owner);
  t.equal(ftp.status, 400);
  t.equal(ftp.body.code, 'rest_invalid_param');
  const notFound = await h.request('GET', details(`${base}/missing`), owner);
  t.match(notFound, { status: 404, body: { code: 'no_response', message: 'URL not found. Response returned a non-200 status code for this URL.' } });
  const empty = await h.request('GET', details(`${base}/empty`), owner);
  t.match(empty, { status: 404, body: { code: 'no_content' } });
});

t.test('refused addresses, names, redirects and ports answer no_response and reach nothing', async (t) => {
  const before = site.hitsOf('/post');
  for (const url of [
    'http://127.0.0.1/',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]:8080/',
    'http://loop.example.com/',
    'http://ten.example.com/',
    `${base}/to-metadata`,
    `${base}/to-loopback-name`,
    `${base}/to-self-by-address`,
    `http://127.0.0.1:${site.port}/post`,
    'http://allowed.example.com:9090/post',
  ]) {
    const reply = await h.request('GET', details(url), owner);
    t.equal(reply.status, 404, `${url}: ${reply.text}`);
    t.equal(reply.body.code, 'no_response', url);
  }
  t.equal(site.hitsOf('/post'), before);
  t.equal((await h.rt.redis.keys(redisKeys.urlDetails('*'))).length, 2, 'only the two answers above were cached');
});
