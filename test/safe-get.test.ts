// safeGet, the fetch behind the oEmbed proxy and url-details, by wp_safe_remote_get's rules, against a real web
// server on loopback and a DNS double (no request leaves the machine). A non-public address is refused before
// any connection: each case below would otherwise end in a connection error or a timeout, not in `refused`.
// The test server is exempt by its exact name and port (urlFetch.allowHosts); a redirect from it to anywhere
// else is checked again.
import t from 'tap';
import { startDnsServer } from './helpers/dns-server.js';
import { startEmbedSite } from './helpers/embed-site.js';
import { createResolver } from '../shared/dns.js';
import { safeGet, type SafeGet } from '../shared/safe-http.js';

const dns = await startDnsServer();
const site = await startEmbedSite('allowed.example.com');
t.teardown(async () => {
  await site.close();
  await dns.close();
});
dns.set('allowed.example.com', [{ type: 'A', data: '127.0.0.1' }]);
dns.set('loop.example.com', [{ type: 'A', data: '127.0.0.1' }]);
dns.set('ten.example.com', [{ type: 'A', data: '10.0.0.1' }]);
dns.set('metadata.example.com', [{ type: 'A', data: '169.254.169.254' }]);
dns.set('six.example.com', [{ type: 'AAAA', data: '::1' }]);
dns.set('cgnat.example.com', [{ type: 'A', data: '100.64.0.1' }]);
dns.set('mixed.example.com', [
  { type: 'A', data: '93.184.216.34' },
  { type: 'A', data: '192.168.1.1' },
]);
dns.set('public.example.com', [{ type: 'A', data: '93.184.216.34' }]);

const resolver = createResolver([dns.address]);
const allowed = `allowed.example.com:${site.port}`;
const get = (url: string, o: Partial<SafeGet> = {}) => safeGet(resolver, { url, timeoutMs: 3000, maxBytes: 153_600, maxRedirects: 3, allowHosts: [allowed], ...o });
const base = `http://${allowed}`;

t.test('addresses that are not public are refused after resolving, before any connection', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['http://127.0.0.1/', /127\.0\.0\.1 \(loopback\)/],
    ['http://127.0.0.1:8080/', /loopback/],
    ['http://10.0.0.1/', /10\.0\.0\.1 \(private\)/],
    ['http://192.168.1.1/', /192\.168\.1\.1 \(private\)/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 \(link-local\)/],
    ['http://[::1]/', /::1 \(loopback\)/],
    ['http://[fe80::1]/', /link-local/],
    ['http://100.64.0.1/', /CGNAT/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://loop.example.com:8080/', /loop\.example\.com resolves to 127\.0\.0\.1 \(loopback\)/],
    ['http://ten.example.com/', /10\.0\.0\.1 \(private\)/],
    ['https://metadata.example.com/', /169\.254\.169\.254 \(link-local\)/],
    ['http://six.example.com/', /::1 \(loopback\)/],
    ['http://cgnat.example.com/', /CGNAT/],
    ['http://mixed.example.com/', /192\.168\.1\.1 \(private\)/],
  ];
  for (const [url, reason] of cases) {
    const outcome = await get(url);
    t.equal(outcome.kind, 'refused', `${url}: ${JSON.stringify(outcome)}`);
    if (outcome.kind === 'refused') t.match(outcome.reason, reason, url);
  }
});

t.test('only http and https on ports 80, 443 and 8080, without user information in the URL', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['http://public.example.com:9090/', /port 9090 is not one of 80, 443, 8080/],
    ['https://public.example.com:22/', /port 22/],
    [`http://loop.example.com:${site.port}/post`, new RegExp(`port ${site.port}`)],
    ['ftp://public.example.com/', /unsupported scheme ftp:/],
    ['file:///etc/passwd', /unsupported scheme file:/],
    [`http://user:secret@${allowed}/post`, /user information/],
  ];
  for (const [url, reason] of cases) {
    const outcome = await get(url);
    t.equal(outcome.kind, 'refused', url);
    if (outcome.kind === 'refused') t.match(outcome.reason, reason, url);
  }
  t.equal(site.hitsOf('/post'), 0, 'the test server was never reached');
});

t.test('the allowed test server is fetched, and a redirect on it is followed', async (t) => {
  const direct = await get(`${base}/post`);
  t.match(direct, { kind: 'response', statusCode: 200, truncated: false, url: `${base}/post` });
  const redirected = await get(`${base}/to-post`);
  t.match(redirected, { kind: 'response', statusCode: 200, url: `${base}/post` }, 'the final URL is the one after the redirect');
});

t.test('a redirect from the allowed server to a non-public address is checked again and refused', async (t) => {
  const before = site.hitsOf('/post');
  const metadata = await get(`${base}/to-metadata`);
  t.match(metadata, { kind: 'refused', reason: /169\.254\.169\.254 \(link-local\)/ });
  const name = await get(`${base}/to-loopback-name`);
  t.match(name, { kind: 'refused', reason: /loop\.example\.com resolves to 127\.0\.0\.1 \(loopback\)/ });
  const self = await get(`${base}/to-self-by-address`);
  t.match(self, { kind: 'refused' }, 'the same server by its address is not the allowed name');
  t.equal(site.hitsOf('/post'), before, 'no redirect reached the page');
  t.equal(site.hitsOf('/to-metadata'), 1, 'the first hop was fetched');
});

t.test('redirects stop after maxRedirects', async (t) => {
  const outcome = await get(`${base}/loop`, { maxRedirects: 2 });
  t.match(outcome, { kind: 'error', reason: /more than 2 redirects/ });
});

t.test('a body larger than maxBytes is cut there', async (t) => {
  const outcome = await get(`${base}/big-post`, { maxBytes: 4096 });
  t.equal(outcome.kind, 'response');
  if (outcome.kind !== 'response') return;
  t.equal(outcome.body.length, 4096, 'exactly maxBytes kept');
  t.equal(outcome.truncated, true);
  const whole = await get(`${base}/post`, { maxBytes: 4096 });
  t.match(whole, { kind: 'response', truncated: false }, 'a smaller body is whole');
});
