// A backup taken while Tern sends, restored into a fresh data dir and started there, all as real processes
// (dist/): `ternmail backup` runs beside the API and the MTA while HTTP and SMTP sends go on, `ternmail restore`
// fills a new data dir, and a second deployment (with its own, empty Redis) starts on it. Every message
// acknowledged before the backup began is in the restored log, and the restored keys work.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, eventually, http, runCli, tempHome, type CliResult } from './helpers/cli.js';
import { startDeployment, type Deployment, type Sender } from './helpers/processes.js';
import { simpleMessage, submitOnce } from './helpers/smtp-load.js';
import { openStore } from '../shared/store/index.js';
import { walk } from '../shared/core/backup/file-tree.js';

/** Acknowledged sends before the backup starts, so that the archive has a log worth checking. */
const ACKS_BEFORE_BACKUP = 120;

interface Acked {
  id: string;
  via: 'http' | 'smtp';
  at: number;
}

interface Load {
  acked: Acked[];
  failures: string[];
  stop(): Promise<void>;
}

/** Sends over HTTP and SMTP, each by `workers` clients in a loop, until stopped; every acknowledged id is kept. */
function startLoad(d: Deployment, sender: Sender, workers: number): Load {
  const acked: Acked[] = [];
  const failures: string[] = [];
  let stopped = false;
  let n = 0;
  const from = `load@${sender.domain}`;
  const httpWorker = async () => {
    while (!stopped) {
      const body = { from: { email: from }, to: [{ email: 'rcpt@dest.test' }], subject: `HTTP ${n++}`, text: 'Hello' };
      const res = await http(d.apiUrl, 'POST', '/v2/emails', { key: sender.sendingKey, body });
      if (res.status === 200) acked.push({ id: String(res.body.message_id), via: 'http', at: Date.now() });
      else failures.push(`HTTP ${res.status} ${JSON.stringify(res.body)}`);
    }
  };
  const smtpWorker = async () => {
    while (!stopped) {
      const k = n++;
      try {
        const reply = await submitOnce(d.starttlsPort, sender.sendingKey, { from, to: 'rcpt@dest.test' }, simpleMessage(from, 'rcpt@dest.test', k, 0, 256));
        const id = /queued as ([0-9a-z]+)/.exec(reply)?.[1];
        if (id) acked.push({ id, via: 'smtp', at: Date.now() });
        else failures.push(`SMTP ${reply}`);
      } catch (err) {
        failures.push(`SMTP ${(err as Error).message}`);
      }
    }
  };
  const running = Array.from({ length: workers }, () => [httpWorker(), smtpWorker()]).flat();
  return {
    acked,
    failures,
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

async function waitForAcks(load: Load, count: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (load.acked.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${load.acked.length} of ${count} sends acknowledged: ${load.failures.slice(0, 3).join('; ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs `ternmail backup` once enough sends are acknowledged, with the sends going on until a few more come after it. */
async function backUpUnderLoad(d: Deployment, sender: Sender, archive: string): Promise<{ load: Load; backup: CliResult; backupStarted: number; backupEnded: number }> {
  const load = startLoad(d, sender, 2);
  try {
    await waitForAcks(load, ACKS_BEFORE_BACKUP);
    const backupStarted = Date.now();
    const backup = await runCli(['backup', '--to', archive], d.env);
    const backupEnded = Date.now();
    // A little more mail after the snapshot: none of it may be needed for the checks that follow.
    await waitForAcks(load, load.acked.length + 20);
    return { load, backup, backupStarted, backupEnded };
  } finally {
    await load.stop();
  }
}

const modeOf = (path: string): number => statSync(path).mode & 0o777;

t.test('a backup under load restores into a fresh data dir holding every message acknowledged before it, with working keys', async (t) => {
  const d = await startDeployment();
  t.teardown(() => d.close());
  await d.startApi();
  const sender = await d.sender('backup.example.com');
  await d.startMta();
  const work = mkdtempSync(join(tmpdir(), 'tern-backup-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const archive = join(work, 'tern.tar.gz');

  const { load, backup, backupStarted, backupEnded } = await backUpUnderLoad(d, sender, archive);
  t.equal(backup.code, 0, backup.stderr);
  t.same(load.failures, [], 'every send was acknowledged');
  t.match(backup.json, { file: archive, format: 'tern-backup', format_version: 1, schema_version: Number, tern_version: String, tls: { source: 'self-signed' } });
  t.equal(modeOf(archive), 0o600, 'the archive is readable by its owner only (it holds the keys)');
  const before = load.acked.filter((a) => a.at < backupStarted);
  const during = load.acked.filter((a) => a.at >= backupStarted && a.at <= backupEnded);
  t.ok(before.length >= ACKS_BEFORE_BACKUP, `${before.length} sends acknowledged before the backup began`);
  t.ok(during.length > 0, `sends went on while the backup ran (${during.length} acknowledged meanwhile)`);
  t.ok(new Set(before.map((a) => a.via)).size === 2, 'both HTTP and SMTP sends were acknowledged before the backup');

  const restoredDir = join(work, 'restored', 'data');
  const home = tempHome();
  t.teardown(() => rmSync(home.dir, { recursive: true, force: true }));
  const restore = await runCli(['restore', '--from', archive, '--data-dir', restoredDir], cleanEnv({ TERNMAIL_CONFIG: home.configFile }));
  t.equal(restore.code, 0, restore.stderr);
  t.match(restore.json, { data_dir: restoredDir, files: Number, schema_version: backup.json.schema_version, created_at: backup.json.created_at });
  const modes = (await walk(restoredDir)).filter((e) => modeOf(join(restoredDir, e.path)) !== (e.kind === 'directory' ? 0o700 : 0o600));
  t.same(modes, [], 'every restored file is 0600 and every directory 0700');
  t.equal(modeOf(restoredDir), 0o700);
  t.same(readFileSync(join(restoredDir, 'tls', 'cert.pem')), readFileSync(join(d.dataDir, 'tls', 'cert.pem')), 'the TLS pair the MTA served is restored');
  t.same(readFileSync(join(restoredDir, 'tls', 'ec', 'cert.pem')), readFileSync(join(d.dataDir, 'tls', 'ec', 'cert.pem')), 'and the ECDSA pair beside it');

  const store = await openStore(restoredDir);
  const missing: string[] = [];
  let duringKept = 0;
  try {
    for (const ack of before) if (!(await store.messages.get(ack.id))) missing.push(`${ack.via} ${ack.id}`);
    for (const ack of during) if (await store.messages.get(ack.id)) duringKept++;
  } finally {
    await store.close();
  }
  t.same(missing, [], `every one of the ${before.length} messages acknowledged before the backup is in the restored log`);
  t.comment(`${duringKept} of the ${during.length} sends acknowledged while the backup ran are in it too`);

  // Tern on the restored data dir, with a Redis of its own that starts empty: nothing in Redis was needed.
  const r = await startDeployment({ env: { TERNMAIL_DATA_DIR: restoredDir } });
  t.teardown(() => r.close());
  await r.startApi();
  await r.startMta();
  const logged = await http(r.apiUrl, 'GET', `/v2/emails/${before[0]!.id}`, { key: sender.adminKey });
  t.equal(logged.status, 200, 'the admin key reads the restored log');
  const domains = await http(r.apiUrl, 'GET', '/v2/domains', { key: sender.adminKey });
  t.equal(domains.status, 200);
  t.match(domains.body, { data: [{ id: sender.domainId, domain_name: sender.domain }] }, 'the admin key reads the restored domain');

  const from = `after@${sender.domain}`;
  const sent = await http(r.apiUrl, 'POST', '/v2/emails', {
    key: sender.sendingKey,
    body: { from: { email: from }, to: [{ email: 'after@dest.test' }], subject: 'After the restore', text: 'Hi' },
  });
  t.equal(sent.status, 200, `the sending key sends over HTTP: ${JSON.stringify(sent.body)}`);
  const reply = await submitOnce(r.starttlsPort, sender.sendingKey, { from, to: 'after-smtp@dest.test' }, simpleMessage(from, 'after-smtp@dest.test', 0, 0));
  t.match(reply, /^250 /, 'and over SMTP');
  const delivered = await eventually(() => r.sink.messages.find((m) => m.to.includes('after@dest.test')), 60_000, 'the delivery of the mail sent after the restore');
  // The DKIM key is sealed under the master key: a signature shows the restored master key opened it.
  const headers = delivered.raw.toString('latin1').split('\r\n\r\n')[0]!;
  t.match(headers, /^DKIM-Signature: /m, 'the mail sent after the restore is DKIM-signed');
  t.ok(headers.includes(`d=${sender.domain};`), 'with the restored domain key');
});
