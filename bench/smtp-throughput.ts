// bench/smtp-throughput: authenticated STARTTLS submission, one message per session (a full TLS handshake
// each time), N 1 KB and N 100 KB messages at 20 and 50 concurrent sessions, delivered DKIM-signed by Tern to
// a sink on loopback. Prints accepted/s (250s seen by the generator) and delivered/s (the sink counted every
// accepted message, timed from the first connection), beside the generator's own ceiling against a plain
// smtp-server sink that also does STARTTLS and AUTH.
// Env: BENCH_N_1K (10000), BENCH_N_100K (2000), BENCH_CONCURRENCY (20,50), BENCH_GEN_WORKERS (2),
// BENCH_CEILING_SINK_PROCS (2: processes of the ceiling's smtp-server sink), BENCH_ENGINE (sqlite, or postgres),
// BENCH_MTAS (1: with more, the sessions are spread over that many MTA processes sharing the queue).
import type { ChildProcess } from 'node:child_process';
import { pause, until } from '../test/harness/wait.js';
import {
  ask,
  cpuSecondsOf,
  engineLabel,
  envInt,
  fmt,
  forkScript,
  log,
  nextMessage,
  runBench,
  deliveryDeployment,
  stopChild,
  stopTern,
  table,
  type BenchRow,
} from './lib.js';
import type { RunResult, RunSpec } from './smtp-gen.js';

interface SinkStats {
  count: number;
  signed: number;
  firstAt: number;
  lastAt: number;
}

const sizes = [
  { label: '1 KB', size: 1024, n: envInt('BENCH_N_1K', 10_000), target: 600 },
  { label: '100 KB', size: 100 * 1024, n: envInt('BENCH_N_100K', 2_000), target: 300 },
];
/** How many `ternmail mta` processes share the queue (BENCH_MTAS), and the store they run on (BENCH_ENGINE). */
const mtaCount = envInt('BENCH_MTAS', 1);
const setup = `${engineLabel}, ${mtaCount} MTA${mtaCount === 1 ? '' : 's'}`;
const concurrencies = (process.env.BENCH_CONCURRENCY ?? '20,50')
  .split(',')
  .map((c) => Number(c.trim()))
  .filter((c) => c > 0);

function runGenerator(gen: ChildProcess, spec: Pick<RunSpec, 'ports' | 'n' | 'concurrency' | 'size'> & Partial<RunSpec>): Promise<RunResult> {
  const full: RunSpec = { user: 'bench', from: 'sender@example.com', toLocal: 'rcpt', toDomain: 'dest.test', pass: 'x', ...spec };
  return ask<RunResult>(gen, { type: 'run', ...full }, 'done', 120_000 + full.n * 200);
}

type Size = (typeof sizes)[number];

/** 1. The generator's ceiling: the same sessions against smtp-server (STARTTLS + AUTH) in its own process, by size/sessions. */
async function measureCeiling(gen: ChildProcess): Promise<Map<string, number>> {
  const sinkProcs = envInt('BENCH_CEILING_SINK_PROCS', 2);
  log(`\n[smtp] load generator ceiling against a plain smtp-server sink (STARTTLS + AUTH, one message per session, ${sinkProcs} sink process(es))`);
  const ceilingSink = forkScript('sink', ['smtp-server', String(sinkProcs)]);
  const { port: ceilingPort } = await nextMessage<{ port: number }>(ceilingSink, 'listening');
  const ceiling = new Map<string, number>();
  await runGenerator(gen, { ports: [ceilingPort], n: 100, concurrency: 10, size: 1024 }); // warm-up
  for (const s of sizes) {
    for (const c of concurrencies) {
      const cpu0 = [gen.pid!, ceilingSink.pid!].map(cpuSecondsOf);
      const r = await runGenerator(gen, { ports: [ceilingPort], n: s.n, concurrency: c, size: s.size });
      const [genCpu, sinkCpu] = [gen.pid!, ceilingSink.pid!].map((pid, k) => cpuSecondsOf(pid) - cpu0[k]!);
      const rate = r.accepted / (r.elapsedMs / 1000);
      ceiling.set(`${s.label}/${c}`, rate);
      // The generator's own cost per message says what it could do with both cores to itself.
      const perMessageMs = (genCpu! / r.accepted) * 1000;
      log(
        `  ${s.label} x ${fmt(s.n)} at ${c} sessions: ${fmt(rate)} msg/s; generator ${fmt(perMessageMs, 2)} ms CPU per message ` +
          `(alone on 2 cores: ~${fmt(2000 / perMessageMs)} msg/s)` +
          (sinkProcs === 1 ? `, sink ${fmt((sinkCpu! / r.accepted) * 1000, 2)} ms` : '') +
          (r.failed ? ` (${r.failed} failed: ${r.errors[0]})` : ''),
      );
    }
  }
  await stopChild(ceilingSink, 5000);
  return ceiling;
}

/** Tern under load: the generator, the fast sink, the MTAs, and how to submit through them. */
interface TernRun {
  gen: ChildProcess;
  sink: ChildProcess;
  /** Every MTA process: their CPU is counted together. */
  mtaPids: number[];
  submit: (spec: Pick<RunSpec, 'n' | 'concurrency' | 'size'>) => Promise<RunResult>;
  sinkStats: () => Promise<SinkStats>;
}

/** One size at one concurrency through Tern: its table line and its result row. */
async function measureTern(run: TernRun, s: Size, c: number, cap: number): Promise<{ line: string[]; row: BenchRow }> {
  const { gen, sink, mtaPids } = run;
  await ask(sink, { type: 'reset' }, 'reset');
  const cpuOf = () => [mtaPids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0), cpuSecondsOf(gen.pid!), cpuSecondsOf(sink.pid!)];
  const cpu0 = cpuOf();
  const started = Date.now();
  const r = await run.submit({ n: s.n, concurrency: c, size: s.size });
  const submittedAt = started + r.elapsedMs;
  await until(`${r.accepted} messages at the sink`, async () => (await run.sinkStats()).count >= r.accepted, 120_000 + s.n * 100, 100);
  const st = await ask<SinkStats & { arrivals: number[] }>(sink, { type: 'stats', arrivals: true }, 'stats', 10_000);
  const wall = (st.lastAt - started) / 1000;
  const cpu = cpuOf().map((seconds, k) => `${fmt(((seconds - cpu0[k]!) / wall) * 100)}%`);
  const accepted = r.accepted / (r.elapsedMs / 1000);
  const delivered = st.count / wall;
  // The bulk without stragglers: 99% of the messages, and how many came more than 5 s after the last 250.
  const sorted = [...st.arrivals].sort((a, b) => a - b);
  const n99 = Math.ceil(sorted.length * 0.99);
  const delivered99 = n99 / ((sorted[n99 - 1]! - started) / 1000);
  const late = sorted.filter((at) => at - submittedAt > 5000).length;
  const lateText = late ? `${late} (last +${fmt((st.lastAt - submittedAt) / 1000)} s)` : '0';
  log(
    `  ${s.label} x ${fmt(s.n)} at ${c}: accepted ${fmt(accepted)}/s, delivered ${fmt(delivered)}/s (first 99%: ${fmt(delivered99)}/s, late: ${lateText}; ceiling ${fmt(cap)}/s)` +
      (r.failed ? `; ${r.failed} failed, e.g. ${r.errors[0]}` : ''),
  );
  return {
    line: [s.label, fmt(s.n), String(c), fmt(accepted), fmt(delivered), fmt(delivered99), lateText, fmt(cap), String(r.failed), String(st.count - st.signed), ...cpu],
    row: {
      metric: `SMTP ${s.label}, N=${fmt(s.n)}, ${c} sessions, ${setup}: accepted/s | delivered/s [first 99%] (gen ceiling)`,
      value: `${fmt(accepted)} | ${fmt(delivered)} [${fmt(delivered99)}] (${fmt(cap)})`,
      target: `delivered ≥ ${s.target}/s`,
    },
  };
}

/**
 * 2. Tern: BENCH_MTAS MTAs on one store and Redis, each with submission on a STARTTLS port, the sessions spread
 * over them, delivering to the fast sink through a loopback MX.
 */
async function startTernRun(gen: ChildProcess): Promise<TernRun> {
  const sink = forkScript('sink', ['fast']);
  const { port: sinkPort } = await nextMessage<{ port: number }>(sink, 'listening');
  const { d, mta, api: apiProcess, sender } = await deliveryDeployment('smtp', sinkPort);
  const more = [];
  for (let i = 1; i < mtaCount; i++) more.push(await d.addNode('mta'));
  await stopTern(apiProcess); // not needed for SMTP: out of the way
  const sinkStats = () => ask<SinkStats>(sink, { type: 'stats' }, 'stats', 10_000);
  const ports = [d.starttlsPort, ...more.map((node) => node.starttlsPort)];
  const submit = (spec: Pick<RunSpec, 'n' | 'concurrency' | 'size'>) => runGenerator(gen, { ports, pass: sender.sendingKey, ...spec });
  const warm = await submit({ n: 100, concurrency: 10, size: 1024 });
  if (warm.failed) throw new Error(`warm-up submissions failed: ${warm.errors.join('; ')}`);
  await until('the warm-up messages at the sink', async () => (await sinkStats()).count >= warm.accepted, 60_000, 100);
  return { gen, sink, mtaPids: [mta.pid, ...more.map((node) => node.process.pid)], submit, sinkStats };
}

runBench('smtp-throughput', 3600, async () => {
  const gen = forkScript('smtp-gen');
  await nextMessage(gen, 'ready');
  const ceiling = await measureCeiling(gen);
  const run = await startTernRun(gen);

  log(`\n[smtp] Tern (${setup}): authenticated STARTTLS submission → DKIM-signed delivery to a loopback sink (MTA pids ${run.mtaPids.join(', ')})`);
  const headers = ['size', 'N', 'sessions', 'accepted/s', 'delivered/s', 'first 99%/s', 'late', 'gen ceiling/s', 'failed', 'unsigned', 'MTA CPU', 'gen CPU', 'sink CPU'];
  const lines: string[][] = [];
  const rows: BenchRow[] = [];
  for (const s of sizes) {
    for (const c of concurrencies) {
      const { line, row } = await measureTern(run, s, c, ceiling.get(`${s.label}/${c}`) ?? NaN);
      lines.push(line);
      rows.push(row);
      await pause(1000);
    }
  }
  log('\n' + table(headers, lines));
  log('accepted/s: 250 replies per second at the generator. delivered/s: messages at the sink per second, from the first connection to the');
  log('last message received; "first 99%": the same up to the 99th percentile arrival; "late": messages arriving more than 5 s after the');
  log('last 250. "unsigned": delivered without a DKIM-Signature header (should be 0). CPU: share of one core over the run.');
  await stopChild(gen, 5000);
  return { bench: 'smtp-throughput', rows };
});
