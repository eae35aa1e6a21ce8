// The contract of DomainRepository: names unique among live domains, the default flag, paging, checks.
import { accountOf, at, domainOf, check, type ContractCheck } from './fixtures.js';

export const domainChecks: ContractCheck[] = [
  check('a domain is created as a draft, found by id (on its team only) and by name in any case; a live name is taken service-wide', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    const domain = await domainOf(store, team, 'mail.one.test');
    t.match(domain, { teamId: team.id, name: 'mail.one.test', verificationStatus: 'draft', isDefault: true, dkimSelector: 'tern', dkimPrivateKeyEnc: 'sealed' });
    t.match(domain, { autoVerifyActive: true, autoVerifyReason: '', lastCheckAt: null, verifiedAt: null, totalSent: 0, totalBounced: 0, totalComplained: 0 });
    t.same(await store.domains.get(domain.id), domain);
    t.same(await store.domains.get(domain.id, team.id), domain);
    t.equal(await store.domains.get(domain.id, other.id), undefined, 'not on another team');
    t.same(await store.domains.findByName('MAIL.One.test'), domain);
    const taken = { name: 'mail.one.test', dkimSelector: 'tern', dkimPublicKey: 'pub', dkimPrivateKeyEnc: 'sealed' };
    t.equal(await store.domains.create({ teamId: other.id, ...taken }), 'exists', 'another team cannot take the name');
    t.equal(await store.domains.remove(domain.id, other.id), false, 'nor remove the domain');
    t.equal(await store.domains.remove(domain.id, team.id), true);
    t.equal(await store.domains.remove(domain.id, team.id), false, 'removed once');
    t.equal(await store.domains.get(domain.id), undefined);
    t.equal(await store.domains.findByName('mail.one.test'), undefined);
    t.not(await store.domains.create({ teamId: other.id, ...taken }), 'exists', 'a removed domain’s name is free again');
  }),

  check('a team’s first domain is its default; removing the default moves the flag to the oldest remaining domain', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const team = await accountOf(store);
    const names = ['a.one.test', 'b.one.test', 'c.one.test', 'd.one.test'];
    const ids: string[] = [];
    for (const [i, name] of names.entries()) {
      ids.push((await domainOf(store, team, name)).id);
      await support.backdateDomain(ids[i]!, at(i));
    }
    const defaults = async () => (await store.domains.list(team.id, { page: 1, perPage: 10 })).rows.filter((d) => d.isDefault).map((d) => d.name);
    t.same(await defaults(), ['a.one.test']);
    await store.domains.remove(ids[2]!, team.id);
    t.same(await defaults(), ['a.one.test'], 'removing another domain leaves the default');
    await store.domains.remove(ids[0]!, team.id);
    t.same(await defaults(), ['b.one.test'], 'the oldest remaining domain becomes default');
    const page = await store.domains.list(team.id, { page: 2, perPage: 1 });
    t.same({ names: page.rows.map((d) => d.name), total: page.total }, { names: ['d.one.test'], total: 2 }, 'listed oldest first, paged, counted');
  }),

  check('domains created all at once for a new team give it exactly one default', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    await Promise.all(Array.from({ length: 8 }, (_, i) => domainOf(store, team, `d${i}.race.test`)));
    const listed = await store.domains.list(team.id, { page: 1, perPage: 20 });
    t.equal(listed.total, 8);
    t.equal(listed.rows.filter((d) => d.isDefault).length, 1);
  }),

  check('every team of many creating domains at the same moment gets exactly one default', async (t, engine) => {
    const { store } = await engine.open(t);
    const teams = await Promise.all(Array.from({ length: 6 }, () => accountOf(store)));
    await Promise.all(teams.flatMap((team, i) => Array.from({ length: 5 }, (_, j) => domainOf(store, team, `d${j}.team${i}.race.test`))));
    const defaults = await Promise.all(teams.map(async (team) => (await store.domains.list(team.id, { page: 1, perPage: 10 })).rows.filter((d) => d.isDefault).length));
    t.same(defaults, [1, 1, 1, 1, 1, 1]);
  }),

  check('a passing check verifies a draft and ends its checks; a failing one keeps the reason; drafts never checked come first', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const [checked, fresh, stopped] = [await domainOf(store, team, 'x.one.test'), await domainOf(store, team, 'y.one.test'), await domainOf(store, team, 'z.one.test')];
    const failing = await store.domains.recordCheck(checked.id, { verified: false, dmarcPolicy: null, summary: 'DKIM record missing', result: { dkim: false } });
    t.match(failing, { verificationStatus: 'draft', autoVerifyActive: true, autoVerifyReason: 'DKIM record missing', verifiedAt: null });
    t.ok(failing?.lastCheckAt, 'the check time is kept');
    t.same(JSON.parse(failing!.lastCheckResult!), { dkim: false }, 'and its findings');
    await store.domains.stopAutoVerify(stopped.id, 'no longer checked after 30 days');
    t.match(await store.domains.get(stopped.id), { autoVerifyActive: false, autoVerifyReason: 'no longer checked after 30 days' });
    t.same(
      (await store.domains.awaitingCheck()).map((d) => d.id),
      [fresh.id, checked.id],
      'never checked first; a stopped one not at all',
    );
    const passing = await store.domains.recordCheck(checked.id, { verified: true, dmarcPolicy: 'reject', summary: '', result: {} });
    t.match(passing, { verificationStatus: 'verified', autoVerifyActive: false, autoVerifyReason: '', dmarcPolicy: 'reject' });
    t.ok(passing?.verifiedAt);
    t.same(
      (await store.domains.awaitingCheck()).map((d) => d.id),
      [fresh.id],
    );
    t.equal(await store.domains.recordCheck('no-such-domain', { verified: true, dmarcPolicy: null, summary: '', result: {} }), undefined);
  }),
  check('a team’s live and verified domains are counted, removed ones not, other teams’ not', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    t.same(await store.domains.countsOf(team.id), { live: 0, verified: 0 }, 'none yet');
    const ids: string[] = [];
    for (const name of ['a.count.test', 'b.count.test', 'c.count.test']) ids.push((await domainOf(store, team, name)).id);
    await domainOf(store, other, 'd.count.test');
    await store.domains.recordCheck(ids[0]!, { verified: true, dmarcPolicy: null, summary: '', result: {} });
    await store.domains.recordCheck(ids[1]!, { verified: false, dmarcPolicy: null, summary: 'missing', result: {} });
    t.same(await store.domains.countsOf(team.id), { live: 3, verified: 1 });
    await store.domains.remove(ids[0]!, team.id);
    t.same(await store.domains.countsOf(team.id), { live: 2, verified: 0 }, 'a removed domain counts no more');
    t.same(await store.domains.countsOf(other.id), { live: 1, verified: 0 });
  }),
];
