// What no repository tells: how many recipients one process holds leased right now. Its lease tokens start with
// its host and pid (shared/queue/queue.ts), so the cluster test can count a killed MTA's in-flight batch.
import pg from 'pg';

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
