// bench/logs: GET /v2/emails over HTTP with BENCH_LOG_N (1,000,000) messages of one team in the log, on the store
// BENCH_ENGINE names (bench/lib.ts: SQLite by default, or PostgreSQL).
// The messages, with varied subjects, senders, recipients, statuses and dates over 30 days, are generated here
// and written straight into the store by its log loader (store/log-loader.ts), in big transactions, into the
// same tables and columns as the intake's recording (shared/intake/record.ts) writes, with the counters it keeps:
// on SQLite messages, recipients and messages_fts (from the view message_search_rows), message_counts kept by the
// triggers of migration 4; on PostgreSQL messages (the search column generated from them) and recipients, the
// counters moved by the engine's own code. The loader's checkpoint then leaves the database as a running
// installation would have it (SQLite: the write-ahead log folded in; PostgreSQL: vacuumed and analyzed, as
// autovacuum would). Then each kind of query is timed over BENCH_LOG_REQS (200) sequential requests, each with
// another value, and its p50/p95 printed; for every kind the plan the engine chooses (SQLite: EXPLAIN QUERY PLAN;
// PostgreSQL: EXPLAIN ANALYZE; of the SQL that MessageStore.list() runs, taken from the engine's listStatements()
// by the loader's explainer) and the time of its two statements are printed, to say why a slow one is slow.
// Nothing in the product is changed.
// Env: BENCH_LOG_N (1000000), BENCH_LOG_REQS (200), BENCH_LOG_KIND_S (90: a kind stops early after this), BENCH_ENGINE.
import { logLoading } from '../shared/store/index.js';
import type { LoadedMessage } from '../shared/store/log-loader.js';
import type { MessageQuery } from '../shared/store/message-log.js';
import { loadConfig } from '../shared/config.js';
import type { MessageStatus } from '../shared/domain/queue-state.js';
import {
  api,
  benchDeployment,
  benchSender,
  engineLabel,
  envInt,
  fmt,
  log,
  percentile,
  runBench,
  stopTern,
  table,
  type BenchRow,
  type Deployment,
  type Sender,
} from './lib.js';
import { pickStatus, STATUS_MIX } from './status-mix.js';

const total = envInt('BENCH_LOG_N', 1_000_000);
const requests = envInt('BENCH_LOG_REQS', 200);
const kindBudgetS = envInt('BENCH_LOG_KIND_S', 90);
const DAYS = 30;

// --- a deterministic generator of varied data ---

let state = 42; // the generator's state: the same data on every run
const rand = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
/** Skewed toward the start of the list (index ~ r³): a few very common words, a long tail of rare ones. */
const pickSkewed = <T>(list: readonly T[]) => list[Math.floor(rand() ** 3 * list.length)]!;

const SYLLABLES = 'ka lo mi ne ru sa ti vo be da fe gi ho ju ly mo pa qu ri so tu va we xi yo ze an el in on un ar er or'.split(' ');
/** 3,000 pseudo-words, e.g. "karumi". */
const VOCABULARY = [...new Set(Array.from({ length: 6000 }, () => Array.from({ length: 2 + Math.floor(rand() * 2) }, () => pick(SYLLABLES)).join('')))].slice(0, 3000);
const SUBJECT_WORDS = [
  'invoice',
  'receipt',
  'order',
  'shipped',
  'welcome',
  'password',
  'reset',
  'newsletter',
  'weekly',
  'report',
  'reminder',
  'confirm',
  'account',
  'update',
  'payment',
];
const FIRST = [
  'anna',
  'bob',
  'carla',
  'david',
  'emma',
  'felix',
  'grace',
  'hugo',
  'ines',
  'jack',
  'karin',
  'liam',
  'mia',
  'noah',
  'olga',
  'paul',
  'rosa',
  'sam',
  'tina',
  'victor',
];
const LAST = ['smith', 'jones', 'garcia', 'muller', 'rossi', 'dubois', 'novak', 'silva', 'kim', 'tanaka', 'brown', 'wilson', 'martin', 'lopez', 'weber'];
const RCPT_DOMAINS = Array.from({ length: 200 }, (_, i) => `${VOCABULARY[i * 7]}.${pick(['com', 'net', 'org', 'de', 'fr', 'io'])}`);
const SENDERS = ['news', 'billing', 'support', 'hello', 'orders', 'alerts', 'team', 'noreply', 'updates', 'accounts'].map((l) => `${l}@example.com`);

interface Person {
  email: string;
  name: string;
}
const person = (): Person => {
  const first = pick(FIRST);
  const last = pick(LAST);
  return {
    email: `${first}.${last}${Math.floor(rand() * 5000)}@${pick(RCPT_DOMAINS)}`,
    name: `${first[0]!.toUpperCase()}${first.slice(1)} ${last[0]!.toUpperCase()}${last.slice(1)}`,
  };
};

interface Loaded {
  start: number;
  end: number;
  /** Values to query with: subject words, order numbers, recipients. */
  orderNumbers: string[];
  recipients: string[];
}

/** The i-th of `total` messages, created at `createdMs`; `end` is the load's now (a deferred recipient is due an hour after). */
function syntheticMessage(i: number, createdMs: number, end: number, sender: Sender): LoadedMessage {
  const created = new Date(createdMs).toISOString();
  const id = `${createdMs.toString(36).padStart(9, '0')}${Math.floor(rand() * 2 ** 31)
    .toString(16)
    .padStart(8, '0')}${i.toString(16).padStart(8, '0')}`;
  const order = String(100000 + i * 7);
  const words = Array.from({ length: 2 + Math.floor(rand() * 4) }, () => pickSkewed(VOCABULARY));
  const subject = `${pick(SUBJECT_WORDS)} ${words.join(' ')} #${order}`;
  const from = pick(SENDERS);
  const people = Array.from({ length: rand() < 0.85 ? 1 : 2 + Math.floor(rand() * 3) }, person);
  const [status, state] = pickStatus(rand);
  const sent = status === 'sent' || status === 'complained' || status === 'bounced' ? new Date(createdMs + 2000).toISOString() : null;
  return {
    id,
    teamId: sender.accountId,
    domainId: sender.domainId,
    sendingKeyId: sender.sendingKeyId,
    source: rand() < 0.7 ? 'http' : 'smtp',
    envelopeFrom: from,
    fromEmail: from,
    fromName: 'Example',
    subject,
    to: people.slice(0, 1).map((p) => ({ email: p.email, name: p.name })),
    replyTo: null,
    messageIdHeader: `<${id}@example.com>`,
    size: 1000 + Math.floor(rand() * 9000),
    hasAttachments: false,
    headers: {},
    status,
    error: status === 'failed' ? 'expired: too long in the queue' : null,
    createdAt: created,
    sentAt: sent,
    updatedAt: created,
    recipients: people.map((p, k) => ({
      email: p.email,
      name: p.name,
      kind: k === 0 ? 'to' : 'cc',
      domain: p.email.slice(p.email.indexOf('@') + 1),
      state,
      reason: '',
      nextAttemptAt: state === 'deferred' ? end + 3_600_000 : null,
      queuedAt: createdMs,
      updatedAt: created,
    })),
  };
}

/** Writes `total` messages as the intake's recording would, in transactions of 50,000 (through the store's log loader). */
async function load(d: Deployment, sender: Sender): Promise<Loaded> {
  const loader = await logLoading.openLogLoader(d.dataDir, d.env.TERNMAIL_DATABASE_URL ?? null);
  const end = Date.now();
  const start = end - DAYS * 86_400_000;
  const step = (end - start) / total;
  const orderNumbers: string[] = [];
  const recipients: string[] = [];
  const began = Date.now();
  const TX = 50_000;
  for (let base = 0; base < total; base += TX) {
    const messages: LoadedMessage[] = [];
    for (let i = base; i < Math.min(total, base + TX); i++) {
      const m = syntheticMessage(i, Math.floor(start + i * step), end, sender);
      if (i % 997 === 0) {
        orderNumbers.push(String(100000 + i * 7));
        recipients.push(m.recipients[0]!.email);
      }
      messages.push(m);
    }
    await loader.writeBatch(messages);
    const done = Math.min(total, base + TX);
    if (done % 200_000 === 0 || done === total) log(`  ${fmt(done)} messages written (${fmt(done / ((Date.now() - began) / 1000))}/s)`);
  }
  await loader.checkpoint();
  await loader.close();
  return { start, end, orderNumbers, recipients };
}

// --- the queries ---

interface Kind {
  name: string;
  /** The query string of the i-th request. */
  query(i: number): Record<string, string>;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function kinds(l: Loaded): Kind[] {
  const dayAt = (i: number) => l.start + (((i * 7919) % (DAYS - 1)) + 1) * 86_400_000;
  const statuses = STATUS_MIX.map(([s]) => s);
  return [
    { name: 'no filter (first page)', query: () => ({}) },
    { name: 'search=<common subject word>', query: (i) => ({ search: VOCABULARY[i % 10]! }) },
    { name: 'search=<rare subject word>', query: (i) => ({ search: VOCABULARY[2500 + (i % 500)]! }) },
    { name: 'search=<order number>', query: (i) => ({ search: l.orderNumbers[i % l.orderNumbers.length]! }) },
    { name: 'search=<recipient address>', query: (i) => ({ search: l.recipients[(i * 31) % l.recipients.length]! }) },
    { name: 'status=<each status>', query: (i) => ({ status: statuses[i % statuses.length]! }) },
    { name: 'status=bounced', query: () => ({ status: 'bounced' }) },
    { name: 'from=<day>&to=<same day>', query: (i) => ({ from: day(dayAt(i)), to: day(dayAt(i)) }) },
    { name: 'from=<day>&to=<day + 6>', query: (i) => ({ from: day(dayAt(i) - 6 * 86_400_000), to: day(dayAt(i)) }) },
    { name: 'status=failed&from=<day>&to=<same day>', query: (i) => ({ status: 'failed', from: day(dayAt(i)), to: day(dayAt(i)) }) },
    // Combinations, and the deepest page the paging depth allows.
    { name: 'search=<common word>&status=<each>', query: (i) => ({ search: VOCABULARY[i % 10]!, status: statuses[i % statuses.length]! }) },
    { name: 'search=<common word>&from=<day>&to=<day + 6>', query: (i) => ({ search: VOCABULARY[i % 10]!, from: day(dayAt(i) - 6 * 86_400_000), to: day(dayAt(i)) }) },
    { name: 'no filter, page 400 (record 10,000)', query: () => ({ page: '400' }) },
  ];
}

/** The tables the load writes, as the log line names them. */
const WRITTEN = engineLabel === 'SQLite' ? 'messages, recipients, messages_fts' : 'messages, recipients, counters';

/** How the engine's plans are had: SQLite's EXPLAIN QUERY PLAN; PostgreSQL's EXPLAIN ANALYZE (the statement run once more). */
const EXPLAINED = engineLabel === 'SQLite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN ANALYZE';

/** A plan as printed: SQLite's few steps on the line; PostgreSQL's tree on lines of their own, its indentation kept. */
const planText = (plan: readonly string[]): string => (engineLabel === 'SQLite' ? plan.join(' | ') : ['', ...plan].join('\n        '));

/** What MessageStore.list() is asked for these filters, as the route turns the query string into it. */
function listQuery(q: Record<string, string>, pagingDepth: number): MessageQuery {
  return {
    page: Number(q.page ?? 1),
    perPage: 25,
    status: q.status as MessageStatus | undefined,
    from: q.from && `${q.from}T00:00:00.000Z`,
    to: q.to && `${q.to}T23:59:59.999Z`,
    search: q.search,
    searchCountLimit: pagingDepth, // what the route passes
  };
}

runBench('logs', 5400, async () => {
  // The search filter counts against the 300/min write bucket; the bench raises it, to time queries, not the limiter.
  const d = await benchDeployment('logs', { remotePort: 9, config: { limits: { writesPerMinute: 1_000_000 } } });
  // The API's own configuration, read as it reads it.
  const { pagingDepth } = loadConfig({ env: d.env }).limits;
  await d.startApi();
  const sender = await benchSender(d);
  await stopTern(d.api!);

  log(`\n[logs] writing ${fmt(total)} messages into the log on ${engineLabel} (${WRITTEN}) in transactions of 50,000`);
  const loadStarted = Date.now();
  const loaded = await load(d, sender);
  log(`  written in ${fmt((Date.now() - loadStarted) / 1000, 0)} s`);

  await d.startApi();
  const get = async (q: Record<string, string>) => {
    const res = await api(d.apiUrl, 'GET', `/v2/emails?${new URLSearchParams(q)}`, sender.adminKey);
    if (res.status !== 200) throw new Error(`GET /v2/emails?${new URLSearchParams(q)}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return res.body as { total?: number; data: unknown[] };
  };
  await get({}); // first request: opens and warms what a running API would have warm

  log(`\n[logs] GET /v2/emails, ${requests} sequential requests per kind, each with another value, ${fmt(total)} messages`);
  const explainer = await logLoading.openListExplainer(d.dataDir, d.env.TERNMAIL_DATABASE_URL ?? null);
  const lines: string[][] = [];
  const rows: BenchRow[] = [];
  const plans: string[] = [];
  for (const kind of kinds(loaded)) {
    const times: number[] = [];
    let matched = 0;
    let slowest = { ms: -1, i: 0 };
    const until = Date.now() + kindBudgetS * 1000;
    for (let i = 0; i < requests && Date.now() < until; i++) {
      const t0 = performance.now();
      const body = await get(kind.query(i));
      const ms = performance.now() - t0;
      times.push(ms);
      if (ms > slowest.ms) slowest = { ms, i };
      matched += body.data.length;
    }
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 50);
    const p95 = percentile(times, 95);
    const slow = p95 >= 50;
    lines.push([kind.name, String(times.length), fmt(matched / times.length, 1), fmt(p50, 1), fmt(p95, 1), fmt(times[times.length - 1]!, 1), slow ? 'SLOW' : '']);
    rows.push({
      metric: `GET /v2/emails ${kind.name}, ${fmt(total)} msgs, ${times.length} req [${engineLabel}]: p50 | p95`,
      value: `${fmt(p50, 1)} | ${fmt(p95, 1)} ms`,
      target: 'p95 < 50 ms',
    });

    // Why: the plan of both statements list() runs for the slowest request of the kind, and their time in
    // the engine alone (median of 3).
    const sample = kind.query(slowest.i);
    const parts = (await explainer.explainList(sender.accountId, listQuery(sample, pagingDepth), 3)).map(({ statement, plan, runsMs }) => {
      const ms = [...runsMs].sort((a, b) => a - b);
      return `    ${statement.padEnd(5)} ${fmt(ms[1]!, 1).padStart(7)} ms  ${planText(plan)}`;
    });
    plans.push(`  ${slow ? '[SLOW] ' : ''}${kind.name}  slowest: ?${new URLSearchParams(sample)} (${fmt(slowest.ms, 1)} ms over HTTP)\n${parts.join('\n')}`);
    log(`  ${kind.name}: p50 ${fmt(p50, 1)} ms, p95 ${fmt(p95, 1)} ms over ${times.length} requests`);
  }
  await explainer.close();

  log('\n' + table(['query', 'requests', 'rows/page', 'p50 ms', 'p95 ms', 'max ms', 'p95 ≥ 50 ms'], lines));
  log(`\n[logs] what ${engineLabel} does for each (${EXPLAINED} of the SQL MessageStore.list() runs: the page, then the COUNT(*) for`);
  log(`the total), with each statement's time in ${engineLabel} alone:`);
  log(plans.join('\n'));
  return { bench: 'logs', rows };
});
