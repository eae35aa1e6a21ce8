// Migration 9 (table accounts → teams, every account_id that holds a team → team_id) on a database the
// previous release left, with data in every renamed table: after it, the store opened on that data directory
// reads everything back through its repositories, and the triggers (message counters, search index), the
// search view and the foreign keys work under the new names.
import t, { type Test } from 'tap';
import { migratedUpTo } from './temp-sql.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type Sql } from '../../shared/store/sqlite/sql.js';
import { databaseFile } from '../../shared/store/sqlite/open.js';
import { migrate } from '../../shared/store/sqlite/migrate.js';
import { MIGRATIONS } from '../../shared/store/sqlite/migrations.js';
import { openStore, type Store } from '../../shared/store/index.js';
import { newMessage, recordMessage } from '../helpers/new-message.js';
import { recordComplaint } from '../../shared/queue/effects.js';

const ACCOUNT = 1;
const CHILD = 2;
const OTHER = 3;
const NOW = '2024-05-01T10:00:00.000Z';

/** What release 8 left: migrations 1 to 8 applied and recorded, as migrate() records them. */
async function release8(sql: Sql): Promise<void> {
  await migratedUpTo(sql, 8, NOW);
}

/** An account with a child team and another, suspended, account; their domains, keys, webhook, suppression. */
async function fillTeams(sql: Sql): Promise<void> {
  for (const [id, parent, credits, status, by, reason] of [
    [ACCOUNT, null, 100, 'active', null, null],
    [CHILD, ACCOUNT, 0, 'active', null, null],
    [OTHER, null, 5, 'suspended', 'platform', 'complaint rate 0.9%'],
  ] as const) {
    await sql.run(
      `INSERT INTO accounts (id, parent_id, name, status, suspended_by, suspension_reason, suspended_at, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'free', ?, 10, 'eu', ?, ?)`,
      [id, parent, `team ${id}`, status, by, reason, reason ? NOW : null, credits, NOW, NOW],
    );
  }
  const domain = `INSERT INTO domains (id, account_id, name, verification_status, dkim_selector, dkim_public_key, dkim_private_key_enc, created_at, updated_at)
    VALUES (?, ?, ?, 'verified', 'tern', 'pub', 'enc', ?, ?)`;
  await sql.run(domain, ['dom-child', CHILD, 'child.test', NOW, NOW]);
  await sql.run(domain, ['dom-account', ACCOUNT, 'account.test', NOW, NOW]);
  const key = `INSERT INTO api_keys (account_id, kind, title, key_hash, key_start, key_end, scopes, domain_id, created_at) VALUES (?, ?, ?, ?, 'tern_ab', 'yz', ?, ?, ?)`;
  await sql.run(key, [ACCOUNT, 'admin', 'account admin', 'hash-admin-1', '["domains:read"]', null, NOW]);
  await sql.run(key, [CHILD, 'admin', 'child admin', 'hash-admin-2', '["domains:read"]', null, NOW]);
  await sql.run(key, [CHILD, 'sending', 'child sender', 'hash-send-2', '[]', 'dom-child', NOW]);
  await sql.run(
    `INSERT INTO webhooks (account_id, title, url, events, secret_enc, created_at, updated_at) VALUES (?, 'hook', 'https://hooks.test/x', '["bounced"]', 'sealed', ?, ?)`,
    [CHILD, NOW, NOW],
  );
  await sql.run(`INSERT INTO suppressions (account_id, email, status, reason, created_at) VALUES (?, 'gone@dest.test', 'bounced', 'user unknown', ?)`, [CHILD, NOW]);
}

/** Messages as release 8's insert() wrote them (row, recipients, search index from the view), an event and a webhook delivery. */
async function fillLog(sql: Sql): Promise<void> {
  for (const [id, team, status, subject] of [
    ['m-sent', CHILD, 'sent', 'Invoice 17 ready'],
    ['m-pending', CHILD, 'pending', 'Invoice 18 ready'],
    ['m-account', ACCOUNT, 'sent', 'Invoice 19 ready'],
  ] as const) {
    const { lastId } = await sql.run(
      `INSERT INTO messages (id, account_id, domain_id, source, envelope_from, from_email, subject, message_id_header, size, status, created_at, updated_at)
       VALUES (?, ?, NULL, 'http', 'a@child.test', 'a@child.test', ?, ?, 1, ?, ?, ?)`,
      [id, team, subject, `<${id}@child.test>`, status, NOW, NOW],
    );
    const state = status === 'sent' ? 'sent' : 'queued';
    await sql.run(`INSERT INTO recipients (message_id, email, name, kind, domain, state, queued_at, updated_at) VALUES (?, ?, 'Zed', 'to', 'dest.test', ?, 0, ?)`, [
      id,
      `zed.${id}@dest.test`,
      state,
      NOW,
    ]);
    await sql.run('INSERT INTO messages_fts (rowid, subject, from_email, recipients, status) SELECT * FROM message_search_rows WHERE rowid = ?', [lastId]);
  }
  const { lastId: eventId } = await sql.run(
    `INSERT INTO events (account_id, type, message_id, recipient_id, email, is_hard_bounce, reason, occurred_at)
     SELECT ?, 'bounced', message_id, id, email, 1, 'user unknown', ? FROM recipients WHERE message_id = 'm-sent'`,
    [CHILD, NOW],
  );
  await sql.run(
    `INSERT INTO webhook_deliveries (webhook_id, account_id, event_id, event_type, url, status_code, latency_ms, attempted_at) VALUES (1, ?, ?, 'bounced', 'https://hooks.test/x', 200, 12, ?)`,
    [CHILD, eventId, NOW],
  );
}

/** A data directory holding release 8's database with data in every table migration 9 renames. */
async function release8DataDir(t: Test): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-migration-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const sql = await openSqlite(databaseFile(dir));
  try {
    await release8(sql);
    await fillTeams(sql);
    await fillLog(sql);
  } finally {
    await sql.close();
  }
  return dir;
}

async function openMigrated(t: Test, dir: string): Promise<Store> {
  const store = await openStore(dir);
  t.teardown(() => store.close());
  return store;
}

/** Objects of later migrations (10, 15) whose account_id holds a paying account's id, the meaning the vocabulary gives it. */
const HOLD_ACCOUNT_IDS = [
  'auth_log',
  'auth_log_by_account',
  'auth_log_by_account_time',
  'login_settings',
  // Where an account's users land after signing in and out: an account's, as its login settings are.
  'sign_in_redirects',
  'invitations',
  'invitations_open',
  'invitations_by_account',
  // Billing is an account's (a team without a parent), never a child team's: these name the account they bill.
  'platform_invitations',
  'billing_info',
  'invoices',
  'invoices_by_account',
  'payment_customers',
  'payments',
  'payments_by_account',
];

const ids = (list: ReadonlyArray<{ id: string | number }>) => list.map((x) => x.id);

t.test('migration 9 runs once on a release-8 database and leaves no table, column or index named after accounts', async (t) => {
  const dir = await release8DataDir(t);
  const sql = await openSqlite(databaseFile(dir));
  t.teardown(() => sql.close());
  t.same(
    await migrate(sql),
    MIGRATIONS.map((m) => m.version).filter((v) => v >= 9),
    'migration 9 and the later ones run',
  );
  t.same(await migrate(sql), [], 'and only once');
  const schema = await sql.all<{ type: string; name: string; sql: string | null }>(`SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'`);
  const named = schema
    .filter((s) => !HOLD_ACCOUNT_IDS.includes(s.name))
    .filter((s) => /account/.test(s.name) || /\baccounts\b|\baccount_id\b/.test(s.sql ?? ''))
    .map((s) => s.name);
  t.same(named, [], 'no schema object names accounts or account_id (the CHECK value suspended_by = account stays)');
  const indexes = schema.filter((s) => s.type === 'index').map((s) => s.name);
  for (const index of [
    'teams_by_parent',
    'domains_by_team',
    'api_keys_by_team',
    'webhooks_by_team',
    'suppressions_by_team',
    'messages_by_team',
    'webhook_deliveries_by_team',
  ]) {
    t.ok(indexes.includes(index), `index ${index}`);
  }
  t.same(await sql.all('PRAGMA foreign_key_check'), [], 'every foreign key still points at a row');
  t.same(await sql.all('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
});

t.test('after migration 9 the repositories read back the teams, domains, keys, webhooks and suppressions release 8 stored', async (t) => {
  const store = await openMigrated(t, await release8DataDir(t));
  const child = (await store.teams.get(CHILD))!;
  t.match(child, { id: CHILD, parentId: ACCOUNT, name: `team ${CHILD}`, status: 'active' });
  t.same(ids(await store.teams.children(ACCOUNT)), [CHILD]);
  t.equal(await store.teams.payerBalance(child), 100, 'the child team draws on its account’s credits');
  t.match((await store.teams.get(OTHER))!.suspension, { by: 'platform', reason: 'complaint rate 0.9%', at: NOW });
  t.equal(await store.teams.count(), 3);

  t.same(ids((await store.domains.list(CHILD, { page: 1, perPage: 10 })).rows), ['dom-child']);
  t.match(await store.domains.get('dom-child', CHILD), { teamId: CHILD, name: 'child.test' });
  t.equal(await store.domains.get('dom-child', ACCOUNT), undefined, 'a domain is only its own team’s');

  t.same((await store.keys.listAdmin(ACCOUNT)).map((k) => k.title).sort(), ['account admin', 'child admin'], 'admin keys of the account and its team');
  const sending = await store.keys.listSending(CHILD, { page: 1, perPage: 10 });
  t.match(sending.rows, [{ teamId: CHILD, title: 'child sender', domainName: 'child.test' }]);
  t.match(await store.keys.findByHash('hash-admin-2'), { teamId: CHILD, kind: 'admin' });

  t.match(await store.webhooks.subscribers(CHILD, 'bounced'), [{ teamId: CHILD, url: 'https://hooks.test/x' }]);
  t.same(await store.webhooks.subscribers(ACCOUNT, 'bounced'), []);
  t.equal(await store.suppressions.isSuppressed(CHILD, 'gone@dest.test'), true);
  t.equal(await store.suppressions.isSuppressed(ACCOUNT, 'gone@dest.test'), false);
});

t.test('after migration 9 the message log, its counters, its search index and the feedback records read back and keep up with new writes', async (t) => {
  const store = await openMigrated(t, await release8DataDir(t));
  const list = (teamId: number, q: { status?: 'sent' | 'pending' | 'complained'; search?: string } = {}) =>
    store.messages.list(teamId, { page: 1, perPage: 10, searchCountLimit: 1000, ...q });
  t.match(await list(CHILD), { total: 2, rows: [{ teamId: CHILD }, { teamId: CHILD }] }, 'the total comes from the counters');
  t.same(ids((await list(CHILD, { status: 'sent' })).rows), ['m-sent']);
  t.same(ids((await list(CHILD, { search: 'invoice' })).rows).sort(), ['m-pending', 'm-sent'], 'the search index, per team');
  t.same(ids((await list(CHILD, { search: 'zed.m-pending@dest.test', status: 'pending' })).rows), ['m-pending']);
  t.match(await store.messages.get('m-sent', CHILD), { teamId: CHILD, subject: 'Invoice 17 ready' });
  t.equal(await store.messages.get('m-sent', ACCOUNT), undefined);
  t.match(await store.feedback.eventsOf('m-sent'), [{ teamId: CHILD, type: 'bounced', isHardBounce: true }]);
  t.match(await store.feedback.deliveriesOf(CHILD), [{ teamId: CHILD, statusCode: 200 }]);
  t.match(await store.feedback.rates(CHILD, 0), { volume: 1 });

  // Written after the migration: the insert debits the account and indexes from the view; a complaint about a
  // release-8 message moves its status (the counters' and the search index's triggers), adds an event and a suppression.
  const due = await recordMessage(store, {
    ...newMessage({
      id: 'm-new',
      teamId: CHILD,
      domainId: 'dom-child',
      recipients: [{ email: 'ann@dest.test', name: '', kind: 'to', domain: 'dest.test', state: 'queued', reason: '' }],
    }),
    payerId: ACCOUNT,
    subject: 'Invoice 20 ready',
  });
  t.not(due, 'insufficient_balance', 'the account has the credits');
  t.equal((await store.teams.get(ACCOUNT))!.creditBalance, 99, 'the account paid for its team’s message');
  t.match(await list(CHILD), { total: 3 });
  t.same(ids((await list(CHILD, { search: 'invoice 20' })).rows), ['m-new']);
  const recipientId = await store.feedback.recipientByMessageIdHeader('<m-sent@child.test>', 'zed.m-sent@dest.test');
  const applied = await recordComplaint(store.transaction, { recipientId: recipientId!, reason: 'abuse report' });
  t.match(applied, { teamId: CHILD, messageId: 'm-sent', suppressed: true });
  t.same(ids((await list(CHILD, { status: 'complained', search: 'invoice' })).rows), ['m-sent'], 'the search index follows the status');
  t.match(await list(CHILD, { status: 'complained' }), { total: 1 }, 'and so do the counters');
  t.match(await list(CHILD, { status: 'sent' }), { total: 0 });
  t.match(await list(CHILD, { status: 'pending' }), { total: 2 });
  t.equal(await store.suppressions.isSuppressed(CHILD, 'zed.m-sent@dest.test'), true);
});
