// The contract of the operators' reads of every team's domains: live domains listed by their number with
// filters and a total, one found by its number, and all ranked by what they sent from a day on.
import { accountOf, at, check, domainOf, messageOf, record, recipient, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { StoreTestSupport } from '../../../shared/store/test-support.js';
import type { Team } from '../../../shared/domain/team.js';
import type { Domain } from '../../../shared/domain/sending-domain.js';
import type { AdminDomainFilter } from '../../../shared/store/admin-domains.js';

const PAGE = { page: 1, perPage: 50 };

/** A message of `team` through `domain` recorded at `createdAt`, one recipient per outcome. */
async function sendingAt(
  store: Store,
  support: StoreTestSupport,
  team: Team,
  domain: Domain,
  createdAt: string,
  outcomes: Array<'sent' | 'bounced' | 'complained'>,
): Promise<void> {
  const m = messageOf(team, { domainId: domain.id, recipients: outcomes.map((_, i) => recipient(`r${i}@dest.test`)) });
  const ids = await record(store, m);
  await support.backdateMessage(m.id, createdAt);
  for (const [i, outcome] of outcomes.entries()) await support.forceRecipientOutcome(ids[i]!, outcome === 'bounced' ? 'bounced' : 'sent', outcome === 'complained');
}

export const adminDomainChecks: ContractCheck[] = [
  check("every tenant's live domains are listed by number, each filter given narrowing the list, and found by their number", async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const news = await domainOf(store, ada, 'news.ada.test');
    const mail = await domainOf(store, ada, 'mail_1.ada.test');
    const gone = await domainOf(store, bob, 'gone.bob.test');
    const bobs = await domainOf(store, bob, 'mail.bob.test');
    await store.domains.remove(gone.id, bob.id);
    await store.domains.recordCheck(bobs.id, { verified: true, dmarcPolicy: null, summary: '', result: {} });
    const all = await store.adminDomains.list({}, PAGE);
    t.same(
      all.rows.map((d) => d.id),
      [news.id, mail.id, bobs.id],
      'by number; a removed domain is not listed',
    );
    t.equal(all.total, 3);
    const numbers = all.rows.map((d) => d.number);
    t.same(
      numbers,
      [...numbers].sort((a, b) => a - b),
      'numbers grow with creation',
    );
    t.match(all.rows[0], { ...news, number: numbers[0] });
    const names = async (filter: AdminDomainFilter, page = PAGE) => {
      const listed = await store.adminDomains.list(filter, page);
      return { names: listed.rows.map((d) => d.name), total: listed.total };
    };
    t.same(await names({ teamId: ada.id }), { names: ['news.ada.test', 'mail_1.ada.test'], total: 2 });
    t.same(await names({ status: 'verified' }), { names: ['mail.bob.test'], total: 1 });
    t.same(await names({ status: 'draft', teamId: bob.id }), { names: [], total: 0 });
    t.same(await names({ search: 'MAIL' }), { names: ['mail_1.ada.test', 'mail.bob.test'], total: 2 }, 'part of the name, any case');
    t.same(await names({ search: 'l_' }), { names: ['mail_1.ada.test'], total: 1 }, 'wildcards matched literally');
    t.same(await names({}, { page: 2, perPage: 2 }), { names: ['mail.bob.test'], total: 3 });
    t.same(await store.adminDomains.get(numbers[2]!), all.rows[2]);
    t.equal(await store.adminDomains.get(Math.max(...numbers) + 100), undefined);
  }),

  check('the ranking puts the domain that sent most from the day given first, then by number, every live domain in it', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const quiet = await domainOf(store, ada, 'quiet.ada.test');
    const old = await domainOf(store, ada, 'old.ada.test');
    const busy = await domainOf(store, bob, 'busy.bob.test');
    const some = await domainOf(store, bob, 'some.bob.test');
    await sendingAt(store, support, bob, busy, at(1), ['sent', 'bounced', 'complained']);
    await sendingAt(store, support, bob, some, at(30), ['sent']);
    await sendingAt(store, support, ada, old, '2024-01-01T00:00:00.000Z', ['sent', 'sent', 'sent', 'sent']);
    await record(store, messageOf(ada, { domainId: quiet.id, recipients: [recipient('pending@dest.test'), recipient('s@dest.test', 'suppressed')] }));
    const ranking = await store.adminDomains.sendingRanking('2024-01-10', PAGE);
    t.same(
      ranking.rows.map((r) => [r.domain.name, r.sent, r.bounced, r.complained]),
      [
        ['busy.bob.test', 1, 1, 1],
        ['some.bob.test', 1, 0, 0],
        ['quiet.ada.test', 0, 0, 0],
        ['old.ada.test', 0, 0, 0],
      ],
      'pending and suppressed recipients are not counted; ties by number',
    );
    t.equal(ranking.total, 4);
    t.match(ranking.rows[0]!.domain, { ...busy });
    t.same(
      (await store.adminDomains.sendingRanking('2024-01-01', { page: 1, perPage: 1 })).rows.map((r) => [r.domain.name, r.sent]),
      [['old.ada.test', 4]],
    );
    t.same(
      (await store.adminDomains.sendingRanking('2024-01-10', { page: 2, perPage: 3 })).rows.map((r) => r.domain.name),
      ['old.ada.test'],
    );
  }),
];
