// bench/http-send: POST /v2/emails with 1 KB text bodies from 50 concurrent keep-alive clients (a generator in
// its own process) for BENCH_HTTP_S seconds (15). Two phases: (A) the MTA running and delivering what is
// sent to a loopback sink, as in production; (B) the MTA stopped, the API alone (messages stay queued).
// Each phase runs twice: closed loop (each client sends as soon as it has its answer: the capacity, with the
// latency of a saturated server) and open loop at BENCH_HTTP_RATE requests/s on a fixed schedule (the latency
// at that offered load, counted from each request's scheduled time). Prints requests/s and p50/p90/p99.
// Env: BENCH_HTTP_S (15), BENCH_HTTP_CLIENTS (50), BENCH_HTTP_RATE (1000), BENCH_ENGINE (sqlite, or postgres).
import type { ChildProcess } from 'node:child_process';
import type { LongRunning } from '../test/harness/ternmail.js';
import { pause, until } from '../test/harness/wait.js';
import { ask, engineLabel, envInt, fmt, forkScript, log, nextMessage, runBench, deliveryDeployment, stopTern, table, cpuSecondsOf, type BenchRow } from './lib.js';
import type { HttpRunResult, HttpRunSpec } from './http-gen.js';

const durationS = envInt('BENCH_HTTP_S', 15);
const clients = envInt('BENCH_HTTP_CLIENTS', 50);
const rate = envInt('BENCH_HTTP_RATE', 1000);

/** A deployment under load: the sink, the generator, the API and the MTA, and the table being filled. */
interface HttpRun {
  sink: ChildProcess;
  gen: ChildProcess;
  api: LongRunning;
  mta: LongRunning;
  spec: (seconds: number, offered?: number) => HttpRunSpec;
  sinkCount: () => Promise<number>;
  lines: string[][];
  rows: BenchRow[];
}

const headers = ['phase', 'load', 'clients', 'seconds', 'requests', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'non-200', 'API CPU', 'MTA CPU', 'gen CPU'];

/** The sink, the deployment delivering to it and the generator, warmed up until the warm-up messages arrived. */
async function startHttpRun(): Promise<HttpRun> {
  const sink = forkScript('sink', ['fast']);
  const { port: sinkPort } = await nextMessage<{ port: number }>(sink, 'listening');
  const { d, mta, api, sender } = await deliveryDeployment('http', sinkPort);
  const gen = forkScript('http-gen');
  await nextMessage(gen, 'ready');
  const spec = (seconds: number, offered?: number): HttpRunSpec => ({
    url: d.apiUrl,
    key: sender.sendingKey,
    clients,
    durationS: seconds,
    bodyBytes: 1024,
    rate: offered,
  });
  const sinkCount = async () => (await ask<{ count: number }>(sink, { type: 'stats' }, 'stats')).count;
  const warm = await ask<HttpRunResult>(gen, { type: 'run', ...spec(2) }, 'done');
  if (!warm.ok) throw new Error(`warm-up sends failed: ${warm.errors.join('; ')}`);
  await until('the warm-up messages at the sink', async () => (await sinkCount()) >= warm.ok, 120_000, 200);
  return { sink, gen, api, mta, spec, sinkCount, lines: [], rows: [] };
}

/** One phase: closed loop, or `offered` requests/s; its line and row added to the run's table. */
async function phase(run: HttpRun, name: string, note: string, offered?: number): Promise<HttpRunResult> {
  await ask(run.sink, { type: 'reset' }, 'reset');
  const pids = [run.api.pid, run.mta.pid, run.gen.pid!];
  const cpu0 = pids.map(cpuSecondsOf);
  const r = await ask<HttpRunResult>(run.gen, { type: 'run', ...run.spec(durationS, offered) }, 'done', durationS * 1000 + 120_000);
  const load = offered === undefined ? 'closed loop' : `${fmt(offered)}/s offered`;
  const seconds = r.elapsedMs / 1000;
  const cpu = pids.map((pid, k) => {
    const used = cpuSecondsOf(pid) - cpu0[k]!;
    return Number.isFinite(used) ? `${fmt((used / seconds) * 100)}%` : '-';
  });
  const rps = r.ok / seconds;
  run.lines.push([
    name,
    load,
    String(clients),
    fmt(seconds, 1),
    fmt(r.ok + r.failed),
    fmt(rps),
    fmt(r.p50, 1),
    fmt(r.p90, 1),
    fmt(r.p99, 1),
    fmt(r.max, 1),
    String(r.failed),
    ...cpu,
  ]);
  log(`  ${name}, ${load}: ${fmt(rps)} req/s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms${r.failed ? `; ${r.failed} failed, e.g. ${r.errors[0]}` : ''}`);
  run.rows.push({
    metric: `HTTP POST /v2/emails 1 KB, ${engineLabel}, ${clients} clients, ${load}, ${durationS} s, ${note}: req/s | p50 | p99`,
    value: `${fmt(rps)} | ${fmt(r.p50, 1)} ms | ${fmt(r.p99, 1)} ms`,
    target: '≥ 1,000 req/s, p99 < 50 ms',
  });
  return r;
}

/** Waits until the `sent` messages of a phase reached the sink, and says how long after the phase that was. */
async function drained(run: HttpRun, label: string, sent: number): Promise<void> {
  const drainStart = Date.now();
  await until(`${label} messages at the sink`, async () => (await run.sinkCount()) >= sent, 300_000, 200);
  log(`  (${label}: all ${fmt(sent)} messages reached the sink ${fmt((Date.now() - drainStart) / 1000, 1)} s after the last request)`);
}

runBench('http-send', 900, async () => {
  const run = await startHttpRun();
  log(`\n[http] POST /v2/emails on ${engineLabel}, 1 KB text, ${clients} keep-alive clients, ${durationS} s per phase`);
  await drained(run, 'phase A', (await phase(run, 'A: MTA delivering', 'MTA delivering to a sink')).ok);
  await drained(run, 'phase A at a fixed rate', (await phase(run, 'A: MTA delivering', 'MTA delivering to a sink', rate)).ok);
  await stopTern(run.mta);
  await pause(1000);
  await phase(run, 'B: MTA stopped', 'MTA stopped (API only)');
  await phase(run, 'B: MTA stopped', 'MTA stopped (API only)', rate);
  log('\n' + table(headers, run.lines));
  return { bench: 'http-send', rows: run.rows };
});
