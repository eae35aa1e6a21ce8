// The contract of SuppressionRepository: ranking, case-insensitive addresses, listing and removal.
import { accountOf, check, type ContractCheck } from './fixtures.js';
import type { SuppressionStatus } from '../../../shared/domain/suppression.js';
import type { PlatformSuppressionQuery, SuppressionFilter } from '../../../shared/store/suppressions.js';

export const suppressionChecks: ContractCheck[] = [
  check('a complaint outranks a bounce, which outranks a manual entry; an entry of equal rank refreshes the reason', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const add = (status: SuppressionStatus, reason: string) => store.suppressions.add(team.id, { email: 'Someone@Dest.test', status, reason, messageId: null });
    const standing = async () => {
      const s = await store.suppressions.get(team.id, 'someone@dest.test');
      return s && `${s.status}: ${s.reason}`;
    };
    await add('suppressed', 'by hand');
    t.equal(await standing(), 'suppressed: by hand', 'stored lower-cased, found in any case');
    await add('bounced', 'first bounce');
    t.equal(await standing(), 'bounced: first bounce', 'a bounce replaces a manual entry');
    await add('suppressed', 'by hand again');
    t.equal(await standing(), 'bounced: first bounce', 'a manual entry does not replace a bounce');
    await add('bounced', 'second bounce');
    t.equal(await standing(), 'bounced: second bounce', 'a bounce refreshes a bounce');
    await add('complained', 'complaint');
    t.equal(await standing(), 'complained: complaint', 'a complaint replaces a bounce');
    await add('bounced', 'late bounce');
    await add('suppressed', 'late manual');
    t.equal(await standing(), 'complained: complaint', 'nothing lower hides a complaint');
    t.equal(await store.suppressions.get((await accountOf(store)).id, 'someone@dest.test'), undefined, 'each team has its own list');
  }),

  check('entries of one address added at once end with the highest rank, whatever order they land in', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const statuses: SuppressionStatus[] = ['suppressed', 'bounced', 'complained', 'bounced', 'suppressed', 'bounced', 'suppressed', 'suppressed'];
    await Promise.all(statuses.map((status, i) => store.suppressions.add(team.id, { email: 'race@dest.test', status, reason: `${status} ${i}`, messageId: null })));
    t.match(await store.suppressions.get(team.id, 'race@dest.test'), { status: 'complained', reason: 'complained 2' }, 'no lower entry replaced it');
  }),

  check('a team’s suppressions list newest first, filter by status and by a literal search, and are removed by address', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const entries: Array<[string, SuppressionStatus]> = [
      ['a_b@dest.test', 'bounced'],
      ['axb@dest.test', 'suppressed'],
      ['100%@dest.test', 'complained'],
      ['zed@other.test', 'bounced'],
    ];
    for (const [email, status] of entries) {
      await store.suppressions.add(team.id, { email, status, reason: status, messageId: status === 'suppressed' ? null : 'msg1' });
      await new Promise((resolve) => setTimeout(resolve, 2)); // distinct creation times
    }
    const emails = async (query: { search?: string; status?: SuppressionStatus; page?: number; perPage?: number }) => {
      const { rows, total } = await store.suppressions.list(team.id, { page: 1, perPage: 10, ...query });
      return { emails: rows.map((r) => r.email), total };
    };
    t.same(await emails({}), { emails: ['zed@other.test', '100%@dest.test', 'axb@dest.test', 'a_b@dest.test'], total: 4 }, 'newest first');
    t.same(await emails({ page: 2, perPage: 3 }), { emails: ['a_b@dest.test'], total: 4 });
    t.same(await emails({ search: 'A_B' }), { emails: ['a_b@dest.test'], total: 1 }, '_ is a character, not a wildcard');
    t.same(await emails({ search: '%' }), { emails: ['100%@dest.test'], total: 1 }, 'so is %');
    t.same(await emails({ search: 'dest', status: 'bounced' }), { emails: ['a_b@dest.test'], total: 1 });
    t.match((await store.suppressions.list(team.id, { page: 1, perPage: 1, status: 'complained' })).rows, [
      { status: 'complained', reason: 'complained', messageId: 'msg1' },
    ]);
    t.same(await store.suppressions.suppressedAmong(team.id, ['axb@dest.test', 'free@dest.test', 'zed@other.test']), new Set(['axb@dest.test', 'zed@other.test']));
    t.same(await store.suppressions.suppressedAmong(team.id, []), new Set());
    t.equal(await store.suppressions.isSuppressed(team.id, 'AXB@dest.test'), true);
    t.equal(await store.suppressions.remove(team.id, 'AXB@Dest.test'), true, 'removed in any case');
    t.equal(await store.suppressions.remove(team.id, 'axb@dest.test'), false, 'removed once');
    t.equal(await store.suppressions.isSuppressed(team.id, 'axb@dest.test'), false);
  }),

  check("the platform's list holds every team's entries newest first with their team, or one team's; a search counts up to its limit", async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const added: Array<[number, string, SuppressionStatus]> = [
      [ada.id, 'one@dest.test', 'bounced'],
      [bob.id, 'two@dest.test', 'complained'],
      [ada.id, 'three@dest.test', 'suppressed'],
      [bob.id, 'four@other.test', 'bounced'],
    ];
    for (const [teamId, email, status] of added) {
      await store.suppressions.add(teamId, { email, status, reason: status, messageId: null });
      await new Promise((resolve) => setTimeout(resolve, 2)); // distinct creation times
    }
    const across = async (query: Partial<PlatformSuppressionQuery>) => {
      const { rows, total } = await store.suppressions.listAcrossTeams({ page: 1, perPage: 10, searchCountLimit: 100, ...query });
      return { rows: rows.map((r) => `${r.teamId === ada.id ? 'ada' : 'bob'} ${r.suppression.email}`), total };
    };
    t.same(await across({}), { rows: ['bob four@other.test', 'ada three@dest.test', 'bob two@dest.test', 'ada one@dest.test'], total: 4 });
    t.same(await across({ teamId: ada.id }), { rows: ['ada three@dest.test', 'ada one@dest.test'], total: 2 });
    t.same(await across({ status: 'bounced' }), { rows: ['bob four@other.test', 'ada one@dest.test'], total: 2 });
    t.same(await across({ page: 2, perPage: 3 }), { rows: ['ada one@dest.test'], total: 4 });
    t.same(await across({ search: 'DEST' }), { rows: ['ada three@dest.test', 'bob two@dest.test', 'ada one@dest.test'], total: 3 });
    t.same(await across({ search: 'dest', perPage: 1, searchCountLimit: 2 }), { rows: ['ada three@dest.test'], total: 2 }, 'the count stops at its limit');
    t.match((await store.suppressions.listAcrossTeams({ page: 1, perPage: 1, searchCountLimit: 10 })).rows[0], {
      teamId: bob.id,
      suppression: { email: 'four@other.test', status: 'bounced', reason: 'bounced', messageId: null },
    });
  }),

  check('a walk yields every entry of a team that matches, newest first, in batches of any size, as the list orders them', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    // Some share a creation time: the walk must neither repeat nor skip them across batches.
    for (let i = 0; i < 7; i++)
      await store.suppressions.add(team.id, { email: `r${i}@dest.test`, status: i % 2 ? 'bounced' : 'suppressed', reason: '', messageId: null });
    await store.suppressions.add(other.id, { email: 'x@dest.test', status: 'bounced', reason: '', messageId: null });
    const walked = async (filter: SuppressionFilter, batch: number) => {
      const emails: string[] = [];
      for await (const s of store.suppressions.walk(team.id, filter, batch)) emails.push(s.email);
      return emails;
    };
    const listed = (await store.suppressions.list(team.id, { page: 1, perPage: 100 })).rows.map((s) => s.email);
    t.equal(listed.length, 7);
    for (const batch of [1, 2, 3, 7, 50]) t.same(await walked({}, batch), listed, `in batches of ${batch}`);
    t.same(
      await walked({ status: 'bounced' }, 2),
      listed.filter((e) => ['r1', 'r3', 'r5'].includes(e.split('@')[0]!)),
    );
    t.same(await walked({ search: 'r4@' }, 2), ['r4@dest.test']);
    t.same(await walked({ search: 'nobody' }, 2), []);
  }),
];
