// The contract of the single sign-on store: sites of each kind created with their audit entry (a second of one
// url or site id refused, nothing written), listed without secrets, read with their sealed secret by kind and
// site id, removed with their audit entry; a token spent once (two spends at once: one succeeds), swept after expiry.
import { at, check, type ContractCheck } from './fixtures.js';
import type { NewAuditEntry } from '../../../shared/store/audit-log.js';
import type { SsoSite } from '../../../shared/domain/single-sign-on.js';

const audit =
  (action: NewAuditEntry['action']) =>
  (site: SsoSite): NewAuditEntry => ({
    operatorId: null,
    operatorEmail: 'ternmail CLI (test)',
    action,
    target: { kind: 'sso_site', id: String(site.id) },
    before: null,
    after: { url: site.url },
    reason: '',
    at: at(0),
  });

const SITE_A = 'a'.repeat(32);
const SITE_B = 'b'.repeat(32);
const JTI = 'c'.repeat(32);

export const singleSignOnChecks: ContractCheck[] = [
  check('sites are created and removed with their audit entries; one url or site id per kind; secrets only where asked', async (t, engine) => {
    const { store } = await engine.open(t);
    const site = { kind: 'child' as const, siteId: SITE_A, name: 'Regional', url: 'https://eu.example.com', secretSealed: 'v1:sealed', at: at(0) };
    const child = await store.singleSignOn.create(site, audit('sso_site.create'));
    if (child === 'exists') throw new Error('created');
    t.same(child, { id: child.id, kind: 'child', siteId: SITE_A, name: 'Regional', url: 'https://eu.example.com', createdAt: at(0) });
    t.equal(await store.singleSignOn.create({ ...site, siteId: SITE_B }, audit('sso_site.create')), 'exists', 'the same url twice');
    t.equal(await store.singleSignOn.create({ ...site, url: 'https://other.example.com' }, audit('sso_site.create')), 'exists', 'the same site id twice');
    const parent = await store.singleSignOn.create({ ...site, kind: 'parent' }, audit('sso_site.create'));
    t.not(parent, 'exists', 'the other kind may name the same url and site id');
    t.same(
      (await store.singleSignOn.list('child')).map((s) => s.id),
      [child.id],
    );
    t.notOk('secretSealed' in (await store.singleSignOn.list('child'))[0]!, 'no secret in a listing');
    t.same(await store.singleSignOn.withSecret('child', SITE_A), { site: child, secretSealed: 'v1:sealed' });
    t.equal(await store.singleSignOn.withSecret('child', SITE_B), undefined);
    t.same(await store.singleSignOn.get(child.id), child);
    t.same(await store.singleSignOn.remove(child.id, audit('sso_site.remove')), child);
    t.equal(await store.singleSignOn.remove(child.id, audit('sso_site.remove')), undefined, 'gone: nothing written');
    t.equal(await store.singleSignOn.get(child.id), undefined);
    const actions = (await store.auditLog.list({}, { page: 1, perPage: 10 })).rows.map((e) => `${e.action} ${e.target.kind}`);
    t.same(actions, ['sso_site.remove sso_site', 'sso_site.create sso_site', 'sso_site.create sso_site'], 'no entry for a refused creation or removal');
  }),

  check('a token is spent once, even by two spends at once, and forgotten once expired', async (t, engine) => {
    const { store } = await engine.open(t);
    const spends = await Promise.all([store.singleSignOn.spend(SITE_A, JTI, at(1), at(0)), store.singleSignOn.spend(SITE_A, JTI, at(1), at(0))]);
    t.same(spends.filter(Boolean).length, 1, 'one of two at once');
    t.equal(await store.singleSignOn.spend(SITE_A, JTI, at(1), at(0)), false, 'a replay');
    t.equal(await store.singleSignOn.spend(SITE_B, JTI, at(1), at(0)), true, 'the same one-time id of another pair');
    t.equal(await store.singleSignOn.removeSpentBefore(at(1)), 0, 'not yet expired');
    t.equal(await store.singleSignOn.removeSpentBefore(at(2)), 2);
  }),
];
