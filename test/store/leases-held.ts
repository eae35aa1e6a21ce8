// What no repository tells: how many recipients one process holds leased right now. Its lease tokens start with
// its host and pid (shared/queue/queue.ts), so the cluster test can count a killed MTA's in-flight batch.
import pg from 'pg';
import sqlite3 from 'sqlite3';

export async function leasesHeldBy(databaseUrl: string, host: string, pid: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const res = await client.query<{ n: string }>(`SELECT count(*) AS n FROM recipients WHERE state = 'sending' AND lease_token LIKE $1`, [`${host}/${pid}/%`]);
    return Number(res.rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** leasesHeldBy on a SQLite installation: its database file, read only. */
export async function sqliteLeasesHeldBy(file: string, host: string, pid: number): Promise<number> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => (err ? reject(err) : resolve(opened)));
  });
  try {
    const row = await new Promise<{ n: number }>((resolve, reject) =>
      db.get(`SELECT count(*) AS n FROM recipients WHERE state = 'sending' AND lease_token LIKE ?`, [`${host}/${pid}/%`], (err, r: { n: number }) =>
        err ? reject(err) : resolve(r),
      ),
    );
    return row.n;
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}
