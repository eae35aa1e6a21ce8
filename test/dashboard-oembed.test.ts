// oEmbed (oembed/1.0) over real HTTP, as WordPress's tests/phpunit/tests/oembed/controller.php asks of it: the
// proxy for users who may edit content (anonymous 401, a viewer 403), discovery of a page's oEmbed link and the
// provider's answer (json, or xml as text/xml), the answer cached (the second call reaches no server), and every
// URL the safe-fetch rules refuse (loopback, private, link-local, metadata, a name resolving to one, a redirect to
// one, a port outside 80/443/8080, a page cut at 150 KB) answered 404 oembed_invalid_url. The public embed answers
// for the site's own posts and pages through the LocalEmbeds port (none connected yet: 404), shown with a double.
// Nothing leaves the machine: names resolve through a DNS double, the one page server is on loopback and exempt
// by its exact name and port (TERNMAIL_URL_FETCH_ALLOW_HOSTS).
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { startDnsServer } from './helpers/dns-server.js';
import { startEmbedSite } from './helpers/embed-site.js';
import { redisKeys } from '../shared/redis-keys.js';
import { logIn, operatorOn, signedInOn, withSession } from './helpers/dashboard-session.js';
import { createResolver } from '../shared/dns.js';
import { OEmbeds, type LocalEmbed } from '../shared/core/embeds/index.js';

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
dns.set('metadata.example.com', [{ type: 'A', data: '169.254.169.254' }]);
dns.set('six.example.com', [{ type: 'AAAA', data: '::1' }]);

const ownerSignedIn = await signedInOn(h, 'owner');
const owner = withSession(ownerSignedIn.session);
const admin = withSession((await signedInOn(h, 'admin')).session);
const viewer = withSession((await signedInOn(h, 'viewer')).session);
const operator = withSession(await logIn(h, await operatorOn(h)));
const base = `http://${allowed}`;
const proxy = (url: string, extra = '') => `/api/oembed/1.0/proxy?url=${encodeURIComponent(url)}${extra}`;

t.test('the index lists the oembed/1.0 namespace and its two routes', async (t) => {
  const index = await h.request('GET', '/api');
  t.ok(index.body.namespaces.includes('oembed/1.0'), JSON.stringify(index.body.namespaces));
  t.ok(index.body.routes['/oembed/1.0/embed'], 'embed');
  t.ok(index.body.routes['/oembed/1.0/proxy'], 'proxy');
  const ns = await h.request('GET', '/api/oembed/1.0');
  t.equal(ns.status, 200, ns.text);
});

t.test('the proxy: anonymous 401, a viewer 403 with WordPress’s message', async (t) => {
  const anonymous = await h.request('GET', proxy(`${base}/post`));
  t.equal(anonymous.status, 401);
  t.equal(anonymous.body.code, 'rest_forbidden');
  const refused = await h.request('GET', proxy(`${base}/post`), viewer);
  t.equal(refused.status, 403, refused.text);
  t.match(refused.body, { code: 'rest_forbidden', message: 'Sorry, you are not allowed to make proxied oEmbed requests.', data: { status: 403 } });
  t.equal(site.hitsOf('/post'), 0, 'nothing was fetched for them');
});

t.test('the proxy validates its args as WordPress: url required, format json|xml, integers', async (t) => {
  const missing = await h.request('GET', '/api/oembed/1.0/proxy', owner);
  t.equal(missing.status, 400);
  t.equal(missing.body.code, 'rest_missing_callback_param');
  const format = await h.request('GET', proxy(`${base}/post`, '&format=html'), owner);
  t.equal(format.status, 400);
  t.equal(format.body.code, 'rest_invalid_param');
  const width = await h.request('GET', proxy(`${base}/post`, '&maxwidth=wide'), owner);
  t.equal(width.status, 400);
});

t.test('an owner embeds a page by discovery: the provider’s oEmbed object, then the cached answer', async (t) => {
  const first = await h.request('GET', proxy(`${base}/post`, '&maxwidth=480'), owner);
  t.equal(first.status, 200, first.text);
  const { html, ...fields } = first.body as Record<string, string>;
  t.same(fields, { version: '1.0', type: 'rich', provider_name: 'Embed site', title: 'A post', width: 480, height: 300, asked_format: 'json' });
  const secret = /data-secret="([A-Za-z0-9]{10})"/.exec(html!)?.[1] ?? 'none';
  t.equal(
    html,
    `<blockquote class="wp-embedded-content" data-secret="${secret}"><a href="https://embed.example/post">A post</a></blockquote>` +
      `<iframe src="https://embed.example/post#?secret=${secret}" width="480" class="wp-embedded-content" sandbox="allow-scripts" security="restricted"` +
      ` data-secret="${secret}" style="position: absolute; visibility: hidden;"></iframe>`,
    'the provider’s html as WordPress filters it: the blockquote and the sandboxed iframe, no script, no handler, nothing else',
  );
  t.equal(site.hitsOf('/post'), 1, 'the page was fetched once');
  t.equal(site.hitsOf('/oembed'), 1, 'so was the provider');
  t.equal(site.hitsOf('/wrong'), 0, 'a link inside a comment is no link');
  const second = await h.request('GET', proxy(`${base}/post`, '&maxwidth=480'), admin);
  t.equal(second.status, 200);
  t.same(second.body, first.body, 'the same answer');
  t.equal(site.hitsOf('/post') + site.hitsOf('/oembed'), 2, 'from the cache: the second call reached no server');
  const ttl = await h.rt.redis.ttl((await h.rt.redis.keys(redisKeys.oembedProxy('*')))[0]!);
  t.ok(ttl > 86_000 && ttl <= 86_400, `kept a day (ttl ${ttl})`);
  const other = await h.request('GET', proxy(`${base}/post`, '&maxwidth=300'), operator);
  t.equal(other.status, 200, `an operator may too: ${other.text}`);
  t.equal(other.body.width, 300, 'other args are another key');
  t.equal(site.hitsOf('/oembed'), 2);
});

t.test('format=xml answers the object as text/xml; an xml provider is read', async (t) => {
  const reply = await h.raw('GET', proxy(`${base}/xml-post`, '&format=xml&maxwidth=320'), { headers: owner.headers });
  t.equal(reply.status, 200, reply.text);
  t.match(reply.headers['content-type'], /^text\/xml; charset=UTF-8/);
  t.match(reply.text, /^<\?xml version="1\.0"\?>\n<oembed>/);
  t.match(reply.text, /<type>video<\/type>/);
  t.match(reply.text, /<title>A &amp; B<\/title>/, 'escaped again');
  t.match(reply.text, /<width>320<\/width>/);
  t.match(reply.text, /<html>&lt;iframe class=&quot;wp-embedded-content&quot; sandbox=&quot;allow-scripts&quot;/);
  const json = await h.request('GET', proxy(`${base}/xml-post`), owner);
  t.match(json.body, {
    type: 'video',
    title: 'A & B',
    html: /^<iframe class="wp-embedded-content" sandbox="allow-scripts" security="restricted" data-secret="\w{10}"><\/iframe>$/,
  });
});

t.test('refused addresses, names, redirects and ports are 404 oembed_invalid_url, and nothing is fetched', async (t) => {
  const before = site.hitsOf('/post');
  const refused = [
    'http://127.0.0.1/',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://loop.example.com/',
    'http://metadata.example.com/latest/meta-data/',
    'http://six.example.com:8080/',
    `${base}/to-metadata`,
    `${base}/to-loopback-name`,
    `${base}/to-self-by-address`,
    `${base}/metadata-link-post`,
    `http://loop.example.com:${site.port}/post`,
    `http://127.0.0.1:${site.port}/post`,
    'http://allowed.example.com:9090/post',
    `http://user:pass@${allowed}/post`,
  ];
  for (const url of refused) {
    const reply = await h.request('GET', proxy(url), owner);
    t.equal(reply.status, 404, `${url}: ${reply.text}`);
    t.match(reply.body, { code: 'oembed_invalid_url', message: 'Not Found', data: { status: 404 } }, url);
  }
  t.equal(site.hitsOf('/post'), before, 'no refused URL or redirect reached the page');
  t.equal(site.hitsOf('/metadata-link-post'), 1, 'a page whose oEmbed link resolves to the metadata address was read, its link refused');
  t.same(await h.rt.redis.keys(redisKeys.oembedProxy('*')).then((k) => k.length), 4, 'no refusal was cached (the four answers above are)');
});

t.test('a rich embed whose html holds no iframe is not embeddable (404 oembed_invalid_url)', async (t) => {
  const reply = await h.request('GET', proxy(`${base}/no-iframe-post`), owner);
  t.match(reply, { status: 404, body: { code: 'oembed_invalid_url' } });
  t.equal(site.hitsOf('/oembed-no-iframe'), 1, 'the provider was asked');
});

t.test('a page whose oEmbed link lies past the 150 KB kept is not embeddable; discover=false discovers nothing', async (t) => {
  const big = await h.request('GET', proxy(`${base}/big-post`), owner);
  t.equal(big.status, 404);
  t.equal(big.body.code, 'oembed_invalid_url');
  const before = site.hitsOf('/post');
  const off = await h.request('GET', proxy(`${base}/post`, '&discover=false&maxwidth=250'), owner);
  t.equal(off.status, 404);
  t.equal(site.hitsOf('/post'), before, 'without discovery the page is not fetched');
});

t.test('the public embed: a URL that is no post or page of the site is 404 oembed_invalid_url', async (t) => {
  const own = await h.request('GET', `/api/oembed/1.0/embed?url=${encodeURIComponent(`${h.url}/announcements/hello/`)}`);
  t.equal(own.status, 404, 'no content is connected yet (NO_LOCAL_EMBEDS)');
  t.match(own.body, { code: 'oembed_invalid_url', message: 'Not Found' });
  const before = site.hitsOf('/post');
  const elsewhere = await h.request('GET', `/api/oembed/1.0/embed?url=${encodeURIComponent(`${base}/post`)}`);
  t.match(elsewhere, { status: 404, body: { code: 'oembed_invalid_url' } }, 'another site’s URL');
  t.equal(site.hitsOf('/post'), before, 'the public embed never fetches');
  const missing = await h.request('GET', '/api/oembed/1.0/embed');
  t.equal(missing.body.code, 'rest_missing_callback_param');
  const proxied = await h.request('GET', proxy(`${h.url}/announcements/hello/`), owner);
  t.equal(proxied.status, 404, 'the proxy asks the same port for the site’s own URLs');
});

t.test('through the LocalEmbeds port a post of the site embeds as WordPress’s rich embed, json or xml, without fetching', async (t) => {
  const post: LocalEmbed = {
    title: 'Release <notes> & more',
    authorName: 'Ops',
    authorUrl: 'https://tern.example/author/ops/',
    link: 'https://tern.example/announcements/release/',
    excerptHtml: '<p>New</p>',
    type: 'post',
  };
  const asked: string[] = [];
  const oembeds = new OEmbeds({
    config: h.rt.config,
    redis: h.rt.redis,
    resolver: createResolver([dns.address]),
    local: { byUrl: (url) => (asked.push(url), Promise.resolve(url === post.link ? post : null)) },
  });
  const siteInfo = { name: 'Tern', url: 'https://tern.example' };
  const data = await oembeds.embed({ url: post.link, maxwidth: 100, site: siteInfo });
  t.match(data, {
    version: '1.0',
    provider_name: 'Tern',
    provider_url: 'https://tern.example',
    author_name: 'Ops',
    author_url: 'https://tern.example/author/ops/',
    title: 'Release <notes> & more',
    type: 'rich',
    width: 200,
    height: 200,
  });
  const html = String(data?.html);
  t.match(
    html,
    /^<blockquote class="wp-embedded-content" data-secret="([A-Za-z0-9]{10})"><a href="https:\/\/tern\.example\/announcements\/release\/">Release &lt;notes&gt; &amp; more<\/a><\/blockquote>/,
  );
  t.match(
    html,
    /<iframe sandbox="allow-scripts" security="restricted" src="https:\/\/tern\.example\/announcements\/release\/embed\/#\?secret=[A-Za-z0-9]{10}" width="200" height="200"/,
  );
  t.notMatch(html, /<notes>/, 'the title is escaped');
  t.match((await oembeds.embed({ url: post.link, maxwidth: 2000, site: siteInfo }))!, { width: 600, height: 338 });
  t.equal(await oembeds.embed({ url: 'https://elsewhere.example/announcements/release/', maxwidth: 600, site: siteInfo }), null, 'another site’s URL is not asked');
  const user = (await h.rt.store.users.listByTeam(ownerSignedIn.accountId))[0]!;
  const proxied = await oembeds.proxy(user, { url: post.link, format: 'json', maxwidth: 600, discover: true, site: siteInfo });
  t.match(proxied, { ok: true, value: { type: 'rich', title: post.title } });
  t.same(asked, [post.link, post.link, post.link], 'the port was asked; nothing was fetched');
});
