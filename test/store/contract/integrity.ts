// The contract of the integrity scan's store: the state row written with its audit entry, a result kept until a
// reset clears it, the daily run claimed once, ignored paths toggled and cleared, each change audited.
import { at, check, type ContractCheck } from './fixtures.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { ScanResult } from '../../../shared/domain/integrity.js';

const audit = (action: NewAuditEntry['action']): NewAuditEntry => ({
  operatorId: null,
  operatorEmail: 'ternmail CLI (test)',
  action,
  target: { kind: 'platform', id: 'integrity_scan' },
  before: null,
  after: null,
  reason: '',
  at: at(0),
});

const result = (modified: string[]): ScanResult => ({ scannedAt: at(1), manifestBuiltAt: at(0), modified, missing: [], unexpected: ['x/y.js'], ignored: [] });

export const integrityChecks: ContractCheck[] = [
  check('the scan state is written with its audit entry, keeps its result until a reset, and its daily run is claimed once', async (t, engine) => {
    const { store } = await engine.open(t);
    t.equal(await store.integrity.state(), undefined, 'never turned on');
    await store.integrity.putSettings({ registeredAt: at(0), daily: true, nextScanAt: at(5) }, at(0), audit('integrity.register'));
    await store.integrity.recordResult(result(['dist/a.js']));
    t.same(await store.integrity.state(), { registeredAt: at(0), daily: true, nextScanAt: at(5), last: result(['dist/a.js']) });
    t.equal(await store.integrity.claimDaily(at(4), at(28)), false, 'not due yet');
    const claims = await Promise.all([store.integrity.claimDaily(at(6), at(30)), store.integrity.claimDaily(at(6), at(30))]);
    t.same(claims.filter(Boolean).length, 1, 'of two claims at once, one runs it');
    t.match(await store.integrity.state(), { nextScanAt: at(30) });
    await store.integrity.putSettings({ registeredAt: at(0), daily: false, nextScanAt: null }, at(7), audit('integrity.schedule'));
    t.match(await store.integrity.state(), { daily: false, last: { modified: ['dist/a.js'] } }, 'the result stays');
    t.equal(await store.integrity.claimDaily(at(40), at(64)), false, 'no daily run when not daily');
    await store.integrity.putSettings({ registeredAt: null, daily: false, nextScanAt: null }, at(8), audit('integrity.reset'), true);
    t.same(await store.integrity.state(), { registeredAt: null, daily: false, nextScanAt: null, last: null });
    const actions = (await store.auditLog.list({ targetId: 'integrity_scan' }, { page: 1, perPage: 10 })).rows.map((e) => e.action);
    t.same(actions, ['integrity.reset', 'integrity.schedule', 'integrity.register']);
  }),

  check('a path is ignored, then no longer, by the same toggle; clearing stops ignoring them all', async (t, engine) => {
    const { store } = await engine.open(t);
    const toggle = (path: string) => store.integrity.toggleIgnore(path, at(0), (now) => audit(now ? 'integrity.ignore' : 'integrity.unignore'));
    t.equal(await toggle('dist/b.js'), true);
    t.equal(await toggle('dist/a.js'), true);
    t.same(await store.integrity.ignores(), ['dist/a.js', 'dist/b.js']);
    t.equal(await toggle('dist/b.js'), false, 'toggled back');
    t.same(await store.integrity.ignores(), ['dist/a.js']);
    t.equal(await store.integrity.clearIgnores(() => audit('integrity.reset_ignores')), 1);
    t.same(await store.integrity.ignores(), []);
    const actions = (await store.auditLog.list({ targetId: 'integrity_scan' }, { page: 1, perPage: 10 })).rows.map((e) => e.action);
    t.same(actions, ['integrity.reset_ignores', 'integrity.unignore', 'integrity.ignore', 'integrity.ignore']);
  }),
];
