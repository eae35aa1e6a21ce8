// A web site on loopback for the oEmbed proxy's and url-details' tests: pages with oEmbed links (json and xml),
// their provider, redirects to places the fetcher must refuse, a body larger than the limit, and a page with a
// head to read. It counts the requests of each path, so a test can tell what was (and was not) fetched.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EmbedSite {
  port: number;
  /** Requests seen per path (without the query). */
  hits: Map<string, number>;
  hitsOf(path: string): number;
  close(): Promise<void>;
}

const page = (head: string, body = '<p>hello</p>') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

type Answer = { status?: number; type?: string; body?: string; location?: string };

type Pages = Record<string, (q: URLSearchParams) => Answer>;

/** Pages with oEmbed links, and their provider, served at `origin`. */
function discoveryPages(origin: string): Pages {
  return {
    '/post': () => ({
      type: 'text/html; charset=utf-8',
      body: page(
        `<title>A post</title><!-- <link rel="alternate" type="application/json+oembed" href="/wrong"> -->` +
          `<link href='${origin}/oembed?url=${encodeURIComponent(`${origin}/post`)}' type="application/json+oembed" rel="alternate">`,
      ),
    }),
    '/xml-post': () => ({
      type: 'text/html',
      body: page(`<link rel="alternate" type="text/xml+oembed" href="/oembed.xml?url=${encodeURIComponent(`${origin}/xml-post`)}">`),
    }),
    '/oembed': (q) => ({
      type: 'application/json',
      body: JSON.stringify({
        version: '1.0',
        type: 'rich',
        provider_name: 'Embed site',
        title: 'A post',
        width: Number(q.get('maxwidth')),
        height: 300,
        html:
          '<blockquote><a href="https://embed.example/post" onclick="alert(1)">A post</a><script>alert(2)</script></blockquote>' +
          '<iframe src="https://embed.example/post" onload="alert(3)" width="480"></iframe><script>alert(4)</script><img src="x" onerror="alert(5)">',
        asked_format: q.get('format'),
      }),
    }),
    // The provider's link is checked as any URL: this one resolves to the metadata address.
    '/metadata-link-post': () => ({
      type: 'text/html',
      body: page(`<link rel="alternate" type="application/json+oembed" href="http://metadata.example.com/latest/meta-data/">`),
    }),
    // A rich embed with no iframe: WordPress has no embed for it.
    '/no-iframe-post': () => ({
      type: 'text/html',
      body: page(`<link rel="alternate" type="application/json+oembed" href="/oembed-no-iframe">`),
    }),
    '/oembed-no-iframe': () => ({
      type: 'application/json',
      body: JSON.stringify({ version: '1.0', type: 'rich', html: '<div onclick="x()">hi</div><script>x()</script>' }),
    }),
    '/oembed.xml': (q) => ({
      type: 'text/xml',
      body: `<?xml version="1.0"?><oembed><version>1.0</version><type>video</type><title>A &amp; B</title><width>${q.get('maxwidth')}</width><html>&lt;iframe&gt;&lt;/iframe&gt;</html></oembed>`,
    }),
    // The oEmbed link comes after 200 KB of page: past the 150 KB kept, so it is never seen.
    '/big-post': () => ({
      type: 'text/html',
      body: page('<title>big</title>', `${'<p>filler</p>'.repeat(16_000)}<link rel="alternate" type="application/json+oembed" href="/oembed?url=x">`),
    }),
  };
}

/** A page with a head to read, failures, and redirects to places the fetcher must refuse. */
function otherPages(port: number): Pages {
  return {
    '/details': () => ({
      type: 'text/html',
      body: page(
        `<title> Details &amp; more </title><meta name="description" content="What the page is about"><link rel="icon" href="/favicon.png">` +
          `<meta property="og:image" content="/images/cover.jpg">`,
      ),
    }),
    '/empty': () => ({ type: 'text/html', body: '' }),
    '/missing': () => ({ status: 404, type: 'text/html', body: page('<title>nope</title>') }),
    '/to-metadata': () => ({ status: 302, location: 'http://169.254.169.254/latest/meta-data/' }),
    '/to-loopback-name': () => ({ status: 302, location: 'http://loop.example.com:8080/post' }),
    // The same server by its address: only the allowed name and port are exempt, so this hop is refused.
    '/to-self-by-address': () => ({ status: 301, location: `http://127.0.0.1:${port}/post` }),
    '/to-post': () => ({ status: 307, location: '/post' }),
    '/loop': () => ({ status: 302, location: '/loop' }),
  };
}

/** Serves as `http://<host>:<port>` (the name the test's DNS double points at it, in the allow list). */
export async function startEmbedSite(host: string): Promise<EmbedSite> {
  const hits = new Map<string, number>();
  let routes: Pages = {};
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const route = routes[url.pathname];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const r = route(url.searchParams);
    res.writeHead(r.status ?? 200, { ...(r.type ? { 'content-type': r.type } : {}), ...(r.location ? { location: r.location } : {}) });
    res.end(r.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  routes = { ...discoveryPages(`http://${host}:${port}`), ...otherPages(port) };
  return {
    port,
    hits,
    hitsOf: (path) => hits.get(path) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
