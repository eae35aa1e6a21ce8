// The contract of DnsConnectionRepository: one connection per team and provider, a new token replacing the
// old one while the connection keeps when it was first made, reached only through its team.
import { accountOf, check, type ContractCheck } from './fixtures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const dnsConnectionChecks: ContractCheck[] = [
  check('a team connects a provider once; a new token replaces the old one and keeps when it was first connected', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    t.equal(await store.dnsConnections.get(team.id, 'cloudflare'), undefined, 'none before connecting');
    const first = await store.dnsConnections.save({ teamId: team.id, provider: 'cloudflare', tokenEnc: 'sealed-1', tokenLast4: 'aaaa' });
    t.match(first, { teamId: team.id, provider: 'cloudflare', tokenEnc: 'sealed-1', tokenLast4: 'aaaa' });
    t.equal(first.createdAt, first.updatedAt);
    t.same(await store.dnsConnections.get(team.id, 'cloudflare'), first);
    await sleep(5);
    const second = await store.dnsConnections.save({ teamId: team.id, provider: 'cloudflare', tokenEnc: 'sealed-2', tokenLast4: 'bbbb' });
    t.match(second, { tokenEnc: 'sealed-2', tokenLast4: 'bbbb', createdAt: first.createdAt });
    t.ok(second.updatedAt > first.updatedAt, 'the token’s time moves on');
    t.same(await store.dnsConnections.get(team.id, 'cloudflare'), second, 'one connection, the new token');
  }),

  check('a connection is reached and removed only through its team, and removed once', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    await store.dnsConnections.save({ teamId: team.id, provider: 'cloudflare', tokenEnc: 'sealed', tokenLast4: 'abcd' });
    t.equal(await store.dnsConnections.get(other.id, 'cloudflare'), undefined);
    t.equal(await store.dnsConnections.remove(other.id, 'cloudflare'), false, 'not through another team');
    t.ok(await store.dnsConnections.get(team.id, 'cloudflare'));
    t.equal(await store.dnsConnections.remove(team.id, 'cloudflare'), true);
    t.equal(await store.dnsConnections.remove(team.id, 'cloudflare'), false, 'removed once');
    t.equal(await store.dnsConnections.get(team.id, 'cloudflare'), undefined);
  }),
];
