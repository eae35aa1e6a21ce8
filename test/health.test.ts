// /healthz and /readyz on the API's port and the MTA's metrics port, and `ternmail status`, against a real
// deployment (`ternmail api` and `ternmail mta` processes, a real redis-server): ready while everything
// answers, 503 naming Redis (and nothing of its internals) while Redis is down, ready again once it is back;
// and an MTA in process whose SMTP listeners stop, named by its /readyz.
import t from 'tap';
import { runCli } from './helpers/cli.js';
import { startDeployment, type Deployment } from './helpers/processes.js';
import { until } from './helpers/wait.js';
import { startHarness } from './helpers/harness.js';
import { freePort } from './helpers/redis.js';
import { testEngine } from './harness/test-engine.js';
import { startMta } from '../mta/main.js';
import { loadDeliveryRules } from '../shared/policies/index.js';

/** The engine `ternmail status` names: the one TERN_TEST_ENGINE runs the deployment on. */
const engineName = testEngine === 'postgres' ? 'PostgreSQL' : 'SQLite';
/** The store as the metrics listeners' /readyz names it. */
const store = { engine: testEngine === 'postgres' ? 'postgresql' : 'sqlite' };

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
}

async function get(url: string): Promise<Answer> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
}

/** Both ports that answer health questions: the API's and the MTA's metrics listener (which adds the store's engine and how Redis is reached). */
const ports = (d: Deployment) =>
  [
    ['API', d.apiUrl, {}],
    ['MTA', `http://127.0.0.1:${d.metricsPort}`, { store, redis: { mode: 'url' } }],
  ] as const;

/** Stops Redis (SIGKILL) and resolves once its process is gone. */
function stopRedis(d: Deployment): Promise<void> {
  return new Promise((resolve) => {
    const redis = d.redis.process;
    if (redis.exitCode !== null || redis.signalCode !== null) return resolve();
    redis.once('exit', () => resolve());
    redis.kill('SIGKILL');
  });
}

const d = await startDeployment();
t.teardown(() => d.close());
await d.startApi();
await d.startMta();

t.test('/healthz answers 200 {"status":"ok"} on both ports, without authentication', async (t) => {
  for (const [name, base] of ports(d)) {
    const res = await get(`${base}/healthz`);
    t.equal(res.status, 200, name);
    t.match(res.contentType, /^application\/json/, `${name}: JSON`);
    t.same(JSON.parse(res.text), { status: 'ok' }, `${name}: the process is up`);
  }
});

t.test('/readyz answers 200 on both ports while the store, Redis and the listeners answer', async (t) => {
  for (const [name, base, readyzExtra] of ports(d)) {
    const res = await until(`${name} ready`, async () => {
      const r = await get(`${base}/readyz`);
      return r.status === 200 ? r : null;
    });
    t.same(JSON.parse(res.text), { status: 'ok', ...readyzExtra }, name);
  }
});

t.test('ternmail status against a running Tern prints every part and exits 0', async (t) => {
  // The MTA's first domain-check round runs a second after it starts; the status then reports it.
  const res = await until('a status with a domain-check round', async () => {
    const r = await runCli(['status'], d.env);
    return /Domain check +last round ended/.test(r.stdout) ? r : null;
  });
  t.equal(res.code, 0, res.stdout + res.stderr);
  t.match(res.stdout, new RegExp(`^Versions +Tern \\d+\\.\\d+\\.\\d+, Node v\\d+\\.\\d+\\.\\d+, ${engineName} \\d+\\.\\d+`, 'm'));
  t.match(res.stdout, new RegExp(`^Data dir +${d.dataDir}$`, 'm'));
  t.match(res.stdout, /^Schema +version \d+$/m);
  t.match(res.stdout, new RegExp(`^Redis +up  ${d.redis.url}$`, 'm'), 'Redis answers, at its URL');
  t.match(res.stdout, /^API +ready, up \d+m \d\ds/m, 'the API is ready, with its uptime');
  t.match(res.stdout, /^MTA +ready, up \d+m \d\ds/m, 'the MTA is ready, with its uptime');
  t.match(res.stdout, new RegExp(`^Listeners +submission-starttls ${d.starttlsPort} up, submission-tls ${d.tlsPort} up, mx \\d+ up$`, 'm'));
  t.match(res.stdout, /^Queue +queued 0, .*sending 0.*deferred 0/m);
  t.match(res.stdout, /^Webhooks +0 event\(s\) waiting in the outbox$/m);
  t.match(res.stdout, /^Status +ok$/m);

  const json = await runCli(['status', '--json'], d.env);
  t.equal(json.code, 0, json.stderr);
  t.equal(json.stdout.trim().split('\n').length, 1, 'one JSON object');
  t.match(json.json, {
    status: 'ok',
    down: [],
    versions: { tern: String, node: process.version, database: new RegExp(`^${engineName} `) },
    data_dir: d.dataDir,
    schema_version: Number,
    redis: { up: true, mode: 'url', url: d.redis.url },
    processes: [
      { name: 'api', state: 'ready', failing: [], uptime_s: Number, started_at: String },
      { name: 'mta', state: 'ready', failing: [], uptime_s: Number, started_at: String },
    ],
    queue: { queued: 0 },
    domain_check: { known: true, last_round: { ended_at: String, checked: Number } },
    webhook_outbox: 0,
  });
  t.ok(
    json.json.listeners.every((l: { up: boolean }) => l.up),
    'every listener answers',
  );
  t.same(
    json.json.nodes.map((n: { role: string; pid: number }) => [n.role, n.pid]),
    [
      ['api', d.api!.pid],
      ['mta', d.mta!.pid],
    ],
    'both processes are listed as nodes by their heartbeats',
  );
});

t.test('with Redis down /readyz answers 503 naming redis on both ports, and ternmail status exits 1', async (t) => {
  await stopRedis(d);
  for (const [name, base, readyzExtra] of ports(d)) {
    const res = await until(`${name} not ready`, async () => {
      const r = await get(`${base}/readyz`);
      return r.status === 503 ? r : null;
    });
    t.same(JSON.parse(res.text), { status: 'unavailable', failing: ['redis'], ...readyzExtra }, `${name}: the failing part, and nothing else`);
    t.notMatch(res.text, /127\.0\.0\.1|ECONNREFUSED|ioredis|\d+\.\d+\.\d+/, `${name}: no address, error text or version`);
    t.equal((await get(`${base}/healthz`)).status, 200, `${name}: the process itself is still up`);
  }

  const started = Date.now();
  const res = await runCli(['status'], d.env);
  t.equal(res.code, 1, 'non-zero exit while something is down');
  t.ok(Date.now() - started < 15_000, 'the status does not hang on the missing Redis');
  t.match(res.stdout, new RegExp(`^Redis +DOWN  ${d.redis.url}$`, 'm'));
  t.match(res.stdout, /^API +NOT READY \(failing: redis\)/m);
  t.match(res.stdout, /^MTA +NOT READY \(failing: redis\)/m);
  t.match(res.stdout, /^Domain check +unknown/m);
  t.match(res.stdout, /^Status +DOWN: redis, api, mta$/m);
  const json = await runCli(['status', '--json'], d.env);
  t.equal(json.code, 1);
  t.match(json.json, { status: 'down', down: ['redis', 'api', 'mta'], redis: { up: false }, domain_check: { known: false, last_round: null } });
  t.equal(json.json.nodes, null, 'the nodes are unknown, not none, while Redis is down');
});

t.test('once Redis is back /readyz answers 200 on both ports and ternmail status exits 0', async (t) => {
  await d.redis.restart();
  for (const [name, base, readyzExtra] of ports(d)) {
    const res = await until(
      `${name} ready again`,
      async () => {
        const r = await get(`${base}/readyz`);
        return r.status === 200 ? r : null;
      },
      30_000,
      200,
    );
    t.same(JSON.parse(res.text), { status: 'ok', ...readyzExtra }, name);
  }
  const res = await runCli(['status'], d.env);
  t.equal(res.code, 0, res.stdout);
  t.match(res.stdout, /^Status +ok$/m);
});

t.test('with the MTA stopped ternmail status names it and its listeners, and exits 1', async (t) => {
  await d.killMta();
  const res = await runCli(['status', '--json'], d.env);
  t.equal(res.code, 1);
  t.match(res.json.processes[1], { name: 'mta', state: 'down', uptime_s: null });
  t.ok(res.json.down.includes('mta'), 'the MTA is down');
  t.ok(res.json.down.includes(`smtp:${d.starttlsPort}`), 'and its submission port does not answer');
  t.ok(!res.json.down.includes('api'), 'the API is still ready');
});

t.test("the MTA's /readyz names its listeners once its SMTP submission ports stop accepting", async (t) => {
  const metricsPort = await freePort();
  const h = await startHarness({ env: { TERNMAIL_METRICS_PORT: String(metricsPort), TERNMAIL_VERIFY_INTERVAL_S: '3600' } });
  t.teardown(() => h.close());
  const mta = await startMta({ config: h.config, ...loadDeliveryRules() }, h.rt);
  t.teardown(() => mta.close());
  const readyz = `http://127.0.0.1:${metricsPort}/readyz`;
  t.equal((await get(readyz)).status, 200, 'ready with every listener up');
  await mta.submission.close();
  const res = await get(readyz);
  t.equal(res.status, 503);
  t.same(JSON.parse(res.text), { status: 'unavailable', failing: ['listeners'], store, redis: { mode: 'url' } });
});
