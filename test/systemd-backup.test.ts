// The nightly backup's units (systemd/ternmail-backup.service and .timer): accepted by systemd's verifier where
// it is installed, and the service's own commands, run by a shell as systemd would run them, write a dated
// archive and keep only KEEP_DAYS days of them.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, repoRoot, runCli, tempHome, ternmailJs } from './helpers/cli.js';
import { loadSecretBox } from '../shared/secret-box.js';

const UNITS = ['ternmail-backup.service', 'ternmail-backup.timer'];
const unitText = (name: string) => readFileSync(join(repoRoot, 'systemd', name), 'utf8');
const hasVerify = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' }).status === 0;

/** The values of `key=` in a unit, in order. */
const values = (text: string, key: string): string[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${key}=`))
    .map((line) => line.slice(key.length + 1));

/** A `/bin/sh -c '…'` command of the unit as the shell receives it: systemd's `%%` and `$$` undone, this checkout's node and CLI. */
function shellScript(command: string): string {
  const quoted = /^\/bin\/sh -c '(.*)'$/.exec(command);
  if (!quoted) throw new Error(`not a /bin/sh -c '…' command: ${command}`);
  return quoted[1]!
    .replaceAll('%%', '%')
    .replaceAll('$$', '$')
    .replace('/usr/bin/node', process.execPath)
    .replace('/opt/ternmail/dist/shared/cli/ternmail.js', ternmailJs);
}

t.test('systemd-analyze verify accepts the backup service and its timer', { skip: hasVerify ? false : 'systemd-analyze is not installed' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-units-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of UNITS) writeFileSync(join(dir, name), unitText(name));
  const res = spawnSync('systemd-analyze', ['verify', ...UNITS.map((n) => join(dir, n))], { encoding: 'utf8', env: { ...process.env, SYSTEMD_LOG_COLOR: '0' } });
  t.equal(res.status, 0, res.stderr);
  t.same(
    `${res.stdout}\n${res.stderr}`.split('\n').filter((l) => /ternmail/.test(l)),
    [],
    'no warning about either unit',
  );
});

t.test('the timer starts the service every night and catches up a missed night', async (t) => {
  const timer = unitText('ternmail-backup.timer');
  t.same(values(timer, 'OnCalendar'), ['*-*-* 03:15:00']);
  t.same(values(timer, 'Persistent'), ['true']);
  t.same(values(timer, 'WantedBy'), ['timers.target']);
  t.same(values(unitText('ternmail-backup.service'), 'Type'), ['oneshot']);
});

t.test("the service's commands write a dated 0600 archive, then remove only archives older than KEEP_DAYS", async (t) => {
  const home = tempHome('tern-backup-unit-');
  t.teardown(() => rmSync(home.dir, { recursive: true, force: true }));
  const dataDir = join(home.dir, 'data');
  const backups = join(home.dir, 'backups');
  mkdirSync(backups);
  const env = cleanEnv({ TERNMAIL_CONFIG: home.configFile, TERNMAIL_DATA_DIR: dataDir, BACKUP_DIR: backups, KEEP_DAYS: '14' });
  delete env.NODE_OPTIONS;
  t.equal((await runCli(['account', 'create', '--name', 'Nightly'], env)).code, 0);
  loadSecretBox(dataDir);
  const daysAgo = (name: string, days: number) => {
    writeFileSync(join(backups, name), 'an older archive');
    const at = new Date(Date.now() - days * 86_400_000);
    utimesSync(join(backups, name), at, at);
  };
  daysAgo('tern-20260101T031500Z.tar.gz', 30);
  daysAgo('tern-20261120T031500Z.tar.gz', 7);
  daysAgo('notes-from-2025.tar.gz', 400);

  const service = unitText('ternmail-backup.service');
  const [start] = values(service, 'ExecStart');
  const [post] = values(service, 'ExecStartPost');
  const ran = spawnSync('/bin/sh', ['-c', shellScript(start!)], { env, encoding: 'utf8' });
  t.equal(ran.status, 0, ran.stderr);
  const written = JSON.parse(ran.stdout) as { file: string };
  t.match(written.file, new RegExp(`^${backups}/tern-\\d{8}T\\d{6}Z\\.tar\\.gz$`), 'the archive is named by its UTC time');
  t.equal(statSync(written.file).mode & 0o777, 0o600);

  const pruned = spawnSync('/bin/sh', ['-c', shellScript(post!)], { env, encoding: 'utf8' });
  t.equal(pruned.status, 0, pruned.stderr);
  t.same(
    readdirSync(backups).sort(),
    [written.file.slice(backups.length + 1), 'notes-from-2025.tar.gz', 'tern-20261120T031500Z.tar.gz'].sort(),
    'the 30-day-old archive is gone; the new one, the week-old one and a file not named tern-* stay',
  );
});
