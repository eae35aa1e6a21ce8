// An MTA with two workers (mta.workers: 2, mta/workers.ts), as real processes: both take SMTP sessions on the one
// submission port; kill -9 of one worker during a send loop loses no message that got its 250 (the supervisor
// starts another, the survivor takes the dead one's leases over); the metrics port answers for both; SIGTERM
// stops them all.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { countSink, waitDelivered, waitSettled } from './helpers/acknowledged-load.js';
import { startDeployment } from './helpers/processes.js';
import { runLoad, simpleMessage } from './helpers/smtp-load.js';
import { sqliteLeasesHeldBy } from './store/leases-held.js';
import { until } from './harness/wait.js';

const MESSAGES = 600;
const CLIENTS = 8;
const KILL_AFTER_ACKS = 150;

/** The live child processes of `pid`: the supervisor's workers. */
function workersOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function metricsText(port: number, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, text: await res.text() };
}

/** The sum of a counter's samples in Prometheus text. */
const counterSum = (text: string, name: string): number =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);

t.test('an MTA of two workers: kill -9 of one during a send loop loses no acknowledged message, and another takes its place', async (t) => {
  const d = await startDeployment({ config: { mta: { workers: 2 }, delivery: { leaseS: 5 } } });
  t.teardown(() => d.close());
  await d.startApi();
  const sender = await d.sender('workers.example.com');
  const supervisor = await d.startMta();
  await until('two workers', () => Promise.resolve(workersOf(supervisor.pid).length === 2), 30_000, 100);
  const [victim, survivor] = workersOf(supervisor.pid) as [number, number];

  let inFlightAtKill = -1;
  let killed: Promise<void> | undefined;
  const from = 'load@workers.example.com';
  const load = await runLoad({
    port: d.starttlsPort,
    key: sender.sendingKey,
    count: MESSAGES,
    concurrency: CLIENTS,
    envelope: (n) => ({ from, to: `rcpt${n}@dest.test` }),
    message: (n, attempt) => simpleMessage(from, `rcpt${n}@dest.test`, n, attempt),
    onAck: (_ack, acked) => {
      if (acked !== KILL_AFTER_ACKS) return;
      killed = (async () => {
        process.kill(victim, 'SIGKILL');
        inFlightAtKill = await sqliteLeasesHeldBy(join(d.dataDir, 'tern.db'), hostname(), victim);
      })();
    },
  });
  t.ok(killed, 'a worker was killed mid-run');
  await killed;
  t.same(load.unacknowledged, [], 'every message was acknowledged');
  t.notOk(
    [...load.failures.keys()].some((code) => code >= 500),
    `no permanent refusal (${JSON.stringify([...load.failures])})`,
  );

  const missing = await waitDelivered(d.sink, [...load.acks.keys()], 60_000);
  t.same(missing, [], 'every message that got a 250 reached the sink');
  const states = await waitSettled(await d.store());
  t.same(
    Object.keys(states).filter((s) => s !== 'sent'),
    [],
    `every recipient ends sent (${JSON.stringify(states)})`,
  );
  const counted = countSink(d.sink);
  t.comment(`killed worker ${victim}: ${inFlightAtKill} recipients leased at the kill; ${counted.redelivered} delivered twice, ${counted.resubmitted} submitted again`);
  t.ok(counted.redelivered <= Math.max(inFlightAtKill, 0), `duplicates (${counted.redelivered}) at most the killed worker's in-flight batch (${inFlightAtKill})`);

  await until('the supervisor started another worker', () => Promise.resolve(workersOf(supervisor.pid).length === 2), 30_000, 100);
  const now = workersOf(supervisor.pid);
  t.ok(now.includes(survivor) && !now.includes(victim), `the survivor kept running beside a new worker (${now.join(', ')})`);
  t.notOk(supervisor.exited(), 'the supervisor kept running');
});

t.test('the metrics port of an MTA of two workers answers for both, and SIGTERM stops them all', async (t) => {
  const d = await startDeployment({ config: { mta: { workers: 2 } } });
  t.teardown(() => d.close());
  await d.startApi();
  const sender = await d.sender('workers2.example.com');
  const supervisor = await d.startMta();
  await until('two workers', () => Promise.resolve(workersOf(supervisor.pid).length === 2), 30_000, 100);
  const workers = workersOf(supervisor.pid);

  const sessions = 12;
  const from = 'load@workers2.example.com';
  const load = await runLoad({
    port: d.starttlsPort,
    key: sender.sendingKey,
    count: sessions,
    concurrency: 4,
    envelope: (n) => ({ from, to: `rcpt${n}@dest.test` }),
    message: (n, attempt) => simpleMessage(from, `rcpt${n}@dest.test`, n, attempt),
  });
  t.equal(load.acks.size, sessions);
  // A scraper retries a failed scrape; on a loaded machine one may miss prom-client's deadline for a worker.
  let metrics = { status: 0, text: '' };
  await until('a scrape of both workers', async () => (metrics = await metricsText(d.metricsPort, '/metrics')).status === 200, 20_000, 500);
  // The sessions are handed to the workers in turn: each worker's count alone is about half of them.
  t.equal(counterSum(metrics.text, 'tern_messages_accepted_total'), sessions, 'the messages both workers accepted, summed');
  const counted = counterSum(metrics.text, 'tern_smtp_sessions_total');
  t.ok(counted >= sessions && counted <= sessions + 2, `the sessions of both workers, summed (${counted}: the load's, and the start's probe)`);
  const ready = await metricsText(d.metricsPort, '/readyz');
  t.equal(ready.status, 200, `/readyz: ${ready.text}`);
  t.match(JSON.parse(ready.text), { status: 'ok', store: { engine: 'sqlite' } });

  const stopped = await supervisor.stop('SIGTERM', 40_000);
  t.equal(stopped.code, 0, 'the supervisor exits 0');
  for (const pid of workers) {
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    t.notOk(alive, `worker ${pid} is gone`);
  }
});
