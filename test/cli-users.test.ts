// `ternmail user create` and `ternmail user reset-password`, run as real processes against a data dir: the
// one-time password they print is the user's (checked against the stored Argon2id hash), bad input is a clear
// error with a non-zero exit and nothing on stdout.
import t from 'tap';
import { rmSync } from 'node:fs';
import { cleanEnv, runCli, tempHome } from './helpers/cli.js';
import { openStore } from '../shared/store/index.js';
import { verifyPassword } from '../shared/core/identity/passwords.js';

const home = tempHome('tern-cli-users-');
const env = cleanEnv({ TERNMAIL_DATA_DIR: home.dir, TERNMAIL_CONFIG: home.configFile, TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test' });
t.teardown(() => rmSync(home.dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(args, env);

/** Whether `password` is the stored password of the user of `email`. */
async function passwordIs(email: string, password: string): Promise<boolean> {
  const store = await openStore(home.dir);
  try {
    const user = await store.users.findByEmail(email);
    const hash = user && (await store.users.passwordHash(user.id));
    return hash !== undefined && (await verifyPassword(hash, password));
  } finally {
    await store.close();
  }
}

const account = await cli('account', 'create', '--name', 'Users Co');
if (account.code !== 0) throw new Error(account.stderr);
const accountId = String(account.json.id);

t.test('user create prints the user and a one-time password that is the user’s password', async (t) => {
  const res = await cli('user', 'create', '--account', accountId, '--email', 'Ops@Example.com', '--role', 'admin', '--name', 'Ops');
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stdout.trim().split('\n').length, 1, 'one line of JSON');
  t.match(res.json, { email: 'Ops@Example.com', name: 'Ops', role: 'admin', team_id: Number(accountId) });
  t.match(res.json.one_time_password, /^[A-Za-z0-9]{24}$/);
  t.ok(await passwordIs('ops@example.com', res.json.one_time_password), 'the printed password is stored (hashed)');
  const store = await openStore(home.dir);
  t.equal((await store.users.findByEmail('ops@example.com'))?.mustChangePassword, true, 'to be changed at the first login');
  await store.close();
});

t.test('user create refuses bad input with a clear message and a non-zero exit', async (t) => {
  const cases: Array<[string[], number, RegExp]> = [
    [['--email', 'a@example.com', '--role', 'admin'], 2, /--account is required/],
    [['--account', accountId, '--role', 'admin'], 2, /--email is required/],
    [['--account', accountId, '--email', 'a@example.com'], 2, /--role is required/],
    [['--account', accountId, '--email', 'not-an-email', '--role', 'admin'], 2, /--email: email must be an email address/],
    [['--account', accountId, '--email', 'a@example.com', '--role', 'root'], 2, /--role: role must be owner, admin or viewer/],
    [['--account', 'x', '--email', 'a@example.com', '--role', 'admin'], 2, /--account must be an integer/],
    [['--account', '999999', '--email', 'a@example.com', '--role', 'admin'], 1, /no account 999999/],
    [['--account', accountId, '--email', 'OPS@example.com', '--role', 'viewer'], 1, /a user with this email already exists/],
  ];
  for (const [args, code, message] of cases) {
    const res = await cli('user', 'create', ...args);
    t.equal(res.code, code, `${args.join(' ')}: exit ${code}`);
    t.match(res.stderr, message);
    t.equal(res.stdout, '', 'nothing on stdout');
  }
});

t.test('user reset-password prints a new one-time password; the old one stops working', async (t) => {
  const created = await cli('user', 'create', '--account', accountId, '--email', 'reset@example.com', '--role', 'viewer');
  t.equal(created.code, 0, created.stderr);
  const res = await cli('user', 'reset-password', '--email', 'RESET@example.com');
  t.equal(res.code, 0, res.stderr);
  t.match(res.json, { email: 'reset@example.com', role: 'viewer' });
  t.match(res.json.one_time_password, /^[A-Za-z0-9]{24}$/);
  t.not(res.json.one_time_password, created.json.one_time_password);
  t.ok(await passwordIs('reset@example.com', res.json.one_time_password));
  t.notOk(await passwordIs('reset@example.com', created.json.one_time_password), 'the previous one no longer matches');
  const unknown = await cli('user', 'reset-password', '--email', 'nobody@example.com');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /no user nobody@example.com/);
  const missing = await cli('user', 'reset-password');
  t.equal(missing.code, 2);
  t.match(missing.stderr, /--email is required/);
});
