// bench/admin: the platform-administrator routes over HTTP with BENCH_ADMIN_TENANTS (10,000) teams (a quarter
// accounts, each with three child teams) and BENCH_ADMIN_MESSAGES (1,000,000) messages spread over them (a few
// large senders, a long tail) over 30 days, written straight into SQLite by the store's log loader, as the logs
// bench does. A platform operator is made with the CLI and calls the routes with an application password; each
// kind of request is timed over BENCH_ADMIN_REQS (200) sequential requests, each with another value, and its p50
// and p95 printed. The issue's target: p95 under 100 ms.
// Env: BENCH_ADMIN_TENANTS (10000), BENCH_ADMIN_MESSAGES (1000000), BENCH_ADMIN_REQS (200).
import { logLoading } from '../shared/store/index.js';
import type { LoadedMessage } from '../shared/store/log-loader.js';
import type { Store } from '../shared/store/index.js';
import { api, benchDeployment, operatorCredentials, envInt, fmt, log, percentile, runBench, stopTern, table, type BenchRow, type Deployment } from './lib.js';
import { pickStatus } from './status-mix.js';
import { loadedMessage } from './loaded-message.js';

const teamCount = envInt('BENCH_ADMIN_TENANTS', 10_000);
const messageCount = envInt('BENCH_ADMIN_MESSAGES', 1_000_000);
const requests = envInt('BENCH_ADMIN_REQS', 200);
const DAYS = 30;

let state = 7; // the same data on every run
const rand = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
const WORDS = ['invoice', 'receipt', 'order', 'shipped', 'welcome', 'reset', 'weekly', 'report', 'reminder', 'payment'];
const RCPT_DOMAINS = ['gmail.test', 'yahoo.test', 'outlook.test', 'corp.test', 'mail.test', 'web.test', 'post.test', 'inbox.test'];

/** Accounts and their teams through the store (a grant of credits each, as the CLI makes them); their ids. */
async function makeTeams(store: Store): Promise<number[]> {
  const ids: number[] = [];
  const accounts = Math.ceil(teamCount / 4);
  for (let a = 0; a < accounts && ids.length < teamCount; a++) {
    const account = await store.teams.createAccount({
      name: `Client ${a} ${WORDS[a % WORDS.length]}`,
      credits: 1000 + a,
      limitPerSecond: 100,
      planType: 'standard',
      backendRegion: 'eu',
    });
    ids.push(account.id);
    for (let t = 0; t < 3 && ids.length < teamCount; t++) {
      const team = await store.teams.createTeam(account, `Team ${a}.${t}`, 10);
      if (team !== 'limit_reached') ids.push(team.id);
    }
    if (a % 50 === 0) await store.teams.changeStatus(account.id, 'suspended', 'platform', { reason: 'bench: a suspended tenant' });
  }
  return ids;
}

/** The i-th message: its team drawn with a skew (a few large senders), its time spread over the window. */
function message(i: number, teamIds: readonly number[], createdMs: number, end: number): LoadedMessage {
  const teamId = teamIds[Math.floor(rand() ** 2 * teamIds.length)]!;
  const [status, recipientState] = pickStatus(rand);
  const email = `user${Math.floor(rand() * 100_000)}@${RCPT_DOMAINS[Math.floor(rand() * RCPT_DOMAINS.length)]}`;
  return loadedMessage({
    i,
    teamId,
    domainId: null,
    sendingKeyId: null,
    subject: `${WORDS[i % WORDS.length]} #${100000 + i}`,
    email,
    status,
    recipientState,
    createdMs,
    endMs: end,
  });
}

async function loadMessages(d: Deployment, teamIds: readonly number[]): Promise<void> {
  const loader = await logLoading.openLogLoader(d.dataDir, d.env.TERNMAIL_DATABASE_URL ?? null);
  const end = Date.now();
  const start = end - DAYS * 86_400_000;
  const step = (end - start) / messageCount;
  const TX = 50_000;
  const began = Date.now();
  for (let base = 0; base < messageCount; base += TX) {
    const batch: LoadedMessage[] = [];
    for (let i = base; i < Math.min(messageCount, base + TX); i++) batch.push(message(i, teamIds, Math.floor(start + i * step), end));
    await loader.writeBatch(batch);
    const done = Math.min(messageCount, base + TX);
    if (done % 200_000 === 0 || done === messageCount) log(`  ${fmt(done)} messages written (${fmt(done / ((Date.now() - began) / 1000))}/s)`);
  }
  await loader.checkpoint();
  await loader.close();
}

interface Kind {
  name: string;
  path(i: number): string;
}

function kinds(teamIds: readonly number[]): Kind[] {
  const spreadTeam = (i: number) => teamIds[(i * 7919) % teamIds.length]!;
  const busy = (i: number) => teamIds[i % 20]!;
  const day = (i: number) => new Date(Date.now() - (1 + (i % (DAYS - 1))) * 86_400_000).toISOString().slice(0, 10);
  return [
    { name: 'stats (30 days)', path: () => '/admin/stats' },
    { name: 'tenants (first page)', path: () => '/admin/tenants' },
    { name: 'tenants?page=<deep>', path: (i) => `/admin/tenants?per_page=25&page=${1 + ((i * 37) % Math.floor(teamIds.length / 25))}` },
    { name: 'tenants?search=<name part>', path: (i) => `/admin/tenants?search=${encodeURIComponent(`Client ${i % Math.ceil(teamIds.length / 4)}`)}` },
    { name: 'tenants?status=suspended', path: () => '/admin/tenants?status=suspended' },
    { name: 'tenants/sending-stats (30 days)', path: () => '/admin/tenants/sending-stats' },
    { name: 'tenants/sending-stats?days=7', path: () => '/admin/tenants/sending-stats?days=7' },
    { name: 'tenants/{id}', path: (i) => `/admin/tenants/${spreadTeam(i)}` },
    { name: 'tenants/{id}/mta-status (busiest)', path: (i) => `/admin/tenants/${busy(i)}/mta-status` },
    { name: 'tenants/{id}/mta-status', path: (i) => `/admin/tenants/${spreadTeam(i)}/mta-status` },
    { name: 'credits (first page)', path: () => '/admin/credits' },
    { name: 'credits?account_id=<id>', path: (i) => `/admin/credits?account_id=${spreadTeam(i)}` },
    { name: 'credits/summary', path: () => '/admin/credits/summary' },
    { name: 'audit-log', path: () => '/admin/audit-log' },
    { name: 'logs (first page)', path: () => '/admin/logs' },
    { name: 'logs?status=bounced', path: () => '/admin/logs?status=bounced' },
    { name: 'logs?tenant_id=<id>', path: (i) => `/admin/logs?tenant_id=${busy(i)}` },
    { name: 'logs?search=<subject word>', path: (i) => `/admin/logs?search=${WORDS[i % WORDS.length]}` },
    { name: 'logs?from=<day>&to=<day>', path: (i) => `/admin/logs?from=${day(i)}&to=${day(i)}` },
    { name: 'logs/{log_id}', path: (i) => `/admin/logs/${1 + ((i * 4999) % messageCount)}` },
    { name: 'domains (first page)', path: () => '/admin/domains' },
    { name: 'domains/sending-stats', path: () => '/admin/domains/sending-stats' },
    { name: 'suppressions (first page)', path: () => '/admin/suppressions' },
    { name: 'invitations (first page)', path: () => '/admin/invitations' },
  ];
}

runBench('admin', 5400, async () => {
  const d = await benchDeployment('admin', { remotePort: 9, config: { limits: { writesPerMinute: 1_000_000 } } });
  log(`\n[admin] ${fmt(teamCount)} tenants through the store`);
  const store = await d.store();
  const began = Date.now();
  const teamIds = await makeTeams(store);
  log(`  made in ${fmt((Date.now() - began) / 1000, 0)} s`);
  log(`[admin] writing ${fmt(messageCount)} messages spread over them`);
  await loadMessages(d, teamIds);

  await d.startApi();
  const auth = await operatorCredentials(d.apiUrl, d.env);
  const get = async (path: string) => {
    const res = await api(d.apiUrl, 'GET', `/api/tern/v2${path}`, auth);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  };
  await get('/admin/stats'); // warms what a running API would have warm

  log(`\n[admin] ${requests} sequential requests per kind, ${fmt(teamCount)} tenants, ${fmt(messageCount)} messages`);
  const lines: string[][] = [];
  const rows: BenchRow[] = [];
  for (const kind of kinds(teamIds)) {
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      await get(kind.path(i));
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const [p50, p95] = [percentile(times, 50), percentile(times, 95)];
    lines.push([kind.name, fmt(p50, 1), fmt(p95, 1), fmt(times.at(-1)!, 1), p95 >= 100 ? 'SLOW' : '']);
    rows.push({ metric: `GET /admin/${kind.name.replace(/^\//, '')}: p50 | p95`, value: `${fmt(p50, 1)} | ${fmt(p95, 1)} ms`, target: 'p95 < 100 ms' });
    log(`  ${kind.name}: p50 ${fmt(p50, 1)} ms, p95 ${fmt(p95, 1)} ms`);
  }
  await stopTern(d.api!);
  log(`\n${table(['request', 'p50 ms', 'p95 ms', 'max ms', ''], lines)}`);
  return { bench: 'admin', rows };
});
