// Migration 29 (bodies kept for requeue, marked) on a database release 28 left: a finished message's kept body
// takes its message's last update as the time it is kept since, a queued message's body is not marked, and the
// sweep then deletes the kept one once the window has passed, never the queued one.
import t from 'tap';
import { migratedUpTo } from './temp-sql.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Sql } from '../../shared/store/sqlite/sql.js';
import { databaseFile } from '../../shared/store/sqlite/open.js';
import { openStore } from '../../shared/store/index.js';

const NOW = '2026-01-01T10:00:00.000Z';
const FINISHED = '2026-01-02T10:00:00.000Z';

async function release28(sql: Sql): Promise<void> {
  await migratedUpTo(sql, 28);
  await sql.run(
    `INSERT INTO teams (id, name, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at) VALUES (1, 'Team', 'free', 10, 10, 'eu', ?, ?)`,
    [NOW, NOW],
  );
  for (const [id, status, updatedAt] of [
    ['m-failed', 'failed', FINISHED],
    ['m-pending', 'pending', NOW],
  ] as const) {
    await sql.run(
      `INSERT INTO messages (id, team_id, source, envelope_from, from_email, subject, message_id_header, size, status, created_at, updated_at)
       VALUES (?, 1, 'http', 'a@one.test', 'a@one.test', 'Hi', ?, 1, ?, ?, ?)`,
      [id, `<${id}@one.test>`, status, NOW, updatedAt],
    );
    await sql.run('INSERT INTO message_bodies (message_id, body) VALUES (?, ?)', [id, Buffer.from(`body of ${id}`)]);
  }
}

t.test('after migration 29 a kept body is marked with when its message finished, and the sweep finds it by that mark', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-migration-29-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const old = await openSqlite(databaseFile(dir));
  await release28(old);
  await old.close();

  const store = await openStore(dir);
  t.teardown(() => store.close());
  const sql = await openSqlite(databaseFile(dir));
  t.teardown(() => sql.close());
  t.same(await sql.all('SELECT message_id, kept_since FROM message_bodies ORDER BY message_id'), [
    { message_id: 'm-failed', kept_since: FINISHED },
    { message_id: 'm-pending', kept_since: null },
  ]);
  t.equal(await store.queueControl.dropKeptBodies(FINISHED, 10), 0, 'not before the window has passed');
  t.equal(await store.queueControl.dropKeptBodies('2026-01-03T00:00:00.000Z', 10), 1);
  t.ok(await store.messages.body('m-pending'), 'a queued message keeps its body');
  t.equal(await store.messages.body('m-failed'), undefined);
});
