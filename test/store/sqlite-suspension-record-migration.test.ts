// Migration 7 on a database an older release left: teams already suspended get a record of who suspended them
// and since when (moved here from test/reputation.test.ts: it writes an old schema's rows, which only the engine's
// own tests may do).
import t from 'tap';
import { migratedUpTo, tempDatabase } from './temp-sql.js';
import { migrate } from '../../shared/store/sqlite/migrate.js';
import { TeamStore } from '../../shared/store/sqlite/teams.js';

t.test('migration 7 gives teams already suspended a record of who suspended them and since when', async (t) => {
  const { sql } = await tempDatabase(t);
  await migratedUpTo(sql, 6);
  const at = '2024-05-01T10:00:00.000Z';
  for (const [id, status, by] of [
    [1, 'active', null],
    [2, 'suspended', 'account'],
    [3, 'suspended', 'platform'],
  ] as const) {
    await sql.run(
      `INSERT INTO accounts (id, name, status, suspended_by, plan_type, limit_per_second, backend_region, created_at, updated_at) VALUES (?, 'a', ?, ?, 'standard', 10, 'eu', ?, ?)`,
      [id, status, by, at, at],
    );
  }
  t.ok((await migrate(sql)).includes(7), 'migration 7 runs');
  const teams = new TeamStore(sql);
  t.equal((await teams.get(1))!.suspension, null);
  t.same((await teams.get(2))!.suspension, { by: 'account', reason: 'suspended by the account', at, detail: null });
  t.match((await teams.get(3))!.suspension, { by: 'platform', reason: /platform/, at, detail: null });
});
