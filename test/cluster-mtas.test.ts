// Several MTAs over one queue and one Redis, as processes: the per-destination connection cap holds across
// them (shared slots in Redis), every API and MTA shows in `ternmail status` through its heartbeat, and one
// killed with SIGKILL leaves the list by itself once its record's lifetime has passed.
import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startDeployment } from './helpers/processes.js';
import { freePorts } from './harness/ports.js';
import { http, runCli, spawnTernmail, waitForGreeting, type LongRunning } from './harness/ternmail.js';
import { until } from './harness/wait.js';

const run = promisify(execFile);
const CAP = 2;
const MESSAGES = 24;

const d = await startDeployment({
  config: {
    delivery: { perDomainConcurrency: CAP, recipientsPerConnection: 1, destinationSlotLeaseS: 3 },
    health: { heartbeatS: 1, nodeTtlS: 3 },
  },
});
t.teardown(() => d.close());
await d.startApi();
const sender = await d.sender('cluster.example.com');
await d.startMta();

/** A second `ternmail mta` on the same data dir and Redis, with listeners of its own and another EHLO name. */
async function secondMta(): Promise<LongRunning> {
  const [starttls, tls, mx, metrics] = (await freePorts(4)) as [number, number, number, number];
  const env = {
    ...d.env,
    TERNMAIL_SMTP_STARTTLS_PORTS: String(starttls),
    TERNMAIL_SMTP_TLS_PORTS: String(tls),
    TERNMAIL_MX_PORT: String(mx),
    TERNMAIL_METRICS_PORT: String(metrics),
    TERNMAIL_PUBLIC_HOSTNAME: 'mx2.tern.test',
  };
  const mta = spawnTernmail(['mta'], env);
  await waitForGreeting(starttls, mta, 60_000);
  return mta;
}
const second = await secondMta();
t.teardown(() => second.stop('SIGKILL').catch(() => undefined));

interface StatusNode {
  role: string;
  pid: number;
  host: string;
  ports: Record<string, number>;
}

async function statusNodes(): Promise<StatusNode[]> {
  const res = await runCli(['status', '--json'], d.env);
  return (res.json as { nodes: StatusNode[] }).nodes;
}

t.test('ternmail status lists the API and both MTAs, each with its pid and ports', async (t) => {
  const nodes = await until('three nodes in the status', async () => {
    const seen = await statusNodes();
    return seen.length === 3 ? seen : null;
  });
  t.same(nodes.map((n) => n.role).sort(), ['api', 'mta', 'mta']);
  t.same(nodes.map((n) => n.pid).sort(), [d.api!.pid, d.mta!.pid, second.pid].sort());
  t.ok(
    nodes.some((n) => n.role === 'mta' && n.ports['submission-starttls'] === d.starttlsPort),
    'the first MTA names its submission port',
  );
  const text = await runCli(['status'], d.env);
  t.match(text.stdout, new RegExp(`^Nodes +api \\S+ pid ${d.api!.pid} Tern `, 'm'), 'a person reads the nodes too');
  t.match(text.stdout, new RegExp(`^ +mta \\S+ pid ${second.pid} Tern .*seen \\d+s ago$`, 'm'));
});

t.test('two MTAs delivering to one slow destination never hold more connections together than its cap', async (t) => {
  d.sink.dataDelayMs = 400;
  for (let n = 0; n < MESSAGES; n++) {
    // One message at a time, a little apart, so that both MTAs' schedulers claim some of them.
    const res = await http(d.apiUrl, 'POST', '/v2/emails', {
      key: sender.sendingKey,
      body: { from: { email: 'app@cluster.example.com' }, to: [{ email: `rcpt${n}@dest.test` }], subject: `cap ${n}`, text: 'hello' },
    });
    t.equal(res.status, 200, `message ${n} accepted`);
    await new Promise((r) => setTimeout(r, 60));
  }
  await d.sink.waitFor(MESSAGES, 60_000);
  const ehlo = new Set(d.sink.messages.map((m) => m.heloName));
  t.same([...ehlo].sort(), ['mx.tern.test', 'mx2.tern.test'], 'both MTAs delivered some of them');
  t.equal(d.sink.transactions.most, CAP, `at most ${CAP} messages in flight at the destination at once, across both MTAs`);
  // The last slots go back once their batches' results are recorded, a moment after the sink answered.
  await until('every slot given back', async () => (await runRedis(['ZCARD', 'tern:slots:dest.test'])).trim() === '0', 5000);
  t.pass('every slot was given back');
});

t.test('an MTA killed with SIGKILL leaves the status by itself once its record expires', async (t) => {
  await second.stop('SIGKILL');
  const killedAt = Date.now();
  const nodes = await until('the killed MTA gone from the status', async () => {
    const seen = await statusNodes();
    return seen.some((n) => n.pid === second.pid) ? null : seen;
  });
  t.ok(Date.now() - killedAt < 3000 + 4000, 'gone within its record lifetime (3 s), give or take a status run');
  t.same(nodes.map((n) => n.pid).sort(), [d.api!.pid, d.mta!.pid].sort(), 'the live API and MTA are still listed');
});

/** One redis-cli command against the deployment's Redis. */
async function runRedis(args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(d.redis.port), ...args]);
  return stdout;
}
