// Migration 27 (a recipient's team) on a database the previous release left, with two teams' messages in and out
// of flight: every recipient gets its message's team, the team's queue and deferrals are read from the new
// indexes, and a recipient written without a team is refused from then on.
import t from 'tap';
import { migratedUpTo } from './temp-sql.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Sql } from '../../shared/store/sqlite/sql.js';
import { databaseFile } from '../../shared/store/sqlite/open.js';
import { openStore } from '../../shared/store/index.js';

const NOW = '2026-01-01T10:00:00.000Z';

/** What release 26 left: migrations 1 to 26 applied, two teams, each with a deferred and a sent recipient. */
async function release26(sql: Sql): Promise<void> {
  await migratedUpTo(sql, 26);
  for (const team of [1, 2]) {
    await sql.run(
      `INSERT INTO teams (id, name, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at) VALUES (?, ?, 'free', 10, 10, 'eu', ?, ?)`,
      [team, `Team ${team}`, NOW, NOW],
    );
    for (const [id, status, state, reply] of [
      [`m${team}-pending`, 'pending', 'deferred', `451 4.7.1 team ${team} later`],
      [`m${team}-sent`, 'sent', 'sent', '250 ok'],
    ] as const) {
      await sql.run(
        `INSERT INTO messages (id, team_id, source, envelope_from, from_email, subject, message_id_header, size, status, created_at, updated_at)
         VALUES (?, ?, 'http', 'a@one.test', 'a@one.test', 'Hi', ?, 1, ?, ?, ?)`,
        [id, team, `<${id}@one.test>`, status, NOW, NOW],
      );
      await sql.run(`INSERT INTO recipients (message_id, email, kind, domain, state, last_reply, queued_at, updated_at) VALUES (?, ?, 'to', ?, ?, ?, 1000, ?)`, [
        id,
        `r@dest${team}.test`,
        `dest${team}.test`,
        state,
        reply,
        NOW,
      ]);
    }
  }
}

t.test("after migration 27 every recipient holds its message's team and a team's queue is read from it", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-migration-27-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const old = await openSqlite(databaseFile(dir));
  await release26(old);
  await old.close();

  const store = await openStore(dir);
  t.teardown(() => store.close());
  t.same(await store.adminTeams.queueByDestination(2, 10), [{ domain: 'dest2.test', queued: 0, sending: 0, deferred: 1, oldestQueuedAt: 1000 }]);
  t.same(
    (await store.adminTeams.lastErrors(1, 10)).map((e) => [e.messageId, e.reply]),
    [['m1-pending', '451 4.7.1 team 1 later']],
  );

  const sql = await openSqlite(databaseFile(dir));
  t.teardown(() => sql.close());
  t.same(await sql.all('SELECT message_id, team_id FROM recipients ORDER BY message_id'), [
    { message_id: 'm1-pending', team_id: 1 },
    { message_id: 'm1-sent', team_id: 1 },
    { message_id: 'm2-pending', team_id: 2 },
    { message_id: 'm2-sent', team_id: 2 },
  ]);
  await t.rejects(
    sql.run(`INSERT INTO recipients (message_id, email, kind, domain, state, queued_at, updated_at) VALUES ('m1-sent', 'x@d.test', 'to', 'd.test', 'sent', 0, ?)`, [NOW]),
    /NOT NULL constraint failed: recipients.team_id/,
    'a recipient without its team is refused',
  );
  t.same(await sql.all('PRAGMA foreign_key_check'), [], 'every foreign key holds');
  t.same(await sql.all('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], 'the database is sound');
});
