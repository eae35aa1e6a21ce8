// bench/stats: the dashboard's statistics with BENCH_STATS_N (1,000,000) messages of one team over 30 days, on
// 5 sending domains, written straight into SQLite by the store's log loader (store/log-loader.ts; the
// triggers of migrations 4 and 11 keep the day and hour counters as the rows are written, as for the intake).
// Then each kind (metrics by hour over 7 days and by day over 30 days, each with and without a domain; the
// dashboard over 30 days; the 12 months) is timed over BENCH_STATS_REQS (200) sequential calls, each with
// another period, and its p50/p95 printed. The calls are GET /api/tern/v2/stats/* over loopback HTTP, as an owner
// of the team authenticated with an application password (HTTP Basic).
// Env: BENCH_STATS_N (1000000), BENCH_STATS_REQS (200).
import { logLoading } from '../shared/store/index.js';
import type { LoadedMessage } from '../shared/store/log-loader.js';
import { loadedMessage } from './loaded-message.js';
import { loadConfig } from '../shared/config.js';
import { openRuntime, type Runtime } from '../shared/runtime/runtime.js';
import { createLogger } from '../shared/log.js';
import { DomainManagement } from '../shared/core/domains.js';
import { createIdentity } from '../shared/core/identity/index.js';
import { Statistics, type MetricsRequest, type PeriodRequest } from '../shared/core/statistics.js';
import type { Team } from '../shared/domain/team.js';
import {
  api,
  benchDeployment,
  benchSender,
  envInt,
  fmt,
  log,
  onCleanup,
  percentile,
  runBench,
  stopTern,
  table,
  type BenchRow,
  type Deployment,
  type Sender,
} from './lib.js';
import { pickStatus } from './status-mix.js';

const total = envInt('BENCH_STATS_N', 1_000_000);
const requests = envInt('BENCH_STATS_REQS', 200);
const DAYS = 30;
const DAY = 86_400_000;

let state = 7; // the generator's state: the same data on every run
const rand = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;

/** The i-th message, created at `createdMs`, on one of `domainIds`, with one recipient in its status's state. */
function message(i: number, createdMs: number, end: number, sender: Sender, domainIds: readonly string[]): LoadedMessage {
  const [status, recipientState] = pickStatus(rand);
  const email = `user${i % 50_000}@dest${i % 200}.test`;
  const domainId = domainIds[i % domainIds.length]!;
  return loadedMessage({
    i,
    teamId: sender.accountId,
    domainId,
    sendingKeyId: sender.sendingKeyId,
    subject: `Order ${i}`,
    email,
    status,
    recipientState,
    createdMs,
    endMs: end,
    size: 1000,
  });
}

async function load(d: Deployment, sender: Sender, domainIds: readonly string[]): Promise<{ start: number; end: number }> {
  const loader = await logLoading.openLogLoader(d.dataDir, d.env.TERNMAIL_DATABASE_URL ?? null);
  const end = Date.now();
  const start = end - DAYS * DAY;
  const step = (end - start) / total;
  const began = Date.now();
  const TX = 50_000;
  for (let base = 0; base < total; base += TX) {
    const batch: LoadedMessage[] = [];
    for (let i = base; i < Math.min(total, base + TX); i++) batch.push(message(i, Math.floor(start + i * step), end, sender, domainIds));
    await loader.writeBatch(batch);
    const done = Math.min(total, base + TX);
    if (done % 200_000 === 0 || done === total) log(`  ${fmt(done)} messages written (${fmt(done / ((Date.now() - began) / 1000))}/s)`);
  }
  await loader.checkpoint();
  await loader.close();
  return { start, end };
}

// --- the client: the dashboard's HTTP routes (the use cases in-process remain for comparing) ---

interface StatsClient {
  metrics(q: MetricsRequest): Promise<unknown>;
  dashboard(q: PeriodRequest): Promise<unknown>;
  monthly(): Promise<unknown>;
}

/** The use cases called in this process, on the deployment's database: what a route would call. */
export function inProcess(rt: Runtime, team: Team): StatsClient {
  const stats = new Statistics(rt, new DomainManagement(rt));
  const ok = <T>(r: { ok: true; value: T } | { ok: false; refusal: unknown }): T => {
    if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.refusal)}`);
    return r.value;
  };
  return {
    metrics: async (q) => ok(await stats.metrics(team, q)),
    dashboard: async (q) => ok(await stats.dashboard(team, q)),
    monthly: () => stats.monthly(team),
  };
}

/** The same over the dashboard's routes (GET /api/tern/v2/stats/*), as a user with an application password (HTTP Basic). */
export function overHttp(apiUrl: string, authorization: string): StatsClient {
  const get = async (path: string, q: object) => {
    const query = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const res = await api(apiUrl, 'GET', `/api/tern/v2/stats/${path}?${query}`, authorization);
    if (res.status !== 200) throw new Error(`GET /stats/${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return res.body;
  };
  return { metrics: (q) => get('metrics', q), dashboard: (q) => get('dashboard', q), monthly: () => get('monthly', {}) };
}

// --- the kinds ---

interface Kind {
  name: string;
  call(client: StatsClient, i: number): Promise<unknown>;
}

function kinds(l: { start: number; end: number }, domainId: string): Kind[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  /** The i-th period's end: anywhere in the last 23 days, to the millisecond (so its bounds cut hours). */
  const endAt = (i: number) => l.end - ((i * 7919) % (23 * 24)) * 3_600_000 - ((i * 104_729) % 3_600_000);
  const hours7 = (i: number) => ({ from: iso(endAt(i) - 7 * DAY), to: iso(endAt(i)) });
  const days30 = (i: number) => ({ from: iso(l.end - DAYS * DAY - ((i * 7919) % DAY)), to: iso(l.end - ((i * 7919) % DAY)) });
  return [
    { name: 'metrics interval=hour, 7 days', call: (c, i) => c.metrics({ interval: 'hour', ...hours7(i) }) },
    { name: 'metrics interval=hour, 7 days, domain', call: (c, i) => c.metrics({ interval: 'hour', domain: domainId, ...hours7(i) }) },
    { name: 'metrics interval=day, 30 days', call: (c, i) => c.metrics({ interval: 'day', ...days30(i) }) },
    { name: 'metrics interval=day, 30 days, domain', call: (c, i) => c.metrics({ interval: 'day', domain: domainId, ...days30(i) }) },
    { name: 'dashboard, 30 days', call: (c, i) => c.dashboard(days30(i)) },
    { name: 'monthly (12 months)', call: (c) => c.monthly() },
  ];
}

/** An owner of the team with an application password, as the Authorization header of its Basic calls. */
async function dashboardAuthorization(rt: Runtime, team: Team): Promise<string> {
  const identity = createIdentity(rt);
  const email = `bench-owner-${process.pid}@example.com`;
  const made = await identity.users.create(team.id, { email, role: 'owner' }, rt.log);
  if (!made.ok) throw new Error(`user: ${JSON.stringify(made.refusal)}`);
  // A one-time password must be changed before the user may make an application password.
  const changed = await identity.users.changePassword(made.value.user, { currentPassword: made.value.oneTimePassword, newPassword: 'bench owner passphrase' }, rt.log);
  if (!changed.ok) throw new Error(`password change: ${JSON.stringify(changed.refusal)}`);
  const password = await identity.applicationPasswords.create(changed.value, { name: 'bench' }, rt.log);
  if (!password.ok) throw new Error(`application password: ${JSON.stringify(password.refusal)}`);
  return `Basic ${Buffer.from(`${email}:${password.value.password}`).toString('base64')}`;
}

async function time(kind: Kind, client: StatsClient): Promise<number[]> {
  await kind.call(client, requests); // one call before timing: statements prepared, pages warm
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t0 = performance.now();
    await kind.call(client, i);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

runBench('stats', 5400, async () => {
  const d = await benchDeployment('stats', { remotePort: 9 });
  await d.startApi();
  const sender = await benchSender(d);
  await stopTern(d.api!);

  const rt = await openRuntime(loadConfig({ env: d.env }), 'bench-stats', createLogger('bench-stats', 'warn'));
  onCleanup(() => rt.close());
  const team = (await rt.store.teams.get(sender.accountId))!;
  const domainIds = [sender.domainId];
  for (const name of ['two', 'three', 'four', 'five']) {
    const domain = await rt.store.domains.create({
      teamId: team.id,
      name: `${name}.example.com`,
      dkimSelector: 'tern',
      dkimPublicKey: 'pub',
      dkimPrivateKeyEnc: 'sealed',
    });
    if (domain !== 'exists') domainIds.push(domain.id);
  }

  log(`\n[stats] writing ${fmt(total)} messages over ${DAYS} days on ${domainIds.length} domains (counters kept as the writes keep them)`);
  const loadStarted = Date.now();
  const loaded = await load(d, sender, domainIds);
  log(`  written in ${fmt((Date.now() - loadStarted) / 1000, 0)} s`);

  await d.startApi();
  const client = overHttp(d.apiUrl, await dashboardAuthorization(rt, team));
  log(`\n[stats] GET /api/tern/v2/stats/* as a dashboard user, ${requests} sequential calls per kind, each with another period, ${fmt(total)} messages`);
  const lines: string[][] = [];
  const rows: BenchRow[] = [];
  for (const kind of kinds(loaded, sender.domainId)) {
    const times = await time(kind, client);
    const [p50, p95] = [percentile(times, 50), percentile(times, 95)];
    lines.push([kind.name, String(times.length), fmt(p50, 2), fmt(p95, 2), fmt(times[times.length - 1]!, 2), p95 >= 50 ? 'SLOW' : '']);
    rows.push({ metric: `stats ${kind.name}, ${fmt(total)} msgs, ${times.length} calls: p50 | p95`, value: `${fmt(p50, 2)} | ${fmt(p95, 2)} ms`, target: 'p95 < 50 ms' });
  }
  log('\n' + table(['kind', 'calls', 'p50 ms', 'p95 ms', 'max ms', 'p95 ≥ 50 ms'], lines));
  return { bench: 'stats', rows };
});
