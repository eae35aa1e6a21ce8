// `ternmail operator create` and `ternmail operator list`, run as real processes against a data dir: an operator
// is a user of no account with a one-time password (checked against the stored hash, to change at the first
// login); bad input is a clear error with a non-zero exit and nothing on stdout.
import t from 'tap';
import { rmSync } from 'node:fs';
import { cleanEnv, runCli, tempHome } from './helpers/cli.js';
import { openStore } from '../shared/store/index.js';
import { verifyPassword } from '../shared/core/identity/passwords.js';

const home = tempHome('tern-cli-operators-');
const env = cleanEnv({ TERNMAIL_DATA_DIR: home.dir, TERNMAIL_CONFIG: home.configFile, TERNMAIL_PUBLIC_HOSTNAME: 'mx.tern.test' });
t.teardown(() => rmSync(home.dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(args, env);

t.test('operator create prints an operator of no team and a one-time password that is its password', async (t) => {
  const res = await cli('operator', 'create', '--email', 'Root@Example.com', '--name', 'Platform Ops');
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stdout.trim().split('\n').length, 1, 'one line of JSON');
  t.match(res.json, { id: Number, email: 'Root@Example.com', name: 'Platform Ops', role: 'operator', team_id: null });
  t.match(res.json.one_time_password, /^[A-Za-z0-9]{24}$/);
  const store = await openStore(home.dir);
  try {
    const user = await store.users.findByEmail('root@example.com');
    t.match(user, { role: 'operator', mustChangePassword: true }, 'to be changed at the first login');
    t.notOk(user && 'teamId' in user, 'no team');
    const hash = user && (await store.users.passwordHash(user.id));
    t.ok(hash !== undefined && (await verifyPassword(hash, String(res.json.one_time_password))), 'the printed password is stored (hashed)');
  } finally {
    await store.close();
  }
});

t.test('operator list prints the operators only, oldest first', async (t) => {
  const account = await cli('account', 'create', '--name', 'Not Operators');
  t.equal(account.code, 0, account.stderr);
  const user = await cli('user', 'create', '--account', String(account.json.id), '--email', 'owner@example.com', '--role', 'owner');
  t.equal(user.code, 0, user.stderr);
  t.equal((await cli('operator', 'create', '--email', 'second@example.com')).code, 0);
  const res = await cli('operator', 'list');
  t.equal(res.code, 0, res.stderr);
  const operators = (res.json as { operators: Array<Record<string, unknown>> }).operators;
  t.same(
    operators.map((o) => o.email),
    ['Root@Example.com', 'second@example.com'],
  );
  t.match(operators[1], { role: 'operator', team_id: null, name: '', must_change_password: true, created_at: String });
  t.notOk('one_time_password' in operators[0]!, 'no password is printed again');
});

t.test('user reset-password gives an operator a new one-time password', async (t) => {
  const res = await cli('user', 'reset-password', '--email', 'second@example.com');
  t.equal(res.code, 0, res.stderr);
  t.match(res.json, { email: 'second@example.com', role: 'operator', team_id: null, one_time_password: /^[A-Za-z0-9]{24}$/ });
});

t.test('operator create refuses bad input with a clear message and a non-zero exit', async (t) => {
  const cases: Array<[string[], number, RegExp]> = [
    [[], 2, /--email is required/],
    [['--email', 'not-an-email'], 2, /--email: email must be an email address/],
    [['--email', 'x@example.com', '--name', 'a\nb'], 2, /--name: name must be one line/],
    [['--email', 'x@example.com', '--team', '1'], 2, /Unknown option '--team'/],
    [['--email', 'ROOT@example.com'], 1, /a user with this email already exists/],
    [['--email', 'OWNER@example.com'], 1, /a user with this email already exists/],
  ];
  for (const [args, code, message] of cases) {
    const res = await cli('operator', 'create', ...args);
    t.equal(res.code, code, `${args.join(' ')}: exit ${code}`);
    t.match(res.stderr, message);
    t.equal(res.stdout, '', 'nothing on stdout');
  }
});
