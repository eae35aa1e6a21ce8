// The contract of SystemRepository: a migrated store says its schema version and its engine's version.
import { at, check, operatorOf, type ContractCheck } from './fixtures.js';
import type { StoredSystemSender } from '../../../shared/store/system.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';

export const systemChecks: ContractCheck[] = [
  check('a migrated store says a schema version of at least one and names its engine with a version', async (t, engine) => {
    const { store } = await engine.open(t);
    const version = await store.system.schemaVersion();
    t.ok(Number.isInteger(version) && version >= 1, `schema version ${version}`);
    t.match(await store.system.engineVersion(), /^\S+ \d+(\.\d+)*/, 'e.g. "SQLite 3.45.1"');
    t.equal(store.system.engine, (await store.system.engineVersion()).startsWith('PostgreSQL') ? 'postgresql' : 'sqlite', 'the engine it names');
  }),

  check("Tern's own sender is none until chosen, then replaced, each change committed with its audit entry", async (t, engine) => {
    const { store } = await engine.open(t);
    const op = await operatorOf(store, 'op@tern.test');
    const audit =
      (address: string) =>
      (before: StoredSystemSender | null): NewAuditEntry => ({
        operatorId: op.id,
        operatorEmail: op.email,
        action: 'system_mail.sender',
        target: { kind: 'platform', id: 'system_mail.from' },
        before: before?.address ?? null,
        after: address,
        reason: '',
        at: at(0),
      });
    t.equal(await store.system.systemSender(), null);
    const first = { address: 'tern@mail.example', setBy: op.id, at: at(1) };
    t.equal(await store.system.setSystemSender(first, audit(first.address)), null, 'none before');
    t.same(await store.system.systemSender(), first);
    const second = { address: 'noreply@mail.example', setBy: null, at: at(2) };
    t.same(await store.system.setSystemSender(second, audit(second.address)), first, 'the sender it replaced');
    t.same(await store.system.systemSender(), second);
    const entries = await store.auditLog.list({ action: 'system_mail.sender' }, { page: 1, perPage: 10 });
    t.same(
      entries.rows.map((e) => [e.before, e.after]),
      [
        ['tern@mail.example', 'noreply@mail.example'],
        [null, 'tern@mail.example'],
      ],
    );
    const failing = () => {
      throw new Error('the audit entry could not be made');
    };
    await t.rejects(store.system.setSystemSender({ address: 'other@mail.example', setBy: null, at: at(3) }, failing));
    t.same(await store.system.systemSender(), second, 'no change without its entry');
  }),

  check('the last backup is none until one is recorded; a backup taken earlier never replaces a later one', async (t, engine) => {
    const { store } = await engine.open(t);
    t.equal(await store.system.lastBackup(), null, 'none recorded');
    const first = { file: '/var/backups/tern-1.tar.gz', bytes: 1234, sha256: 'a'.repeat(64), takenAt: at(10) };
    t.equal(await store.system.recordBackup(first), true);
    t.same(await store.system.lastBackup(), first);
    const later = { file: '/var/backups/tern-2.tar.gz', bytes: 2345, sha256: 'b'.repeat(64), takenAt: at(20) };
    t.equal(await store.system.recordBackup(later), true, 'a later backup replaces it');
    const earlier = { file: '/var/backups/tern-0.tar.gz', bytes: 1, sha256: 'c'.repeat(64), takenAt: at(15) };
    t.equal(await store.system.recordBackup(earlier), false, 'one that finished late but was taken earlier does not');
    t.same(await store.system.lastBackup(), later);
  }),
];
