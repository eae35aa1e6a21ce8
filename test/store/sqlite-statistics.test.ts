// The statistics' counters in SQLite: migrations 11 and 30 filling the queue depths and the counters of recipients
// by status from what a database already holds, and every count the repository gives, over random periods (cut to
// the millisecond, whole hours, whole days, the wrong way round), checked against a plain GROUP BY over the
// recipients themselves (every figure counts recipients: docs/decisions.md, issue 22 item 6).
import t, { type Test } from 'tap';
import type { Sql } from '../../shared/store/sqlite/sql.js';
import { migratedOn, migratedUpTo, tempDatabase } from './temp-sql.js';
import { migrate } from '../../shared/store/sqlite/migrate.js';
import { StatisticsStore } from '../../shared/store/sqlite/statistics.js';
import { MESSAGE_STATUSES } from '../../shared/domain/queue-state.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2024, 1, 27, 0, 0, 0); // over a month's end and a leap day
const iso = (ms: number) => new Date(ms).toISOString();
const TEAMS = [1, 2];
const DOMAINS = ['dom-a', 'dom-b', null];

let seed = 11;
const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;

/** The schema before migration 11, two teams, two domains. */
async function beforeMigration11(t: Test): Promise<Sql> {
  const { sql } = await tempDatabase(t);
  await migratedUpTo(sql, 10, iso(START));
  for (const id of TEAMS) {
    await sql.run(`INSERT INTO teams (id, name, plan_type, limit_per_second, backend_region, created_at, updated_at) VALUES (?, 'team', 'free', 10, 'eu', ?, ?)`, [
      id,
      iso(START),
      iso(START),
    ]);
  }
  for (const id of DOMAINS.filter((d) => d !== null)) {
    await sql.run(
      `INSERT INTO domains (id, team_id, name, dkim_selector, dkim_public_key, dkim_private_key_enc, created_at, updated_at) VALUES (?, 1, ?, 'tern', 'pub', 'enc', ?, ?)`,
      [id, `${id}.test`, iso(START), iso(START)],
    );
  }
  return sql;
}

/** `n` messages at random times over five days, of random teams, domains and statuses. */
async function writeMessages(sql: Sql, n: number, prefix: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    const at = iso(START + Math.floor(rand() * 5 * DAY));
    await sql.run(
      `INSERT INTO messages (id, team_id, domain_id, source, envelope_from, from_email, message_id_header, size, status, created_at, updated_at)
       VALUES (?, ?, ?, 'http', 'a@x.test', 'a@x.test', ?, 1, ?, ?, ?)`,
      [`${prefix}${i}`, TEAMS[Math.floor(rand() * 2)]!, DOMAINS[Math.floor(rand() * 3)]!, `<${prefix}${i}@x>`, MESSAGE_STATUSES[Math.floor(rand() * 6)]!, at, at],
    );
  }
}

/** The plain count: a GROUP BY over the recipients by their status (pending while in the queue), as "key status:n" sorted. */
async function plain(sql: Sql, key: string, from: string, to: string, domainId?: string): Promise<string[]> {
  const rows = await sql.all<{ k: string | null; status: string; n: number }>(
    `SELECT ${key} AS k, CASE WHEN r.complained_at IS NOT NULL THEN 'complained' WHEN r.state IN ('queued', 'sending', 'deferred', 'held') THEN 'pending' ELSE r.state END AS status,
       COUNT(*) AS n FROM messages m JOIN recipients r ON r.message_id = m.id
     WHERE m.team_id = 1 AND m.created_at >= ? AND m.created_at <= ?${domainId ? ' AND m.domain_id = ?' : ''} GROUP BY 1, 2`,
    [from, to, ...(domainId ? [domainId] : [])],
  );
  return rows.map((r) => `${r.k ?? 'null'} ${r.status}:${r.n}`).sort();
}

/** A random bound: on the day, on the hour, or anywhere, within (or just past) the data's five days. */
function randomBound(): number {
  const ms = START - DAY + Math.floor(rand() * 7 * DAY);
  const kind = rand();
  return kind < 0.25 ? Math.floor(ms / DAY) * DAY : kind < 0.5 ? Math.floor(ms / HOUR) * HOUR : ms;
}

/** One recipient per message whose id ends in a digit below 5, in a random state. */
async function writeRecipients(sql: Sql, prefix: string): Promise<void> {
  const ids = await sql.all<{ id: string }>(`SELECT id FROM messages WHERE id LIKE ? AND substr(id, -1) < '5'`, [`${prefix}%`]);
  const states = ['queued', 'sending', 'deferred', 'sent', 'bounced', 'failed'];
  // From migration 27 on, a recipient holds its message's team too.
  const withTeam = Boolean(await sql.get(`SELECT 1 FROM pragma_table_info('recipients') WHERE name = 'team_id'`));
  for (const { id } of ids) {
    await sql.run(
      `INSERT INTO recipients (message_id, email, kind, domain, state, queued_at, updated_at${withTeam ? ', team_id' : ''})
       SELECT id, 'r@d.test', 'to', 'd.test', ?, 0, ?${withTeam ? ', team_id' : ''} FROM messages WHERE id = ?`,
      [states[Math.floor(rand() * states.length)]!, iso(START), id],
    );
  }
}

const plainDepth = async (sql: Sql, teamId: number) =>
  (await sql.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM recipients r JOIN messages m ON m.id = r.message_id WHERE m.team_id = ? AND r.state IN ('queued', 'sending', 'deferred')`,
    [teamId],
  ))!.n;

t.test('migrations 11 and 31 fill the counters and queue depths, 32 keeps them; every count equals a plain count of recipients', async (t) => {
  const sql = await beforeMigration11(t);
  await writeMessages(sql, 600, 'old');
  await writeRecipients(sql, 'old');
  await migratedOn(sql, 10, 31);
  await writeMessages(sql, 300, 'new'); // kept by migration 31's triggers from here on, up to migration 32
  await writeRecipients(sql, 'new');
  await sql.run(`UPDATE recipients SET state = 'sending' WHERE state = 'queued' AND id % 3 = 0`);
  await sql.run(`UPDATE recipients SET state = 'sent' WHERE state = 'sending' AND id % 2 = 0`);
  await sql.run(`UPDATE recipients SET state = 'deferred' WHERE state = 'failed' AND id % 2 = 0`);
  await sql.run(`UPDATE recipients SET complained_at = ? WHERE state IN ('sent', 'bounced') AND id % 5 = 0`, [iso(START)]);
  await sql.run(`UPDATE messages SET status = 'sent' WHERE id LIKE 'old1%'`);
  await sql.run(`UPDATE messages SET created_at = ? WHERE id LIKE 'new2%'`, [iso(START + 2 * DAY + 30 * 60_000)]);
  await sql.run(`DELETE FROM recipients WHERE message_id LIKE 'old5%'`);
  await sql.run(`DELETE FROM messages WHERE id LIKE 'old5%'`);
  t.ok((await migrate(sql)).includes(32), 'migration 32 runs on what the triggers kept');
  const stats = new StatisticsStore(sql);
  for (const team of TEAMS) t.equal(await stats.queueDepth(team), await plainDepth(sql, team), `queue depth of team ${team}`);
  t.ok((await plainDepth(sql, 1)) > 0);
  const flat = (rows: Array<{ status: string; n: number; start?: string; domainId?: string | null }>, key: (r: (typeof rows)[number]) => string) =>
    rows.map((r) => `${key(r)} ${r.status}:${r.n}`).sort();
  for (let i = 0; i < 60; i++) {
    const [a, b] = [randomBound(), randomBound()];
    const [from, to] = i % 10 === 9 ? [iso(Math.max(a, b)), iso(Math.min(a, b))] : [iso(Math.min(a, b)), iso(Math.max(a, b) - (i % 2))];
    const tag = `${from} .. ${to}`;
    t.same(
      flat(await stats.countByStatus(1, { from, to }), () => ''),
      await plain(sql, "''", from, to),
      `by status ${tag}`,
    );
    t.same(
      flat(await stats.countByDomain(1, { from, to }), (r) => String(r.domainId)),
      await plain(sql, 'domain_id', from, to),
      `by domain ${tag}`,
    );
    for (const [grain, suffix, len] of [
      ['hour', ':00:00.000Z', 13],
      ['day', 'T00:00:00.000Z', 10],
      ['month', '-01T00:00:00.000Z', 7],
    ] as const) {
      const domainId = i % 3 === 0 ? 'dom-a' : undefined;
      t.same(
        flat(await stats.countOverTime(1, { from, to, grain, ...(domainId ? { domainId } : {}) }), (r) => r.start!),
        await plain(sql, `substr(created_at, 1, ${len}) || '${suffix}'`, from, to, domainId),
        `by ${grain} ${domainId ?? ''} ${tag}`,
      );
    }
  }
});
