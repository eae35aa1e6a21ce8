// The operator CLI, run as real processes against a data dir, with a real `ternmail api` process (real
// Redis, the same SQLite file) to show that what the CLI does is what the API then serves.
import t from 'tap';
import { rmSync } from 'node:fs';
import { startRedis } from './helpers/redis.js';
import { freePort } from './helpers/redis.js';
import { startDnsServer } from './helpers/dns-server.js';
import { cleanEnv, http, runCli, spawnTernmail, tempHome, waitForApi } from './helpers/cli.js';

const PUBLIC_HOST = 'mx.tern.test';
const SCOPE_COUNT = 12;

const home = tempHome();
const redis = await startRedis();
const dns = await startDnsServer();
const apiPort = await freePort();
const base = `http://127.0.0.1:${apiPort}`;
const env = cleanEnv({
  TERNMAIL_DATA_DIR: home.dir,
  TERNMAIL_CONFIG: home.configFile,
  TERNMAIL_REDIS_URL: redis.url,
  TERNMAIL_API_HOST: '127.0.0.1',
  TERNMAIL_API_PORT: String(apiPort),
  TERNMAIL_PUBLIC_HOSTNAME: PUBLIC_HOST,
  TERNMAIL_DNS_SERVERS: dns.address,
});

// The data dir is created by the first operator command; the API process then shares it.
const bootstrap = await runCli(['account', 'create', '--name', 'Bootstrap'], env);
if (bootstrap.code !== 0) throw new Error(`account create failed: ${bootstrap.stderr}`);
const api = spawnTernmail(['api'], env);
await waitForApi(base, api);

t.teardown(async () => {
  await api.stop().catch(() => api.child.kill('SIGKILL'));
  await dns.close();
  await redis.stop();
  rmSync(home.dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, env);

/** A new account with an admin key holding every scope, made through the CLI. */
async function accountWithKey(name: string, extra: string[] = []): Promise<{ id: number; key: string }> {
  const account = await cli('account', 'create', '--name', name, ...extra);
  if (account.code !== 0) throw new Error(account.stderr);
  const key = await cli('admin-key', 'create', '--account', String(account.json.id), '--title', 'ops', '--scopes', 'all');
  if (key.code !== 0) throw new Error(key.stderr);
  return { id: account.json.id, key: key.json.key };
}

t.test('account create prints one JSON object with the new id and name', async (t) => {
  const res = await cli('account', 'create', '--name', 'Acme Platform', '--credits', '50', '--limit-per-second', '20');
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stdout.trim().split('\n').length, 1, 'exactly one line of output');
  t.same(Object.keys(res.json).sort(), ['id', 'name']);
  t.type(res.json.id, 'number');
  t.equal(res.json.name, 'Acme Platform');

  const missing = await cli('account', 'create');
  t.equal(missing.code, 2, 'a missing --name is a usage error');
  t.match(missing.stderr, /--name is required/);
  t.equal(missing.stdout, '', 'nothing on stdout on error');

  const short = await cli('account', 'create', '--name', 'A');
  t.equal(short.code, 2);
  t.match(short.stderr, /2 to 100 characters/);

  const badCredits = await cli('account', 'create', '--name', 'Bad credits', '--credits', 'lots');
  t.equal(badCredits.code, 2);
  t.match(badCredits.stderr, /--credits must be an integer/);
});

t.test('a value beginning with a dash is the option’s value (a domain id may begin with one)', async (t) => {
  const res = await cli('account', 'create', '--name', '-Dash Co');
  t.equal(res.code, 0, res.stderr);
  t.equal(res.json.name, '-Dash Co');
  const id = await cli('domain', 'check', '--id', '-AbCdEfGhIjKlMnOp');
  t.notMatch(id.stderr, /ambiguous/, 'the id is read as the id');
});

t.test('account update changes the sending rate and plan that GET /v2/info shows', async (t) => {
  const { id, key } = await accountWithKey('Rate Co', ['--limit-per-second', '5']);
  const before = await http(base, 'GET', '/v2/info', { key });
  t.equal(before.status, 200);
  t.equal(before.body.account.limit_per_second, 5);
  t.equal(before.body.account.plan_type, 'standard');

  const res = await cli('account', 'update', '--id', String(id), '--limit-per-second', '40', '--plan', 'enterprise');
  t.equal(res.code, 0, res.stderr);
  t.match(res.json, { id, limit_per_second: 40, plan_type: 'enterprise' });

  const after = await http(base, 'GET', '/v2/info', { key });
  t.equal(after.body.account.limit_per_second, 40);
  t.equal(after.body.account.plan_type, 'enterprise');

  const planOnly = await cli('account', 'update', '--id', String(id), '--plan', 'pro');
  t.equal(planOnly.code, 0, planOnly.stderr);
  const again = await http(base, 'GET', '/v2/info', { key });
  t.equal(again.body.account.plan_type, 'pro');
  t.equal(again.body.account.limit_per_second, 40, 'a field not given keeps its value');

  const nothing = await cli('account', 'update', '--id', String(id));
  t.equal(nothing.code, 2, 'an update with nothing to change is a usage error');
  const blankPlan = await cli('account', 'update', '--id', String(id), '--plan', ' ');
  t.equal(blankPlan.code, 2, 'a blank plan is refused');
  t.match(blankPlan.stderr, /--plan must have 1 to 50 characters/);
  const zero = await cli('account', 'update', '--id', String(id), '--limit-per-second', '0');
  t.equal(zero.code, 2, 'a sending rate below 1 is refused');
  const unknown = await cli('account', 'update', '--id', '999999', '--plan', 'pro');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /no account or team 999999/);
});

t.test('admin-key create prints a tern_admin_ key that works and holds exactly the scopes asked for', async (t) => {
  const account = await cli('account', 'create', '--name', 'Scoped Co');
  const res = await cli('admin-key', 'create', '--account', String(account.json.id), '--title', 'Domains only', '--scopes', 'domains:read,teams:write');
  t.equal(res.code, 0, res.stderr);
  t.type(res.json.id, 'number');
  t.match(res.json.key, /^tern_admin_[A-Za-z0-9_-]{43,}$/);
  const key: string = res.json.key;

  const info = await http(base, 'GET', '/v2/info', { key });
  t.equal(info.status, 200);
  t.equal(info.body.key.id, res.json.id);
  t.equal(info.body.key.title, 'Domains only');
  t.same([...info.body.key.scopes].sort(), ['domains:read', 'teams:write']);
  t.ok(Array.isArray(info.body.domains), 'domains:read shows the domain list in /v2/info');

  t.equal((await http(base, 'GET', '/v2/domains', { key })).status, 200);
  t.equal((await http(base, 'GET', '/v2/teams', { key })).status, 200, 'teams:write includes teams:read');
  const denied = await http(base, 'POST', '/v2/domains', { key, body: { name: 'scoped-cli-example.com' } });
  t.equal(denied.status, 403);
  t.equal(denied.body.errors.code, 'insufficient_scope');
  t.equal(denied.body.errors.required_scope, 'domains:write');
  const webhooks = await http(base, 'GET', '/v2/webhooks', { key });
  t.equal(webhooks.status, 403);
  t.equal(webhooks.body.errors.required_scope, 'webhooks:read');
});

t.test('admin-key create with --scopes all grants every scope', async (t) => {
  const { key } = await accountWithKey('All Scopes Co');
  const info = await http(base, 'GET', '/v2/info', { key });
  t.equal(info.status, 200);
  t.equal(info.body.key.scopes.length, SCOPE_COUNT);
  t.same([...info.body.key.scopes].sort(), [
    'api_keys:read',
    'api_keys:write',
    'domains:read',
    'domains:write',
    'emails:read',
    'emails:send',
    'suppressions:read',
    'suppressions:write',
    'teams:read',
    'teams:write',
    'webhooks:read',
    'webhooks:write',
  ]);
});

t.test('admin-key create refuses an unknown scope with a message and a non-zero exit', async (t) => {
  const account = await cli('account', 'create', '--name', 'Typo Co');
  const res = await cli('admin-key', 'create', '--account', String(account.json.id), '--title', 'x', '--scopes', 'domains:read,domains:delete');
  t.not(res.code, 0);
  t.equal(res.stdout, '');
  t.match(res.stderr, /unknown scope\(s\): domains:delete/);
  const none = await cli('admin-key', 'create', '--account', String(account.json.id), '--title', 'x');
  t.not(none.code, 0, 'scopes are never granted by default');
  t.match(none.stderr, /--scopes is required/);
  const noAccount = await cli('admin-key', 'create', '--account', '987654', '--title', 'x', '--scopes', 'all');
  t.equal(noAccount.code, 1);
  t.match(noAccount.stderr, /no account 987654/);
});

t.test('an account holds at most 10 admin keys: the 11th is refused', async (t) => {
  const account = await cli('account', 'create', '--name', 'Ten Keys Co');
  const id = String(account.json.id);
  const keys: string[] = [];
  for (let i = 1; i <= 10; i++) {
    const res = await cli('admin-key', 'create', '--account', id, '--title', `key ${i}`, '--scopes', 'teams:read');
    t.equal(res.code, 0, `key ${i}: ${res.stderr}`);
    keys.push(res.json.key);
  }
  t.equal(new Set(keys).size, 10, 'every key value is different');
  const eleventh = await cli('admin-key', 'create', '--account', id, '--title', 'key 11', '--scopes', 'teams:read');
  t.equal(eleventh.code, 1);
  t.equal(eleventh.stdout, '');
  t.match(eleventh.stderr, /already holds 10 admin keys/);
  t.equal((await http(base, 'GET', '/v2/info', { key: keys[9] })).status, 200, 'the keys made before still work');
});

t.test('credits add raises the pooled balance and refuses a child team', async (t) => {
  const { id, key } = await accountWithKey('Credits Co', ['--credits', '5']);
  const res = await cli('credits', 'add', '--account', String(id), '--amount', '7');
  t.equal(res.code, 0, res.stderr);
  t.same(res.json, { balance: 12 });
  t.equal((await http(base, 'GET', '/v2/info', { key })).body.account.credit_balance, 12);

  const team = await http(base, 'POST', '/v2/teams', { key, body: { name: 'Child team' } });
  t.equal(team.status, 201);
  const child = await cli('credits', 'add', '--account', String(team.body.data.id), '--amount', '3');
  t.equal(child.code, 1);
  t.equal(child.stdout, '');
  t.match(child.stderr, new RegExp(`child team sharing its account's credits; add them to its account ${id}`));
  const childInfo = await http(base, 'GET', '/v2/info', { key, teamId: team.body.data.id });
  t.equal(childInfo.body.account.credit_balance, 12, 'a child team shows the pooled balance, unchanged');

  const negative = await cli('credits', 'add', '--account', String(id), '--amount', '-4');
  t.equal(negative.code, 2, 'a negative amount is a usage error');
  const unknown = await cli('credits', 'add', '--account', '424242', '--amount', '4');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /no account or team 424242/);
});

t.test('a team suspended by the platform stays suspended for its owner until team reactivate', async (t) => {
  const { key } = await accountWithKey('Suspension Co');
  const team = await http(base, 'POST', '/v2/teams', { key, body: { name: 'Risky team' } });
  const teamId: number = team.body.data.id;

  const suspend = await cli('team', 'suspend', '--team', String(teamId), '--by-platform');
  t.equal(suspend.code, 0, suspend.stderr);
  t.match(suspend.json, {
    id: teamId,
    status: 'suspended',
    suspended_by: 'platform',
    suspension: { by: 'platform', reason: 'suspended by the operator', suspended_at: /^\d{4}-\d{2}-\d{2}T/, detail: null },
  });

  const listed = await http(base, 'GET', '/v2/teams', { key });
  t.match(listed.body.data.teams, [{ id: teamId, status: 'suspended' }]);

  const reactivate = await http(base, 'PUT', `/v2/teams/${teamId}`, { key, body: { status: 'active' } });
  t.equal(reactivate.status, 403);
  t.equal(reactivate.body.errors.code, 'suspended_by_platform');
  const retry = await http(base, 'PUT', `/v2/teams/${teamId}`, { key, body: { status: 'active' } });
  t.equal(retry.status, 403, 'retrying does not help');

  const lift = await cli('team', 'reactivate', '--team', String(teamId));
  t.equal(lift.code, 0, lift.stderr);
  t.match(lift.json, { id: teamId, status: 'active', lifted: { by: 'platform', reason: 'suspended by the operator' } }, 'it prints what it lifted');
  t.match((await http(base, 'GET', '/v2/teams', { key })).body.data.teams, [{ id: teamId, status: 'active' }]);

  // Without --by-platform the suspension is like the owner's own, which the owner may lift.
  const withReason = await cli('team', 'suspend', '--team', String(teamId), '--reason', 'Abuse report 42');
  t.equal(withReason.code, 0, withReason.stderr);
  t.match(withReason.json, { suspended_by: 'account', suspension: { by: 'account', reason: 'Abuse report 42' } });
  const shown = await http(base, 'GET', '/v2/info', { key, teamId });
  t.match(shown.body.account.suspension, { by: 'account', reason: 'Abuse report 42', detail: null }, 'the owner sees the operator’s reason');
  const badReason = await cli('team', 'suspend', '--team', String(teamId), '--reason', 'two\nlines');
  t.equal(badReason.code, 2, 'a reason with a control character is a usage error');
  const ownerLifts = await http(base, 'PUT', `/v2/teams/${teamId}`, { key, body: { status: 'active' } });
  t.equal(ownerLifts.status, 200);
  t.equal(ownerLifts.body.data.status, 'active');

  const unknown = await cli('team', 'suspend', '--team', '777777', '--by-platform');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /no team 777777/);
});

t.test('an admin key made for a child team reaches only that team', async (t) => {
  const parent = await accountWithKey('Parent Co');
  const team = await http(base, 'POST', '/v2/teams', { key: parent.key, body: { name: 'Client team' } });
  const teamId: number = team.body.data.id;
  const res = await cli('admin-key', 'create', '--account', String(teamId), '--title', 'client', '--scopes', 'all');
  t.equal(res.code, 0, res.stderr);
  const info = await http(base, 'GET', '/v2/info', { key: res.json.key });
  t.equal(info.status, 200);
  t.equal(info.body.key.acting_on, teamId);
  t.equal(info.body.key.owned_by, teamId);
  t.equal(info.headers.get('x-account-id'), String(teamId));
  const parentReach = await http(base, 'GET', '/v2/info', { key: res.json.key, teamId: parent.id });
  t.equal(parentReach.status, 404, 'the parent account is out of reach and answers like a missing team');
});

t.test('domain check prints each record’s result and verifies the domain once its records are published', async (t) => {
  const { key } = await accountWithKey('Domain Co', ['--credits', '10']);
  const created = await http(base, 'POST', '/v2/domains', { key, body: { name: 'cli-check-example.com' } });
  t.equal(created.status, 201);
  const id: string = created.body.data.id;
  const detail = await http(base, 'GET', `/v2/domains/${id}`, { key });
  const { dkim, spf } = detail.body.data.dns_records;

  const before = await cli('domain', 'check', '--id', id);
  t.equal(before.code, 0, before.stderr);
  t.match(before.json, {
    id,
    domain_name: 'cli-check-example.com',
    verification_status: 'draft',
    records: { dkim: { ok: false }, spf: { ok: false }, mx: { ok: false } },
  });

  // Publish the records as a zone would: the MX and SPF TXT at the `send` sub-name first, DKIM last.
  const mx = spf.find((r: { type: string }) => r.type === 'MX');
  const txt = spf.find((r: { type: string }) => r.type === 'TXT');
  dns.set(`${txt.name}.cli-check-example.com`, [
    { type: 'TXT', data: txt.content },
    { type: 'MX', data: { preference: Number(mx.priority), exchange: mx.content } },
  ]);
  dns.set('_dmarc.cli-check-example.com', [{ type: 'TXT', data: 'v=DMARC1; p=quarantine' }]);
  const partial = await cli('domain', 'check', '--id', id);
  t.match(
    partial.json,
    { verification_status: 'draft', records: { dkim: { ok: false }, spf: { ok: true }, mx: { ok: true } } },
    'a missing DKIM record keeps it a draft',
  );

  dns.set(`${dkim.name}.cli-check-example.com`, [{ type: 'TXT', data: dkim.content }]);
  const after = await cli('domain', 'check', '--id', id);
  t.equal(after.code, 0, after.stderr);
  t.match(after.json, {
    verification_status: 'verified',
    records: { dkim: { ok: true }, spf: { ok: true }, mx: { ok: true } },
    dmarc_policy: 'quarantine',
  });
  t.same(after.json.records.mx.found, [PUBLIC_HOST]);

  const shown = await http(base, 'GET', `/v2/domains/${id}`, { key });
  t.equal(shown.body.data.verification_status, 'verified');
  t.equal(shown.body.data.auto_verification.active, false);
  t.equal(shown.body.data.dmarc_policy, 'quarantine');
});

t.test('domain check of an unknown id fails with a message', async (t) => {
  const res = await cli('domain', 'check', '--id', 'no-such-domain');
  t.equal(res.code, 1);
  t.equal(res.stdout, '');
  t.match(res.stderr, /no domain no-such-domain/);
  const missing = await cli('domain', 'check');
  t.equal(missing.code, 2);
  t.match(missing.stderr, /--id is required/);
});

t.test('an unknown command or option exits with 2 and prints the usage', async (t) => {
  const res = await cli('frobnicate', 'now');
  t.equal(res.code, 2);
  t.equal(res.stdout, '');
  t.match(res.stderr, /unknown command: frobnicate now/);
  t.match(res.stderr, /usage: ternmail <command>/);
  t.match(res.stderr, /admin-key create --account ID --title T --scopes s1,s2\|all/);

  const option = await cli('credits', 'add', '--account', '1', '--amount', '1', '--bogus');
  t.equal(option.code, 2);
  t.match(option.stderr, /--bogus/);

  const help = await cli('--help');
  t.equal(help.code, 0);
  t.match(help.stdout, /usage: ternmail <command>/);
});
