// bench/memory: the MTA's resident memory while it holds BENCH_MEM_N (100,000) messages that cannot be
// delivered: the MX resolves to loopback but the remote SMTP port is closed, so every attempt is deferred.
// Messages go in through POST /v2/emails/batch (100 per request). RSS is read from /proc/<pid>/status while
// they are submitted, while the MTA tries them once and defers them, and while it then holds them.
// Env: BENCH_MEM_N (100000), BENCH_MEM_CONCURRENCY (4 batch requests at a time), BENCH_MEM_SETTLE_S (600: the
// longest wait for every message's first attempt),
// BENCH_MEM_HOLD_S (30).
import { freePort } from '../test/harness/ports.js';
import { pause } from '../test/harness/wait.js';
import type { Deployment } from '../test/harness/deployment.js';
import { api, envInt, fmt, log, memoryOf, mtaMetric, queueDepth, runBench, deliveryDeployment, stopTern, table, filler, type BenchRow } from './lib.js';

const total = envInt('BENCH_MEM_N', 100_000);
const concurrency = envInt('BENCH_MEM_CONCURRENCY', 4);
const settleS = envInt('BENCH_MEM_SETTLE_S', 600);
const holdS = envInt('BENCH_MEM_HOLD_S', 30);
const BATCH = 100;

type Phase = 'submitting' | 'first attempts' | 'holding';

/** RSS of the MTA, sampled every second for the whole run, each sample tagged with the run's phase. */
function startSampler(pid: number, started: number) {
  const samples: Array<{ at: number; rssMb: number; phase: Phase }> = [];
  const state = { phase: 'submitting' as Phase };
  const timer = setInterval(() => {
    try {
      samples.push({ at: Date.now() - started, rssMb: memoryOf(pid).rssMb, phase: state.phase });
    } catch {
      // the process is gone
    }
  }, 1000);
  return {
    enter: (phase: Phase) => (state.phase = phase),
    stop: () => clearInterval(timer),
    maxOf: (phase: Phase) => {
      const of = samples.filter((s) => s.phase === phase).map((s) => s.rssMb);
      return of.length ? Math.max(...of) : NaN;
    },
  };
}

interface Submitted {
  accepted: number;
  refused: number;
  firstRefusal?: string;
}

/** Submits `total` messages in batches, `concurrency` requests at a time, logging progress every 10 s. */
async function submitAll(d: Deployment, sendingKey: string, mtaPid: number, started: number): Promise<Submitted> {
  const text = filler(1024);
  const out: Submitted = { accepted: 0, refused: 0 };
  let next = 0;
  let lastReport = Date.now();
  const submitter = async () => {
    for (;;) {
      const first = next;
      if (first >= total) return;
      next += BATCH;
      const items = Array.from({ length: Math.min(BATCH, total - first) }, (_, k) => ({
        from: { email: 'sender@example.com' },
        to: [{ email: `rcpt${first + k}@dest.test` }],
        subject: `memory bench ${first + k}`,
        text,
      }));
      const res = await api(d.apiUrl, 'POST', '/v2/emails/batch', sendingKey, items);
      if (res.status !== 200) throw new Error(`POST /v2/emails/batch: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      for (const item of (res.body as { data: Array<{ message_id?: string; error?: unknown }> }).data) {
        if (item.message_id) out.accepted++;
        else {
          out.refused++;
          out.firstRefusal ??= JSON.stringify(item.error).slice(0, 300);
        }
      }
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        log(`  ${fmt(out.accepted)} accepted (${fmt(out.accepted / ((Date.now() - started) / 1000))}/s), MTA RSS ${fmt(memoryOf(mtaPid).rssMb)} MB`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, submitter));
  return out;
}

/** Waits until every recipient has had its first attempt (as many deferred outcomes as messages), or the settle time passes. */
async function awaitFirstAttempts(d: Deployment, accepted: number): Promise<number> {
  const settleDeadline = Date.now() + settleS * 1000;
  let deferrals = 0;
  while (Date.now() < settleDeadline) {
    deferrals = (await mtaMetric(d, 'tern_recipient_outcomes_total', 'outcome')).deferred ?? 0;
    if (deferrals >= accepted) break;
    await pause(2000);
  }
  return deferrals;
}

/** Where the memory is, as the MTA's own process metrics see it (prom-client's default metrics), in MB. */
async function processMetricsMb(d: Deployment): Promise<(name: string) => number> {
  const metricsText = await (await fetch(`http://127.0.0.1:${d.metricsPort}/metrics`)).text();
  return (name: string) => Number(new RegExp(`^tern_process_${name} (\\S+)`, 'm').exec(metricsText)?.[1] ?? NaN) / 1024 / 1024;
}

runBench('memory', 3600, async () => {
  const closedPort = await freePort(); // nothing listens here: the "sink is down"
  const { d, mta, api: apiProcess, sender } = await deliveryDeployment('memory', closedPort);
  const started = Date.now();
  const sampler = startSampler(mta.pid, started);
  const idle = memoryOf(mta.pid).rssMb;

  log(`\n[memory] submitting ${fmt(total)} messages (1 KB, batches of ${BATCH}, ${concurrency} at a time); remote SMTP port ${closedPort} is closed`);
  const { accepted, refused, firstRefusal } = await submitAll(d, sender.sendingKey, mta.pid, started);
  const submitS = (Date.now() - started) / 1000;
  const afterSubmit = memoryOf(mta.pid).rssMb;
  if (firstRefusal) log(`  first refusal: ${firstRefusal}`);
  log(`  submitted: ${fmt(accepted)} accepted, ${fmt(refused)} refused, in ${fmt(submitS, 1)} s (${fmt(accepted / submitS)}/s); MTA RSS ${fmt(afterSubmit)} MB`);

  sampler.enter('first attempts');
  const deferrals = await awaitFirstAttempts(d, accepted);
  let depth = await queueDepth(d);
  const settledS = (Date.now() - started) / 1000;
  log(`  ${fmt(deferrals)} attempts deferred after ${fmt(settledS, 0)} s; queue ${JSON.stringify(depth)}; MTA RSS ${fmt(memoryOf(mta.pid).rssMb)} MB`);

  sampler.enter('holding');
  await pause(holdS * 1000);
  sampler.stop();
  depth = await queueDepth(d);
  const final = memoryOf(mta.pid);
  const apiMem = memoryOf(apiProcess.pid);
  const mb = await processMetricsMb(d);
  const held = (depth.queued ?? 0) + (depth.deferred ?? 0) + (depth.sending ?? 0);

  const lines = [
    ['idle, before submitting', fmt(idle)],
    [`max while submitting ${fmt(total)}`, fmt(sampler.maxOf('submitting'))],
    ['max after submitting, until every message was tried once', fmt(sampler.maxOf('first attempts'))],
    [`max while holding (${holdS} s)`, fmt(sampler.maxOf('holding'))],
    ['at the end', fmt(final.rssMb)],
    ['peak (VmHWM)', fmt(final.peakMb)],
    ['  of which V8 heap used / heap total (end)', `${fmt(mb('nodejs_heap_size_used_bytes'))} / ${fmt(mb('nodejs_heap_size_total_bytes'))}`],
    ['  of which external memory, Buffers (end)', fmt(mb('nodejs_external_memory_bytes'))],
    ['API process at the end (for reference)', fmt(apiMem.rssMb)],
  ];
  log(`\n[memory] MTA RSS (MB), ${fmt(held)} recipients held (${JSON.stringify(depth)})`);
  log(table(['when', 'RSS MB'], lines));
  const rows: BenchRow[] = [
    {
      metric: `MTA RSS with ${fmt(accepted)} messages queued/deferred (sink down): end | peak`,
      value: `${fmt(final.rssMb)} MB | ${fmt(final.peakMb)} MB`,
      target: '< 300 MB',
    },
  ];
  await stopTern(mta);
  return { bench: 'memory', rows };
});
