// The login throttle under concurrency, over real HTTP from several loopback addresses (issue 22, item 1): an
// attempt takes its place in the email's and the address's windows before its password is checked, so however
// many arrive at once, at most the limit of them are checked (an answer other than 429, and an auth-log entry
// other than `throttled`, is one Argon2 check) and a right password behind them does not sign in.
import t from 'tap';
import { request } from 'node:http';
import { startHarness, type Harness } from './helpers/harness.js';
import { PASSWORD, userOn } from './helpers/dashboard-session.js';

const PER_EMAIL = 5;
const PER_ADDRESS = 8;
let h: Harness;
t.before(async () => {
  h = await startHarness({ overrides: { dashboard: { login: { failuresPerEmail: PER_EMAIL, failuresPerAddress: PER_ADDRESS, windowMinutes: 15 } } } });
});
t.teardown(() => h?.close());

/** A loopback address of its own for each use (127.0.0.0/8 is all loopback on Linux), so tests do not share windows. */
let nextHost = 0;
const freshAddress = (): string => `127.0.${Math.floor(++nextHost / 250) + 1}.${(nextHost % 250) + 1}`;

/** POST /api/tern-auth/v1/login from `localAddress` on a connection of its own; the status. */
function loginFrom(localAddress: string, email: string, password: string): Promise<number> {
  const url = new URL(h.url);
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/api/tern-auth/v1/login',
        method: 'POST',
        localAddress,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The account's auth-log results for `email` (as the store records them). */
async function resultsFor(accountId: number, email: string): Promise<string[]> {
  const log = await h.rt.store.authLog.list(accountId, { page: 1, perPage: 1000 });
  return log.rows.filter((e) => e.email === email).map((e) => e.result);
}

const checked = (statuses: number[]) => statuses.filter((s) => s !== 429).length;

t.test('30 logins at once for one email, the right password last, check at most the limit and the last does not sign in', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'owner');
  const from = freshAddress();
  const statuses = await Promise.all([...Array.from({ length: 29 }, () => loginFrom(from, email, 'wrong password, guessed')), loginFrom(from, email, PASSWORD)]);
  t.ok(checked(statuses) <= PER_EMAIL, `${checked(statuses)} passwords checked, the limit is ${PER_EMAIL}`);
  t.equal(statuses.at(-1), 429, 'the right password, behind the guesses, is throttled');
  t.notOk(statuses.includes(200), 'no attempt signed in');
  const results = await resultsFor(account.id, email);
  t.equal(results.length, 30, 'every attempt is in the auth log');
  t.ok(results.filter((r) => r !== 'throttled').length <= PER_EMAIL, 'the log shows at most the limit checked');
});

t.test('30 logins at once for one email from 30 addresses check at most the email’s limit', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'admin');
  const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => loginFrom(freshAddress(), email, i === 29 ? PASSWORD : 'wrong password, guessed')));
  t.ok(checked(statuses) <= PER_EMAIL, `${checked(statuses)} passwords checked, the limit is ${PER_EMAIL}`);
  t.equal(statuses.at(-1), 429, 'the right password, behind the guesses, is throttled');
  const results = await resultsFor(account.id, email);
  t.ok(results.filter((r) => r !== 'throttled').length <= PER_EMAIL, 'the log shows at most the limit checked');
});

t.test('40 logins at once from one address, each for another email, check at most the address’s limit', async (t) => {
  const from = freshAddress();
  const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => loginFrom(from, `nobody${i}.${process.pid}@example.com`, 'wrong password, guessed')));
  t.ok(checked(statuses) <= PER_ADDRESS, `${checked(statuses)} passwords checked, the limit is ${PER_ADDRESS}`);
  t.equal(statuses.filter((s) => s === 401).length, PER_ADDRESS, 'exactly the limit were checked and failed');
});

t.test('a right password refunds its place: a success does not count against the address, and clears the email’s failures', async (t) => {
  const account = await h.account();
  const email = await userOn(h, account.id, 'viewer');
  const from = freshAddress();
  for (let i = 0; i < PER_EMAIL - 1; i++) t.equal(await loginFrom(from, email, 'wrong password, guessed'), 401);
  for (let i = 0; i < PER_ADDRESS; i++) t.equal(await loginFrom(from, email, PASSWORD), 200, `success ${i + 1}`);
  t.equal(await loginFrom(from, email, 'wrong password, guessed'), 401, 'neither window is full after many successes');
});
