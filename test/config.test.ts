// Configuration: embedded defaults, then the config file (/etc/ternmail/ternmail.json or TERNMAIL_CONFIG),
// then TERNMAIL_* variables; validated with clear messages, frozen, and with SMTP port defaults that follow
// what the process may bind.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from '../shared/config.js';
import { repoRoot } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-config-'));
chmodSync(dir, 0o755);
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** Writes a config file and returns its path. */
function configFile(content: unknown): string {
  const file = join(dir, `config-${++files}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o644 });
  return file;
}
const empty = configFile({});

t.test('with an empty config file and no variables every setting has its documented default', async (t) => {
  const c = loadConfig({ env: { TERNMAIL_CONFIG: empty } });
  t.equal(c.dataDir, resolve('data'), 'TERNMAIL_DATA_DIR defaults to ./data, made absolute');
  t.equal(c.redisUrl, null, 'no Redis URL: ternmail start manages one');
  t.equal(c.api.host, '127.0.0.1');
  t.equal(c.api.port, 8080);
  t.equal(c.api.bodyLimitBytes, 1024 * 1024);
  t.equal(c.publicHostname, hostname().toLowerCase(), 'the public host name defaults to the machine’s');
  t.same(c.dnsServers, [], 'the system resolvers');
  t.equal(c.verify.intervalS, 600);
  t.equal(c.verify.maxDraftAgeDays, 30);
  t.equal(c.webhooks.allowPrivate, false);
  t.same(c.tls, { cert: null, key: null }, 'a self-signed pair is made in the data dir');
  t.equal(c.keys.cacheTtlS, 30);
  t.same(c.dkim, { selector: 'tern', keyBits: 2048 });
  t.equal(c.accounts.firstStartCredits, 1000);
  t.equal(c.log.level, 'info');
  t.same(c.dnsProviders, { cloudflare: { baseUrl: 'https://api.cloudflare.com/client/v4', timeoutS: 15, retries: 1 } }, 'Cloudflare’s own API');
  t.same(c.limits, {
    teamsPerAccount: 25,
    adminKeysPerAccount: 10,
    webhooksPerTeam: 100,
    suppressionRemovalsPerDay: 500,
    domainCreatesPerMinute: 60,
    writesPerMinute: 300,
    pageSizeMax: 100,
    pageSizeDefault: 25,
    pagingDepth: 10000,
  });
});

t.test('the config file overrides the defaults and the variables override the file', async (t) => {
  const file = configFile({
    api: { host: '0.0.0.0', port: 9000 },
    verify: { intervalS: 120 },
    dnsServers: ['10.0.0.53'],
    limits: { teamsPerAccount: 50 },
  });
  const fromFile = loadConfig({ env: { TERNMAIL_CONFIG: file } });
  t.equal(fromFile.api.port, 9000);
  t.equal(fromFile.api.host, '0.0.0.0');
  t.equal(fromFile.api.bodyLimitBytes, 1024 * 1024, 'a nested setting the file does not name keeps its default');
  t.equal(fromFile.verify.intervalS, 120);
  t.equal(fromFile.verify.maxDraftAgeDays, 30);
  t.same(fromFile.dnsServers, ['10.0.0.53']);
  t.equal(fromFile.limits.teamsPerAccount, 50, 'limits such as teams per account are raised in the file');
  t.equal(fromFile.limits.webhooksPerTeam, 100);

  const both = loadConfig({ env: { TERNMAIL_CONFIG: file, TERNMAIL_API_PORT: '9100', TERNMAIL_DNS_SERVERS: '127.0.0.1:5353' } });
  t.equal(both.api.port, 9100, 'the variable wins over the file');
  t.equal(both.api.host, '0.0.0.0', 'what the variables do not name still comes from the file');
  t.same(both.dnsServers, ['127.0.0.1:5353']);

  const blank = loadConfig({ env: { TERNMAIL_CONFIG: file, TERNMAIL_API_PORT: '' } });
  t.equal(blank.api.port, 9000, 'an empty variable counts as unset');

  const withOverrides = loadConfig({ env: { TERNMAIL_CONFIG: file, TERNMAIL_API_PORT: '9100' }, overrides: { api: { port: 9050 }, verify: { intervalS: 5 } } });
  t.equal(withOverrides.verify.intervalS, 5, 'programmatic overrides come after the file');
  t.equal(withOverrides.api.port, 9100, 'and before the variables');
});

t.test('every TERNMAIL_* variable of the run contract is read and parsed', async (t) => {
  const c = loadConfig({
    env: {
      TERNMAIL_CONFIG: empty,
      TERNMAIL_DATA_DIR: 'var/tern-data',
      TERNMAIL_REDIS_URL: 'redis://10.1.2.3:6380/2',
      TERNMAIL_API_HOST: '::1',
      TERNMAIL_API_PORT: '18080',
      TERNMAIL_SMTP_STARTTLS_PORTS: '2587,3587',
      TERNMAIL_SMTP_TLS_PORTS: ' 2465 , 3465 ',
      TERNMAIL_MX_PORT: '2526',
      TERNMAIL_PUBLIC_HOSTNAME: 'MX.Example.COM.',
      TERNMAIL_DNS_SERVERS: '127.0.0.1:5353, [::1]:5353,192.0.2.53',
      TERNMAIL_VERIFY_INTERVAL_S: '0.5',
      TERNMAIL_WEBHOOK_ALLOW_PRIVATE: 'true',
      TERNMAIL_TLS_CERT: '/etc/ssl/tern/cert.pem',
      TERNMAIL_TLS_KEY: '/etc/ssl/tern/key.pem',
      TERNMAIL_LOG_LEVEL: 'debug',
      TERNMAIL_CLOUDFLARE_BASE_URL: 'http://127.0.0.1:8787/client/v4',
      TERNMAIL_DASHBOARD_URL: 'https://dashboard.example.net:8443',
    },
  });
  t.equal(c.dashboard.publicUrl, 'https://dashboard.example.net:8443');
  t.equal(c.dnsProviders.cloudflare.baseUrl, 'http://127.0.0.1:8787/client/v4');
  t.equal(c.dataDir, resolve('var/tern-data'));
  t.equal(c.redisUrl, 'redis://10.1.2.3:6380/2');
  t.equal(c.api.host, '::1');
  t.equal(c.api.port, 18080);
  t.same(c.smtp.starttlsPorts, [2587, 3587]);
  t.same(c.smtp.tlsPorts, [2465, 3465]);
  t.equal(c.smtp.mxPort, 2526);
  t.equal(c.publicHostname, 'mx.example.com', 'lower-cased, without the trailing dot');
  t.same(c.dnsServers, ['127.0.0.1:5353', '[::1]:5353', '192.0.2.53']);
  t.equal(c.verify.intervalS, 0.5);
  t.equal(c.webhooks.allowPrivate, true);
  t.same(c.tls, { cert: '/etc/ssl/tern/cert.pem', key: '/etc/ssl/tern/key.pem' });
  t.equal(c.log.level, 'debug');

  for (const [text, value] of [
    ['false', false],
    ['0', false],
    ['no', false],
    ['1', true],
    ['YES', true],
    ['on', true],
  ] as const) {
    const parsed = loadConfig({ env: { TERNMAIL_CONFIG: empty, TERNMAIL_WEBHOOK_ALLOW_PRIVATE: text } });
    t.equal(parsed.webhooks.allowPrivate, value, `TERNMAIL_WEBHOOK_ALLOW_PRIVATE=${text}`);
  }
  t.equal(loadConfig({ env: { TERNMAIL_CONFIG: empty, TERNMAIL_REDIS_URL: 'unix:///run/redis/redis.sock' } }).redisUrl, 'unix:///run/redis/redis.sock');
});

t.test('the README configuration table lists every variable the product reads', async (t) => {
  const source = readFileSync(join(repoRoot, 'shared', 'config.ts'), 'utf8');
  const read = [...new Set([...source.matchAll(/'(TERNMAIL_[A-Z_]+)'/g)].map((m) => m[1]!))];
  t.ok(read.length >= 14, `the loader reads ${read.length} variables`);
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  for (const name of [...read, 'TERNMAIL_CONFIG']) t.match(readme, `\`${name}\``, `${name} is documented`);
});

t.test('invalid values are refused with a ConfigError that names the setting', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ TERNMAIL_API_PORT: 'eighty' }, /TERNMAIL_API_PORT="eighty": must be integer/],
    [{ TERNMAIL_API_PORT: '70000' }, /TERNMAIL_API_PORT="70000": must be <= 65535/],
    [{ TERNMAIL_SMTP_STARTTLS_PORTS: '2587,smtp' }, /TERNMAIL_SMTP_STARTTLS_PORTS="2587,smtp": must be integer/],
    [{ TERNMAIL_SMTP_TLS_PORTS: '0' }, /TERNMAIL_SMTP_TLS_PORTS="0": must be >= 1/],
    [{ TERNMAIL_MX_PORT: '-25' }, /TERNMAIL_MX_PORT="-25": must be integer/],
    [{ TERNMAIL_VERIFY_INTERVAL_S: '0' }, /TERNMAIL_VERIFY_INTERVAL_S="0": must be > 0/],
    [{ TERNMAIL_VERIFY_INTERVAL_S: 'often' }, /TERNMAIL_VERIFY_INTERVAL_S="often": must be number/],
    [{ TERNMAIL_WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /TERNMAIL_WEBHOOK_ALLOW_PRIVATE="maybe": must be boolean/],
    [{ TERNMAIL_DNS_SERVERS: 'dns.google' }, /TERNMAIL_DNS_SERVERS \(dnsServers\) entry "dns.google" must be an IP address/],
    [{ TERNMAIL_DNS_SERVERS: '127.0.0.1:99999' }, /entry "127.0.0.1:99999"/],
    [{ TERNMAIL_REDIS_URL: 'localhost:6379' }, /TERNMAIL_REDIS_URL \(redisUrl\) "localhost:6379" must be a redis:\/\//],
    [{ TERNMAIL_PUBLIC_HOSTNAME: '192.0.2.1' }, /TERNMAIL_PUBLIC_HOSTNAME \(publicHostname\) "192.0.2.1" must be a host name/],
    [{ TERNMAIL_PUBLIC_HOSTNAME: 'mx_1.example.com' }, /must be a host name/],
    [{ TERNMAIL_TLS_CERT: '/etc/ssl/cert.pem' }, /tls.cert and tls.key must be given together/],
    [
      { TERNMAIL_CLOUDFLARE_BASE_URL: 'api.cloudflare.com' },
      /TERNMAIL_CLOUDFLARE_BASE_URL \(dnsProviders.cloudflare.baseUrl\) "api.cloudflare.com" must be an http:\/\/ or https:\/\/ URL/,
    ],
    [{ TERNMAIL_CLOUDFLARE_BASE_URL: 'ftp://api.cloudflare.com' }, /must be an http:\/\/ or https:\/\/ URL/],
    [
      { TERNMAIL_DASHBOARD_URL: 'dashboard.example.net' },
      /TERNMAIL_DASHBOARD_URL \(dashboard.publicUrl\) "dashboard.example.net" must be an http:\/\/ or https:\/\/ origin/,
    ],
    [{ TERNMAIL_DASHBOARD_URL: 'https://example.net/tern' }, /dashboard.publicUrl.*no path/],
    [{ TERNMAIL_DASHBOARD_URL: 'https://example.net/?next=1' }, /dashboard.publicUrl.*no path/],
    [{ TERNMAIL_LOG_LEVEL: 'loud' }, /TERNMAIL_LOG_LEVEL="loud": must be equal to one of the allowed values \(fatal, error, warn, info, debug, trace, silent\)/],
    [{ TERNMAIL_IDEMPOTENCY_STORE: 'memcached' }, /TERNMAIL_IDEMPOTENCY_STORE="memcached": must be equal to one of the allowed values \(redis, database/],
  ];
  for (const [env, message] of cases) {
    const name = Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: empty, ...env } }), message, name);
    try {
      loadConfig({ env: { TERNMAIL_CONFIG: empty, ...env } });
    } catch (err) {
      t.ok(err instanceof ConfigError, `${name} raises a ConfigError`);
      t.match((err as Error).message, /^invalid configuration in \S*\/config\/defaults\.json \+ \S+ \+ the environment: /);
      t.ok((err as Error).message.includes(empty), 'the message names the config file');
    }
  }
});

t.test('Redis behind Sentinel: TERNMAIL_REDIS_SENTINELS and the master group name make the target, 26379 when no port is given', async (t) => {
  const load = (env: Record<string, string>, file: Record<string, unknown> = {}) => loadConfig({ env: { TERNMAIL_CONFIG: configFile(file), ...env } });
  const c = load({ TERNMAIL_REDIS_SENTINELS: 'sentinel-a.internal:26380, 10.0.0.2 ,[fd00::3]:26381', TERNMAIL_REDIS_SENTINEL_NAME: 'tern-main' });
  t.match(c.redis, {
    kind: 'sentinel',
    name: 'tern-main',
    sentinels: [
      { host: 'sentinel-a.internal', port: 26380 },
      { host: '10.0.0.2', port: 26379 },
      { host: 'fd00::3', port: 26381 },
    ],
    password: null,
    tls: false,
    db: 0,
  });
  t.match(load({ TERNMAIL_REDIS_SENTINELS: '127.0.0.1:26379' }).redis, { kind: 'sentinel', name: 'mymaster' }, 'the group is mymaster by default');
  const secured = load(
    { TERNMAIL_REDIS_PASSWORD: 'master-secret', TERNMAIL_REDIS_SENTINEL_PASSWORD: 'sentinel-secret', TERNMAIL_REDIS_TLS: 'true' },
    { redisSentinel: { sentinels: ['s1.internal:26379', 's2.internal:26379'], db: 2, username: 'tern' } },
  );
  t.match(
    secured.redis,
    { kind: 'sentinel', password: 'master-secret', sentinelPassword: 'sentinel-secret', tls: true, db: 2, username: 'tern' },
    'the file and the variables combine',
  );
  t.same(load({ TERNMAIL_REDIS_URL: 'redis://10.1.2.3:6380/2' }).redis, { kind: 'url', url: 'redis://10.1.2.3:6380/2' }, 'a URL, as before');
  t.equal(load({}).redis, null, 'neither: ternmail start runs its own');
});

t.test('a malformed sentinel list, or Sentinel settings beside a URL or without sentinels, is refused naming the setting', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ TERNMAIL_REDIS_SENTINELS: 'host1:26379,,host2:26379' }, /TERNMAIL_REDIS_SENTINELS="host1:26379,,host2:26379": must NOT have fewer than 1 characters/],
    [{ TERNMAIL_REDIS_SENTINELS: 'host1:sentinel' }, /TERNMAIL_REDIS_SENTINELS \(redisSentinel.sentinels\) entry "host1:sentinel" must be host:port/],
    [{ TERNMAIL_REDIS_SENTINELS: 'host1:70000' }, /entry "host1:70000" must be host:port/],
    [{ TERNMAIL_REDIS_SENTINELS: 'redis://host1:26379' }, /entry "redis:\/\/host1:26379" must be host:port/],
    [{ TERNMAIL_REDIS_SENTINELS: '[not-v6]:26379' }, /entry "\[not-v6\]:26379" must be host:port/],
    [
      { TERNMAIL_REDIS_SENTINELS: 'host1:26379', TERNMAIL_REDIS_URL: 'redis://10.0.0.1:6379' },
      /TERNMAIL_REDIS_URL \(redisUrl\) and TERNMAIL_REDIS_SENTINELS \(redisSentinel.sentinels\) are both set/,
    ],
    [{ TERNMAIL_REDIS_SENTINELS: 'host1:26379', TERNMAIL_REDIS_SENTINEL_NAME: 'my master' }, /TERNMAIL_REDIS_SENTINEL_NAME="my master": must match pattern/],
    [{ TERNMAIL_REDIS_PASSWORD: 'secret' }, /TERNMAIL_REDIS_PASSWORD \(redisSentinel.password\) is for Redis behind Sentinel/],
    [
      { TERNMAIL_REDIS_TLS: 'yes', TERNMAIL_REDIS_URL: 'redis://10.0.0.1:6379' },
      /TERNMAIL_REDIS_TLS \(redisSentinel.tls\) is for Redis behind Sentinel.*TERNMAIL_REDIS_URL/,
    ],
  ];
  for (const [env, message] of cases) {
    const name = Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: empty, ...env } }), message, name);
  }
  t.throws(
    () => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ redisSentinel: { sentinels: [] } }) } }),
    /redisSentinel\.sentinels: must NOT have fewer than 1 items/,
  );
});

t.test('an empty item in a list variable is refused, not dropped', async (t) => {
  const load = (env: Record<string, string>) => () => loadConfig({ env: { TERNMAIL_CONFIG: empty, ...env } });
  t.throws(load({ TERNMAIL_SMTP_STARTTLS_PORTS: '2587,,2588' }), /TERNMAIL_SMTP_STARTTLS_PORTS="2587,,2588": must be integer/);
  t.throws(load({ TERNMAIL_DNS_SERVERS: '10.0.0.53,' }), /TERNMAIL_DNS_SERVERS="10.0.0.53,": must NOT have fewer than 1 characters/);
  t.same(loadConfig({ env: { TERNMAIL_CONFIG: empty, TERNMAIL_DNS_SERVERS: ' 10.0.0.53 , 10.0.0.54 ' } }).dnsServers, ['10.0.0.53', '10.0.0.54'], 'items are trimmed');
});

t.test('a broken config file is refused with a ConfigError naming the file or the setting', async (t) => {
  const missing = join(dir, 'nope.json');
  t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: missing } }), new RegExp(`cannot read configuration file ${missing}: ENOENT`), 'a named file must exist');
  const notJson = configFile('{ "api": ');
  t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: notJson } }), new RegExp(`cannot read configuration file ${notJson}: .*JSON`));
  t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: configFile([1, 2]) } }), /not a JSON object/);
  t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ api: { prot: 8081 } }) } }), /unknown setting api\.prot/, 'a typo is an error, not a silent default');
  t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ dataDri: '/srv' }) } }), /unknown setting dataDri/);
  t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ verify: { intervalS: '600' } }) } }), /verify\.intervalS: must be number/);
  t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ limits: { teamsPerAccount: 0 } }) } }), /limits\.teamsPerAccount: must be >= 1/);
  t.throws(
    () => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ accounts: { defaultRegion: 'mars' } }) } }),
    /accounts.defaultRegion "mars" is not one of regions \(eu, us\)/,
  );
  t.throws(
    () => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ support: { defaultPriority: 'urgent' } }) } }),
    /support.defaultPriority "urgent" is not one of support.priorities' ids/,
    "the support portal's default priority must be one it offers",
  );
  t.throws(
    () =>
      loadConfig({
        env: {
          TERNMAIL_CONFIG: configFile({
            support: {
              products: [
                { id: 'a', title: 'A' },
                { id: 'a', title: 'B' },
              ],
            },
          }),
        },
      }),
    /support.products names an id twice/,
  );
  t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ smtp: { starttlsPorts: [] } }) } }), /smtp\.starttlsPorts: must NOT have fewer than 1 items/);
  t.throws(
    () => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ smtp: { starttlsPorts: [0] } }) } }),
    /smtp\.starttlsPorts\[0\]: must be >= 1/,
    'a list item is named by its index',
  );
  t.throws(() => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ redisUrl: 6379 }) } }), /redisUrl: must be string or null/, 'a union names every type it takes');
  const err = (() => {
    try {
      loadConfig({ env: { TERNMAIL_CONFIG: configFile({ api: { port: 'x' } }), TERNMAIL_VERIFY_INTERVAL_S: '-1' } });
    } catch (e) {
      return e as Error;
    }
    return undefined;
  })();
  t.ok(err instanceof ConfigError);
  t.match(err?.message, /api\.port: must be integer/, 'every problem is reported at once');
  t.match(err?.message, /TERNMAIL_VERIFY_INTERVAL_S="-1": must be > 0/);
});

t.test("site health's thresholds default to the documented ones, and a critical one short of its recommended one is refused", async (t) => {
  const c = loadConfig({ env: { TERNMAIL_CONFIG: empty } });
  t.same(c.siteHealth, {
    tlsExpiryDays: 14,
    queueBacklogRecommended: 10000,
    queueBacklogCritical: 100000,
    queueOldestRecommendedS: 3600,
    queueOldestCriticalS: 86400,
    diskFreeRecommendedPercent: 10,
    diskFreeCriticalPercent: 5,
    backupRecommendedHours: 26,
    backupCriticalHours: 168,
  });
  t.equal(c.publicHostnameSet, false, 'no TERNMAIL_PUBLIC_HOSTNAME: the machine’s name, not a set one');
  t.equal(loadConfig({ env: { TERNMAIL_CONFIG: empty, TERNMAIL_PUBLIC_HOSTNAME: 'mx.example.com' } }).publicHostnameSet, true);
  const refused = (siteHealth: Record<string, number>) => () => loadConfig({ env: { TERNMAIL_CONFIG: configFile({ siteHealth }) } });
  t.throws(refused({ queueBacklogCritical: 10 }), /siteHealth\.queueBacklogCritical must be larger than queueBacklogRecommended/);
  t.throws(refused({ queueOldestCriticalS: 3600 }), /siteHealth\.queueOldestCriticalS must be larger than queueOldestRecommendedS/);
  t.throws(refused({ diskFreeCriticalPercent: 20 }), /siteHealth\.diskFreeCriticalPercent must be smaller than diskFreeRecommendedPercent/);
  t.throws(refused({ backupCriticalHours: 24 }), /siteHealth\.backupCriticalHours must be larger than backupRecommendedHours/);
  t.throws(refused({ diskFreeRecommendedPercent: 0 }), /siteHealth\.diskFreeRecommendedPercent: must be > 0/);
});

t.test('the configuration is deeply frozen', async (t) => {
  const c = loadConfig({ env: { TERNMAIL_CONFIG: empty, TERNMAIL_DNS_SERVERS: '127.0.0.1' } });
  t.ok(Object.isFrozen(c));
  t.ok(Object.isFrozen(c.api));
  t.ok(Object.isFrozen(c.smtp.starttlsPorts));
  t.ok(Object.isFrozen(c.limits));
  // Test files are ES modules, so strict mode: writing to a frozen object throws.
  t.throws(() => {
    (c as { dataDir: string }).dataDir = '/elsewhere';
  }, TypeError);
  t.throws(() => {
    (c.api as { port: number }).port = 1;
  }, TypeError);
  t.throws(() => {
    (c.limits as { teamsPerAccount: number }).teamsPerAccount = 1000;
  }, TypeError);
  t.throws(() => c.dnsServers.push('10.0.0.1'), TypeError);
  t.throws(() => c.smtp.starttlsPorts.push(25), TypeError);
  t.equal(c.api.port, 8080, 'nothing changed');
  t.same(c.dnsServers, ['127.0.0.1']);
  const again = loadConfig({ env: { TERNMAIL_CONFIG: empty } });
  t.not(again, c, 'each load builds its own object');
});

/** Loads the built config in a child process, optionally as another user with setpriv, and returns its smtp ports. */
function smtpPortsIn(prefix: string[]): { starttlsPorts: number[]; tlsPorts: number[]; mxPort: number } {
  const script = `import { loadConfig } from ${JSON.stringify(join(repoRoot, 'dist', 'shared', 'config.js'))}; console.log(JSON.stringify(loadConfig().smtp));`;
  const command = [...prefix, process.execPath, '--input-type=module', '-e', script];
  const res = spawnSync(command[0]!, command.slice(1), { env: { PATH: process.env.PATH, TERNMAIL_CONFIG: empty }, encoding: 'utf8', cwd: dir });
  if (res.status !== 0) throw new Error(`${command.join(' ')} failed: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

const isRoot = process.getuid?.() === 0;
const hasSetpriv = spawnSync('setpriv', ['--version']).status === 0;

t.test(
  'the SMTP port defaults follow whether the process may bind privileged ports',
  { skip: isRoot ? (hasSetpriv ? false : 'setpriv (util-linux) is not installed') : 'needs root to compare with an ordinary user and a capability' },
  async (t) => {
    const asRoot = loadConfig({ env: { TERNMAIL_CONFIG: empty } });
    t.same(asRoot.smtp, { starttlsPorts: [587, 2587], tlsPorts: [465, 2465], mxPort: 25 }, 'root gets the standard ports too');

    const asUser = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
    const unprivilegedStart = Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8'));
    t.same(
      smtpPortsIn(asUser),
      unprivilegedStart <= 25 ? { starttlsPorts: [587, 2587], tlsPorts: [465, 2465], mxPort: 25 } : { starttlsPorts: [2587], tlsPorts: [2465], mxPort: 2525 },
      `an ordinary user (ip_unprivileged_port_start=${unprivilegedStart})`,
    );
    t.same(
      smtpPortsIn([...asUser, '--inh-caps=+net_bind_service', '--ambient-caps=+net_bind_service']),
      { starttlsPorts: [587, 2587], tlsPorts: [465, 2465], mxPort: 25 },
      'an ordinary user with CAP_NET_BIND_SERVICE, as the systemd MTA unit runs',
    );
    const explicit = loadConfig({ env: { TERNMAIL_CONFIG: empty, TERNMAIL_SMTP_STARTTLS_PORTS: '2587', TERNMAIL_MX_PORT: '2525' } });
    t.same(explicit.smtp.starttlsPorts, [2587], 'a configured list wins over the machine default');
    t.equal(explicit.smtp.mxPort, 2525);
    t.same(explicit.smtp.tlsPorts, [465, 2465]);
  },
);
