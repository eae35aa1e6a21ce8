// The PostgreSQL engine's counters under several processes: every transaction moves them at its end, in one
// order, so transactions moving the same hot rows in different orders (the intake, the delivery results) never
// deadlock.
import t from 'tap';
import { moveCounts, moveDepths } from '../../shared/store/postgres/figure-counters.js';
import { migratePostgres } from '../../shared/store/postgres/migrate.js';
import { openPostgres } from '../../shared/store/postgres/sql.js';
import { startPostgres } from '../harness/postgres.js';

const cluster = await startPostgres();
t.teardown(() => cluster.stop());

/** A promise and the function that resolves it: one transaction tells the other where it is. */
function signal(): [Promise<void>, () => void] {
  let resolve!: () => void;
  return [new Promise<void>((r) => (resolve = r)), () => resolve()];
}

t.test('two transactions moving the message counts and the queue depths in opposite orders both commit, without a deadlock', async (t) => {
  const url = await cluster.createDatabase();
  await migratePostgres(url);
  const sql = openPostgres(url);
  t.teardown(() => sql.close());
  const counted = { teamId: 1, createdAt: '2026-11-27T10:00:00.000Z', domainId: null, status: 'pending' as const, by: 1 };
  const [intakeCounted, intakeHasCounted] = signal();
  const [resultsMovedDepths, resultsHaveMovedDepths] = signal();
  // The intake's order: the message counts, then the queue depth.
  const intake = sql.tx(async (q) => {
    await moveCounts(q, [], [counted]);
    intakeHasCounted();
    await resultsMovedDepths;
    await moveDepths(q, [{ teamId: 1, by: 1 }]);
  });
  // The delivery results' order: the queue depth, then the message counts.
  const results = sql.tx(async (q) => {
    await intakeCounted;
    await moveDepths(q, [{ teamId: 1, by: -1 }]);
    resultsHaveMovedDepths();
    await moveCounts(
      q,
      [],
      [
        { ...counted, by: -1 },
        { ...counted, status: 'sent', by: 1 },
      ],
    );
  });
  const outcomes = await Promise.allSettled([intake, results]);
  t.same(
    outcomes.map((o) => (o.status === 'fulfilled' ? 'committed' : (o.reason as Error).message)),
    ['committed', 'committed'],
  );
  t.same(await sql.all('SELECT team_id, n FROM queue_depths'), [{ team_id: 1, n: 0 }], 'both depth moves were written');
  t.same(
    await sql.all('SELECT status, n FROM platform_message_counts ORDER BY status'),
    [
      { status: 'pending', n: 0 },
      { status: 'sent', n: 1 },
    ],
    'both transactions’ message counts were written',
  );
});

t.test('outside a transaction the counters move at once', async (t) => {
  const url = await cluster.createDatabase();
  await migratePostgres(url);
  const sql = openPostgres(url);
  t.teardown(() => sql.close());
  await moveDepths(sql, [{ teamId: 7, by: 3 }]);
  t.same(await sql.all('SELECT team_id, n FROM queue_depths'), [{ team_id: 7, n: 3 }]);
});
