// The message log's listing (GET /v2/emails) at the store: migration 4 upgrading a v3 database, exact totals
// from message_counts through every kind of write, and searches walked from the FTS index (whole words, newest
// first, filters, date bounds, paging and the counting limit), each checked against the plain queries the
// listing used before. A status filter finds a message with any recipient in that status (issue 22, item 6).
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import type { Queryable, Sql, SqlValue } from '../../shared/store/sqlite/sql.js';
import { tempDatabase } from './temp-sql.js';
import { counted, runCounted } from './raw-figures.js';
import { migrate } from '../../shared/store/sqlite/migrate.js';
import { MIGRATIONS } from '../../shared/store/sqlite/migrations.js';
import { ftsQuery } from '../../shared/store/sqlite/log-listing.js';
import { MessageStore } from '../../shared/store/sqlite/messages.js';
import { SqliteUnitOfWork } from '../../shared/store/sqlite/unit-of-work.js';
import { recordMessages } from '../../shared/intake/record.js';
import type { InsertOutcome, MessageQuery, NewMessage } from '../../shared/store/message-log.js';
import type { MessageStatus } from '../../shared/domain/queue-state.js';
import { figuresOfNew } from '../../shared/domain/figures.js';

/** Records a message as the intake does, through the unit of work on this database. */
async function recordThrough(sql: Sql, m: NewMessage): Promise<InsertOutcome> {
  const [outcome] = await sql.grouped((q) => recordMessages(new SqliteUnitOfWork(q), [m]));
  return outcome!;
}

const DAY = 86_400_000;
/** Midnight UTC, four days ago: the test data spans five days up to now. */
const START = Math.floor(Date.now() / DAY) * DAY - 4 * DAY;
const iso = (ms: number) => new Date(ms).toISOString();
const STATUSES: readonly MessageStatus[] = ['sent', 'sent', 'sent', 'bounced', 'failed', 'pending', 'complained', 'suppressed'];
const TEAM = 1;
const OTHER_TEAM = 2;
const DOMAIN = 'dom-one';

/** What the v3 release left: migrations 1 to 3 applied and recorded, as migrate() records them. */
async function v3Database(t: Test): Promise<Sql> {
  const { sql } = await tempDatabase(t);
  await sql.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of MIGRATIONS.filter((m) => m.version <= 3)) {
    await sql.exec(m.sql);
    await sql.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, iso(Date.now())]);
  }
  const now = iso(Date.now());
  for (const id of [TEAM, OTHER_TEAM]) {
    await sql.run(`INSERT INTO accounts (id, name, plan_type, limit_per_second, backend_region, created_at, updated_at) VALUES (?, ?, 'free', 10, 'eu', ?, ?)`, [
      id,
      `account ${id}`,
      now,
      now,
    ]);
  }
  await sql.run(
    `INSERT INTO domains (id, account_id, name, dkim_selector, dkim_public_key, dkim_private_key_enc, created_at, updated_at)
     VALUES (?, ?, 'one.test', 'tern', 'pub', 'enc', ?, ?)`,
    [DOMAIN, TEAM, now, now],
  );
  return sql;
}

interface RawMessage {
  id: string;
  teamId: number;
  domainId: string | null;
  status: MessageStatus;
  createdAt: string;
  subject: string;
  recipient: string;
  /** A second recipient, bounced, beside the first (whose state follows the message's status). */
  bouncedToo: boolean;
}

/** The first recipient's state for a message's status. */
const STATE_OF: Readonly<Record<MessageStatus, string>> = {
  pending: 'queued',
  sent: 'sent',
  bounced: 'bounced',
  complained: 'complained',
  suppressed: 'suppressed',
  failed: 'failed',
};

/** A recipient's status as the figures and the status filter count it. */
const FIGURE = `CASE WHEN r.complained_at IS NOT NULL THEN 'complained' WHEN r.state IN ('queued', 'sending', 'deferred', 'held') THEN 'pending' ELSE r.state END`;

/** The i-th test message: statuses, domains, subjects and recipients vary; created_at grows with i over five days. */
function messageAt(i: number, count: number): RawMessage {
  return {
    id: `msg${String(i).padStart(4, '0')}`,
    teamId: i % 5 === 4 ? OTHER_TEAM : TEAM,
    domainId: i % 3 === 2 ? null : DOMAIN,
    status: STATUSES[i % STATUSES.length]!,
    createdAt: iso(START + Math.floor((i * 5 * DAY) / count)),
    subject: i % 4 === 0 ? `Invoice ${1000 + i} ready` : `Welcome aboard number ${i}`,
    recipient: `user${i % 7}@dest${i % 2}.test`,
    bouncedToo: i % 7 === 1,
  };
}

/** Writes a message the way insert() does (messages, recipients, messages_fts), with a chosen created_at. */
async function writeRaw(q: Queryable, m: RawMessage): Promise<void> {
  // From migration 9 on, a message's team is team_id; before it, account_id.
  const teamColumn = (await q.get(`SELECT 1 FROM pragma_table_info('messages') WHERE name = 'team_id'`)) ? 'team_id' : 'account_id';
  const { lastId } = await q.run(
    `INSERT INTO messages (id, ${teamColumn}, domain_id, source, envelope_from, from_email, subject, message_id_header, size, status, created_at, updated_at)
     VALUES (?, ?, ?, 'http', 'a@one.test', 'a@one.test', ?, ?, 1, ?, ?, ?)`,
    [m.id, m.teamId, m.domainId, m.subject, `<${m.id}@one.test>`, m.status, m.createdAt, m.createdAt],
  );
  // From migration 27 on, a recipient holds its message's team too.
  const withTeam = Boolean(await q.get(`SELECT 1 FROM pragma_table_info('recipients') WHERE name = 'team_id'`));
  const recipients = [[m.recipient, STATE_OF[m.status]], ...(m.bouncedToo ? [[`bounced.${m.recipient}`, 'bounced']] : [])];
  for (const [email, state] of recipients) {
    await q.run(
      `INSERT INTO recipients (message_id, email, kind, domain, state, queued_at, updated_at${withTeam ? ', team_id' : ''})
       VALUES (?, ?, 'to', 'dest.test', ?, 0, ?${withTeam ? ', ?' : ''})`,
      [m.id, email!, state!, m.createdAt, ...(withTeam ? [m.teamId] : [])],
    );
  }
  // From migration 6 on, insert() indexes from the view message_search_rows; before it, the index had three columns.
  const viewed = await q.get(`SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = 'message_search_rows'`);
  if (viewed) {
    await q.run('INSERT INTO messages_fts (rowid, subject, from_email, recipients, status) SELECT * FROM message_search_rows WHERE rowid = ?', [lastId]);
  } else {
    await q.run('INSERT INTO messages_fts (rowid, subject, from_email, recipients) VALUES (?, ?, ?, ?)', [lastId, m.subject, 'a@one.test', `${m.recipient} Someone`]);
  }
}

/** The filters of the old listing, written plainly: what every answer is checked against. */
function plainWhere(teamId: number, q: Partial<MessageQuery>): { sql: string; params: SqlValue[] } {
  const clauses = ['team_id = ?'];
  const params: SqlValue[] = [teamId];
  const add = (clause: string, value: SqlValue | undefined) => {
    if (value === undefined) return;
    clauses.push(clause);
    params.push(value);
  };
  add(`EXISTS (SELECT 1 FROM recipients r WHERE r.message_id = messages.id AND ${FIGURE} = ?)`, q.status);
  add('domain_id = ?', q.domainId);
  add('created_at >= ?', q.from);
  add('created_at <= ?', q.to);
  add('rowid IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)', q.search === undefined ? undefined : (ftsQuery(q.search) ?? undefined));
  return { sql: clauses.join(' AND '), params };
}

async function plainList(sql: Sql, teamId: number, q: MessageQuery): Promise<{ ids: string[]; total: number }> {
  const where = plainWhere(teamId, q);
  const rows = await sql.all<{ id: string }>(`SELECT id FROM messages WHERE ${where.sql} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`, [
    ...where.params,
    q.perPage,
    (q.page - 1) * q.perPage,
  ]);
  const count = await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM messages WHERE ${where.sql}`, where.params);
  const total = count?.n ?? 0;
  return { ids: rows.map((r) => r.id), total: q.search === undefined ? total : Math.min(total, q.searchCountLimit) };
}

/** Date bounds that cover whole days, cut into days, fall inside one day, or are the wrong way round. */
function boundsToTry(): Array<Pick<MessageQuery, 'from' | 'to'>> {
  const day = (n: number) => START + n * DAY;
  return [
    {},
    { from: iso(day(1)) },
    { to: iso(day(3) - 1) },
    { from: iso(day(1)), to: iso(day(3) - 1) },
    { from: iso(day(1) + 5 * 3_600_000 + 123) },
    { to: iso(day(2) + 7 * 3_600_000) },
    { from: iso(day(1) + 5 * 3_600_000), to: iso(day(3) + 2 * 3_600_000) },
    { from: iso(day(2) + 3_600_000), to: iso(day(2) + 20 * 3_600_000) },
    { from: iso(day(2) + 3_600_000), to: iso(day(3) - 1) },
    { from: iso(day(3)), to: iso(day(2)) },
    { from: iso(day(2) + 20 * 3_600_000), to: iso(day(2) + 3_600_000) },
    { from: iso(day(9)) },
    { from: '9999-12-31T23:59:59.999Z' },
    { to: '0000-01-01T00:00:00.000Z' },
  ];
}

/** Every combination of status, domain and date bounds: each total must equal the plain COUNT(*). */
async function checkTotals(t: Test, sql: Sql, store: MessageStore, label: string): Promise<void> {
  let checked = 0;
  for (const teamId of [TEAM, OTHER_TEAM]) {
    for (const status of [undefined, 'sent', 'failed', 'pending'] as const) {
      for (const domainId of [undefined, DOMAIN, '-']) {
        for (const bounds of boundsToTry()) {
          const q: MessageQuery = { page: 1, perPage: 5, status, domainId, ...bounds, searchCountLimit: 10_000 };
          const got = await store.list(teamId, q);
          const want = await plainList(sql, teamId, q);
          if (got.total !== want.total || got.rows.map((r) => r.id).join() !== want.ids.join()) {
            t.fail(`${label}: ${JSON.stringify({ teamId, ...q })} gave ${got.total} ${got.rows.map((r) => r.id).join()}, expected ${want.total} ${want.ids.join()}`);
            return;
          }
          checked++;
        }
      }
    }
  }
  t.pass(`${label}: ${checked} filter combinations give the exact total and the same page`);
}

async function fillLog(sql: Sql, count: number): Promise<void> {
  await sql.tx(async (q) => {
    for (let i = 0; i < count; i++) await writeRaw(q, messageAt(i, count));
  });
}

t.test('migration 4 upgrades a v3 database: counters from the messages already there, totals exact', async (t) => {
  const sql = await v3Database(t);
  await fillLog(sql, 400);
  t.same(
    await migrate(sql),
    MIGRATIONS.map((m) => m.version).filter((v) => v >= 4),
    'migrations 4 and later run, no earlier one',
  );
  const counted = await sql.all<{ team_id: number; day: string; status: string; domain_key: string; n: number }>(
    'SELECT team_id, day, status, domain_key, n FROM message_counts ORDER BY 1, 2, 3, 4',
  );
  const grouped = await sql.all<{ team_id: number; day: string; status: string; domain_key: string; n: number }>(
    `SELECT team_id, substr(created_at, 1, 10) AS day, status, COALESCE(domain_id, '') AS domain_key, COUNT(*) AS n
     FROM messages GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
  );
  t.same(counted, grouped, 'message_counts holds every message once, by team, day, status and domain');
  t.same(await migrate(sql), [], 'and it runs only once');
  await checkTotals(t, sql, new MessageStore(sql), 'after the upgrade');
});

t.test('totals stay exact through inserts, status changes, moved dates and deletes', async (t) => {
  const sql = await v3Database(t);
  await fillLog(sql, 200);
  await migrate(sql);
  const store = new MessageStore(sql);
  // Written after the upgrade, by the triggers' path, and dated among the older ones.
  await counted(sql, async () => {
    for (let i = 200; i < 260; i++) await writeRaw(sql, { ...messageAt(i, 260), id: `late${i}` });
  });
  const sent = await recordThrough(sql, newMessage('through-insert'));
  t.not(sent, 'insufficient_balance');
  await runCounted(sql, `UPDATE messages SET status = 'sent' WHERE status = 'pending'`);
  await runCounted(sql, `UPDATE recipients SET state = 'sent' WHERE state = 'queued' AND id % 2 = 0`);
  await runCounted(sql, `UPDATE messages SET status = status, updated_at = ? WHERE id = 'msg0003'`, [iso(Date.now())]);
  await runCounted(sql, `UPDATE messages SET status = 'bounced', domain_id = NULL WHERE id IN ('msg0010', 'msg0011')`);
  await runCounted(sql, `UPDATE recipients SET state = 'bounced' WHERE message_id IN ('msg0010', 'msg0011')`);
  await runCounted(sql, `UPDATE messages SET created_at = ? WHERE id = 'msg0012'`, [iso(START - 30 * DAY)]);
  await runCounted(sql, `DELETE FROM recipients WHERE message_id = 'msg0013'`);
  await runCounted(sql, `DELETE FROM messages WHERE id = 'msg0013'`);
  await checkTotals(t, sql, store, 'after the writes');
  const negative = await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM message_counts WHERE n < 0');
  t.equal(negative?.n, 0, 'no counter goes below zero');
});

function newMessage(id: string): NewMessage {
  return {
    id,
    teamId: TEAM,
    payerId: TEAM,
    domainId: DOMAIN,
    sendingKeyId: null,
    source: 'http',
    envelopeFrom: 'a@one.test',
    fromEmail: 'a@one.test',
    fromName: '',
    subject: 'Invoice 77 through insert',
    to: [{ email: 'zed@dest0.test' }],
    replyTo: null,
    messageIdHeader: `<${id}@one.test>`,
    size: 1,
    hasAttachments: false,
    headers: {},
    body: Buffer.from(''),
    cost: 0,
    error: null,
    recipients: [{ email: 'zed@dest0.test', name: 'Zed', kind: 'to', domain: 'dest0.test', state: 'queued', reason: '' }],
    status: 'pending',
    figures: figuresOfNew(id, ['queued']),
  };
}

t.test('search matches whole words, or a prefix when the word ends with *', async (t) => {
  const inText = (words: string) => `{subject from_email recipients} : (${words})`;
  t.equal(ftsQuery('Invoice 42'), inText('"invoice" "42"'));
  t.equal(ftsQuery('bob@dest.test'), inText('"bob" "dest" "test"'));
  t.equal(ftsQuery('invo* ready'), inText('"invo"* "ready"'));
  t.equal(ftsQuery('"quoted" OR NEAR(x) status:sent'), inText('"quoted" "or" "near" "x" "status" "sent"'), 'no operator or column of the user reaches FTS5');
  t.equal(ftsQuery(' *** '), null);
});

t.test('a search walks the index newest first and gives what the plain query gives', async (t) => {
  const sql = await v3Database(t);
  await fillLog(sql, 400);
  await migrate(sql);
  const store = new MessageStore(sql);
  const searches = ['invoice', 'INVOICE ready', 'invo', 'invo*', 'user3@dest1', 'user3@dest0', 'welcome number', 'nothing-here', 'invoice 1004'];
  let checked = 0;
  for (const search of searches) {
    for (const status of [undefined, 'sent', 'failed'] as const) {
      for (const domainId of [undefined, DOMAIN, '-']) {
        for (const bounds of boundsToTry()) {
          for (const paging of [
            { page: 1, perPage: 7 },
            { page: 3, perPage: 7 },
          ]) {
            for (const searchCountLimit of [10_000, 12]) {
              const q: MessageQuery = { ...paging, status, domainId, ...bounds, search, searchCountLimit };
              const got = await store.list(TEAM, q);
              const want = await plainList(sql, TEAM, q);
              if (got.total !== want.total || got.rows.map((r) => r.id).join() !== want.ids.join()) {
                t.fail(`${JSON.stringify(q)} gave ${got.total} ${got.rows.map((r) => r.id).join()}, expected ${want.total} ${want.ids.join()}`);
                return;
              }
              checked++;
            }
          }
        }
      }
    }
  }
  t.pass(`${checked} searches give the same page and total (counted up to the limit)`);
  const invoices = await store.list(TEAM, { page: 1, perPage: 100, search: 'invoice', searchCountLimit: 10_000 });
  t.ok(invoices.rows.length > 10 && invoices.rows.every((r) => r.subject.startsWith('Invoice') && r.teamId === TEAM), "only the team's invoices");
  t.equal((await store.list(TEAM, { page: 1, perPage: 5, search: 'invo', searchCountLimit: 10_000 })).total, 0, 'a part of a word is no match');
  t.equal((await store.list(TEAM, { page: 1, perPage: 5, search: 'invoice', searchCountLimit: 4 })).total, 4, 'the count stops at the limit');
});

t.test('a search with a status follows every status change, and a status is never matched as a word', async (t) => {
  const sql = await v3Database(t);
  await fillLog(sql, 300);
  await migrate(sql);
  const store = new MessageStore(sql);
  const inserted = await recordThrough(sql, newMessage('through-insert'));
  t.not(inserted, 'insufficient_balance');
  // The test log runs a day into the future; the inserted message is dated after it, as its rowid is.
  await runCounted(sql, `UPDATE messages SET created_at = ? WHERE id = 'through-insert'`, [iso(START + 6 * DAY)]);
  const changes = [
    `UPDATE messages SET status = 'sent' WHERE status = 'pending'`,
    `UPDATE recipients SET state = 'sent' WHERE state = 'queued' AND message_id <> 'through-insert'`,
    `UPDATE messages SET status = 'complained' WHERE id IN ('msg0000', 'msg0008', 'msg0016')`,
    `UPDATE recipients SET complained_at = 'x' WHERE message_id IN ('msg0000', 'msg0008', 'msg0016')`,
    `UPDATE messages SET status = 'bounced' WHERE id IN ('msg0004', 'through-insert')`,
    `UPDATE recipients SET state = 'bounced' WHERE message_id = 'through-insert'`,
    `UPDATE messages SET status = status, updated_at = 'x' WHERE id = 'msg0012'`,
  ];
  const compare = async (label: string): Promise<boolean> => {
    for (const search of ['invoice', 'welcome number', 'user3@dest1', 'zed@dest0.test', 'invoice 77']) {
      for (const status of [undefined, 'sent', 'bounced', 'complained', 'pending', 'failed'] as const) {
        const q: MessageQuery = { page: 1, perPage: 500, status, search, searchCountLimit: 10_000 };
        const got = await store.list(TEAM, q);
        const want = await plainList(sql, TEAM, q);
        if (got.total !== want.total || got.rows.map((r) => r.id).join() !== want.ids.join()) {
          t.fail(`${label}: ${JSON.stringify(q)} gave ${got.total} ${got.rows.map((r) => r.id).join()}, expected ${want.total} ${want.ids.join()}`);
          return false;
        }
      }
    }
    return true;
  };
  if (!(await compare('after the upgrade'))) return;
  for (const change of changes) {
    await runCounted(sql, change);
    if (!(await compare(change))) return;
  }
  t.pass('each search with each status gives what the plain query gives, after each change');
  const bounced = await store.list(TEAM, { page: 1, perPage: 10, status: 'bounced', search: 'zed@dest0.test', searchCountLimit: 10_000 });
  t.same(
    bounced.rows.map((r) => r.id),
    ['through-insert'],
    'a message re-indexed with its new status is still found by its recipient',
  );
  const sentWord = await store.list(TEAM, { page: 1, perPage: 10, search: 'sent', searchCountLimit: 10_000 });
  t.equal(sentWord.total, 0, 'the word "sent" matches no message: no subject, sender or recipient holds it');
  await runCounted(sql, `DELETE FROM recipients WHERE message_id = 'through-insert'`);
  await runCounted(sql, `DELETE FROM messages WHERE id = 'through-insert'`);
  const gone = await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM messages_fts WHERE messages_fts MATCH ?`, [ftsQuery('zed')]);
  t.equal(gone?.n, 0, 'a deleted message leaves the index');
});

const sqliteShell = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' });
const readableByShell = "the migrated database stays readable by the sqlite3 shell of Debian 12 (SQLite 3.40), for operators' inspection and backups";
t.test(readableByShell, { skip: sqliteShell.error ? 'no sqlite3 shell here (.ci/run installs it)' : false }, async (t) => {
  const shell = sqliteShell;
  const { sql, file } = await tempDatabase(t);
  await migrate(sql);
  await sql.run('PRAGMA wal_checkpoint(TRUNCATE)');
  // A schema the shell cannot parse (say, SQL newer than its SQLite) makes every statement fail as "malformed".
  const read = spawnSync('sqlite3', ['-readonly', file, 'SELECT COUNT(*) FROM sqlite_master; SELECT COUNT(*) FROM messages;'], { encoding: 'utf8' });
  t.equal(read.status, 0, `sqlite3 ${shell.stdout.trim().split(' ')[0]} reads the schema: ${read.stderr.trim() || 'no error'}`);
  t.match(read.stdout, /^\d+\n0\n$/, 'and the tables');
});
