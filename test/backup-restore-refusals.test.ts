// What `ternmail restore` refuses, as a real process on archives made by `ternmail backup` and then altered:
// a non-empty target, a file that does not match its checksum or has none, an unknown manifest version, an
// entry that climbs out of the target or is a link. Each refusal names the culprit and writes nothing. Also
// what `ternmail backup` refuses, and a configured TLS pair going through a backup and a restore.
import t from 'tap';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { create as createTar, extract } from 'tar';
import { cleanEnv, runCli, tempHome } from './helpers/cli.js';
import { loadSecretBox } from '../shared/secret-box.js';

const home = tempHome('tern-restore-');
t.teardown(() => rmSync(home.dir, { recursive: true, force: true }));
const dataDir = join(home.dir, 'data');
const env = cleanEnv({ TERNMAIL_CONFIG: home.configFile, TERNMAIL_DATA_DIR: dataDir });
const archive = join(home.dir, 'tern.tar.gz');
const SPOOLED = 'spool-inbound/ab/report0ab.eml';

/** A target path in a directory of its own, so that a test can see everything a restore left beside it. */
function freshTarget(): { parent: string; target: string } {
  const parent = mkdtempSync(join(home.dir, 'restore-'));
  return { parent, target: join(parent, 'data') };
}

/** The archive unpacked, changed by `edit` in its directory, and packed again (gzipped tar, like the original). */
async function altered(name: string, edit: (dir: string) => void, entries = ['manifest.json', 'data'], options: { preservePaths?: boolean } = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-altered-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const unpacked = join(dir, 'archive');
  mkdirSync(unpacked);
  await extract({ file: archive, cwd: unpacked });
  edit(unpacked);
  const out = join(home.dir, `${name}.tar.gz`);
  await createTar({ file: out, gzip: true, cwd: unpacked, portable: true, ...options }, entries);
  return out;
}

const restore = (from: string, target: string) => runCli(['restore', '--from', from, '--data-dir', target], env);

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;

t.before(async () => {
  const created = await runCli(['account', 'create', '--name', 'Restored'], env);
  if (created.code !== 0) throw new Error(created.stderr);
  loadSecretBox(dataDir);
  mkdirSync(join(dataDir, dirname(SPOOLED)), { recursive: true });
  writeFileSync(join(dataDir, SPOOLED), 'a report body\r\n');
  const backup = await runCli(['backup', '--to', archive], env);
  if (backup.code !== 0) throw new Error(backup.stderr);
});

t.test('the untouched archive restores, into a new directory or an empty one', async (t) => {
  const fresh = freshTarget();
  const intoNew = await restore(archive, fresh.target);
  t.equal(intoNew.code, 0, intoNew.stderr);
  t.same(readFileSync(join(fresh.target, SPOOLED), 'utf8'), 'a report body\r\n', 'the spooled report is back');
  t.same(readFileSync(join(fresh.target, 'keys', 'master.key')), readFileSync(join(dataDir, 'keys', 'master.key')), 'and the master key');
  t.same(readdirSync(fresh.parent), ['data'], 'nothing is left beside the target');
  const empty = freshTarget();
  mkdirSync(empty.target);
  const intoEmpty = await restore(archive, empty.target);
  t.equal(intoEmpty.code, 0, intoEmpty.stderr);
  t.ok(existsSync(join(empty.target, 'tern.db')));
});

t.test('restore refuses a non-empty target, names it, and leaves it as it was', async (t) => {
  const { parent, target } = freshTarget();
  mkdirSync(target);
  writeFileSync(join(target, 'keep.txt'), 'mine');
  const res = await restore(archive, target);
  t.equal(res.code, 1);
  t.match(res.stderr, `${target} is not empty`);
  t.same(readdirSync(target), ['keep.txt'], 'the target holds what it held');
  t.same(readdirSync(parent), ['data'], 'no staging directory is left beside it');
});

t.test('restore refuses a file that does not match its checksum, before anything is written', async (t) => {
  const tampered = await altered('tampered', (dir) => {
    const key = join(dir, 'data', 'keys', 'master.key');
    const bytes = readFileSync(key);
    bytes[0] = bytes[0] === 0x41 ? 0x42 : 0x41;
    writeFileSync(key, bytes);
  });
  const { parent, target } = freshTarget();
  const res = await restore(tampered, target);
  t.equal(res.code, 1);
  t.match(res.stderr, 'keys/master.key does not match its checksum');
  t.notOk(existsSync(target), 'no data dir was made');
  t.same(readdirSync(parent), [], 'and no staging directory is left');
});

t.test('restore refuses a file without a checksum, and a listed file the archive lacks', async (t) => {
  const extra = await altered('extra', (dir) => writeFileSync(join(dir, 'data', 'extra.txt'), 'who put this here'));
  const withExtra = freshTarget();
  const unlisted = await restore(extra, withExtra.target);
  t.equal(unlisted.code, 1);
  t.match(unlisted.stderr, 'extra.txt is in the archive without a checksum');
  t.same(readdirSync(withExtra.parent), []);

  const lacking = await altered('lacking', (dir) => rmSync(join(dir, 'data', SPOOLED)));
  const withoutFile = freshTarget();
  const missing = await restore(lacking, withoutFile.target);
  t.equal(missing.code, 1);
  t.match(missing.stderr, `${SPOOLED} is listed in the manifest but missing`);
  t.same(readdirSync(withoutFile.parent), []);
});

t.test('restore refuses an unknown manifest version, and an archive without a manifest', async (t) => {
  const future = await altered('future', (dir) => writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifestOf(dir), format_version: 2 })));
  const { parent, target } = freshTarget();
  const res = await restore(future, target);
  t.equal(res.code, 1);
  t.match(res.stderr, 'not a backup this Tern reads (format_version 2)');
  t.same(readdirSync(parent), []);

  const bare = await altered('bare', () => undefined, ['data']);
  const noManifest = await restore(bare, freshTarget().target);
  t.equal(noManifest.code, 1);
  t.match(noManifest.stderr, 'no manifest.json');
});

t.test('restore refuses an entry that climbs out of the target, and a link, writing nothing anywhere', async (t) => {
  // An entry stored as ../escaped.txt: extracted naively beside the staging directory, i.e. beside the target.
  const climbing = await altered('climbing', (dir) => writeFileSync(join(dir, '..', 'escaped.txt'), 'out of bounds'), ['manifest.json', 'data', '../escaped.txt'], {
    preservePaths: true,
  });
  const { parent, target } = freshTarget();
  const res = await restore(climbing, target);
  t.equal(res.code, 1);
  t.match(res.stderr, `the archive's entry "../escaped.txt" is a path that climbs out of the target (..)`);
  t.same(readdirSync(parent), [], 'nothing was written beside the target, where the entry pointed');

  const linked = await altered('linked', (dir) => symlinkSync('/etc/passwd', join(dir, 'data', 'passwd')));
  const withLink = freshTarget();
  const link = await restore(linked, withLink.target);
  t.equal(link.code, 1);
  t.match(link.stderr, `the archive's entry "data/passwd" is a SymbolicLink entry`);
  t.same(readdirSync(withLink.parent), []);
});

t.test('backup refuses to replace a file, a missing directory, and a data dir without a database, leaving no file behind', async (t) => {
  const again = await runCli(['backup', '--to', archive], env);
  t.equal(again.code, 1);
  t.match(again.stderr, `${archive} exists already`);
  const nowhere = await runCli(['backup', '--to', join(home.dir, 'missing', 'tern.tar.gz')], env);
  t.equal(nowhere.code, 1);
  t.match(nowhere.stderr, `no directory ${join(home.dir, 'missing')} to write the backup in`);
  const empty = mkdtempSync(join(home.dir, 'empty-'));
  const out = join(home.dir, 'nothing.tar.gz');
  const none = await runCli(['backup', '--to', out], cleanEnv({ TERNMAIL_CONFIG: home.configFile, TERNMAIL_DATA_DIR: empty }));
  t.equal(none.code, 1);
  t.match(none.stderr, `no database in ${empty}`);
  t.notOk(existsSync(out));
  t.same(
    readdirSync(home.dir).filter((f) => f.startsWith('.')),
    [],
    'no staging directory or partial archive is left',
  );
});

t.test('backup without --to and restore without --data-dir are usage errors', async (t) => {
  const backup = await runCli(['backup'], env);
  t.equal(backup.code, 2);
  t.match(backup.stderr, '--to is required');
  const restore = await runCli(['restore', '--from', archive], env);
  t.equal(restore.code, 2);
  t.match(restore.stderr, '--data-dir is required');
});

t.test('a configured TLS pair is backed up, and restored as the data dir’s pair with the paths it came from', async (t) => {
  const tlsDir = mkdtempSync(join(home.dir, 'tls-'));
  const cert = join(tlsDir, 'fullchain.pem');
  const key = join(tlsDir, 'privkey.pem');
  writeFileSync(cert, '-----BEGIN CERTIFICATE-----\nconfigured\n-----END CERTIFICATE-----\n');
  writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nconfigured\n-----END PRIVATE KEY-----\n', { mode: 0o600 });
  const configured = { ...env, TERNMAIL_TLS_CERT: cert, TERNMAIL_TLS_KEY: key };
  const file = join(home.dir, 'configured-tls.tar.gz');
  const backup = await runCli(['backup', '--to', file], configured);
  t.equal(backup.code, 0, backup.stderr);
  t.match(backup.json, { tls: { source: 'configured', cert_path: cert, key_path: key } });
  const { target } = freshTarget();
  const restored = await restore(file, target);
  t.equal(restored.code, 0, restored.stderr);
  t.match(restored.json, {
    tls: { source: 'configured', cert_path: cert, restored_as: { cert_path: join(target, 'tls', 'cert.pem'), key_path: join(target, 'tls', 'key.pem') } },
  });
  t.same(readFileSync(join(target, 'tls', 'key.pem')), readFileSync(key));

  rmSync(key);
  const unreadable = await runCli(['backup', '--to', join(home.dir, 'no-key.tar.gz')], configured);
  t.equal(unreadable.code, 1);
  t.match(unreadable.stderr, `the TLS file ${key} cannot be read`);
  t.notOk(existsSync(join(home.dir, 'no-key.tar.gz')));
});
