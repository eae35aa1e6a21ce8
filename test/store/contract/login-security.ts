// The contract of the auth log and login settings: entries kept per account, newest first, removed one by one
// or all at once, counted by result since a time; settings stored per account and replaced whole.
import { accountOf, at, check, type ContractCheck } from './fixtures.js';
import type { NewAuthAttempt } from '../../../shared/store/login-security.js';

const attempt = (accountId: number | null, result: NewAuthAttempt['result'], hours: number): NewAuthAttempt => ({
  accountId,
  userId: null,
  email: 'Ada@Example.com',
  address: '192.0.2.1',
  userAgent: 'curl/8',
  result,
  at: at(hours),
});

export const loginSecurityChecks: ContractCheck[] = [
  check('the auth log lists an account’s attempts newest first, and removes one or all of them', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const other = await accountOf(store);
    const first = await store.authLog.record(attempt(account.id, 'failure', 0));
    t.match(first, { accountId: account.id, userId: null, email: 'Ada@Example.com', address: '192.0.2.1', userAgent: 'curl/8', result: 'failure', at: at(0) });
    const second = await store.authLog.record(attempt(account.id, 'success', 1));
    const third = await store.authLog.record(attempt(account.id, 'throttled', 2));
    await store.authLog.record(attempt(other.id, 'success', 1));
    await store.authLog.record(attempt(null, 'failure', 1));
    const page = await store.authLog.list(account.id, { page: 1, perPage: 2 });
    t.same({ ids: page.rows.map((e) => e.id), total: page.total }, { ids: [third.id, second.id], total: 3 });
    t.same(
      (await store.authLog.list(account.id, { page: 2, perPage: 2 })).rows.map((e) => e.id),
      [first.id],
    );
    t.equal(await store.authLog.remove(other.id, second.id), false, 'not through another account');
    t.equal(await store.authLog.remove(account.id, second.id), true);
    t.equal(await store.authLog.remove(account.id, second.id), false, 'removed once');
    t.equal(await store.authLog.truncate(account.id), 2);
    t.equal((await store.authLog.list(account.id, { page: 1, perPage: 10 })).total, 0);
    t.equal((await store.authLog.list(other.id, { page: 1, perPage: 10 })).total, 1, 'another account keeps its own');
  }),

  check('auth stats count attempts, failures and lockouts of an account since a time', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    for (const [result, hours] of [
      ['failure', 0],
      ['failure', 5],
      ['throttled', 6],
      ['success', 7],
      ['failure', 8],
    ] as const)
      await store.authLog.record(attempt(account.id, result, hours));
    await store.authLog.record(attempt(null, 'failure', 8));
    t.same(await store.authLog.stats(account.id, at(0)), { attempts: 5, failures: 3, lockouts: 1 });
    t.same(await store.authLog.stats(account.id, at(6)), { attempts: 3, failures: 1, lockouts: 1 });
    t.same(await store.authLog.stats(account.id, at(9)), { attempts: 0, failures: 0, lockouts: 0 });
  }),

  check('login settings are stored per account and replaced whole; out-of-bounds values are refused', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const other = await accountOf(store);
    t.equal(await store.loginSettings.get(account.id), undefined, 'none until set');
    const settings = { failuresPerEmail: 4, windowMinutes: 30, sessionIdleMinutes: 60, sessionAbsoluteHours: 12 };
    t.same(await store.loginSettings.put(account.id, settings), settings);
    t.same(await store.loginSettings.put(account.id, { ...settings, windowMinutes: 10 }), { ...settings, windowMinutes: 10 });
    t.same(await store.loginSettings.get(account.id), { ...settings, windowMinutes: 10 });
    t.equal(await store.loginSettings.get(other.id), undefined);
    await t.rejects(store.loginSettings.put(account.id, { ...settings, failuresPerEmail: 0 }), 'a threshold of 0 would switch lockouts off');
    t.same(await store.loginSettings.get(account.id), { ...settings, windowMinutes: 10 }, 'unchanged');
  }),
];
