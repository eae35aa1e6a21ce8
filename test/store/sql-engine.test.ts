// The SQL engine under the repositories (store/sqlite/sql.ts): connections, transactions, group commit, busy waits, and write batching.
import t, { type Test } from 'tap';
import { tempDatabase } from './temp-sql.js';
import { openSqlite, type Queryable, type Sql } from '../../shared/store/sqlite/sql.js';
import { chunksByParams } from '../../shared/store/sqlite/write-batch.js';
import { Batcher } from '../../shared/write-batcher.js';

/** A batcher whose batches run in the engine's grouped transactions, as the intake's and the queue's do. */
const groupedBatcher = <I, O>(sql: Sql, apply: (q: Queryable, items: readonly I[]) => Promise<O[]>) => new Batcher<Queryable, I, O>((work) => sql.grouped(work), apply);

const tempSql = async (t: Test): Promise<Sql> => (await tempDatabase(t)).sql;

/** Frames in the write-ahead log after a checkpoint of the given mode (TRUNCATE empties it). */
async function walFrames(sql: Sql, mode: 'PASSIVE' | 'TRUNCATE'): Promise<number> {
  return (await sql.get<{ log: number }>(`PRAGMA wal_checkpoint(${mode})`))!.log;
}

t.test('grouped writes submitted together commit together, and one failing undoes only itself', async (t) => {
  const sql = await tempSql(t);
  await sql.exec('CREATE TABLE items (n INTEGER PRIMARY KEY)');
  await walFrames(sql, 'TRUNCATE');
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
  t.notOk(
    rows.some((r) => r.n === 17),
    'the failed item left nothing behind',
  );
  // Each commit appends the table's page to the WAL again: 50 commits would leave 50 frames or more.
  const frames = await walFrames(sql, 'PASSIVE');
  t.ok(frames < 10, `${frames} WAL frames for 50 writes`);
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

t.test('items submitted while the writer is busy are written as one batch, and a bad item fails alone', async (t) => {
  const sql = await tempSql(t);
  await sql.exec('CREATE TABLE items (n INTEGER PRIMARY KEY CHECK (n <> 17))');
  const batchSizes: number[] = [];
  const insertAll = async (q: Queryable, ns: readonly number[]): Promise<number[]> => {
    batchSizes.push(ns.length);
    await q.run(`INSERT INTO items (n) VALUES ${ns.map(() => '(?)').join(', ')}`, ns);
    return ns.map((n) => n * 10);
  };
  const batcher = groupedBatcher(sql, insertAll);
  await walFrames(sql, 'TRUNCATE');
  const good = await Promise.all(Array.from({ length: 50 }, (_, i) => batcher.submit(100 + i)));
  t.same(
    good,
    Array.from({ length: 50 }, (_, i) => (100 + i) * 10),
    'each item got its own answer, in order',
  );
  t.ok(batchSizes.length <= 2, `${batchSizes.length} batches for 50 items`);
  t.ok((await walFrames(sql, 'PASSIVE')) < 10, 'and few commits');

  const results = await Promise.allSettled(Array.from({ length: 50 }, (_, n) => batcher.submit(n)));
  t.same(
    results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed')),
    Array.from({ length: 50 }, (_, n) => (n === 17 ? 'failed' : n * 10)),
  );
  t.match(results[17], { status: 'rejected', reason: { code: 'SQLITE_CONSTRAINT' } });
  t.equal((await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM items WHERE n < 100'))!.n, 49, 'every other item was written');
});

t.test('rows are split so that no statement binds more values than allowed', async (t) => {
  const chunks = chunksByParams(
    Array.from({ length: 25 }, (_, i) => i),
    4,
    10,
  );
  t.same(
    chunks.map((c) => c.length),
    Array(12).fill(2).concat([1]),
  );
  t.same(chunksByParams([1, 2], 50, 10), [[1], [2]], 'a row above the limit still gets a statement of its own');
});

t.test('a statement that does not prepare rejects its call instead of hanging', async (t) => {
  const sql = await tempSql(t);
  await t.rejects(sql.all('SELEKT 1'), { code: 'SQLITE_ERROR' });
  await t.rejects(sql.run('INSERT INTO missing VALUES (1)'), { message: /no such table/ });
  t.same(await sql.all('SELECT 1 AS one'), [{ one: 1 }], 'the connection still answers');
});

t.test('kept statements stay correct when far more distinct statements are used at once than are kept', async (t) => {
  const sql = await tempSql(t);
  await sql.exec('CREATE TABLE items (n INTEGER PRIMARY KEY)');
  await sql.run(
    `INSERT INTO items (n) VALUES ${Array.from({ length: 600 }, () => '(?)').join(', ')}`,
    Array.from({ length: 600 }, (_, i) => i),
  );
  // IN lists of 1 to 600 values: 600 distinct statements, used concurrently, twice over.
  const counts = await Promise.all(
    Array.from({ length: 1200 }, (_, i) => {
      const n = (i % 600) + 1;
      return sql.all<{ c: number }>(
        `SELECT COUNT(*) AS c FROM items WHERE n IN (${Array(n).fill('?').join(',')})`,
        Array.from({ length: n }, (_, k) => k),
      );
    }),
  );
  t.same(
    counts.map((rows) => rows[0]!.c),
    Array.from({ length: 1200 }, (_, i) => (i % 600) + 1),
  );
});

t.test('items waiting for a transaction that cannot begin fail with it, and the next items are written', async (t) => {
  const { sql, file } = await tempDatabase(t, { busyTimeoutMs: 50 });
  const other = await openSqlite(file, { busyTimeoutMs: 50 });
  t.teardown(() => other.close());
  await sql.exec('CREATE TABLE items (n INTEGER PRIMARY KEY)');
  const batcher = groupedBatcher(sql, async (q, ns: readonly number[]) => {
    await q.run(`INSERT INTO items (n) VALUES ${ns.map(() => '(?)').join(', ')}`, ns);
    return [...ns];
  });
  // Another process holds the write lock for longer than the busy timeout.
  let releaseLock!: () => void;
  const held = other.tx(() => new Promise<void>((resolve) => (releaseLock = resolve)));
  await new Promise((r) => setTimeout(r, 20));
  const blocked = await Promise.allSettled([batcher.submit(1), batcher.submit(2)]);
  t.same(
    blocked.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  t.match(blocked[0], { reason: { code: 'SQLITE_BUSY' } });
  releaseLock();
  await held;
  t.same(await Promise.all([batcher.submit(3), batcher.submit(4)]), [3, 4], 'the batcher is not stuck');
});

t.test('writes that find another process holding the write lock go through once it is released', async (t) => {
  const { sql, file } = await tempDatabase(t, { busyTimeoutMs: 5000 });
  const other = await openSqlite(file, { busyTimeoutMs: 5000 });
  t.teardown(() => other.close());
  await sql.exec('CREATE TABLE items (n INTEGER PRIMARY KEY)');
  let releaseLock!: () => void;
  const held = other.tx(async (q) => {
    await q.run('INSERT INTO items (n) VALUES (0)');
    await new Promise<void>((resolve) => (releaseLock = resolve));
  });
  await new Promise((r) => setTimeout(r, 20));
  // Each kind of write: a lone statement, a transaction, grouped work.
  const writes = Promise.all([
    sql.run('INSERT INTO items (n) VALUES (1)'),
    sql.tx((q) => q.run('INSERT INTO items (n) VALUES (2)')),
    sql.grouped((q) => q.run('INSERT INTO items (n) VALUES (3)')),
  ]);
  await new Promise((r) => setTimeout(r, 100));
  t.same(
    (await sql.all<{ n: number }>('SELECT n FROM items')).map((r) => r.n),
    [],
    'nothing was written while the lock was held',
  );
  releaseLock();
  await held;
  await writes;
  t.same(
    (await sql.all<{ n: number }>('SELECT n FROM items ORDER BY n')).map((r) => r.n),
    [0, 1, 2, 3],
    'every write went through, after the holder',
  );
});

t.test('a writing statement with RETURNING gives back the rows it wrote, and readers see them at once', async (t) => {
  const sql = await tempSql(t);
  await sql.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)');
  const inserted = await sql.returning<{ id: number; v: string }>(`INSERT INTO t (v) VALUES ('a'), ('b') RETURNING id, v`);
  t.same(
    inserted.map((r) => r.v),
    ['a', 'b'],
  );
  t.same(await sql.all('SELECT v FROM t ORDER BY id'), [{ v: 'a' }, { v: 'b' }], 'committed: a reader sees both');
  t.same(await sql.returning(`INSERT INTO t (v) VALUES ('a') ON CONFLICT DO NOTHING RETURNING id`), [], 'nothing written, no row');
  await t.rejects(sql.returning(`INSERT INTO t (v) VALUES (NULL) RETURNING id`), /NOT NULL/);
  t.same(await sql.returning(`UPDATE t SET v = v || '!' WHERE v = 'b' RETURNING v`), [{ v: 'b!' }]);
});
