// `ternmail store copy --to postgres://…`, as an operator runs it: an installation made through the real paths
// (the API and the MTA in-process, a sink standing in for the recipients' MX: messages sent, bounced and deferred,
// keys, a domain, a child team, a webhook, a suppression from the bounce, users with sessions, an operator, billing
// info, a payment with its invoice and the ledger), copied by the built command into a throwaway PostgreSQL
// cluster, then every table compared row by row on both engines. And the refusals, each leaving the target as it
// was: the installation running, its schema older than the release, the target unreachable, not empty, at
// another version; and a copy that does not check out, rolled back.
//
// Then Tern started on the copy (the same data dir, for its master key and TLS certificate, plus the database URL)
// is asked what Tern on SQLite was asked before it stopped: /v2 with the admin key, the dashboard's REST as the
// account's owner and as the operator, with the sessions made on SQLite. Every answer is the same. And the copied
// sending key sends (through /v2 and SMTP, delivered and DKIM-signed), the copied suppression holds, new ids follow
// the copied ones and the owner logs in again.
import t, { type Test } from 'tap';
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import pg from 'pg';
import sqlite3 from 'sqlite3';
import { dkimVerdict, startMailWorld, type MailWorld } from '../helpers/mail-world.js';
import { GERMAN_CUSTOMER, INVOICING } from '../helpers/billing-setup.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from '../helpers/dashboard-session.js';
import { cleanEnv, runCli, tempHome, type CliResult } from '../helpers/cli.js';
import { until } from '../helpers/wait.js';
import { request, type Harness, type RequestOptions } from '../helpers/harness.js';
import { startApi } from '../../api/main.js';
import { startMta } from '../../mta/main.js';
import { loadDeliveryRules } from '../../shared/policies/index.js';
import { freePort } from '../harness/ports.js';
import { startPostgres } from '../harness/postgres.js';
import { migratePostgres } from '../../shared/store/postgres/migrate.js';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../shared/store/sqlite/migrations.js';

/** The version before the latest: the newest migration below it (the numbers given out may leave gaps). */
const PREVIOUS_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version).filter((v) => v < LATEST_SCHEMA_VERSION));

type Row = Record<string, unknown>;

function sqliteAll(file: string, sql: string): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => {
      if (err) return reject(err);
      db.all(sql, (e: Error | null, rows: Row[]) => db.close(() => (e ? reject(e) : resolve(rows))));
    });
  });
}

async function pgQuery(url: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

const pgTables = async (url: string) =>
  (await pgQuery(url, "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")).map((r) => String(r.name));

const cluster = await startPostgres();
t.teardown(() => cluster.stop());

const home = tempHome('tern-store-copy-');
t.teardown(() => rmSync(home.dir, { recursive: true, force: true }));
/** The installation's data dir as the copy sees it: the world's database file, linked here (see below). */
const dataDir = join(home.dir, 'data');
const env = (dir = dataDir) => cleanEnv({ TERNMAIL_CONFIG: home.configFile, TERNMAIL_DATA_DIR: dir });
const copy = (url: string, dir = dataDir, extra: string[] = []): Promise<CliResult> => runCli(['store', 'copy', '--to', url, ...extra], env(dir), 120_000);

/** Mail through the world: to ok*@ delivered, to gone@ refused for good (a bounce, then a suppression), to later@ deferred. */
async function sendMail(w: MailWorld): Promise<void> {
  w.sink.rcptReply = (address) =>
    address.startsWith('gone') ? { code: 550, message: '5.1.1 no such user' } : address.startsWith('later') ? { code: 451, message: '4.2.0 try later' } : null;
  const send = async (to: Array<{ email: string; name?: string }>, subject: string) => {
    const res = await w.h.request('POST', '/v2/emails', {
      key: w.sendingKey,
      body: { from: { email: `app@${w.domain}`, name: 'App' }, to, subject, text: `Body of ${subject}` },
    });
    if (res.status !== 200) throw new Error(res.text);
    return String(res.body.message_id);
  };
  const ids = [
    await send([{ email: 'ok1@dest.test', name: 'Olga Kern' }, { email: 'ok2@dest.test' }], 'Welcome aboard'),
    await send([{ email: 'gone@dest.test' }], 'Your invoice'),
    await send([{ email: 'later@dest.test', name: 'Lat Er' }], 'Password reset'),
  ];
  for (const id of ids.slice(0, 2))
    await until(`message ${id} to settle`, async () => ((await w.h.rt.store.messages.get(id))?.status !== 'pending' ? true : null), 20_000);
  await until(
    'the deferred recipient to be tried',
    async () => ((await sqliteAll(join(w.h.dataDir, 'tern.db'), "SELECT 1 FROM recipients WHERE state = 'deferred'")).length ? true : null),
    20_000,
  );
}

/** Users with sessions, an operator, a child team, a webhook, billing info and a payment with its invoice; the owner's and the operator's sessions. */
async function populate(w: MailWorld): Promise<{ owner: SignedIn; ownerEmail: string; operator: SignedIn }> {
  const ownerEmail = await userOn(w.h, w.accountId, 'owner');
  const owner = await logIn(w.h, ownerEmail);
  await logIn(w.h, await userOn(w.h, w.accountId, 'viewer'));
  const operator = await logIn(w.h, await operatorOn(w.h));
  const child = await w.h.request('POST', '/v2/teams', { key: w.adminKey, body: { name: 'Client team' } });
  if (child.status !== 201 && child.status !== 200) throw new Error(child.text);
  const hook = await w.h.request('POST', '/v2/webhooks', { key: w.adminKey, body: { url: 'https://hooks.example.com/tern', events: ['bounced'] } });
  if (hook.status !== 201 && hook.status !== 200) throw new Error(hook.text);
  const info = GERMAN_CUSTOMER;
  const saved = await w.h.request('POST', '/api/tern/v2/api/account/billing-info', { ...withSession(owner), body: info });
  if (saved.status !== 200) throw new Error(saved.text);
  const payment = { account_id: w.accountId, amount: 5000, reason: 'Bank transfer', paid_amount_minor: 600, currency: 'EUR', payment_reference: `wire-${process.pid}` };
  const paid = await w.h.request('POST', '/api/tern/v2/admin/credits', { ...withSession(operator), body: payment });
  if (paid.status !== 201) throw new Error(paid.text);
  await supportTicket(w, owner, operator);
  return { owner, ownerEmail, operator };
}

/** A support ticket with an attached file and an operator's liked response, and a doc: rows of every support table. */
async function supportTicket(w: MailWorld, owner: SignedIn, operator: SignedIn): Promise<void> {
  const NS = '/api/tern-support/v1';
  const form = new FormData();
  form.append('file', new Blob(['the bounce, as it came\n'], { type: 'text/plain' }), 'bounce.txt');
  const uploaded = await fetch(`${w.h.url}${NS}/ticket_file_upload`, { method: 'POST', headers: withSession(owner).headers, body: form });
  const file = (await uploaded.json()) as { id: number };
  const ticket = await w.h.request('POST', `${NS}/tickets`, { ...withSession(owner), body: { title: 'Bounces', content: 'Why?', attachments: [file.id] } });
  if (ticket.status !== 201) throw new Error(ticket.text);
  const answer = await w.h.request('POST', `${NS}/tickets/${String(ticket.body.id)}/responses`, { ...withSession(operator), body: { content: 'Gone.' } });
  if (answer.status !== 201) throw new Error(answer.text);
  await w.h.request('POST', `${NS}/tickets/${String(ticket.body.id)}/agent-feedback`, {
    ...withSession(owner),
    body: { response_id: answer.body.id, approval_status: 'like' },
  });
  const doc = await w.h.request('POST', `${NS}/docs`, { ...withSession(operator), body: { title: 'Bounces explained', link: 'https://docs.example.com/bounces' } });
  if (doc.status !== 201) throw new Error(doc.text);
}

const world = await startMailWorld({ overrides: { billing: INVOICING.billing } });
/** Tern on SQLite (the world's API and MTA) until the copy stops it; then Tern on the copy, started by the test. */
let ternRunning = true;
let onCopy: TernOnCopy | undefined;
t.teardown(async () => {
  if (ternRunning) return world.close();
  // The world's Redis, DNS server, sink and data dir outlive Tern on SQLite: Tern on the copy uses them.
  await onCopy?.close();
  await world.dns.close();
  await world.sink.close();
  await world.h.redis.stop();
  rmSync(world.h.dataDir, { recursive: true, force: true });
});
await sendMail(world);
const callers = await populate(world);
// The world removes its data dir when the test ends. A hard link keeps the database file for the checks after.
mkdirSync(dataDir);
linkSync(join(world.h.dataDir, 'tern.db'), join(dataDir, 'tern.db'));
const period = `from=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`;
/** What /v2 and the dashboard answered while Tern ran on SQLite, asked again on the copy below. */
const onSqlite = await askEverything((method, path, o) => world.h.request(method, path, o), callers);

/** Stops the world's API and MTA (and closes its store), as an operator stops Tern; Redis, DNS and the sink stay. */
async function stopTern(): Promise<void> {
  ternRunning = false;
  await world.mta.close();
  await world.h.api.close();
  await world.h.rt.close();
}

t.test('a running installation is refused, and nothing is written to the target', async (t) => {
  const url = await cluster.createDatabase();
  const res = await copy(url, world.h.dataDir);
  t.equal(res.code, 1, res.stderr);
  t.match(res.stderr, /tern\.db is in use: stop Tern .*nothing was written/);
  t.same(await pgTables(url), [], 'the target has no table');
});

t.test('the installation, stopped, is copied table by table and every row is the same on both engines', async (t) => {
  await stopTern();
  const url = await cluster.createDatabase();
  const res = await copy(url);
  t.equal(res.code, 0, res.stderr);
  t.comment(res.stdout);
  t.match(res.stdout, new RegExp(`copied ${dataDir} \\(schema version ${LATEST_SCHEMA_VERSION}\\) into postgres://`));
  t.match(res.stdout, /^messages\s+3\s+3$/m, 'the summary gives each table on both sides');
  t.match(res.stdout, /the figures kept on write compared and equal: credit_totals, .*message_statuses/);
  await compareEveryTable(t, url);
  // The log search: PostgreSQL's tsvector is built from the copied recipients' words.
  const found = await pgQuery(url, "SELECT subject FROM messages WHERE search @@ plainto_tsquery('simple', 'Kern')");
  t.same(found, [{ subject: 'Welcome aboard' }], "a recipient's name finds its message");
  // Ids go on after the copied ones.
  const [maxId] = await pgQuery(url, 'SELECT MAX(id) AS id FROM credit_entries');
  const [next] = await pgQuery(
    url,
    "INSERT INTO credit_entries (pool_id, kind, amount, balance_after, actor_kind, created_at) VALUES (1, 'grant', 1, 1, 'cli', '2026-01-01T00:00:00.000Z') RETURNING id",
  );
  t.equal(Number(next!.id), Number(maxId!.id) + 1, 'the next id follows the greatest copied one');
  const again = await copy(url);
  t.equal(again.code, 1, 'a second copy into the filled database is refused');
  t.match(again.stderr, /the target database is not empty \(.*messages.*\): copy into a new, empty database; nothing was written/);
});

type Ask = Harness['request'];
type Callers = Awaited<ReturnType<typeof populate>>;
/**
 * An answer as compared across engines: the status, the body and the paging headers (X-WP-Total, X-WP-TotalPages),
 * which are state too. Nothing in them is normalised: the installation's state is the same, so is every word.
 * The other headers are left out because they legitimately differ between two processes: Date, the request id,
 * the rate limits' remaining counts (kept in Redis per window), the session cookie's refresh.
 */
type Answers = Record<string, { status: number; body: unknown; total: string | null; pages: string | null }>;

/** GETs `paths` as one caller; each answer by its path. */
async function askAs(ask: Ask, paths: string[], as: RequestOptions, into: Answers): Promise<void> {
  for (const path of paths) {
    const reply = await ask('GET', path, as);
    into[path] = { status: reply.status, body: reply.body, total: reply.headers.get('x-wp-total'), pages: reply.headers.get('x-wp-totalpages') };
  }
}

/** /v2 with the account's admin key: the lists, and each message and domain by id. */
async function askV2(ask: Ask, into: Answers): Promise<void> {
  const as = { key: world.adminKey };
  await askAs(
    ask,
    [
      '/v2/info',
      '/v2/teams',
      '/v2/domains',
      '/v2/api-keys',
      '/v2/webhooks',
      '/v2/suppressions',
      '/v2/emails',
      '/v2/emails?search=Kern',
      `/v2/emails?status=bounced&${period}`,
    ],
    as,
    into,
  );
  const messages = (into['/v2/emails']!.body as { data: Array<{ id: string }> }).data.map((m) => m.id);
  const domains = (into['/v2/domains']!.body as { data: Array<{ id: string }> }).data.map((d) => d.id);
  await askAs(ask, [...messages.map((id) => `/v2/emails/${id}`), ...domains.map((id) => `/v2/domains/${id}`)], as, into);
}

/** The dashboard's REST answers to the account's owner and to the operator, with the sessions made on SQLite. */
async function askDashboard(ask: Ask, callers: Callers, into: Answers): Promise<void> {
  const v2 = '/api/tern/v2';
  const owner = [
    ...['/api/account', '/api/domains', '/api/logs', '/api/logs?search=Kern', '/webhooks', '/webhooks/logs', '/suppressions', '/api-keys', '/profile'].map((p) => v2 + p),
    ...['/api/account/billing', '/api/account/billing/transactions', '/api/account/billing/invoices', '/api/account/billing-info'].map((p) => v2 + p),
    ...[`/stats/dashboard?${period}`, `/stats/metrics?${period}`, '/stats/monthly', `/api/domains/sending-stats?${period}`, '/api/account/billing/invoice/1'].map(
      (p) => v2 + p,
    ),
    '/api/wp/v2/users/me/application-passwords',
  ];
  const support = ['/tickets', '/info/widgets', '/search-doc?search=bounces'].map((p) => `/api/tern-support/v1${p}`);
  await askAs(ask, [...owner, ...support, '/api/tern-auth/v1/auth-logs', '/api/tern-auth/v1/quick-stats'], withSession(callers.owner), into);
  const logs = (into[`${v2}/api/logs`]!.body as Array<{ id: string }>).map((m) => `${v2}/api/logs/${m.id}`);
  const domains = (into[`${v2}/api/domains`]!.body as Array<{ id: string }>).map((d) => `${v2}/api/domains/${d.id}`);
  await askAs(ask, [...logs, ...domains], withSession(callers.owner), into);
  const admin = [
    '/stats',
    '/credits',
    '/credits/summary',
    `/logs?tenant_id=${world.accountId}`,
    '/tenants',
    `/tenants/${world.accountId}`,
    '/audit-log',
    '/domains',
    '/suppressions',
    '/queue',
    '/queue/summary',
    '/tenants/sending-stats',
    '/domains/sending-stats',
    '/domains/1',
    '/invitations',
  ];
  await askAs(
    ask,
    admin.map((p) => `${v2}/admin${p}`),
    withSession(callers.operator),
    into,
  );
}

async function askEverything(ask: Ask, callers: Callers): Promise<Answers> {
  const answers: Answers = {};
  await askV2(ask, answers);
  await askDashboard(ask, callers, answers);
  return answers;
}

interface TernOnCopy {
  request: Ask;
  close(): Promise<void>;
}

/**
 * The API and the MTA started on the copy, each with its own runtime (its own pool), as two processes would be:
 * the world's config (the data dir with its master key and TLS certificate, Redis, the ports) plus the database URL.
 */
async function startTernOn(databaseUrl: string): Promise<TernOnCopy> {
  const config = { ...world.h.config, databaseUrl };
  const api = await startApi(config);
  const mta = await startMta({ config, ...loadDeliveryRules() }).catch(async (err: unknown) => {
    await api.close();
    throw err;
  });
  return {
    request: (method, path, o) => request(api.url, method, path, o),
    async close() {
      await mta.close();
      await api.close();
    },
  };
}

t.test('Tern started on the copy gives the same /v2 and dashboard answers as on SQLite', async (t) => {
  const url = await cluster.createDatabase();
  const copied = await copy(url);
  t.equal(copied.code, 0, copied.stderr);
  onCopy = await startTernOn(url);
  const onPostgres = await askEverything(onCopy.request, callers);
  t.ok(Object.keys(onSqlite).length > 40, `${Object.keys(onSqlite).length} questions asked`);
  for (const [path, answer] of Object.entries(onSqlite)) {
    t.equal(answer.status, 200, `${path} answered on SQLite`);
    t.strictSame(onPostgres[path], answer, `${path}: the same answer`);
  }
});

t.test('on the copy the sending key sends through /v2 and SMTP, the suppression holds, new ids follow and users log in', async (t) => {
  const tern = onCopy!;
  // Closed here, while its PostgreSQL cluster still runs (the file's teardown would only be a fallback).
  t.teardown(async () => {
    onCopy = undefined;
    await tern.close();
  });
  const send = async (to: string, subject: string, name?: string) => {
    const res = await tern.request('POST', '/v2/emails', {
      key: world.sendingKey,
      body: { from: { email: `app@${world.domain}` }, to: [{ email: to, name }], subject, text: 'Still here' },
    });
    t.equal(res.status, 200, res.text);
    return String(res.body.message_id);
  };
  const atSink = (to: string) => until(`mail to ${to} at the sink`, () => Promise.resolve(world.sink.messages.find((m) => m.to.includes(to)) ?? null), 20_000);
  const moved = await send('ok3@dest.test', 'After the move', 'Nora Umzug');
  t.equal(
    (await dkimVerdict(world, (await atSink('ok3@dest.test')).raw)).result,
    'pass',
    "delivered, signed with the domain's key (decrypted with the data dir's master key)",
  );
  const submitted = await nodemailer
    .createTransport({
      host: '127.0.0.1',
      port: world.h.config.smtp.starttlsPorts[0],
      requireTLS: true,
      auth: { user: 'app', pass: world.sendingKey },
      tls: { rejectUnauthorized: false },
    })
    .sendMail({ from: `app@${world.domain}`, to: 'ok4@dest.test', subject: 'Through SMTP after the move', text: 'Still here' });
  t.match(submitted.response, /^250 /, "the sending key authenticates SMTP submission (STARTTLS with the data dir's certificate)");
  await atSink('ok4@dest.test');
  const found = await tern.request('GET', '/v2/emails?search=Umzug', { key: world.adminKey });
  t.strictSame(
    found.body.data.map((m: { id: string }) => m.id),
    [moved],
    "a message sent on the copy is found by its recipient's name",
  );
  const refused = await send('gone@dest.test', 'To the suppressed address');
  const status = async () => (await tern.request('GET', `/v2/emails/${refused}`, { key: world.adminKey })).body.data.status as string;
  await until('the suppressed message to settle', async () => ((await status()) !== 'pending' ? true : null), 20_000);
  t.equal(await status(), 'suppressed', 'the copied suppression stops mail to the bounced address');
  t.equal(world.sink.messages.filter((m) => m.to.includes('gone@dest.test')).length, 0, 'nothing reached it');
  const key = await tern.request('POST', '/v2/api-keys', { key: world.adminKey, body: { name: 'after the move' } });
  t.equal(key.status, 201, key.text);
  t.equal(key.body.data.id, 3, 'a new key takes the id after the copied ones');
  const again = await logIn({ ...world.h, request: tern.request }, callers.ownerEmail);
  t.equal(again.reply.status, 200, again.reply.text);
  t.equal((await tern.request('GET', '/api/tern/v2/api/account', withSession(again))).status, 200, 'the owner logs in again, and the new session works');
});

/** Every table of the target against the source's, row for row (PostgreSQL's rowid and search words against SQLite's). */
async function compareEveryTable(t: Test, url: string): Promise<void> {
  const file = join(dataDir, 'tern.db');
  const sqliteTables = (await sqliteAll(file, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'messages_fts%'"))
    .map((r) => String(r.name))
    .sort();
  t.same(await pgTables(url), sqliteTables, 'the same tables');
  const columns = await pgQuery(
    url,
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND is_generated = 'NEVER' ORDER BY ordinal_position",
  );
  const sqliteSide: Record<string, string> = {
    'messages.rowid': 'rowid',
    'messages.search_recipients': '(SELECT recipients FROM message_search_rows s WHERE s.rowid = messages.rowid)',
    'messages.search_statuses': `(SELECT COALESCE(group_concat(status, ' '), '') FROM (SELECT status FROM message_statuses
      WHERE message_rowid = messages.rowid AND n > 0 ORDER BY instr('pending sent bounced complained suppressed failed', status)))`,
  };
  const canonical = (rows: Row[]) =>
    rows
      .map((r) => JSON.stringify(Object.values(r).map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v))))
      .sort();
  const rowsIn: Record<string, number> = {};
  for (const table of sqliteTables.filter((name) => name !== 'schema_migrations')) {
    const names = columns.filter((c) => c.table_name === table).map((c) => String(c.column_name));
    const source = await sqliteAll(file, `SELECT ${names.map((n, i) => `${sqliteSide[`${table}.${n}`] ?? `"${n}"`} AS c${i}`).join(', ')} FROM "${table}"`);
    const target = await pgQuery(url, `SELECT ${names.map((n, i) => `"${n}" AS c${i}`).join(', ')} FROM "${table}"`);
    t.same(canonical(target), canonical(source), `${table}: every row the same`);
    rowsIn[table] = source.length;
  }
  for (const table of [
    'teams',
    'domains',
    'api_keys',
    'webhooks',
    'suppressions',
    'messages',
    'recipients',
    'attempts',
    'message_bodies',
    'users',
    'sessions',
    'credit_entries',
    'invoices',
    'billing_info',
    'events',
    'recipient_counts',
    'message_statuses',
    'support_tickets',
    'support_responses',
    'support_attachments',
    'support_docs',
  ]) {
    t.ok(rowsIn[table]! > 0, `the installation had rows in ${table} to copy`);
  }
}

t.test('an installation at an older schema is refused with what to do: start this release on SQLite first', async (t) => {
  const older = mkdtempSync(join(tmpdir(), 'tern-copy-older-'));
  t.teardown(() => rmSync(older, { recursive: true, force: true }));
  copyFileSync(join(dataDir, 'tern.db'), join(older, 'tern.db'));
  await sqliteAll(join(older, 'tern.db'), `DELETE FROM schema_migrations WHERE version = ${LATEST_SCHEMA_VERSION}`);
  const url = await cluster.createDatabase();
  const res = await copy(url, older);
  t.equal(res.code, 1);
  t.match(res.stderr, new RegExp(`schema is version ${PREVIOUS_SCHEMA_VERSION}, this release's is ${LATEST_SCHEMA_VERSION}: start this release once on SQLite`));
  t.same(await pgTables(url), []);
});

t.test('a target that cannot be reached, or holds rows, or holds another schema version, is refused and left as it was', async (t) => {
  const closed = await copy(`postgres://postgres@127.0.0.1:${await freePort()}/tern`);
  t.equal(closed.code, 1);
  t.match(closed.stderr, /cannot use the target database: .*ECONNREFUSED.*; nothing was written/);

  const filled = await cluster.createDatabase();
  await migratePostgres(filled);
  await pgQuery(filled, "INSERT INTO platform_settings (name, value, updated_at) VALUES ('x', 'y', '2026-01-01T00:00:00.000Z')");
  const refused = await copy(filled);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /the target database is not empty \(platform_settings\)/);
  t.same(await pgQuery(filled, 'SELECT COUNT(*)::int AS n FROM teams'), [{ n: 0 }], 'nothing copied');

  const other = await cluster.createDatabase();
  await migratePostgres(other);
  await pgQuery(other, `DELETE FROM schema_migrations WHERE version = ${LATEST_SCHEMA_VERSION}`);
  const older = await copy(other);
  t.equal(older.code, 1);
  t.match(older.stderr, new RegExp(`holds Tern's schema at version ${PREVIOUS_SCHEMA_VERSION}, not ${LATEST_SCHEMA_VERSION}`));

  t.equal((await copy('mysql://root@localhost/tern')).code, 2, 'a URL of another kind is a usage error');
});

t.test('a copy whose figures do not match the source is rolled back, with the differences named', async (t) => {
  const url = await cluster.createDatabase();
  await migratePostgres(url);
  // Something on the target that changes what is written: here a trigger; the check must catch it.
  await pgQuery(
    url,
    `CREATE FUNCTION skew() RETURNS trigger AS $$ BEGIN NEW.total := NEW.total + 1; RETURN NEW; END $$ LANGUAGE plpgsql;
     CREATE TRIGGER skew BEFORE INSERT ON credit_totals FOR EACH ROW EXECUTE FUNCTION skew();`,
  );
  const res = await copy(url);
  t.equal(res.code, 1);
  t.match(res.stderr, /the copy differs from the installation, so it was rolled back/);
  t.match(res.stderr, /credit_totals: \["grant",\d+,\d+\] only in SQLite/);
  t.same(await pgQuery(url, 'SELECT COUNT(*)::int AS n FROM messages'), [{ n: 0 }], 'no message kept');
  t.same(await pgQuery(url, 'SELECT COUNT(*)::int AS n FROM credit_totals WHERE total = 0 AND entries = 0'), [{ n: 7 }], "the migration's zero totals are back");
});
