// bench/postfix: Tern beside a real Postfix on the same box (issue 25). The same load generator (smtp-gen.ts:
// BENCH_CONCURRENCY sessions, one message per session, STARTTLS where the row has it, AUTH where the server
// asks) and the same sink (sink.ts `fast`, counting messages and the DKIM-signed ones) for every row, the rows
// one after another:
//   1. smtp-sink limit: the generator straight into smtp-server doing STARTTLS + AUTH (its ceiling);
//   2. Postfix plain: a private Postfix (postfix-instance.ts) relaying everything to the sink, no TLS;
//   3. Postfix STARTTLS: the same, STARTTLS offered (a self-signed RSA-2048 certificate) and used;
//   4. Postfix STARTTLS + OpenDKIM: the same with the OpenDKIM milter signing (RSA-2048, relaxed/relaxed),
//      after a probe message verified at the sink with the public key (mailauth);
//   5. Tern: authenticated STARTTLS submission, DKIM-signed delivery, fsync before 250 (smtp-throughput's
//      deployment, on BENCH_ENGINE).
// The figure is delivered/s: messages counted by the sink per second, from the generator's first connection to
// the last message at the sink. Prints the table of issue 25 and Tern ÷ Postfix STARTTLS at 1 KB and 100 KB.
// Env: BENCH_POSTFIX_N_1K (6000), BENCH_POSTFIX_N_100K (600), BENCH_CONCURRENCY (20), BENCH_GEN_WORKERS (2),
// BENCH_CEILING_SINK_PROCS (2), BENCH_ENGINE (sqlite, or postgres).
import type { ChildProcess } from 'node:child_process';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import type { DNSResolver } from 'mailauth';
import { until } from '../test/harness/wait.js';
import { dkimTxt, generateDkimKeyPair } from '../shared/dns-records.js';
import { ask, deliveryDeployment, engineLabel, envInt, fmt, forkScript, log, nextMessage, runBench, stopChild, stopTern, table, type BenchRow } from './lib.js';
import { INSTALL_LINE, missingPrograms, startOpenDkim, startPostfix, writeCertificate, type PostfixOptions } from './postfix-instance.js';
import type { RunResult, RunSpec } from './smtp-gen.js';

const sizes = [
  { label: '1 KB', size: 1024, n: envInt('BENCH_POSTFIX_N_1K', 6000), goal: 2.0 },
  { label: '100 KB', size: 100 * 1024, n: envInt('BENCH_POSTFIX_N_100K', 600), goal: 1.2 },
];
type Size = (typeof sizes)[number];
const concurrency = envInt('BENCH_CONCURRENCY', 20);
/** The From domain the generator sends, which OpenDKIM signs for, and its selector. */
const DOMAIN = 'example.com';
const SELECTOR = 'bench';
const TERN = `Tern (${engineLabel})`;

interface SinkStats {
  count: number;
  signed: number;
  lastAt: number;
}

/** One size through one setup. */
interface Measured {
  delivered: number;
  accepted: number;
  failed: number;
  unsigned: number;
}

/** What a row varies in the generator's sessions: where they go, STARTTLS, AUTH. */
type Target = Pick<RunSpec, 'ports'> & Partial<RunSpec>;

function runGenerator(gen: ChildProcess, spec: Target & Pick<RunSpec, 'n' | 'concurrency' | 'size'>): Promise<RunResult> {
  const full: RunSpec = { user: 'bench', from: `sender@${DOMAIN}`, toLocal: 'rcpt', toDomain: 'dest.test', pass: 'x', ...spec };
  return ask<RunResult>(gen, { type: 'run', ...full }, 'done', 120_000 + full.n * 200);
}

/** The bench's processes every row shares. */
interface Rig {
  gen: ChildProcess;
  sink: ChildProcess;
  sinkPort: number;
}

const sinkStats = (rig: Rig) => ask<SinkStats>(rig.sink, { type: 'stats' }, 'stats', 10_000);

/** 100 messages through `target` to the sink, so that no row is timed cold. */
async function warmUp(rig: Rig, target: Target): Promise<void> {
  await ask(rig.sink, { type: 'reset' }, 'reset');
  const warm = await runGenerator(rig.gen, { ...target, n: 100, concurrency: 10, size: 1024 });
  if (warm.failed) throw new Error(`warm-up sessions failed: ${warm.errors.join('; ')}`);
  await until('the warm-up messages at the sink', async () => (await sinkStats(rig)).count >= warm.accepted, 60_000, 100);
}

/** One size through `target` into the fast sink: delivered/s from the first connection to the last message at the sink. */
async function measure(rig: Rig, name: string, target: Target, s: Size): Promise<Measured> {
  await ask(rig.sink, { type: 'reset' }, 'reset');
  const started = Date.now();
  const r = await runGenerator(rig.gen, { ...target, n: s.n, concurrency, size: s.size });
  await until(`${r.accepted} messages at the sink`, async () => (await sinkStats(rig)).count >= r.accepted, 120_000 + s.n * 100, 100);
  const st = await sinkStats(rig);
  const m = { delivered: st.count / ((st.lastAt - started) / 1000), accepted: r.accepted / (r.elapsedMs / 1000), failed: r.failed, unsigned: st.count - st.signed };
  log(
    `  ${name}, ${s.label} x ${fmt(s.n)} at ${concurrency} sessions: accepted ${fmt(m.accepted)}/s, delivered ${fmt(m.delivered)}/s, ` +
      `${fmt(st.count)} at the sink, ${fmt(m.unsigned)} unsigned` +
      (r.failed ? `; ${r.failed} failed, e.g. ${r.errors[0]}` : ''),
  );
  return m;
}

/** Every size through `target` (after a warm-up). */
async function measureSizes(rig: Rig, name: string, target: Target): Promise<Measured[]> {
  await warmUp(rig, target);
  const out: Measured[] = [];
  for (const s of sizes) out.push(await measure(rig, name, target, s));
  return out;
}

/**
 * 1. The generator's ceiling: smtp-server with STARTTLS + AUTH (BENCH_CEILING_SINK_PROCS processes). It counts
 * a message as it answers 250, so its delivered/s is the generator's accepted/s (its processes share a port
 * and do not add up their counts).
 */
async function sinkLimit(rig: Rig): Promise<Measured[]> {
  const procs = envInt('BENCH_CEILING_SINK_PROCS', 2);
  log(`\n[postfix] 1. smtp-sink limit: the generator into smtp-server (STARTTLS + AUTH, ${procs} process(es))`);
  const sink = forkScript('sink', ['smtp-server', String(procs)]);
  const { port } = await nextMessage<{ port: number }>(sink, 'listening');
  const target: Target = { ports: [port], auth: 'offered' };
  await runGenerator(rig.gen, { ...target, n: 100, concurrency: 10, size: 1024 }); // warm-up
  const out: Measured[] = [];
  for (const s of sizes) {
    const r = await runGenerator(rig.gen, { ...target, n: s.n, concurrency, size: s.size });
    const rate = r.accepted / (r.elapsedMs / 1000);
    log(`  smtp-sink limit, ${s.label} x ${fmt(s.n)} at ${concurrency} sessions: ${fmt(rate)}/s` + (r.failed ? `; ${r.failed} failed, e.g. ${r.errors[0]}` : ''));
    out.push({ delivered: rate, accepted: rate, failed: r.failed, unsigned: NaN });
  }
  await stopChild(sink, 5000);
  return out;
}

/** mailauth's DNS for the probe: only the selector's TXT record, with the key OpenDKIM signs with. */
const keyResolver =
  (publicKey: string): DNSResolver =>
  (name, type) =>
    type === 'TXT' && name.toLowerCase() === `${SELECTOR}._domainkey.${DOMAIN}`
      ? Promise.resolve([[dkimTxt(publicKey)]])
      : Promise.reject(Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' }));

/** Sends one message through `target`, takes it whole from the sink, and checks its DKIM signature with the public key. */
async function probeSigned(rig: Rig, target: Target, publicKey: string): Promise<string> {
  await ask(rig.sink, { type: 'capture' }, 'capturing');
  const captured = nextMessage<{ message: string }>(rig.sink, 'captured', 60_000);
  captured.catch(() => undefined); // awaited below; a failed probe send must not leave it unhandled
  const r = await runGenerator(rig.gen, { ...target, n: 1, concurrency: 1, size: 1024 });
  if (r.failed) throw new Error(`the DKIM probe was not accepted: ${r.errors.join('; ')}`);
  const message = Buffer.from((await captured).message, 'base64');
  const header = /^DKIM-Signature:(.*(?:\r\n[ \t].*)*)/im.exec(message.toString('latin1'))?.[1]?.replace(/\s+/g, '') ?? '';
  const verified = await dkimVerify(message, { resolver: keyResolver(publicKey) });
  const pass = verified.results.find((v) => v.status.result === 'pass' && v.signingDomain === DOMAIN);
  if (!header || !pass || !/(^|;)c=relaxed\/relaxed(;|$)/.test(header) || !/(^|;)a=rsa-sha256(;|$)/.test(header)) {
    throw new Error(`the DKIM probe is not signed as configured: ${header || 'no DKIM-Signature'}; ${verified.results.map((v) => v.info).join('; ')}`);
  }
  return pass.info;
}

/** 2–4. A private Postfix relaying to the sink, in the clear, with STARTTLS, or with STARTTLS and OpenDKIM. */
async function postfixRow(rig: Rig, variant: 'plain' | 'starttls' | 'opendkim'): Promise<Measured[]> {
  const name = { plain: 'Postfix plain', starttls: 'Postfix STARTTLS', opendkim: 'Postfix STARTTLS + OpenDKIM' }[variant];
  log(`\n[postfix] ${{ plain: 2, starttls: 3, opendkim: 4 }[variant]}. ${name}: a private Postfix relaying to the fast sink`);
  const options: PostfixOptions = { sinkPort: rig.sinkPort };
  let key: { publicKey: string; privateKeyPem: string } | null = null;
  let dkim: { stop: () => Promise<void> } | null = null;
  if (variant === 'opendkim') {
    key = await generateDkimKeyPair(2048);
    const milter = await startOpenDkim({ domain: DOMAIN, selector: SELECTOR, keyPem: key.privateKeyPem });
    options.milterPort = milter.port;
    dkim = milter;
  }
  if (variant !== 'plain') options.tls = await writeCertificate();
  const instance = await startPostfix(options);
  const target: Target = { ports: [instance.port], starttls: variant !== 'plain', auth: 'offered' };
  if (key) log(`  probe: ${await probeSigned(rig, target, key.publicKey)}`);
  const out = await measureSizes(rig, name, target);
  await instance.stop();
  await dkim?.stop();
  return out;
}

/** 5. Tern: smtp-throughput's deployment (lib.ts), authenticated STARTTLS submission, DKIM-signed delivery to the sink. */
async function ternRow(rig: Rig): Promise<Measured[]> {
  log(`\n[postfix] 5. ${TERN}: authenticated STARTTLS submission, DKIM-signed delivery to the fast sink`);
  const { d, api, sender } = await deliveryDeployment('postfix', rig.sinkPort);
  await stopTern(api); // not needed for SMTP: out of the way
  return measureSizes(rig, TERN, { ports: [d.starttlsPort], pass: sender.sendingKey });
}

const COLUMNS = ['smtp-sink limit', 'Postfix plain', 'Postfix STARTTLS', 'Postfix STARTTLS + OpenDKIM', TERN];

/** The table of issue 25 (aligned, then as Markdown) and the result rows run.ts collects. */
function report(columns: Measured[][]): BenchRow[] {
  const ratio = (k: number) => columns[4]![k]!.delivered / columns[2]![k]!.delivered;
  const lines = sizes.map((s, k) => [s.label, ...columns.map((c) => fmt(c[k]!.delivered)), `${fmt(ratio(k), 2)}×`]);
  const headers = ['delivered/s', ...COLUMNS, `${TERN} ÷ Postfix STARTTLS`];
  log(`\n${table(headers, lines)}\n`);
  log(`| ${headers.join(' | ')} |\n|${headers.map(() => '---').join('|')}|\n${lines.map((l) => `| ${l.join(' | ')} |`).join('\n')}`);
  log(`\nN = ${sizes.map((s) => `${fmt(s.n)} × ${s.label}`).join(', ')}, ${concurrency} sessions, one message per session. delivered/s: messages at the sink`);
  log('per second, from the first connection to the last message at the sink (smtp-sink limit: 250s per second at the generator).');
  const failed = columns.flatMap((c, i) => c.map((m, k) => (m.failed ? `${COLUMNS[i]} ${sizes[k]!.label}: ${m.failed}` : ''))).filter(Boolean);
  const unsigned = [3, 4].flatMap((i) => columns[i]!.map((m, k) => (m.unsigned ? `${COLUMNS[i]} ${sizes[k]!.label}: ${m.unsigned}` : ''))).filter(Boolean);
  if (failed.length) log(`failed sessions (not counted): ${failed.join(', ')}`);
  if (unsigned.length) log(`delivered without a DKIM-Signature (should be none): ${unsigned.join(', ')}`);
  return sizes.flatMap((s, k) => [
    {
      metric: `delivered/s ${s.label}, N=${fmt(s.n)}, ${concurrency} sessions: ${COLUMNS.join(' | ')}`,
      value: columns.map((c) => fmt(c[k]!.delivered)).join(' | '),
    },
    { metric: `${TERN} ÷ Postfix STARTTLS, ${s.label}`, value: `${fmt(ratio(k), 2)}×`, target: `≥ ${s.goal.toFixed(1)}×` },
  ]);
}

const missing = missingPrograms();
if (missing.length) {
  process.stderr.write(`[postfix] ${missing.join(', ')} not installed: this benchmark runs a private Postfix and OpenDKIM. Install them with\n  ${INSTALL_LINE}\n`);
  process.exit(1);
}

runBench('postfix', 3600, async () => {
  const gen = forkScript('smtp-gen');
  await nextMessage(gen, 'ready');
  const sink = forkScript('sink', ['fast']);
  const { port: sinkPort } = await nextMessage<{ port: number }>(sink, 'listening');
  const rig: Rig = { gen, sink, sinkPort };
  const columns = [await sinkLimit(rig)];
  for (const variant of ['plain', 'starttls', 'opendkim'] as const) columns.push(await postfixRow(rig, variant));
  columns.push(await ternRow(rig));
  const rows = report(columns);
  await stopChild(gen, 5000);
  return { bench: 'postfix', rows };
});
