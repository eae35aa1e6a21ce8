// A private Postfix instance and an OpenDKIM milter for bench/postfix.ts: each in its own temp dir (its own
// config, queue and data directories), on free loopback ports, started by the benchmark and stopped by it (only
// what it started: the instance by its own config dir and master's pid file, OpenDKIM by its pid), also when
// the benchmark fails or overruns. The system's Postfix (/etc/postfix, port 25) is never read, started or stopped.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { generate } from 'selfsigned';
import { freePort } from '../test/harness/ports.js';
import { until } from '../test/harness/wait.js';
import { benchTempDir, onCleanup, stopChild, track } from './lib.js';

const execFileAsync = promisify(execFile);

/** What installs the programs this needs (Debian). */
export const INSTALL_LINE = 'DEBIAN_FRONTEND=noninteractive apt-get install -y postfix opendkim opendkim-tools';

/** The programs (postfix, postconf, opendkim) found neither on PATH nor in /usr/sbin. */
export function missingPrograms(): string[] {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'];
  return ['postfix', 'postconf', 'opendkim'].filter((p) => !dirs.some((d) => d && existsSync(join(d, p))));
}

async function run(cmd: string, args: string[]): Promise<void> {
  try {
    await execFileAsync(cmd, args, { env: { ...process.env, PATH: `${process.env.PATH ?? ''}${delimiter}/usr/sbin${delimiter}/sbin` } });
  } catch (err) {
    const e = err as Error & { stderr?: string; stdout?: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${(e.stderr || e.stdout || e.message).trim()}`, { cause: err });
  }
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** Waits until `child` listens on `port`; fails if it exits first. */
async function listening(child: ChildProcess, port: number, what: string, logHint: string): Promise<void> {
  await until(
    `${what} on port ${port}`,
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}); see ${logHint}`);
      return accepting(port);
    },
    30_000,
    100,
  );
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The private instance's services: Debian's master.cf without the pipes to other programs, nothing chrooted, smtpd on 127.0.0.1:port. */
const masterCf = (port: number) =>
  `127.0.0.1:${port} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
tlsmgr    unix  -       -       n       1000?   1       tlsmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
`;

export interface PostfixOptions {
  /** Where everything is relayed (the benchmark's sink). */
  sinkPort: number;
  /** STARTTLS offered with this certificate and key (PEM files). */
  tls?: { certFile: string; keyFile: string };
  /** OpenDKIM (or any milter) on 127.0.0.1:milterPort. */
  milterPort?: number;
}

/** main.cf of the private instance: a relay for loopback clients to the sink, and nothing that waits (see bench/README.md). */
function mainCf(dir: string, o: PostfixOptions): string[] {
  return [
    `queue_directory=${dir}/queue`,
    `data_directory=${dir}/data`,
    `maillog_file=${dir}/maillog`,
    `maillog_file_prefixes=${dir}`,
    'compatibility_level=3.6',
    'myhostname=postfix.bench.test',
    'mydestination=',
    'local_recipient_maps=',
    'alias_maps=',
    'alias_database=',
    'inet_interfaces=127.0.0.1',
    'inet_protocols=ipv4',
    'mynetworks=127.0.0.0/8',
    'smtpd_relay_restrictions=permit_mynetworks,reject',
    `relayhost=[127.0.0.1]:${o.sinkPort}`,
    'smtp_dns_support_level=disabled',
    'smtp_tls_security_level=none',
    'smtpd_peername_lookup=no',
    'smtpd_client_connection_rate_limit=0',
    'in_flow_delay=0s',
    'default_process_limit=200',
    'default_destination_concurrency_limit=50',
    'biff=no',
    ...(o.tls ? ['smtpd_tls_security_level=may', `smtpd_tls_cert_file=${o.tls.certFile}`, `smtpd_tls_key_file=${o.tls.keyFile}`] : ['smtpd_tls_security_level=none']),
    ...(o.milterPort ? [`smtpd_milters=inet:127.0.0.1:${o.milterPort}`, 'milter_default_action=tempfail'] : []),
  ];
}

export interface PostfixInstance {
  port: number;
  dir: string;
  stop: () => Promise<void>;
}

/** Stops the instance: `postfix -c <dir> stop`, then master by its pid file if it is still there. */
async function stopPostfix(etc: string, dir: string, child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await run('postfix', ['-c', etc, 'stop']).catch(() => undefined);
  await until('the private Postfix to stop', () => child.exitCode !== null || child.signalCode !== null, 15_000, 100).catch(() => undefined);
  const pid = masterPid(dir);
  if (pid && running(pid)) process.kill(pid, 'SIGKILL');
  await stopChild(child, 2000);
}

function masterPid(dir: string): number | null {
  try {
    return Number(readFileSync(join(dir, 'queue', 'pid', 'master.pid'), 'utf8').trim()) || null;
  } catch {
    return null;
  }
}

/**
 * A private Postfix in a temp dir, listening on a free loopback port, relaying to the sink. Postfix's master
 * leaves the benchmark's process group (setsid), so it is stopped by its config dir and pid file at clean-up,
 * and killed by pid if the benchmark leaves without it.
 */
export async function startPostfix(o: PostfixOptions): Promise<PostfixInstance> {
  const dir = benchTempDir('bench-postfix', 0o755);
  const etc = join(dir, 'etc');
  for (const sub of ['etc', 'queue', 'data']) mkdirSync(join(dir, sub));
  await run('chown', ['postfix', join(dir, 'data')]); // data_directory belongs to mail_owner
  const port = await freePort();
  writeFileSync(join(etc, 'master.cf'), masterCf(port));
  writeFileSync(join(etc, 'main.cf'), '');
  await run('postconf', ['-c', etc, '-e', ...mainCf(dir, o)]);
  await run('postfix', ['-c', etc, 'check']);
  // start-fg: the postfix-script stays a child of ours until master exits, so its exit says master is gone.
  const child = track(spawn('postfix', ['-c', etc, 'start-fg'], { stdio: 'ignore', env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` } }));
  const stop = () => stopPostfix(etc, dir, child);
  onCleanup(stop);
  process.once('exit', () => {
    const pid = masterPid(dir);
    if (pid && running(pid)) process.kill(pid, 'SIGKILL');
  });
  await listening(child, port, 'the private Postfix', join(dir, 'maillog'));
  return { port, dir, stop };
}

/** A fresh self-signed RSA-2048 certificate for STARTTLS, in a temp dir of its own (the key readable by its owner only). */
export async function writeCertificate(): Promise<{ certFile: string; keyFile: string }> {
  const dir = benchTempDir('bench-postfix-tls', 0o755);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, notAfterDate: new Date(Date.now() + 86_400_000) });
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  writeFileSync(certFile, pems.cert, { mode: 0o644 });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  return { certFile, keyFile };
}

export interface OpenDkimOptions {
  domain: string;
  selector: string;
  /** The RSA private key, PEM. */
  keyPem: string;
}

/** opendkim.conf: sign (Mode s) mail from `domain` for loopback clients, relaxed/relaxed, rsa-sha256. */
const openDkimConf = (dir: string, port: number, o: OpenDkimOptions, asRoot: boolean) =>
  [
    'Syslog no',
    'Background no',
    `PidFile ${dir}/opendkim.pid`,
    `Socket inet:${port}@127.0.0.1`,
    'Mode s',
    'Canonicalization relaxed/relaxed',
    'SignatureAlgorithm rsa-sha256',
    `Domain ${o.domain}`,
    `Selector ${o.selector}`,
    `KeyFile ${dir}/dkim.key`,
    // The key's own mode and owner are checked (0600, the opendkim user); its parents include /tmp, which is
    // world-writable and would fail the whole-path check.
    'RequireSafeKeys no',
    'InternalHosts 127.0.0.1',
    ...(asRoot ? ['UserID opendkim:opendkim'] : []),
    '',
  ].join('\n');

/** OpenDKIM as a child of the benchmark (foreground), on a free loopback port; stopped by its pid. */
export async function startOpenDkim(o: OpenDkimOptions): Promise<{ port: number; stop: () => Promise<void> }> {
  const dir = benchTempDir('bench-opendkim', 0o755);
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  const keyFile = join(dir, 'dkim.key');
  writeFileSync(keyFile, o.keyPem, { mode: 0o600 });
  if (asRoot) {
    const [uid, gid] = await Promise.all(['-u', '-g'].map((flag) => execFileAsync('id', [flag, 'opendkim']).then((r) => Number(r.stdout.trim()))));
    chownSync(keyFile, uid!, gid!); // OpenDKIM wants its key readable by its own user only
  }
  const conf = join(dir, 'opendkim.conf');
  writeFileSync(conf, openDkimConf(dir, port, o, asRoot));
  const child = track(
    spawn('opendkim', ['-f', '-x', conf], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` } }),
  );
  await listening(child, port, 'OpenDKIM', 'its output above');
  return { port, stop: () => stopChild(child, 5000) };
}
