// Migration 17 (platform operators) on a database the previous release left, with users and their sessions:
// the users keep their team and sessions, an operator can be stored without a team, and the table's new CHECK
// refuses an operator with a team and an account user without one.
import t from 'tap';
import { migratedUpTo } from './temp-sql.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Sql } from '../../shared/store/sqlite/sql.js';
import { databaseFile } from '../../shared/store/sqlite/open.js';
import { openStore } from '../../shared/store/index.js';

const NOW = '2026-01-01T10:00:00.000Z';
const HASH = 'a'.repeat(64);

/** What release 15 left: migrations 1 to 15 applied and recorded, an account with an owner who has a session. */
async function release15(sql: Sql): Promise<void> {
  await migratedUpTo(sql, 15);
  await sql.run(
    `INSERT INTO teams (id, name, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at) VALUES (1, 'Acme', 'free', 10, 10, 'eu', ?, ?)`,
    [NOW, NOW],
  );
  await sql.run(
    `INSERT INTO users (id, team_id, email, name, role, password_hash, created_at, updated_at) VALUES (1, 1, 'owner@example.com', 'Owner', 'owner', 'x', ?, ?)`,
    [NOW, NOW],
  );
  await sql.run('INSERT INTO sessions (user_id, token_hash, created_at, last_seen_at) VALUES (1, ?, ?, ?)', [HASH, NOW, NOW]);
}

t.test('after migration 17 users keep their team and sessions, and an operator is stored without a team', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-migration-17-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const old = await openSqlite(databaseFile(dir));
  await release15(old);
  await old.close();

  const store = await openStore(dir);
  t.teardown(() => store.close());
  t.match(await store.users.findByEmail('owner@example.com'), { id: 1, role: 'owner', teamId: 1 });
  t.match(await store.sessions.findByTokenHash(HASH), { userId: 1 }, 'sessions still refer to their user');
  const operator = await store.users.create({ email: 'ops@example.com', name: 'Ops', role: 'operator', passwordHash: 'y', mustChangePassword: true });
  t.match(operator, { role: 'operator', mustChangePassword: true });
  t.notOk(typeof operator === 'object' && 'teamId' in operator, 'no team');
  t.same(
    (await store.users.listOperators()).map((o) => o.email),
    ['ops@example.com'],
  );

  const sql = await openSqlite(databaseFile(dir));
  t.teardown(() => sql.close());
  const insert = (team: number | null, role: string, email: string) =>
    sql.run(`INSERT INTO users (team_id, email, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, 'z', ?, ?)`, [team, email, role, NOW, NOW]);
  await t.rejects(insert(1, 'operator', 'a@example.com'), /CHECK constraint failed/, 'an operator with a team is refused');
  await t.rejects(insert(null, 'admin', 'b@example.com'), /CHECK constraint failed/, 'an account user without a team is refused');
  await t.rejects(insert(1, 'root', 'c@example.com'), /CHECK constraint failed/, 'an unknown role is refused');
  t.same(await sql.all('PRAGMA foreign_key_check'), [], 'every foreign key holds');
  t.same(await sql.all('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], 'the database is sound');
});
