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
    t.match(first, {
      accountId: account.id,
      userId: null,
      email: 'Ada@Example.com',
      address: '192.0.2.1',
      userAgent: 'curl/8',
      result: 'failure',
      method: 'password',
      at: at(0),
    });
    const second = await store.authLog.record({ ...attempt(account.id, 'success', 1), method: 'github' });
    t.equal(second.method, 'github', 'a provider’s sign-in names its method');
    const third = await store.authLog.record(attempt(account.id, 'throttled', 2));
    const bySso = await store.authLog.record({ ...attempt(other.id, 'success', 1), method: 'sso' });
    t.equal(bySso.method, 'sso', 'a sign-in by single sign-on says so');
    await store.authLog.record(attempt(null, 'failure', 1));
    const page = await store.authLog.list(account.id, { page: 1, perPage: 2 });
    t.same({ ids: page.rows.map((e) => e.id), total: page.total }, { ids: [third.id, second.id], total: 3 });
    t.same(
      (await store.authLog.list(account.id, { page: 2, perPage: 2 })).rows.map((e) => e.id),
      [first.id],
    );
    t.equal(await store.authLog.get(other.id, second.id), undefined, 'not read through another account');
    t.same(await store.authLog.get(account.id, second.id), second);
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
    const settings = {
      failuresPerEmail: 4,
      windowMinutes: 30,
      sessionIdleMinutes: 60,
      sessionAbsoluteHours: 12,
      notifyOnLockout: true,
      logRetentionDays: 30,
      applicationPasswords: false,
      twoStepRoles: ['owner', 'viewer'] as const,
      magicLink: true,
    };
    t.same(await store.loginSettings.put(account.id, settings), settings);
    t.same(await store.loginSettings.put(account.id, { ...settings, windowMinutes: 10 }), { ...settings, windowMinutes: 10 });
    t.same(await store.loginSettings.get(account.id), { ...settings, windowMinutes: 10 });
    t.equal(await store.loginSettings.get(other.id), undefined);
    await t.rejects(store.loginSettings.put(account.id, { ...settings, failuresPerEmail: 0 }), 'a threshold of 0 would switch lockouts off');
    t.same(await store.loginSettings.get(account.id), { ...settings, windowMinutes: 10 }, 'unchanged');
    await store.loginSettings.put(other.id, { ...settings, logRetentionDays: 7, twoStepRoles: [] });
    t.equal(await store.loginSettings.redirects(account.id), undefined, 'no redirects until set');
    const redirects = { defaultLogin: '/domains', defaultLogout: null, rules: [{ role: 'viewer' as const, login: '/logs?status=bounced', logout: '/bye' }] };
    await store.loginSettings.putRedirects(account.id, redirects, at(1));
    await store.loginSettings.putRedirects(account.id, { ...redirects, defaultLogout: '/see-you' }, at(2));
    t.same(await store.loginSettings.redirects(account.id), { ...redirects, defaultLogout: '/see-you' }, 'replaced whole');
    t.equal(await store.loginSettings.redirects(other.id), undefined);
    t.same(await store.loginSettings.retentions(), [
      { accountId: account.id, days: 30 },
      { accountId: other.id, days: 7 },
    ]);
  }),

  check('the auth log filters by result and by a search of the email or address, any case, wildcards literal', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const entry = (email: string, address: string, result: NewAuthAttempt['result']) => store.authLog.record({ ...attempt(account.id, result, 0), email, address });
    const ada = await entry('Ada@Example.com', '192.0.2.1', 'failure');
    const bob = await entry('bob@example.com', '198.51.100.7', 'success');
    const pct = await entry('100%_off@example.com', '192.0.2.9', 'throttled');
    const ids = async (filter: Parameters<typeof store.authLog.list>[2]) =>
      (await store.authLog.list(account.id, { page: 1, perPage: 10 }, filter)).rows.map((e) => e.id);
    t.same(await ids({ results: ['failure', 'throttled'] }), [pct.id, ada.id]);
    t.same(await ids({ search: 'ADA@' }), [ada.id], 'any case');
    t.same(await ids({ search: '198.51' }), [bob.id], 'the address too');
    t.same(await ids({ search: '%_' }), [pct.id], '% and _ match themselves');
    t.same(await ids({ search: '192.0.2', results: ['failure'] }), [ada.id], 'both at once');
    t.equal((await store.authLog.list(account.id, { page: 1, perPage: 1 }, { search: 'example' })).total, 3, 'the total counts the filtered entries');
  }),

  check('retention removes old entries of the chosen accounts', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const other = await accountOf(store);
    await store.authLog.record(attempt(account.id, 'failure', 0));
    const recent = await store.authLog.record(attempt(account.id, 'failure', 10));
    const otherOld = await store.authLog.record(attempt(other.id, 'failure', 0));
    await store.authLog.record(attempt(null, 'failure', 0));
    t.equal(await store.authLog.removeBefore(at(5), { accounts: [] }), 0);
    t.equal(await store.authLog.removeBefore(at(5), { accounts: [account.id] }), 1);
    const left = async (id: number) => (await store.authLog.list(id, { page: 1, perPage: 10 })).rows.map((e) => e.id);
    t.same(await left(account.id), [recent.id], 'the old entry of the chosen account is gone');
    t.same(await left(other.id), [otherOld.id], "another account's stays");
    t.equal(await store.authLog.removeBefore(at(5), { exceptAccounts: [account.id] }), 2, "the others' old entries, and no account's");
    t.same(await left(other.id), []);
  }),

  check('truncating an account’s log records the audit entry in the same write', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    await store.authLog.record(attempt(account.id, 'failure', 0));
    await store.authLog.record(attempt(account.id, 'success', 1));
    const removed = await store.authLog.truncate(account.id, (n) => ({
      operatorId: null,
      operatorEmail: 'owner@example.com (owner of account)',
      action: 'auth_log.truncate',
      target: { kind: 'tenant', id: String(account.id) },
      before: { entries: n },
      after: { entries: 0 },
      reason: '',
      at: at(2),
    }));
    t.equal(removed, 2);
    const [entry] = (await store.auditLog.list({ action: 'auth_log.truncate' }, { page: 1, perPage: 5 })).rows;
    t.match(entry, { action: 'auth_log.truncate', target: { kind: 'tenant', id: String(account.id) }, before: { entries: 2 } });
  }),

  check('changing the settings or the redirects records the audit entry, given what was stored before, in the same write', async (t, engine) => {
    const { store } = await engine.open(t);
    const account = await accountOf(store);
    const audited = (action: 'login_settings.update' | 'sign_in_redirects.update', before: unknown, minute: number) => ({
      operatorId: null,
      operatorEmail: 'owner@example.com (owner of account)',
      action,
      target: { kind: 'tenant' as const, id: String(account.id) },
      before: JSON.parse(JSON.stringify(before ?? null)) as null,
      after: null,
      reason: '',
      at: at(minute),
    });
    const settings = {
      failuresPerEmail: 5,
      windowMinutes: 15,
      sessionIdleMinutes: 60,
      sessionAbsoluteHours: 24,
      notifyOnLockout: false,
      logRetentionDays: 90,
      applicationPasswords: true,
      twoStepRoles: [] as const,
      magicLink: false,
    };
    const seen: unknown[] = [];
    await store.loginSettings.put(account.id, settings, (before) => (seen.push(before), audited('login_settings.update', before, 1)));
    await store.loginSettings.put(account.id, { ...settings, windowMinutes: 30 }, (before) => (seen.push(before), audited('login_settings.update', before, 2)));
    t.same(seen, [undefined, settings], 'the first change saw nothing stored, the second the first');
    const entries = (await store.auditLog.list({ action: 'login_settings.update', targetId: String(account.id) }, { page: 1, perPage: 5 })).rows;
    t.same(
      entries.map((e) => e.before),
      [settings, null],
      'both are in the audit log, newest first',
    );
    await t.rejects(
      store.loginSettings.put(account.id, { ...settings, failuresPerEmail: 0 }, (before) => audited('login_settings.update', before, 3)),
      'a refused write',
    );
    t.equal((await store.auditLog.list({ action: 'login_settings.update' }, { page: 1, perPage: 5 })).total, 2, 'leaves no audit entry');
    const redirects = { defaultLogin: '/domains', defaultLogout: null, rules: [] };
    await store.loginSettings.putRedirects(account.id, redirects, at(4), (before) => audited('sign_in_redirects.update', before, 4));
    await store.loginSettings.putRedirects(account.id, { ...redirects, defaultLogin: null }, at(5), (before) => audited('sign_in_redirects.update', before, 5));
    const moves = (await store.auditLog.list({ action: 'sign_in_redirects.update' }, { page: 1, perPage: 5 })).rows;
    t.same(
      moves.map((e) => e.before),
      [redirects, null],
    );
  }),
];
