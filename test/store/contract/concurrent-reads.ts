// The contract of the lookups the send path makes for every message: many issued at once (requests arriving
// together) each get their own answer, as fresh as a lone read — whatever an engine does to serve them together.
import { accountOf, domainOf, check, type ContractCheck } from './fixtures.js';

export const concurrentReadChecks: ContractCheck[] = [
  check('teams, domains and suppressions looked up at the same moment each answer for their own key', async (t, engine) => {
    const { store } = await engine.open(t);
    const teams = [await accountOf(store), await accountOf(store), await accountOf(store)];
    const domains = await Promise.all(teams.map((team, i) => domainOf(store, team, `mail${i}.concurrent.test`)));
    await store.suppressions.add(teams[0]!.id, { email: 'gone@dest.test', status: 'bounced', reason: 'bounce', messageId: null });
    await store.suppressions.add(teams[1]!.id, { email: 'other@dest.test', status: 'complained', reason: 'complaint', messageId: null });

    const [byId, byName, among] = await Promise.all([
      Promise.all([...teams.map((team) => store.teams.get(team.id)), store.teams.get(teams[0]!.id), store.teams.get(999_999)]),
      Promise.all([...domains.map((d) => store.domains.findByName(d.name.toUpperCase())), store.domains.findByName('none.concurrent.test')]),
      Promise.all(teams.map((team) => store.suppressions.suppressedAmong(team.id, ['gone@dest.test', 'other@dest.test', 'free@dest.test']))),
    ]);
    t.same(byId, [...teams, teams[0], undefined], 'each id its team, a repeated id twice, an unknown one none');
    t.same(byName, [...domains, undefined], 'each name its domain, an unknown one none');
    t.same(among, [new Set(['gone@dest.test']), new Set(['other@dest.test']), new Set()], 'each team its own list');
  }),

  check('a lookup made after a change sees it, even among lookups made at the same moment', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const before = store.teams.get(team.id);
    const changed = await store.teams.changeStatus(team.id, 'suspended', 'platform');
    t.ok(changed.ok, 'the team is suspended');
    const [after, again] = await Promise.all([store.teams.get(team.id), store.teams.get(team.id)]);
    t.equal((await before)?.id, team.id);
    t.equal(after?.status, 'suspended', 'a read issued after the change sees it');
    t.equal(again?.status, 'suspended');
    await store.suppressions.add(team.id, { email: 'late@dest.test', status: 'suppressed', reason: 'by hand', messageId: null });
    t.same(await store.suppressions.suppressedAmong(team.id, ['late@dest.test']), new Set(['late@dest.test']));
  }),
];
