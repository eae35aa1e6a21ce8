// Migration 32 (figures counted by the writes that move recipients) on a database release 31 left: the counters
// the triggers kept stay as they were, the triggers and message_counts_hourly are gone, and a write through the
// store then moves each figure once (a trigger left behind would count it twice).
import t from 'tap';
import { migratedUpTo } from './temp-sql.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Sql } from '../../shared/store/sqlite/sql.js';
import { databaseFile } from '../../shared/store/sqlite/open.js';
import { openStore } from '../../shared/store/index.js';
import { finishAlone } from '../../shared/queue/finish.js';

const DAY = '2026-01-01';
const AT = `${DAY}T10:00:00.000Z`;
const PERIOD = { from: `${DAY}T00:00:00.000Z`, to: `${DAY}T23:59:59.999Z` };
const COUNTERS = ['recipient_counts', 'recipient_counts_hourly', 'platform_recipient_counts', 'message_statuses'];

/** Two messages, their recipients in each kind of figure status, counted by migration 31's triggers. */
async function release31(sql: Sql): Promise<void> {
  await migratedUpTo(sql, 31);
  await sql.run(
    `INSERT INTO teams (id, name, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at) VALUES (1, 'Team', 'free', 10, 10, 'eu', ?, ?)`,
    [AT, AT],
  );
  const recipients = {
    'm-1': ['queued', 'sent', 'bounced', 'sent'],
    'm-2': ['deferred', 'failed', 'suppressed'],
  } as const;
  for (const [id, states] of Object.entries(recipients)) {
    await sql.run(
      `INSERT INTO messages (id, team_id, source, envelope_from, from_email, subject, message_id_header, size, status, created_at, updated_at)
       VALUES (?, 1, 'http', 'a@one.test', 'a@one.test', 'Hi', ?, 1, 'pending', ?, ?)`,
      [id, `<${id}@one.test>`, AT, AT],
    );
    for (const [i, state] of states.entries()) {
      await sql.run(
        `INSERT INTO recipients (message_id, team_id, email, kind, domain, state, next_attempt_at, queued_at, updated_at) VALUES (?, 1, ?, 'to', 'dest.test', ?, ?, 0, ?)`,
        [id, `r${i}@dest.test`, state, state === 'queued' ? 0 : null, AT],
      );
    }
  }
  await sql.run(`UPDATE recipients SET complained_at = ? WHERE message_id = 'm-1' AND email = 'r3@dest.test'`, [AT]);
}

const snapshot = async (sql: Sql) => Promise.all(COUNTERS.map((table) => sql.all(`SELECT * FROM ${table} WHERE n <> 0 ORDER BY 1, 2, 3`)));

t.test('after migration 32 the figure counters keep their values, no trigger is left, and writes through the store move each figure once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-migration-32-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const old = await openSqlite(databaseFile(dir));
  await release31(old);
  const before = await snapshot(old);
  await old.close();

  const store = await openStore(dir);
  t.teardown(() => store.close());
  const sql = await openSqlite(databaseFile(dir));
  t.teardown(() => sql.close());
  t.same(await snapshot(sql), before, 'every counter as the triggers left it');
  t.same(
    await sql.all(`SELECT name FROM sqlite_schema WHERE name LIKE 'recipient_figures%' OR name LIKE 'message_counts_hourly%'`),
    [],
    'no figure trigger, no message_counts_hourly',
  );
  const counts = () => store.statistics.countByStatus(1, PERIOD).then((c) => c.map((s) => `${s.status}:${s.n}`).sort());
  t.same(await counts(), ['bounced:1', 'complained:1', 'failed:1', 'pending:2', 'sent:1', 'suppressed:1']);

  const queued = (await sql.get<{ id: number }>(`SELECT id FROM recipients WHERE state = 'queued'`))!.id;
  t.equal((await store.queue.claim([queued], Date.now(), Date.now() + 60_000, 'lease-1')).length, 1);
  await finishAlone(store.transaction, [{ recipientId: queued, leaseToken: 'lease-1', to: 'sent', reply: '250 ok', mxHost: null, ip: null }]);
  t.same(await counts(), ['bounced:1', 'complained:1', 'failed:1', 'pending:1', 'sent:2', 'suppressed:1'], 'the delivery moved one recipient from pending to sent');
});
