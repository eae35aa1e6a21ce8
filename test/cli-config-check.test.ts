// `ternmail config check`, run as a real process: it loads the configuration (defaults, the file named by
// TERNMAIL_CONFIG, TERNMAIL_* variables) without starting anything, names each bad setting on its own line
// and exits 1, or says the configuration is valid and exits 0.
import t from 'tap';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, fileExists, runCli, tempHome } from './helpers/cli.js';

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
