// `npm run bench`: runs the benchmarks one after the other, each in its own process (its own process
// group, killed whole if it overruns), shows their output, then prints one summary table of the figures.
// `npm run bench -- smtp logs` runs only those. Figures are printed, never asserted: the exit code is 0
// when every benchmark ran to its end, 1 when one crashed or overran.
// Env: BENCH_RUN_TIMEOUT_S (per benchmark, 5400), and each benchmark's own (see bench/README.md).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { loadavg } from 'node:os';
import { benchScript, table, type BenchResult } from './lib.js';

const ALL = [
  { key: 'smtp', script: 'smtp-throughput' },
  { key: 'http', script: 'http-send' },
  { key: 'memory', script: 'memory' },
  { key: 'logs', script: 'logs' },
  { key: 'stats', script: 'stats' },
  { key: 'admin', script: 'admin' },
  { key: 'content', script: 'content' },
  { key: 'pages', script: 'pages' },
  { key: 'postfix', script: 'postfix' },
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !ALL.some((b) => b.key === w || b.script === w));
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${ALL.map((b) => b.key).join(', ')}\n`);
  process.exit(2);
}
const selected = wanted.length ? ALL.filter((b) => wanted.includes(b.key) || wanted.includes(b.script)) : ALL;
const limitS = Number(process.env.BENCH_RUN_TIMEOUT_S ?? 5400);

function runOne(script: string): Promise<{ result: BenchResult | null; ok: boolean; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    // A process group of its own, so that an overrun takes its children (Tern, Redis, sinks) down with it.
    const child = spawn(process.execPath, [benchScript(script)], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    let result: BenchResult | null = null;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('BENCH_RESULT ')) result = JSON.parse(line.slice('BENCH_RESULT '.length)) as BenchResult;
      else process.stdout.write(line + '\n');
    });
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      process.stderr.write(`\n[run] ${script} overran ${limitS} s: stopping it\n`);
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 15_000).unref();
    }, limitS * 1000);
    const onSignal = () => kill('SIGTERM');
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    child.once('exit', (code) => {
      clearTimeout(timer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve({ result, ok: code === 0 && result !== null, seconds: (Date.now() - started) / 1000 });
    });
  });
}

const summary: string[][] = [];
let allOk = true;
let interrupted = false;
process.once('SIGINT', () => (interrupted = true));
process.once('SIGTERM', () => (interrupted = true));
for (const b of selected) {
  if (interrupted) break;
  process.stdout.write(`\n======== ${b.script} ========\n`);
  const { result, ok, seconds } = await runOne(b.script);
  if (!ok || !result) {
    allOk = false;
    summary.push([b.script, 'did not finish (see its output above)', '', '', `${seconds.toFixed(0)} s`]);
    continue;
  }
  result.rows.forEach((r, i) => summary.push([i === 0 ? b.script : '', r.metric, r.value, r.target ?? '', i === 0 ? `${seconds.toFixed(0)} s` : '']));
}

const [l1, l5] = loadavg();
process.stdout.write(`\n======== summary (load average now ${l1!.toFixed(2)} / ${l5!.toFixed(2)}) ========\n`);
process.stdout.write(table(['bench', 'measured', 'value', 'target', 'took'], summary) + '\n');
process.exit(allOk && !interrupted ? 0 : 1);
