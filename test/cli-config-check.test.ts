// `ternmail config check`, run as a real process: it loads the configuration (defaults, the file named by
// TERNMAIL_CONFIG, TERNMAIL_* variables) without starting anything, names each bad setting on its own line
// and exits 1, or says the configuration is valid and exits 0.
import t from 'tap';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, fileExists, repoRoot, runCli, tempHome } from './helpers/cli.js';

const home = tempHome('tern-config-check-');
t.teardown(() => rmSync(home.dir, { recursive: true, force: true }));
const dataDir = join(home.dir, 'data');

function configFile(name: string, content: unknown): string {
  const file = join(home.dir, name);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

// A public host name, so that only the settings each test gives are judged (public-hostname.test.ts has the rest).
const check = (configPath: string, vars: Record<string, string> = {}) =>
  runCli(['config', 'check'], cleanEnv({ TERNMAIL_CONFIG: configPath, TERNMAIL_DATA_DIR: dataDir, TERNMAIL_PUBLIC_HOSTNAME: 'mx.example.com', ...vars }));

t.test('a valid configuration is reported valid, exit 0, and nothing is started or created', async (t) => {
  const res = await check(configFile('good.json', { api: { port: 9000 }, limits: { teamsPerAccount: 50 } }), { TERNMAIL_API_PORT: '9100' });
  t.equal(res.code, 0, res.stdout + res.stderr);
  t.match(res.stdout, /^configuration OK/);
  t.notOk(fileExists(dataDir), 'no data dir made: nothing opened the store');
});

t.test('bad settings in the file are named one per line, exit 1', async (t) => {
  const res = await check(configFile('bad.json', { api: { port: 'eighty' }, limits: { teamsPerAccont: 50 }, accounts: { defaultRegion: 'mars' } }));
  t.equal(res.code, 1);
  const lines = res.stdout.trim().split('\n');
  t.match(lines[0], /^invalid configuration in .*\/bad\.json \+ the environment:$/, 'the first line names the sources');
  t.ok(lines.includes('  api.port: must be integer'), res.stdout);
  t.ok(lines.includes('  unknown setting limits.teamsPerAccont'), res.stdout);
  t.equal(res.stderr, '', 'a finding, not an error');
});

t.test('a bad variable is named with the text it was given, beside a bad file setting', async (t) => {
  const res = await check(configFile('bad-too.json', { verify: { intervalS: -1 } }), { TERNMAIL_API_PORT: 'abc', TERNMAIL_LOG_LEVEL: 'loud' });
  t.equal(res.code, 1);
  t.match(res.stdout, /^invalid configuration in .*bad-too\.json \+ the environment:$/m);
  t.match(res.stdout, /^ {2}TERNMAIL_API_PORT="abc": must be integer$/m);
  t.match(res.stdout, /^ {2}TERNMAIL_LOG_LEVEL="loud": must be equal to one of the allowed values/m);
  t.match(res.stdout, /^ {2}verify\.intervalS: must be > 0$/m);
});

t.test('a rule across settings is named too (the semantic checks), and an unreadable file is said as such', async (t) => {
  const semantic = await check(configFile('semantic.json', { accounts: { defaultRegion: 'mars' } }));
  t.equal(semantic.code, 1);
  t.match(semantic.stdout, /^ {2}accounts\.defaultRegion "mars" is not one of regions \(eu, us\)$/m);
  const missing = await check(join(home.dir, 'absent.json'));
  t.equal(missing.code, 1);
  t.match(missing.stdout, /cannot read configuration file .*absent\.json/);
});

t.test('a malformed TERNMAIL_REDIS_SENTINELS is named with its entry, exit 1; a good one is valid', async (t) => {
  const bad = await check(configFile('sentinels.json', {}), { TERNMAIL_REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2:port' });
  t.equal(bad.code, 1, bad.stdout + bad.stderr);
  t.match(bad.stdout, /^ {2}TERNMAIL_REDIS_SENTINELS \(redisSentinel\.sentinels\) entry "10\.0\.0\.2:port" must be host:port/m);
  const good = await check(configFile('sentinels-ok.json', { redisSentinel: { name: 'tern' } }), { TERNMAIL_REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2' });
  t.equal(good.code, 0, good.stdout + good.stderr);
  t.match(good.stdout, /^configuration OK/);
});

/**
 * A copy of the built package (dist, config, package.json; node_modules linked), whose shipped policy files a
 * test may break: the retry policy and the reply rules are read from the package's own config/ folder.
 */
function packageCopy(name: string): { root: string; ternmail: string } {
  const root = join(home.dir, name);
  mkdirSync(root);
  for (const part of ['dist', 'config', 'package.json']) cpSync(join(repoRoot, part), join(root, part), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  return { root, ternmail: join(root, 'dist', 'shared', 'cli', 'ternmail.js') };
}

const checkWith = (ternmail: string) =>
  runCli(['config', 'check'], cleanEnv({ TERNMAIL_CONFIG: home.configFile, TERNMAIL_DATA_DIR: dataDir, TERNMAIL_PUBLIC_HOSTNAME: 'mx.example.com' }), 60_000, ternmail);

t.test('a broken retry policy (config/retry.json) is named by file and setting, exit 1', async (t) => {
  const copy = packageCopy('broken-retry');
  const file = join(copy.root, 'config', 'retry.json');
  const retry = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...retry, delaysS: [], jitterRatio: 2 }));
  const res = await checkWith(copy.ternmail);
  t.equal(res.code, 1, res.stdout + res.stderr);
  t.match(res.stdout, new RegExp(`^invalid retry policy in ${file}:$`, 'm'), 'the file is named');
  t.match(res.stdout, /^ {2}delaysS: must NOT have fewer than 1 items$/m);
  t.match(res.stdout, /^ {2}jitterRatio: must be <= 0\.5$/m);
  t.notMatch(res.stdout, /configuration OK/);
  t.equal(res.stderr, '', 'a finding, not an error');
});

t.test('broken SMTP reply rules (config/smtp-replies.json) are named by file and rule, exit 1', async (t) => {
  const copy = packageCopy('broken-replies');
  const file = join(copy.root, 'config', 'smtp-replies.json');
  const shipped = JSON.parse(readFileSync(file, 'utf8')) as { rules: Array<Record<string, unknown>> };
  const [first, ...rest] = shipped.rules;
  writeFileSync(file, JSON.stringify({ ...shipped, rules: [{ ...first, hard: 'yes' }, ...rest] }));
  const res = await checkWith(copy.ternmail);
  t.equal(res.code, 1, res.stdout + res.stderr);
  t.match(res.stdout, new RegExp(`^invalid SMTP reply rules in ${file}:$`, 'm'), 'the file is named');
  t.match(res.stdout, new RegExp(`^ {2}rules\\[0\\] "${String(first!.id)}"\\.hard: must be boolean$`, 'm'), 'and the rule and its setting');
  t.equal(res.stderr, '', 'a finding, not an error');
});

t.test('an unreadable retry policy and broken reply rules are both reported, each by its file', async (t) => {
  const copy = packageCopy('broken-both');
  writeFileSync(join(copy.root, 'config', 'retry.json'), '{');
  writeFileSync(join(copy.root, 'config', 'smtp-replies.json'), JSON.stringify({ description: 'x', rules: [] }));
  const res = await checkWith(copy.ternmail);
  t.equal(res.code, 1, res.stdout + res.stderr);
  t.match(res.stdout, new RegExp(`^cannot read retry policy file ${join(copy.root, 'config', 'retry.json')}: `, 'm'));
  t.match(res.stdout, new RegExp(`^invalid SMTP reply rules in ${join(copy.root, 'config', 'smtp-replies.json')}:$`, 'm'));
});
