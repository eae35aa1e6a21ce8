// The suppression export's memory bound, measured where it matters: a real `ternmail api` process streams
// 100,000 suppressions as CSV to a client that reads slowly, and its VmRSS (/proc) is sampled all along.
// Measured in the serving process alone, started as production starts it (its node flags, nothing of tap's
// loaded into it): the test's own reading and its garbage never count. The heap is printed on every run.
import t from 'tap';
import { startDeployment } from './harness/deployment.js';
import { runCli } from './harness/ternmail.js';
import { memoryOf } from './harness/process-memory.js';
import { freePort } from './harness/ports.js';
import { serviceNodeFlags } from '../shared/node-flags.js';

const ROWS = 100_000;
const EXPORT = '/api/tern/v2/suppressions/export';
const WARM_UP_PAGES = 600;

t.test('an export of 100,000 suppressions streams with the API process’s RSS growing by less than 50 MB', async (t) => {
  // No MTA runs: its MX port is a closed one. The API runs with the node flags production gives it (its young
  // generation, up to 64 MB a semi-space, is part of what an export can grow).
  const d = await startDeployment({ name: 'export', remotePort: await freePort(), nodeArgs: (role) => serviceNodeFlags(role) });
  t.teardown(() => d.close());
  const account = await runCli(['account', 'create', '--name', 'Exporter'], d.env);
  t.equal(account.code, 0, account.stderr);
  const accountId = (account.json as { id: number }).id;
  const user = await runCli(['user', 'create', '--account', String(accountId), '--email', 'owner@export.test', '--role', 'owner'], d.env);
  t.equal(user.code, 0, user.stderr);
  const password = (user.json as { one_time_password: string }).one_time_password;
  const store = await d.store();
  const reason = `550 5.1.1 mailbox unavailable ${'x'.repeat(60)}`;
  for (let i = 0; i < ROWS; i += 1000) {
    const batch = Array.from({ length: 1000 }, (_, j) => ({ email: `user${i + j}@bulk.test`, status: 'bounced' as const, reason, messageId: `msg-${i + j}` }));
    await Promise.all(batch.map((s) => store.suppressions.add(accountId, s)));
  }
  const api = await d.startApi();

  const login = await fetch(`${d.apiUrl}/api/tern-auth/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@export.test', password }),
  });
  t.equal(login.status, 200, 'the owner logs in with the one-time password');
  const { nonce } = (await login.json()) as { nonce: string };
  const headers = { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0]!, 'x-wp-nonce': nonce };
  // A one-time password must be changed before any other route answers.
  const changed = await fetch(`${d.apiUrl}/api/tern/v2/profile/update-password`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ current_password: password, new_password: 'the exporter passphrase' }),
  });
  t.equal(changed.status, 200, 'the one-time password is changed first');
  // Warm up: the process serves traffic first (pages of the same list, read through the same store walk's
  // queries), so its young generation is at the size its work gives it, as a running API's is. A fresh
  // process's young generation grows once, up to the API's configured semi-space (64 MB), under its first
  // sustained allocation; that growth is printed, not counted. The export itself is then what is measured.
  const cold = memoryOf(api.pid).rssMb;
  // Six times the first 100 pages (the deepest page a listing serves): three were not always enough for the young
  // generation to reach its size when other test files ran beside this one (runs of the whole suite).
  for (let request = 0; request < WARM_UP_PAGES; request++) {
    const page = (request % 100) + 1;
    const listed = await fetch(`${d.apiUrl}/api/tern/v2/suppressions?per_page=100&page=${page}`, { headers });
    await listed.arrayBuffer();
    if (listed.status !== 200) t.fail(`page ${page}: ${listed.status}`);
  }
  t.comment(`warm-up: ${WARM_UP_PAGES} pages of 100 suppressions; RSS ${Math.round(cold)} → ${Math.round(memoryOf(api.pid).rssMb)} MB`);

  const before = memoryOf(api.pid).rssMb;
  t.comment(`before: RSS ${Math.round(before)} MB`);
  let peak = before;
  const res = await fetch(`${d.apiUrl}${EXPORT}`, { headers });
  t.equal(res.status, 200);
  let newlines = 0;
  let bytes = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) newlines++;
    peak = Math.max(peak, memoryOf(api.pid).rssMb);
    // A slow reader: the server must wait for it (backpressure), not buffer the rest.
    if (newlines % 20_000 < 200) await new Promise((r) => setTimeout(r, 5));
  }
  const metrics = await (await fetch(`${d.apiMetricsUrl}/metrics`)).text();
  const gauge = (name: string) => Math.round(Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN) / 1048576);
  t.comment(
    `after: heap used ${gauge('tern_process_nodejs_heap_size_used_bytes')} MB, heap total ${gauge('tern_process_nodejs_heap_size_total_bytes')} MB, external ${gauge('tern_process_nodejs_external_memory_bytes')} MB, RSS ${Math.round(memoryOf(api.pid).rssMb)} MB`,
  );
  t.equal(newlines, ROWS + 1, 'the header and every row');
  t.ok(bytes > 10 * 1024 * 1024, `more than 10 MB streamed (${bytes} bytes)`);
  t.ok(peak - before < 50, `the API's RSS grew by ${Math.round(peak - before)} MB (from ${Math.round(before)} MB)`);
});
