// The contract of the audit log: entries appended as given (snapshots of any JSON shape, the CLI's with no
// operator), listed newest first with their total, every filter given narrowing the list.
import { at, check, operatorOf, type ContractCheck } from './fixtures.js';
import type { AuditFilter, NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { AuditEntry } from '../../../shared/domain/audit-log.js';

const entry = (fields: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  operatorId: null,
  operatorEmail: 'ternmail CLI (root)',
  action: 'tenant.suspend',
  target: { kind: 'tenant', id: '7' },
  before: null,
  after: null,
  reason: '',
  at: at(0),
  ...fields,
});

export const auditLogChecks: ContractCheck[] = [
  check('an entry is kept as given, its snapshots whatever JSON they hold, and an entry of the CLI has no operator', async (t, engine) => {
    const { store } = await engine.open(t);
    const op = await operatorOf(store, 'op@tern.test');
    const before = { status: 'active', limits: [1, 2.5, null], nested: { ok: true, name: 'Ünïcode' } };
    const recorded = await store.auditLog.record(entry({ operatorId: op.id, operatorEmail: op.email, before, after: 'suspended', reason: 'spam complaints', at: at(1) }));
    t.same(recorded, { id: recorded.id, ...entry({ operatorId: op.id, operatorEmail: op.email, before, after: 'suspended', reason: 'spam complaints', at: at(1) }) });
    const cli = await store.auditLog.record(entry({ action: 'queue.purge', target: { kind: 'queue', id: 'team=3 domain=example.net' }, at: at(2) }));
    t.match(cli, { operatorId: null, operatorEmail: 'ternmail CLI (root)', before: null, after: null });
    t.same((await store.auditLog.list({}, { page: 1, perPage: 10 })).rows, [cli, recorded], 'newest first');
  }),

  check('every filter given narrows the list, which is paged with the total of what matches', async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await operatorOf(store, 'ada@tern.test');
    const bob = await operatorOf(store, 'bob@tern.test');
    const made: AuditEntry[] = [];
    for (const [i, fields] of [
      { operatorId: ada.id, action: 'tenant.suspend' as const, target: { kind: 'tenant' as const, id: '1' } },
      { operatorId: ada.id, action: 'tenant.reactivate' as const, target: { kind: 'tenant' as const, id: '1' } },
      { operatorId: bob.id, action: 'tenant.suspend' as const, target: { kind: 'tenant' as const, id: '2' } },
      { operatorId: bob.id, action: 'invitation.create' as const, target: { kind: 'invitation' as const, id: '1' } },
      { operatorId: ada.id, action: 'tenant.suspend' as const, target: { kind: 'tenant' as const, id: '1' } },
    ].entries()) {
      made.push(await store.auditLog.record(entry({ ...fields, at: at(i) })));
    }
    /** What a filter lists, as indexes into `made`. */
    const ids = async (filter: AuditFilter, page = { page: 1, perPage: 10 }) => {
      const listed = await store.auditLog.list(filter, page);
      return { ids: listed.rows.map((e) => made.findIndex((m) => m.id === e.id)), total: listed.total };
    };
    t.same(await ids({}), { ids: [4, 3, 2, 1, 0], total: 5 });
    t.same(await ids({ operatorId: ada.id }), { ids: [4, 1, 0], total: 3 });
    t.same(await ids({ action: 'tenant.suspend' }), { ids: [4, 2, 0], total: 3 });
    t.same(await ids({ targetKind: 'tenant', targetId: '1' }), { ids: [4, 1, 0], total: 3 });
    t.same(await ids({ targetKind: 'invitation', targetId: '1' }), { ids: [3], total: 1 }, 'the same id of another kind is another target');
    t.same(await ids({ operatorId: ada.id, action: 'tenant.suspend', targetKind: 'tenant' }), { ids: [4, 0], total: 2 });
    t.same(await ids({ action: 'queue.hold' }), { ids: [], total: 0 });
    t.same(await ids({}, { page: 2, perPage: 2 }), { ids: [2, 1], total: 5 }, 'a later page');
    t.same(await ids({}, { page: 4, perPage: 2 }), { ids: [], total: 5 }, 'past the end');
  }),
];
