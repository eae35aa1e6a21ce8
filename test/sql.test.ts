import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Sql } from '../shared/store/sql.js';

/** A database file of its own, removed when `t` ends. */
async function tempSql(t: Test): Promise<Sql> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-sql-'));
  const sql = await openSqlite(join(dir, 'test.db'));
  t.teardown(async () => {
    await sql.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return sql;
}

t.test('grouped writes submitted together commit together, and one failing undoes only itself', async (t) => {
  const sql = await tempSql(t);
  await sql.exec('CREATE TABLE items (n INTEGER PRIMARY KEY)');
  const before = (await sql.get<{ data_version: number }>('PRAGMA data_version'))!.data_version;
  const writes = Array.from({ length: 50 }, (_, n) =>
    sql.grouped(async (q) => {
      await q.run('INSERT INTO items (n) VALUES (?)', [n]);
      if (n === 17) throw new Error('item 17 fails');
      return n;
    }),
  );
  const results = await Promise.allSettled(writes);
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 49);
  t.match(results[17], { status: 'rejected', reason: { message: 'item 17 fails' } });
  const rows = await sql.all<{ n: number }>('SELECT n FROM items ORDER BY n');
  t.equal(rows.length, 49);
  t.notOk(rows.some((r) => r.n === 17), 'the failed item left nothing behind');
  // data_version moves once per commit seen from another connection: far fewer commits than writes.
  const after = (await sql.get<{ data_version: number }>('PRAGMA data_version'))!.data_version;
  t.ok(after - before <= 3, `${after - before} commits for 50 writes`);
});

t.test('a read right after a committed write sees it', async (t) => {
  const sql = await tempSql(t);
  await sql.exec('CREATE TABLE kv (k INTEGER PRIMARY KEY, v INTEGER)');
  for (let i = 0; i < 300; i++) {
    await sql.run('INSERT INTO kv (k, v) VALUES (?, ?)', [i, i]);
    const row = await sql.get<{ v: number }>('SELECT v FROM kv WHERE k = ?', [i]);
    if (row?.v !== i) return t.fail(`write ${i} not visible to the next read`);
  }
  t.pass('every write was visible at once');
});
