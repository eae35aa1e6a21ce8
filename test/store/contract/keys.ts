// The contract of KeyRepository: keys by hash, per-kind revocation, the admin-key limit across an account's teams.
import { accountOf, domainOf, check, type ContractCheck } from './fixtures.js';
import type { NewKey } from '../../../shared/store/keys.js';

let n = 0;
const newKey = (teamId: number, title = 'key'): NewKey => {
  const hash = `hash-${++n}-${Math.random().toString(36).slice(2)}`;
  return { teamId, title, hash, start: 'tern_ab', end: 'yz' };
};

export const keyChecks: ContractCheck[] = [
  check('a sending key is found by hash, names its domain, is listed oldest first with paging, and is revoked only on its own team', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    const domain = await domainOf(store, team, 'keys.one.test');
    const limited = await store.keys.createSending({ ...newKey(team.id, 'limited'), domainId: domain.id });
    t.match(limited, {
      teamId: team.id,
      kind: 'sending',
      title: 'limited',
      keyStart: 'tern_ab',
      keyEnd: 'yz',
      scopes: [],
      domainId: domain.id,
      domainName: 'keys.one.test',
      status: 'active',
    });
    t.same(await store.keys.findByHash(limited.keyHash), limited);
    t.same(await store.keys.get(limited.id), limited);
    const plain = await store.keys.createSending({ ...newKey(team.id, 'plain'), domainId: null });
    const third = await store.keys.createSending({ ...newKey(team.id, 'third'), domainId: null });
    const page = await store.keys.listSending(team.id, { page: 2, perPage: 2 });
    t.same({ titles: page.rows.map((k) => k.title), total: page.total }, { titles: ['third'], total: 3 });
    t.equal(await store.keys.revoke(plain.id, 'sending', other.id), undefined, 'not from another team');
    t.equal(await store.keys.revoke(plain.id, 'admin'), undefined, 'not as another kind');
    t.equal(await store.keys.revoke(plain.id, 'sending', team.id), plain.keyHash, 'the hash comes back, for the caches');
    t.equal(await store.keys.revoke(plain.id, 'sending'), undefined, 'revoked once');
    t.equal((await store.keys.findByHash(plain.keyHash))?.status, 'revoked', 'a revoked key is still found, as revoked');
    t.same(
      (await store.keys.listSending(team.id, { page: 1, perPage: 10 })).rows.map((k) => k.title),
      ['limited', 'third'],
    );
    t.same(await store.keys.revokeForDomain(domain.id), [limited.keyHash], 'the keys limited to a removed domain go with it');
    t.same(
      (await store.keys.listSending(team.id, { page: 1, perPage: 10 })).rows.map((k) => k.id),
      [third.id],
    );
  }),

  check('admin keys of an account and its teams stop at the limit, even when created all at once; a revoked one frees its place', async (t, engine) => {
    const { store } = await engine.open(t);
    const root = await accountOf(store);
    const team = await store.teams.createTeam(root, 'Team', 10);
    if (team === 'limit_reached') throw new Error('under the limit');
    const admin = (teamId: number) => store.keys.createAdmin({ ...newKey(teamId), accountId: root.id, scopes: ['domains:read', 'teams:write'] }, 4);
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => admin(i % 2 ? team.id : root.id)));
    const created = outcomes.filter((o) => o !== 'limit_reached');
    t.equal(created.length, 4, 'the team’s keys count against the account');
    t.equal(outcomes.filter((o) => o === 'limit_reached').length, 6);
    t.match(created[0], { kind: 'admin', scopes: ['domains:read', 'teams:write'], domainId: null, domainName: null });
    t.same((await store.keys.listAdmin(root.id)).map((k) => k.id).sort(), created.map((k) => k.id).sort());
    t.same((await store.keys.listSending(root.id, { page: 1, perPage: 10 })).total, 0, 'admin keys are never sending keys');
    t.equal(await store.keys.revoke(created[0]!.id, 'sending'), undefined);
    t.equal(await store.keys.revoke(created[0]!.id, 'admin'), created[0]!.keyHash);
    t.not(await admin(team.id), 'limit_reached', 'a revoked key frees its place');
    t.equal(await admin(root.id), 'limit_reached');
  }),
];
