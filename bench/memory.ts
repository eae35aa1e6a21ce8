// bench/memory: the MTA's resident memory while it holds BENCH_MEM_N (100,000) messages that cannot be
// delivered: the MX resolves to loopback but the remote SMTP port is closed, so every attempt is deferred.
// Messages go in through POST /v2/emails/batch (100 per request). RSS is read from /proc/<pid>/status while
// they are submitted, while the MTA tries them once and defers them, and while it then holds them.
// Env: BENCH_MEM_N (100000), BENCH_MEM_CONCURRENCY (4 batch requests at a time), BENCH_MEM_SETTLE_S (600: the
// longest wait for every message's first attempt),
// BENCH_MEM_HOLD_S (30).
import { freePort } from '../harness/ports.js';
import { pause } from '../harness/wait.js';
import {
  api, envInt, fmt, log, memoryOf, mtaMetric, queueDepth, runBench, deliveryDeployment, stopTern, table, filler, type BenchRow,
} from './lib.js';

const total = envInt('BENCH_MEM_N', 100_000);
const concurrency = envInt('BENCH_MEM_CONCURRENCY', 4);
const settleS = envInt('BENCH_MEM_SETTLE_S', 600);
const holdS = envInt('BENCH_MEM_HOLD_S', 30);
const BATCH = 100;

runBench('memory', 3600, async () => {
  const closedPort = await freePort(); // nothing listens here: the "sink is down"
  const { d, mta, api: apiProcess, sender } = await deliveryDeployment('memory', closedPort);

  // RSS of the MTA, sampled every second for the whole run.
  const samples: Array<{ at: number; rssMb: number; phase: string }> = [];
  let phase = 'submitting';
  const started = Date.now();
  const sampler = setInterval(() => {
    try {
      samples.push({ at: Date.now() - started, rssMb: memoryOf(mta.pid).rssMb, phase });
    } catch {
      // the process is gone
    }
  }, 1000);
  const idle = memoryOf(mta.pid).rssMb;

  log(`\n[memory] submitting ${fmt(total)} messages (1 KB, batches of ${BATCH}, ${concurrency} at a time); remote SMTP port ${closedPort} is closed`);
  const text = filler(1024);
  let next = 0;
  let accepted = 0;
  let refused = 0;
  let firstRefusal: string | undefined;
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
      const res = await api(d.apiUrl, 'POST', '/v2/emails/batch', sender.sendingKey, items);
      if (res.status !== 200) throw new Error(`POST /v2/emails/batch: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      for (const item of res.body.data as Array<{ message_id?: string; error?: unknown }>) {
        if (item.message_id) accepted++;
        else {
          refused++;
          firstRefusal ??= JSON.stringify(item.error).slice(0, 300);
        }
      }
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        log(`  ${fmt(accepted)} accepted (${fmt(accepted / ((Date.now() - started) / 1000))}/s), MTA RSS ${fmt(memoryOf(mta.pid).rssMb)} MB`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, submitter));
  const submitS = (Date.now() - started) / 1000;
  const afterSubmit = memoryOf(mta.pid).rssMb;
  if (firstRefusal) log(`  first refusal: ${firstRefusal}`);
  log(`  submitted: ${fmt(accepted)} accepted, ${fmt(refused)} refused, in ${fmt(submitS, 1)} s (${fmt(accepted / submitS)}/s); MTA RSS ${fmt(afterSubmit)} MB`);

  // Until every recipient has had its first attempt (as many deferred outcomes as messages), or the settle time passes.
  phase = 'first attempts';
  const settleDeadline = Date.now() + settleS * 1000;
  let depth = await queueDepth(d);
  let deferrals = 0;
  while (Date.now() < settleDeadline) {
    deferrals = (await mtaMetric(d, 'tern_recipient_outcomes_total', 'outcome')).deferred ?? 0;
    if (deferrals >= accepted) break;
    await pause(2000);
  }
  depth = await queueDepth(d);
  const settledS = (Date.now() - started) / 1000;
  log(`  ${fmt(deferrals)} attempts deferred after ${fmt(settledS, 0)} s; queue ${JSON.stringify(depth)}; MTA RSS ${fmt(memoryOf(mta.pid).rssMb)} MB`);

  phase = 'holding';
  await pause(holdS * 1000);
  clearInterval(sampler);
  depth = await queueDepth(d);
  const final = memoryOf(mta.pid);
  const apiMem = memoryOf(apiProcess.pid);
  const maxOf = (p: string) => {
    const of = samples.filter((s) => s.phase === p).map((s) => s.rssMb);
    return of.length ? Math.max(...of) : NaN;
  };
  // Where the memory is, as the MTA's own process metrics see it (prom-client's default metrics).
  const metricsText = await (await fetch(`http://127.0.0.1:${d.metricsPort}/metrics`)).text();
  const mb = (name: string) => Number(new RegExp(`^tern_process_${name} (\\S+)`, 'm').exec(metricsText)?.[1] ?? NaN) / 1024 / 1024;
  const held = (depth.queued ?? 0) + (depth.deferred ?? 0) + (depth.sending ?? 0);

  const lines = [
    ['idle, before submitting', fmt(idle)],
    [`max while submitting ${fmt(total)}`, fmt(maxOf('submitting'))],
    ['max after submitting, until every message was tried once', fmt(maxOf('first attempts'))],
    [`max while holding (${holdS} s)`, fmt(maxOf('holding'))],
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
