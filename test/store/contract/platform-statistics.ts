// The contract of the platform statistics: every team's recipients by the UTC day their message was recorded
// and by status, following each recipient's status; live accounts and teams with how many are suspended; and the
// recipients in flight across every team.
import { accountOf, at, check, messageOf, record, recipient, teamOf, type ContractCheck } from './fixtures.js';
import type { Store } from '../../../shared/store/index.js';
import type { StoreTestSupport } from '../../../shared/store/test-support.js';
import type { Team } from '../../../shared/domain/team.js';
import type { NewRecipient } from '../../../shared/store/message-log.js';
import type { DayCount } from '../../../shared/store/platform-statistics.js';

/** A message of `team` recorded at `createdAt`, its recipients in the states given; their ids. */
async function messageAt(store: Store, support: StoreTestSupport, team: Team, createdAt: string, states: NewRecipient['state'][]): Promise<number[]> {
  const m = messageOf(team, { recipients: states.map((s, i) => recipient(`r${i}@dest.test`, s)) });
  const ids = await record(store, m);
  await support.backdateMessage(m.id, createdAt);
  return ids;
}

const flat = (counts: DayCount[]) => counts.map((c) => `${c.day} ${c.status}:${c.n}`).sort();

export const platformStatisticsChecks: ContractCheck[] = [
  check("every tenant's recipients are counted by the UTC day of their message and by their status, within the days asked", async (t, engine) => {
    const { store, support } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const team = await teamOf(store, ada);
    await messageAt(store, support, ada, at(1), ['queued', 'queued', 'suppressed']);
    const [sent, bounced, complained] = await messageAt(store, support, bob, at(23.999), ['queued', 'queued', 'queued']);
    await messageAt(store, support, team, at(24), ['failed']);
    await messageAt(store, support, ada, at(72), ['queued']);
    await support.forceRecipientOutcome(sent!, 'sent', false);
    await support.forceRecipientOutcome(bounced!, 'bounced', false);
    await support.forceRecipientOutcome(complained!, 'sent', true);
    t.same(flat(await store.platformStatistics.messagesByDay('2024-01-10', '2024-01-11')), [
      '2024-01-10 bounced:1',
      '2024-01-10 complained:1',
      '2024-01-10 pending:2',
      '2024-01-10 sent:1',
      '2024-01-10 suppressed:1',
      '2024-01-11 failed:1',
    ]);
    t.same(flat(await store.platformStatistics.messagesByDay('2024-01-11', '2024-01-13')), ['2024-01-11 failed:1', '2024-01-13 pending:1'], 'both days inclusive');
    t.same(await store.platformStatistics.messagesByDay('2024-01-12', '2024-01-12'), [], 'a day without messages');
    const listed = await store.platformStatistics.messagesByDay('2024-01-10', '2024-01-13');
    t.same(
      listed.map((c) => c.day),
      [...listed.map((c) => c.day)].sort(),
      'in order of day',
    );
  }),

  check('live accounts and teams are counted with their suspensions; a removed team is not', async (t, engine) => {
    const { store, support } = await engine.open(t);
    t.same(await store.platformStatistics.teamCounts(), { accounts: 0, teams: 0, suspendedAccounts: 0, suspendedTeams: 0 });
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    await accountOf(store);
    const one = await teamOf(store, ada, 'One');
    await teamOf(store, ada, 'Two');
    const three = await teamOf(store, ada, 'Three');
    await store.teams.changeStatus(bob.id, 'suspended', 'account');
    await store.teams.changeStatus(one.id, 'suspended', 'account');
    await support.deleteTeam(three.id);
    t.same(await store.platformStatistics.teamCounts(), { accounts: 3, teams: 2, suspendedAccounts: 1, suspendedTeams: 1 });
    await store.teams.changeStatus(bob.id, 'active', 'account');
    t.same(await store.platformStatistics.teamCounts(), { accounts: 3, teams: 2, suspendedAccounts: 0, suspendedTeams: 1 });
  }),

  check('the queue depth counts the recipients in flight of every tenant', async (t, engine) => {
    const { store, support } = await engine.open(t);
    t.equal(await store.platformStatistics.queueDepth(), 0);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const [a, b, c] = await messageAt(store, support, ada, at(1), ['queued', 'queued', 'queued', 'suppressed']);
    const [d] = await messageAt(store, support, bob, at(1), ['queued', 'failed']);
    t.equal(await store.platformStatistics.queueDepth(), 4, 'queued ones; suppressed and failed ones are not in flight');
    await support.forceRecipientInFlight(a!, 'sending', '', at(2));
    await support.forceRecipientInFlight(b!, 'deferred', '451 try later', at(2));
    t.equal(await store.platformStatistics.queueDepth(), 4, 'sending and deferred ones are still in flight');
    await support.forceRecipientOutcome(c!, 'sent', false);
    await support.forceRecipientOutcome(d!, 'bounced', false);
    t.equal(await store.platformStatistics.queueDepth(), 2);
  }),
];
