// The contract of StatisticsRepository: a team's messages counted by status over a period (bounds to the
// millisecond, hours, days, months, domains), following every write to the log, never another team's; and the
// team's queue depth.
import { accountOf, at, domainOf, messageOf, record, recipient, check, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { StoreTestSupport } from '../../../shared/store/test-support.js';
import type { Team } from '../../../shared/domain/team.js';
import type { NewRecipient } from '../../../shared/store/message-log.js';
import type { StatusCount } from '../../../shared/store/statistics.js';
import { recordBounce } from '../../../shared/queue/effects.js';

/** Counts as "status:n" sorted, for comparisons that do not depend on row order. */
const flat = (counts: ReadonlyArray<StatusCount & { start?: string; domainId?: string | null }>) =>
  counts.map((c) => `${c.start ?? ''}${c.domainId === undefined ? '' : String(c.domainId)} ${c.status}:${c.n}`).sort();

/** A message of `team` recorded at `createdAt`, one recipient in `state`. */
async function messageAt(
  store: Store,
  support: StoreTestSupport,
  team: Team,
  createdAt: string,
  state: NewRecipient['state'],
  domainId: string | null = null,
): Promise<{ id: string; recipientIds: number[] }> {
  const m = messageOf(team, { domainId, recipients: [recipient(`r@dest.test`, state)] });
  const recipientIds = await record(store, m);
  await support.backdateMessage(m.id, createdAt);
  return { id: m.id, recipientIds };
}

export const statisticsChecks: ContractCheck[] = [
  check('messages are counted by status within inclusive bounds to the millisecond, across hours and days', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    // at(h): h hours after 2024-01-10T00:00Z. Pending (queued), suppressed and failed messages over three days.
    await messageAt(store, support, team, at(1.5), 'queued');
    await messageAt(store, support, team, at(2), 'suppressed');
    await messageAt(store, support, team, at(26.25), 'failed');
    await messageAt(store, support, team, at(49.999), 'queued');
    await messageAt(store, support, other, at(2), 'queued');
    const count = (from: string, to: string) => store.statistics.countByStatus(team.id, { from, to }).then(flat);
    t.same(await count(at(0), at(72)), [' failed:1', ' pending:2', ' suppressed:1'], 'the whole period, the other team apart');
    t.same(await count(at(1.5), at(2)), [' pending:1', ' suppressed:1'], 'both bounds inclusive');
    t.same(await count(at(1.5), new Date(Date.parse(at(2)) - 1).toISOString()), [' pending:1'], 'a millisecond before a message leaves it out');
    t.same(await count(at(1.75), at(49.5)), [' failed:1', ' suppressed:1'], 'cut hours at both ends, a whole day between');
    t.same(await count(at(3), at(26)), [], 'nothing in between');
    t.same(await count(at(5), at(4)), [], 'bounds the wrong way round count nothing');
  }),

  check('counts over time come by UTC hour, day or month, and of one domain when asked', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const team = await accountOf(store);
    const domain = await domainOf(store, team, 'stats.one.test');
    await messageAt(store, support, team, at(1.5), 'queued', domain.id);
    await messageAt(store, support, team, at(1.75), 'suppressed');
    await messageAt(store, support, team, at(30), 'queued', domain.id);
    await messageAt(store, support, team, '2024-02-03T04:05:06.007Z', 'failed', domain.id);
    const over = (grain: 'hour' | 'day' | 'month', domainId?: string) =>
      store.statistics.countOverTime(team.id, { from: at(0), to: '2024-03-01T00:00:00.000Z', grain, ...(domainId ? { domainId } : {}) }).then(flat);
    t.same(await over('hour'), [
      '2024-01-10T01:00:00.000Z pending:1',
      '2024-01-10T01:00:00.000Z suppressed:1',
      '2024-01-11T06:00:00.000Z pending:1',
      '2024-02-03T04:00:00.000Z failed:1',
    ]);
    t.same(await over('day'), [
      '2024-01-10T00:00:00.000Z pending:1',
      '2024-01-10T00:00:00.000Z suppressed:1',
      '2024-01-11T00:00:00.000Z pending:1',
      '2024-02-03T00:00:00.000Z failed:1',
    ]);
    t.same(await over('month'), ['2024-01-01T00:00:00.000Z pending:2', '2024-01-01T00:00:00.000Z suppressed:1', '2024-02-01T00:00:00.000Z failed:1']);
    t.same(await over('month', domain.id), ['2024-01-01T00:00:00.000Z pending:2', '2024-02-01T00:00:00.000Z failed:1'], 'the domain’s only');
    t.same(await over('day', 'no-such-domain'), []);
  }),

  check('counts by domain put messages without a domain under null', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const team = await accountOf(store);
    const one = await domainOf(store, team, 'one.stats.test');
    const two = await domainOf(store, team, 'two.stats.test');
    await messageAt(store, support, team, at(1), 'queued', one.id);
    await messageAt(store, support, team, at(2), 'suppressed', one.id);
    await messageAt(store, support, team, at(3), 'suppressed', two.id);
    await messageAt(store, support, team, at(4), 'failed');
    t.same(
      flat(await store.statistics.countByDomain(team.id, { from: at(0), to: at(3) })),
      [`${one.id} pending:1`, `${one.id} suppressed:1`, `${two.id} suppressed:1`].sort(),
    );
    t.same(
      flat(await store.statistics.countByDomain(team.id, { from: at(0), to: at(24) })),
      [`${one.id} pending:1`, `${one.id} suppressed:1`, `${two.id} suppressed:1`, 'null failed:1'].sort(),
    );
  }),

  check('counts follow each recipient’s status and its message’s time as they change; the queue depth counts the team’s recipients in flight', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    const m = messageOf(team, { recipients: [recipient('a@dest.test'), recipient('b@dest.test'), recipient('c@dest.test', 'suppressed')] });
    const [a, b] = await record(store, m);
    await record(store, messageOf(other, { recipients: [recipient('x@dest.test')] }));
    const now = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() };
    t.same(flat(await store.statistics.countByStatus(team.id, now)), [' pending:2', ' suppressed:1'], 'recipients are counted, each by its own status');
    t.equal(await store.statistics.queueDepth(team.id), 2, 'two recipients queued, the suppressed one not');
    await recordBounce(store.transaction, { recipientId: a!, hard: false, reason: 'expired', source: 'expiry' });
    t.equal(await store.statistics.queueDepth(team.id), 1);
    await recordBounce(store.transaction, { recipientId: b!, hard: false, reason: 'expired', source: 'expiry' });
    t.same(flat(await store.statistics.countByStatus(team.id, now)), [' failed:2', ' suppressed:1'], 'each recipient counted once, under its new status');
    t.equal(await store.statistics.queueDepth(team.id), 0);
    t.equal(await store.statistics.queueDepth(other.id), 1, 'the other team’s queue is its own');
    await support.backdateMessage(m.id, at(5));
    t.same(flat(await store.statistics.countByStatus(team.id, now)), [], 'moved out of the period');
    t.same(flat(await store.statistics.countOverTime(team.id, { from: at(0), to: at(24), grain: 'hour' })), [
      '2024-01-10T05:00:00.000Z failed:2',
      '2024-01-10T05:00:00.000Z suppressed:1',
    ]);
  }),
];
