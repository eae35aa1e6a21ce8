// Prometheus metrics are served on a metrics listener only, never on the API's port (which faces users and
// maybe the internet): GET /metrics there answers 404, and with TERNMAIL_API_METRICS_PORT set the API process
// serves them (and /healthz, /readyz) on that port, on the metrics host (127.0.0.1), as the MTA does on its own.
import t from 'tap';
import { startHarness } from './helpers/harness.js';
import { freePort } from './helpers/redis.js';

t.test("GET /metrics on the API's port answers 404 and leaks nothing", async (t) => {
  const h = await startHarness();
  t.teardown(() => h.close());
  await h.request('GET', '/healthz');
  const reply = await fetch(`${h.url}/metrics`);
  const text = await reply.text();
  t.equal(reply.status, 404);
  t.notMatch(text, /tern_|# HELP/, 'no metric in the answer');
});

t.test("with TERNMAIL_API_METRICS_PORT the API's metrics are scraped on that port, with health", async (t) => {
  const port = await freePort();
  const h = await startHarness({ env: { TERNMAIL_API_METRICS_PORT: String(port) } });
  t.teardown(() => h.close());
  t.equal(h.config.metrics.apiPort, port);
  await h.request('GET', '/v2/domains', { key: (await h.account()).key });
  const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
  t.equal(scraped.status, 200);
  t.match(scraped.headers.get('content-type'), /text\/plain/);
  t.match(await scraped.text(), /tern_http_requests_total\{method="GET",route="\/v2\/domains",status="200"\} [1-9]/, "the API's requests are counted");
  t.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200, '/readyz there too');
  t.equal((await fetch(`${h.url}/metrics`)).status, 404, 'still not on the API port');
});

t.test('a scrape answers even when a store read behind a gauge fails or hangs, with the figures last read', async (t) => {
  const { measureQueueDepth, metricsText } = await import('../shared/metrics.js');
  t.teardown(() => measureQueueDepth(() => Promise.resolve({})));
  measureQueueDepth(() => Promise.resolve({ queued: 7 }));
  t.match((await metricsText()).body, /tern_queue_recipients\{state="queued"\} 7/, 'a read that lands is shown');

  measureQueueDepth(() => Promise.reject(new Error('the store is gone')));
  t.match((await metricsText()).body, /tern_queue_recipients\{state="queued"\} 7/, 'a failed read leaves the figures last read');

  let land: (figures: Record<string, number>) => void = () => undefined;
  measureQueueDepth(() => new Promise((resolve) => (land = resolve)));
  const started = Date.now();
  const scraped = await metricsText();
  t.ok(Date.now() - started < 3_000, `a hanging read does not hold the scrape (${Date.now() - started} ms)`);
  t.match(scraped.body, /tern_queue_recipients\{state="queued"\} 7/);
  t.match(scraped.body, /tern_process_process_cpu_seconds_total/, 'the other metrics are there');
  land({ queued: 9 });
  await new Promise((resolve) => setImmediate(resolve));
  t.match((await metricsText()).body, /tern_queue_recipients\{state="queued"\} 9/, 'the late read updates the figures when it lands');
});
