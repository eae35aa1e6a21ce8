// The systemd units: checked by systemd's own verifier (where installed) and for the directives the run
// contract asks for: a dedicated user, Redis ordering, state and config directories, hardening, and
// CAP_NET_BIND_SERVICE for the MTA only.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './helpers/cli.js';
import { serviceEnv, serviceNodeFlags } from '../shared/node-flags.js';

const UNITS = ['ternmail-api.service', 'ternmail-mta.service', 'ternmail.target'] as const;
const unitText = (name: string) => readFileSync(join(repoRoot, 'systemd', name), 'utf8');

/** A unit file as section → key → every value given (a key may repeat; an empty value resets the list). */
type Unit = Record<string, Record<string, string[]>>;

function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      unit[section] ??= {};
      continue;
    }
    const at = line.indexOf('=');
    if (at < 0) throw new Error(`not a unit line: ${line}`);
    const key = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    const values = (unit[section]![key] ??= []);
    values.push(value);
  }
  return unit;
}

const api = parseUnit(unitText('ternmail-api.service'));
const mta = parseUnit(unitText('ternmail-mta.service'));
const target = parseUnit(unitText('ternmail.target'));

/** Space-separated words of every value of a key. */
const words = (unit: Unit, section: string, key: string): string[] => (unit[section]?.[key] ?? []).flatMap((v) => v.split(/\s+/).filter(Boolean));
const one = (unit: Unit, section: string, key: string): string | undefined => unit[section]?.[key]?.at(-1);

const hasVerify = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' }).status === 0;
// `security --offline` appeared in systemd 250.
const hasOfflineSecurity = hasVerify && /--offline/.test(spawnSync('systemd-analyze', ['--help'], { encoding: 'utf8' }).stdout);

/** Runs `systemd-analyze verify` on copies of the units whose ExecStart points at this checkout's node and dist/. */
function verify(mutate: (name: string, text: string) => string = (_n, text) => text): { status: number | null; lines: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'tern-units-'));
  try {
    for (const name of UNITS) {
      const text = unitText(name).replace(/^ExecStart=\/usr\/bin\/node (.*)\/opt\/ternmail\/dist\//m, `ExecStart=${process.execPath} $1${join(repoRoot, 'dist')}/`);
      writeFileSync(join(dir, name), mutate(name, text));
    }
    const res = spawnSync('systemd-analyze', ['verify', ...UNITS.map((n) => join(dir, n))], { encoding: 'utf8', env: { ...process.env, SYSTEMD_LOG_COLOR: '0' } });
    const lines = `${res.stdout}\n${res.stderr}`.split('\n').filter((l) => /ternmail/.test(l));
    return { status: res.status, lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test('systemd-analyze verify accepts the three units without a warning', { skip: hasVerify ? false : 'systemd-analyze is not installed' }, async (t) => {
  t.ok(existsSync(join(repoRoot, 'dist', 'api', 'process.js')), 'dist/ is built (the units start dist/api/process.js and dist/mta/process.js)');
  const res = verify();
  t.equal(res.status, 0, res.lines.join('\n'));
  t.same(res.lines, [], 'no warning about any ternmail unit');

  // The check is meaningful here: it does catch a misspelt directive and a missing program.
  const typo = verify((name, text) => (name === 'ternmail-api.service' ? text.replace('ProtectSystem=strict', 'ProtectSytem=strict') : text));
  t.ok(
    typo.lines.some((l) => /Unknown key 'ProtectSytem'/.test(l)),
    'a misspelt directive is reported',
  );
  const missing = verify((name, text) => (name === 'ternmail-mta.service' ? text.replace(/^ExecStart=\S+/m, 'ExecStart=/nonexistent/node') : text));
  t.not(missing.status, 0, 'a missing program fails the verification');
});

t.test('both services start their process’s built entry file as the ternmail user after Redis, and restart on failure', async (t) => {
  for (const [role, unit] of [
    ['api', api],
    ['mta', mta],
  ] as const) {
    t.equal(
      one(unit, 'Service', 'ExecStart'),
      `/usr/bin/node ${serviceNodeFlags(role).join(' ')} /opt/ternmail/dist/${role}/process.js`,
      `${role}: ExecStart, the entry file ternmail start spawns, with its node flags`,
    );
    t.ok(existsSync(join(repoRoot, 'dist', role, 'process.js')), `${role}: the ExecStart path exists in the built tree`);
    t.equal(one(unit, 'Service', 'User'), 'ternmail', `${role}: a dedicated user`);
    t.equal(one(unit, 'Service', 'Group'), 'ternmail');
    t.ok(words(unit, 'Unit', 'After').includes('redis-server.service'), `${role}: After=redis-server.service`);
    t.ok(words(unit, 'Unit', 'Wants').includes('redis-server.service'), `${role}: Wants=redis-server.service`);
    t.equal(one(unit, 'Service', 'Restart'), 'on-failure');
    t.equal(one(unit, 'Service', 'KillSignal'), 'SIGTERM');
    t.equal(one(unit, 'Service', 'TimeoutStopSec'), '35', `${role}: 30 s to drain, and a margin`);
    t.equal(one(unit, 'Service', 'StateDirectory'), 'ternmail', `${role}: state in /var/lib/ternmail`);
    t.equal(one(unit, 'Service', 'ConfigurationDirectory'), 'ternmail', `${role}: config in /etc/ternmail`);
    const env = unit.Service?.Environment ?? [];
    for (const [name, value] of Object.entries(serviceEnv({}))) t.ok(env.includes(`${name}=${value}`), `${role}: ${name}, as ternmail start sets it`);
    t.ok(env.includes('TERNMAIL_DATA_DIR=/var/lib/ternmail'), `${role}: TERNMAIL_DATA_DIR`);
    t.ok(env.includes('TERNMAIL_REDIS_URL=redis://127.0.0.1:6379'), `${role}: TERNMAIL_REDIS_URL (no managed Redis under systemd)`);
    t.ok(words(unit, 'Unit', 'PartOf').includes('ternmail.target'), `${role}: PartOf=ternmail.target`);
    t.ok(words(unit, 'Install', 'WantedBy').includes('ternmail.target'), `${role}: WantedBy=ternmail.target`);
  }
  t.equal(one(mta, 'Service', 'ExecReload'), '/bin/kill -HUP $MAINPID', 'reload makes the MTA read its TLS certificate again');
  t.ok(existsSync(join(repoRoot, 'dist', 'shared', 'cli', 'ternmail.js')), 'the ternmail command is built');
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  t.equal(pkg.bin.ternmail, 'dist/shared/cli/ternmail.js', 'the same file is the package’s ternmail command');
});

t.test('the target starts both services and is started at boot', async (t) => {
  t.ok(words(target, 'Unit', 'Wants').includes('ternmail-api.service'));
  t.ok(words(target, 'Unit', 'Wants').includes('ternmail-mta.service'));
  t.ok(words(target, 'Unit', 'Wants').includes('redis-server.service'));
  t.ok(words(target, 'Install', 'WantedBy').includes('multi-user.target'));
});

t.test('each service can be enabled alone on a machine of its role, without the other', async (t) => {
  for (const [role, unit, other] of [
    ['api', api, 'ternmail-mta.service'],
    ['mta', mta, 'ternmail-api.service'],
  ] as const) {
    t.ok(words(unit, 'Install', 'WantedBy').includes('multi-user.target'), `${role}: enabled alone, it starts at boot`);
    for (const key of ['Requires', 'Wants', 'BindsTo', 'Requisite', 'After']) t.notOk(words(unit, 'Unit', key).includes(other), `${role}: no ${key}=${other}`);
    t.same(words(unit, 'Unit', 'Requires'), [], `${role}: no hard dependency at all (Redis may be on another machine)`);
  }
});

t.test('both services carry the hardening directives', async (t) => {
  const expected: Record<string, string> = {
    NoNewPrivileges: 'yes',
    ProtectSystem: 'strict',
    ProtectHome: 'yes',
    ReadWritePaths: '/var/lib/ternmail',
    PrivateTmp: 'yes',
    PrivateDevices: 'yes',
    ProtectKernelTunables: 'yes',
    ProtectKernelModules: 'yes',
    ProtectKernelLogs: 'yes',
    ProtectControlGroups: 'yes',
    RestrictNamespaces: 'yes',
    RestrictSUIDSGID: 'yes',
    LockPersonality: 'yes',
    SystemCallFilter: '@system-service',
    SystemCallArchitectures: 'native',
  };
  for (const [role, unit] of [
    ['api', api],
    ['mta', mta],
  ] as const) {
    for (const [key, value] of Object.entries(expected)) t.equal(one(unit, 'Service', key), value, `${role}: ${key}=${value}`);
    const families = words(unit, 'Service', 'RestrictAddressFamilies');
    t.ok(families.includes('AF_INET') && families.includes('AF_INET6') && families.includes('AF_UNIX'), `${role}: RestrictAddressFamilies keeps IP and unix sockets`);
    t.notOk(
      families.some((f) => f === 'AF_PACKET' || f.startsWith('~')),
      `${role}: an allow list, not a deny list`,
    );
    t.notOk(unit.Service?.MemoryDenyWriteExecute, `${role}: V8's JIT needs W+X memory, so MemoryDenyWriteExecute is not set`);
  }
});

t.test('only the MTA may bind privileged ports: the API has no capability at all', async (t) => {
  t.same(api.Service?.CapabilityBoundingSet, [''], 'API: CapabilityBoundingSet= (empty: no capability)');
  t.same(words(api, 'Service', 'AmbientCapabilities'), [], 'API: no ambient capability');
  t.same(mta.Service?.CapabilityBoundingSet, ['CAP_NET_BIND_SERVICE'], 'MTA: only CAP_NET_BIND_SERVICE may ever be held');
  t.same(mta.Service?.AmbientCapabilities, ['CAP_NET_BIND_SERVICE'], 'MTA: CAP_NET_BIND_SERVICE is given to the non-root user');
});

t.test('systemd rates the units’ exposure as OK', { skip: hasOfflineSecurity ? false : 'systemd-analyze security --offline is not available' }, async (t) => {
  for (const name of ['ternmail-api.service', 'ternmail-mta.service']) {
    const res = spawnSync('systemd-analyze', ['security', '--offline=yes', join(repoRoot, 'systemd', name)], { encoding: 'utf8' });
    const level = /Overall exposure level for \S+: ([\d.]+)/.exec(res.stdout);
    if (!level) {
      t.fail(`no exposure level for ${name}: ${res.stderr}`);
      continue;
    }
    // systemd's scale runs from 0 (locked down) to 10 (unprotected); below 3 it calls a unit OK.
    t.ok(Number(level[1]) < 3, `${name}: exposure ${level[1]}`);
  }
});
