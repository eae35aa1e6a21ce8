// bench/pages: the dashboard's web pages with BENCH_PAGES_MESSAGES (1,000,000) messages in the signed-in team's
// log (written straight into SQLite by the store's log loader, as the logs bench does). An owner made with the
// CLI signs in through the sign-in page's form, chooses its password, then each page is asked for
// BENCH_PAGES_REQS (200) times in sequence, as a browser asks (session cookie, Accept-Encoding: br), timing the
// first byte of the answer; and each page's weight as a browser fetches it the first time: its compressed HTML
// plus the compressed stylesheets and scripts it links (chart data, fetched afterwards, not counted).
// The targets: first byte p95 under 50 ms; no page over 100 KB transferred.
// Env: BENCH_PAGES_MESSAGES (1000000), BENCH_PAGES_REQS (200).
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { logLoading } from '../shared/store/index.js';
import type { LoadedMessage } from '../shared/store/log-loader.js';
import { runCli } from '../test/harness/ternmail.js';
import { benchDeployment, benchSender, envInt, fmt, log, percentile, runBench, stopTern, table, type BenchRow, type Deployment, type Sender } from './lib.js';
import { pickStatus } from './status-mix.js';
import { loadedMessage } from './loaded-message.js';

const messageCount = envInt('BENCH_PAGES_MESSAGES', 1_000_000);
const requests = envInt('BENCH_PAGES_REQS', 200);
const DAYS = 30;
const PASSWORD = 'bench owner password';
const WORDS = ['invoice', 'receipt', 'order', 'shipped', 'welcome', 'reset', 'weekly', 'report', 'reminder', 'payment'];

let state = 11; // the same data on every run
const rand = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;

/** Ids of some of the messages written, spread over the log: the message page is asked for each in turn. */
const sampleIds: string[] = [];
let domainId = '';

async function loadMessages(d: Deployment, sender: Sender): Promise<void> {
  const loader = await logLoading.openLogLoader(d.dataDir, d.env.TERNMAIL_DATABASE_URL ?? null);
  const end = Date.now();
  const start = end - DAYS * 86_400_000;
  const step = (end - start) / messageCount;
  const TX = 50_000;
  for (let base = 0; base < messageCount; base += TX) {
    const batch: LoadedMessage[] = [];
    for (let i = base; i < Math.min(messageCount, base + TX); i++) {
      const [status, recipientState] = pickStatus(rand);
      const email = `user${Math.floor(rand() * 100_000)}@dest${i % 50}.test`;
      const subject = `${WORDS[i % WORDS.length]} #${100000 + i}`;
      const createdMs = Math.floor(start + i * step);
      const message = loadedMessage({
        i,
        teamId: sender.accountId,
        domainId: sender.domainId,
        sendingKeyId: sender.sendingKeyId,
        subject,
        email,
        status,
        recipientState,
        createdMs,
        endMs: end,
      });
      batch.push(message);
      if (i % Math.max(1, Math.floor(messageCount / 100)) === 0) sampleIds.push(message.id);
    }
    await loader.writeBatch(batch);
    if ((base + TX) % 200_000 === 0) log(`  ${fmt(Math.min(messageCount, base + TX))} messages written`);
  }
  await loader.checkpoint();
  await loader.close();
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  firstByteMs: number;
}

/** A GET as a browser makes it; the time until the answer's status line and headers arrived. */
function get(baseUrl: string, path: string, cookie: string): Promise<Answer> {
  const url = new URL(path, baseUrl);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers: { cookie, 'accept-encoding': 'br, gzip' } }, (res) => {
      const firstByteMs = performance.now() - t0;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), firstByteMs }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The answer's text, decoded as the browser would. */
function textOf(a: Answer): string {
  const encoding = a.headers['content-encoding'];
  const body = encoding === 'br' ? brotliDecompressSync(a.body) : encoding === 'gzip' ? gunzipSync(a.body) : a.body;
  return body.toString('utf8');
}

function postForm(baseUrl: string, path: string, cookie: string, form: Record<string, string>): Promise<{ status: number; setCookie: string }> {
  return fetch(new URL(path, baseUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  }).then((res) => ({ status: res.status, setCookie: (res.headers.get('set-cookie') ?? '').split(';')[0]! }));
}

/** A user made with the CLI (`create`: its arguments), signed in through the page's form, its one-time password changed on the page. */
async function pageSession(baseUrl: string, env: NodeJS.ProcessEnv, email: string, create: string[]): Promise<string> {
  const made = await runCli([...create, '--email', email], env);
  if (made.code !== 0) throw new Error(`${create.join(' ')}: ${made.stderr}`);
  const oneTime = (made.json as { one_time_password: string }).one_time_password;
  const signedIn = await postForm(baseUrl, '/wp-login.php', '', { email, password: oneTime });
  const shown = textOf(await get(baseUrl, '/change-password', signedIn.setCookie));
  const nonce = /name="_wpnonce" value="([0-9a-f]{10})"/.exec(shown)?.[1];
  if (!nonce) throw new Error(`no form token on /change-password (sign-in: ${signedIn.status}): ${shown.slice(0, 200)}`);
  const changed = await postForm(baseUrl, '/change-password', signedIn.setCookie, { _wpnonce: nonce, current_password: oneTime, new_password: PASSWORD });
  if (changed.status !== 303) throw new Error(`password change: ${changed.status}`);
  return signedIn.setCookie;
}

/** The pages measured; `path(i)` gives each request another value where the page takes one. */
interface MeasuredPage {
  name: string;
  path(i: number): string;
  /** Who asks for it: the account's owner (default) or a platform operator. */
  as?: 'operator';
}

function pages(accountId: number): MeasuredPage[] {
  const op = (name: string, path: (i: number) => string): MeasuredPage => ({ name: `admin: ${name}`, path, as: 'operator' });
  return [
    { name: 'overview', path: () => '/' },
    { name: 'logs', path: () => '/logs' },
    { name: 'logs search', path: (i) => `/logs?search=${WORDS[i % WORDS.length]!}` },
    { name: 'logs status', path: (i) => `/logs?status=${['sent', 'bounced', 'pending'][i % 3]!}` },
    { name: 'message', path: (i) => `/logs/${sampleIds[i % sampleIds.length]!}` },
    { name: 'suppressions', path: () => '/suppressions' },
    { name: 'domains', path: () => '/domains' },
    { name: 'domain', path: () => `/domains/${domainId}` },
    { name: 'statistics (30 days by day)', path: () => '/statistics' },
    { name: 'statistics (7 days by hour)', path: () => '/statistics?interval=hour&days=7' },
    { name: 'keys', path: () => '/keys' },
    { name: 'webhooks', path: () => '/webhooks' },
    { name: 'team', path: () => '/team' },
    { name: 'profile', path: () => '/profile' },
    { name: 'security', path: () => '/security' },
    { name: 'billing', path: () => '/billing' },
    op('platform', () => '/admin'),
    op('tenants', () => '/admin/tenants'),
    op('a tenant', () => `/admin/tenants/${accountId}`),
    op('domains', () => '/admin/domains'),
    op('logs', () => '/admin/logs'),
    op('logs search', (i) => `/admin/logs?search=${WORDS[i % WORDS.length]!}`),
    op('a message', (i) => `/admin/logs/${1 + ((i * 4999) % messageCount)}`),
    op('credits', () => '/admin/credits'),
    op('invitations', () => '/admin/invitations'),
    op('suppressions', () => '/admin/suppressions'),
    op('audit log', () => '/admin/audit-log'),
  ];
}

/** What a first visit transfers: the page compressed, and every stylesheet and script it links, compressed. */
async function weightKb(baseUrl: string, path: string, cookie: string): Promise<number> {
  const answer = await get(baseUrl, path, cookie);
  const assets = [...textOf(answer).matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  let bytes = answer.body.length;
  for (const asset of new Set(assets)) bytes += (await get(baseUrl, asset, '')).body.length;
  return bytes / 1024;
}

runBench('pages', 5400, async () => {
  const d = await benchDeployment('pages', { remotePort: 9 });
  await d.startApi();
  const sender = await benchSender(d);
  await stopTern(d.api!);
  log(`\n[pages] writing ${fmt(messageCount)} messages into the team's log`);
  domainId = sender.domainId;
  await loadMessages(d, sender);
  await d.startApi();
  const owner = await pageSession(d.apiUrl, d.env, 'owner@bench.test', ['user', 'create', '--account', String(sender.accountId), '--role', 'owner']);
  const operator = await pageSession(d.apiUrl, d.env, 'operator@bench.test', ['operator', 'create']);

  log(`\n[pages] ${requests} sequential requests per page, ${fmt(messageCount)} messages in the log`);
  const lines: string[][] = [];
  const rows: BenchRow[] = [];
  for (const p of pages(sender.accountId)) {
    const cookie = p.as === 'operator' ? operator : owner;
    const first = await get(d.apiUrl, p.path(0), cookie);
    if (first.status !== 200) throw new Error(`GET ${p.path(0)}: ${first.status}`);
    const times: number[] = [];
    for (let i = 0; i < requests; i++) times.push((await get(d.apiUrl, p.path(i), cookie)).firstByteMs);
    times.sort((a, b) => a - b);
    const [p50, p95] = [percentile(times, 50), percentile(times, 95)];
    const kb = await weightKb(d.apiUrl, p.path(0), cookie);
    lines.push([p.name, fmt(p50, 1), fmt(p95, 1), fmt(times.at(-1)!, 1), fmt(kb, 1), p95 >= 50 || kb > 100 ? 'OVER' : '']);
    rows.push({ metric: `page ${p.name}: first byte p50 | p95, weight`, value: `${fmt(p50, 1)} | ${fmt(p95, 1)} ms, ${fmt(kb, 1)} KB`, target: 'p95 < 50 ms, < 100 KB' });
  }
  await stopTern(d.api!);
  log(`\n${table(['page', 'p50 ms', 'p95 ms', 'max ms', 'KB (br)', ''], lines)}`);
  return { bench: 'pages', rows };
});
