// Numbered schema migrations. Each runs once, in order, inside one transaction; never edit a landed one.
import type { Queryable } from './sql.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** A step SQL alone cannot say (it needs a value read first), run after `sql` in the same transaction. */
  edit?: (q: Queryable) => Promise<void>;
}

/**
 * Rewrites the CREATE statement SQLite keeps for `table`, as SQLite documents for changes that leave every stored
 * row valid (loosening a CHECK): the text in sqlite_schema is replaced and schema_version raised, so that every
 * open connection, in this process or another, reloads the schema. Fails when `from` is not in the statement.
 */
export async function rewriteTableSchema(q: Queryable, table: string, from: string, to: string): Promise<void> {
  const row = await q.get<{ sql: string }>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [table]);
  if (!row || !row.sql.includes(from)) throw new Error(`the schema of ${table} does not contain ${from}`);
  const version = (await q.get<{ schema_version: number }>('PRAGMA schema_version'))!.schema_version;
  await q.exec('PRAGMA writable_schema = ON');
  try {
    await q.run("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", [row.sql.replace(from, to), table]);
    await q.exec(`PRAGMA schema_version = ${Number(version) + 1}`);
  } finally {
    await q.exec('PRAGMA writable_schema = OFF');
  }
}

/**
 * Migration 31's rule, frozen with it (its backfill and triggers say it 30 times): a recipient's status as every
 * figure counts it, complained first, pending while in the queue, else its state. Since migration 32 the rule is
 * domain/figures.ts's alone; this copy stays because a landed migration is never edited.
 */
const figure31 = (row: 'NEW' | 'OLD' | 'r'): string =>
  `CASE WHEN ${row}.complained_at IS NOT NULL THEN 'complained' WHEN ${row}.state IN ('queued', 'sending', 'deferred', 'held') THEN 'pending' ELSE ${row}.state END`;

/** Migration 31's triggers count a recipient in its new figure status the same way on insert and on update. */
const countNew31 = `  INSERT INTO recipient_counts (team_id, day, status, domain_key, n)
    SELECT m.team_id, substr(m.created_at, 1, 10), ${figure31('NEW')}, COALESCE(m.domain_id, ''), 1 FROM messages m WHERE m.id = NEW.message_id
    ON CONFLICT (team_id, day, status, domain_key) DO UPDATE SET n = n + 1;
  INSERT INTO recipient_counts_hourly (team_id, hour, status, domain_key, n)
    SELECT m.team_id, substr(m.created_at, 1, 13), ${figure31('NEW')}, COALESCE(m.domain_id, ''), 1 FROM messages m WHERE m.id = NEW.message_id
    ON CONFLICT (team_id, hour, status, domain_key) DO UPDATE SET n = n + 1;
  INSERT INTO platform_recipient_counts (day, status, n)
    SELECT substr(m.created_at, 1, 10), ${figure31('NEW')}, 1 FROM messages m WHERE m.id = NEW.message_id
    ON CONFLICT (day, status) DO UPDATE SET n = n + 1;
  INSERT INTO message_statuses (message_rowid, status, team_id, created_at, n)
    SELECT m.rowid, ${figure31('NEW')}, m.team_id, m.created_at, 1 FROM messages m WHERE m.id = NEW.message_id
    ON CONFLICT (message_rowid, status) DO UPDATE SET n = n + 1;`;

/** ...and take it out of its old figure status the same way on update and on delete. */
const countOld31 = `  UPDATE recipient_counts SET n = n - 1 WHERE (team_id, day, status, domain_key) =
    (SELECT m.team_id, substr(m.created_at, 1, 10), ${figure31('OLD')}, COALESCE(m.domain_id, '') FROM messages m WHERE m.id = OLD.message_id);
  UPDATE recipient_counts_hourly SET n = n - 1 WHERE (team_id, hour, status, domain_key) =
    (SELECT m.team_id, substr(m.created_at, 1, 13), ${figure31('OLD')}, COALESCE(m.domain_id, '') FROM messages m WHERE m.id = OLD.message_id);
  UPDATE platform_recipient_counts SET n = n - 1 WHERE (day, status) =
    (SELECT substr(m.created_at, 1, 10), ${figure31('OLD')} FROM messages m WHERE m.id = OLD.message_id);
  UPDATE message_statuses SET n = n - 1 WHERE message_rowid = (SELECT rowid FROM messages WHERE id = OLD.message_id) AND status = ${figure31('OLD')};
  DELETE FROM message_statuses WHERE message_rowid = (SELECT rowid FROM messages WHERE id = OLD.message_id) AND status = ${figure31('OLD')} AND n <= 0;`;

/** Migration 38's tables (the support namespace). */
const SUPPORT_SCHEMA = `
CREATE TABLE support_tickets (
  id INTEGER PRIMARY KEY,
  team_id INTEGER NOT NULL REFERENCES teams(id),
  opened_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  content TEXT NOT NULL,
  product TEXT,
  priority TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'active', 'closed')),
  response_count INTEGER NOT NULL DEFAULT 0,
  closed_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  closed_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX support_tickets_by_team ON support_tickets(team_id, id);
CREATE INDEX support_tickets_by_status ON support_tickets(status, id);
CREATE TABLE support_responses (
  id INTEGER PRIMARY KEY,
  ticket_id INTEGER NOT NULL REFERENCES support_tickets(id),
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  author_kind TEXT NOT NULL CHECK (author_kind IN ('customer', 'agent')),
  content TEXT NOT NULL,
  feedback TEXT CHECK (feedback IN ('like', 'dislike')),
  created_at TEXT NOT NULL
);
CREATE INDEX support_responses_by_ticket ON support_responses(ticket_id, id);
CREATE TABLE support_attachments (
  id INTEGER PRIMARY KEY,
  uploaded_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  ticket_id INTEGER REFERENCES support_tickets(id),
  response_id INTEGER REFERENCES support_responses(id),
  file_name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  content BLOB NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX support_attachments_by_ticket ON support_attachments(ticket_id, id);
CREATE TABLE support_docs (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  link TEXT NOT NULL,
  created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, teams, keys, domains, webhooks, suppressions',
    sql: `
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  parent_id INTEGER REFERENCES accounts(id),
  name TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  suspended_by TEXT CHECK (suspended_by IN ('account', 'platform')),
  plan_type TEXT NOT NULL,
  credit_balance INTEGER NOT NULL DEFAULT 0,
  limit_per_second INTEGER NOT NULL,
  backend_region TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX accounts_by_parent ON accounts(parent_id) WHERE deleted_at IS NULL;

CREATE TABLE domains (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  name TEXT NOT NULL,
  verification_status TEXT NOT NULL DEFAULT 'draft' CHECK (verification_status IN ('draft', 'verified')),
  is_default INTEGER NOT NULL DEFAULT 0,
  dkim_selector TEXT NOT NULL,
  dkim_public_key TEXT NOT NULL,
  dkim_private_key_enc TEXT NOT NULL,
  dmarc_policy TEXT,
  auto_verify_active INTEGER NOT NULL DEFAULT 1,
  auto_verify_reason TEXT NOT NULL DEFAULT '',
  last_check_at TEXT,
  last_check_result TEXT,
  verified_at TEXT,
  total_sent INTEGER NOT NULL DEFAULT 0,
  total_bounced INTEGER NOT NULL DEFAULT 0,
  total_complained INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX domains_live_name ON domains(name) WHERE deleted_at IS NULL;
CREATE INDEX domains_by_account ON domains(account_id, created_at) WHERE deleted_at IS NULL;
CREATE INDEX domains_to_check ON domains(auto_verify_active, verification_status) WHERE deleted_at IS NULL;

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  kind TEXT NOT NULL CHECK (kind IN ('sending', 'admin')),
  title TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  key_start TEXT NOT NULL,
  key_end TEXT NOT NULL,
  scopes TEXT NOT NULL DEFAULT '[]',
  domain_id TEXT REFERENCES domains(id),
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX api_keys_by_account ON api_keys(account_id, kind, status);

CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  title TEXT NOT NULL DEFAULT '',
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  include_message INTEGER NOT NULL DEFAULT 0,
  secret_enc TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhooks_by_account ON webhooks(account_id);

CREATE TABLE suppressions (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('bounced', 'complained', 'suppressed')),
  reason TEXT NOT NULL DEFAULT '',
  message_id TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (account_id, email)
);
CREATE INDEX suppressions_by_account ON suppressions(account_id, created_at);
`,
  },
  {
    version: 2,
    name: 'messages, recipients, delivery attempts, log search',
    sql: `
CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  domain_id TEXT REFERENCES domains(id),
  sending_key_id INTEGER REFERENCES api_keys(id),
  source TEXT NOT NULL CHECK (source IN ('http', 'smtp')),
  envelope_from TEXT NOT NULL,
  from_email TEXT NOT NULL,
  from_name TEXT NOT NULL DEFAULT '',
  subject TEXT NOT NULL DEFAULT '',
  to_json TEXT NOT NULL DEFAULT '[]',
  reply_to TEXT,
  message_id_header TEXT NOT NULL,
  size INTEGER NOT NULL,
  has_attachments INTEGER NOT NULL DEFAULT 0,
  headers_json TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'bounced', 'complained', 'suppressed', 'failed')),
  error TEXT,
  created_at TEXT NOT NULL,
  sent_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX messages_by_account ON messages(account_id, created_at);
CREATE INDEX messages_by_status ON messages(account_id, status, created_at);
CREATE INDEX messages_by_domain ON messages(account_id, domain_id, created_at);

CREATE TABLE recipients (
  id INTEGER PRIMARY KEY,
  message_id TEXT NOT NULL REFERENCES messages(id),
  email TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL CHECK (kind IN ('to', 'cc', 'bcc')),
  domain TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'sent', 'deferred', 'bounced', 'complained', 'failed', 'suppressed')),
  reason TEXT NOT NULL DEFAULT '',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  lease_until INTEGER,
  last_reply TEXT,
  queued_at INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX recipients_by_message ON recipients(message_id);
CREATE INDEX recipients_in_flight ON recipients(state, next_attempt_at) WHERE state IN ('queued', 'sending', 'deferred');

CREATE TABLE attempts (
  id INTEGER PRIMARY KEY,
  recipient_id INTEGER NOT NULL REFERENCES recipients(id),
  at TEXT NOT NULL,
  mx_host TEXT,
  ip TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'deferred', 'bounced', 'failed')),
  reply TEXT NOT NULL
);
CREATE INDEX attempts_by_recipient ON attempts(recipient_id);

CREATE VIRTUAL TABLE messages_fts USING fts5(subject, from_email, recipients, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
`,
  },
  {
    version: 3,
    name: 'feedback: inbound reports, complaints, event outbox, webhook deliveries',
    sql: `
ALTER TABLE recipients ADD COLUMN complained_at TEXT;
ALTER TABLE recipients ADD COLUMN hard_bounce INTEGER;

CREATE TABLE inbound_reports (
  id TEXT PRIMARY KEY,
  mail_from TEXT NOT NULL,
  rcpt_to TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'received' CHECK (state IN ('received', 'processed', 'dropped')),
  kind TEXT,
  detail TEXT NOT NULL DEFAULT '',
  received_at TEXT NOT NULL,
  processed_at TEXT
);
CREATE INDEX inbound_reports_waiting ON inbound_reports(state) WHERE state = 'received';

CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  type TEXT NOT NULL CHECK (type IN ('bounced', 'complaint')),
  message_id TEXT NOT NULL REFERENCES messages(id),
  recipient_id INTEGER NOT NULL REFERENCES recipients(id),
  email TEXT NOT NULL,
  is_hard_bounce INTEGER,
  reason TEXT NOT NULL DEFAULT '',
  occurred_at TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered')),
  UNIQUE (recipient_id, type)
);
CREATE INDEX events_pending ON events(state, id) WHERE state = 'pending';

CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  webhook_id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  event_id INTEGER NOT NULL REFERENCES events(id),
  event_type TEXT NOT NULL,
  url TEXT NOT NULL,
  status_code INTEGER,
  error TEXT,
  latency_ms INTEGER NOT NULL,
  attempted_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_by_account ON webhook_deliveries(account_id, attempted_at);
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries(attempted_at);
`,
  },
  {
    version: 4,
    name: 'message log counters: totals per account, day, status and domain',
    // The log's total without a search is a sum over these rows (whole days; the days a date bound cuts into
    // are counted in the index), instead of a COUNT(*) walking every message of the account. Triggers keep them
    // in the transaction of every write to messages, whichever code path (or process) makes it.
    sql: `
CREATE TABLE message_counts (
  account_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  status TEXT NOT NULL,
  domain_key TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (account_id, day, status, domain_key)
) WITHOUT ROWID;

INSERT INTO message_counts (account_id, day, status, domain_key, n)
  SELECT account_id, substr(created_at, 1, 10), status, COALESCE(domain_id, ''), COUNT(*) FROM messages GROUP BY 1, 2, 3, 4;

CREATE TRIGGER message_counts_on_insert AFTER INSERT ON messages BEGIN
  INSERT INTO message_counts (account_id, day, status, domain_key, n)
    VALUES (NEW.account_id, substr(NEW.created_at, 1, 10), NEW.status, COALESCE(NEW.domain_id, ''), 1)
    ON CONFLICT (account_id, day, status, domain_key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER message_counts_on_update AFTER UPDATE OF account_id, created_at, status, domain_id ON messages
  WHEN OLD.account_id IS NOT NEW.account_id OR substr(OLD.created_at, 1, 10) IS NOT substr(NEW.created_at, 1, 10)
    OR OLD.status IS NOT NEW.status OR OLD.domain_id IS NOT NEW.domain_id
BEGIN
  UPDATE message_counts SET n = n - 1
    WHERE account_id = OLD.account_id AND day = substr(OLD.created_at, 1, 10) AND status = OLD.status AND domain_key = COALESCE(OLD.domain_id, '');
  INSERT INTO message_counts (account_id, day, status, domain_key, n)
    VALUES (NEW.account_id, substr(NEW.created_at, 1, 10), NEW.status, COALESCE(NEW.domain_id, ''), 1)
    ON CONFLICT (account_id, day, status, domain_key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER message_counts_on_delete AFTER DELETE ON messages BEGIN
  UPDATE message_counts SET n = n - 1
    WHERE account_id = OLD.account_id AND day = substr(OLD.created_at, 1, 10) AND status = OLD.status AND domain_key = COALESCE(OLD.domain_id, '');
END;
`,
  },
  {
    version: 5,
    name: 'message bodies in the store',
    // The spool is this table: a body is written in the transaction that records its message (one commit and
    // one fsync for a whole group of messages, no file to create, fsync and unlink per message) and deleted in
    // the one that finishes it. See docs/decisions.md.
    sql: `
CREATE TABLE message_bodies (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  body BLOB NOT NULL
);
`,
  },
  {
    version: 6,
    name: 'message status in the search index',
    // A search with a status filter intersects two posting lists inside FTS5 instead of reading every match's
    // row to test its status (a common word with a rare status read the whole log). The status is a column of
    // its own, matched only by name (see ftsQuery). What a message's index row holds is said once, by the view
    // message_search_rows: insert() writes from it, the rebuild below reads it, and a trigger re-indexes from it
    // a message whose status changes, in the same transaction, whichever path changed it. No aggregate ORDER BY
    // (SQLite 3.44): the sqlite3 shell of Debian 12 (3.40) must still open the database, and it refuses a
    // schema it cannot parse.
    sql: `
DROP TABLE messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5(subject, from_email, recipients, status, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');

CREATE VIEW message_search_rows AS
  SELECT m.rowid AS rowid, m.subject AS subject, m.from_email AS from_email,
    COALESCE((SELECT group_concat(t, ' ') FROM (SELECT r.email || ' ' || r.name AS t FROM recipients r WHERE r.message_id = m.id ORDER BY r.id)), '') AS recipients,
    m.status AS status
  FROM messages m;

INSERT INTO messages_fts (rowid, subject, from_email, recipients, status) SELECT * FROM message_search_rows;

CREATE TRIGGER messages_fts_on_status AFTER UPDATE OF status ON messages WHEN OLD.status IS NOT NEW.status
BEGIN
  DELETE FROM messages_fts WHERE rowid = NEW.rowid;
  INSERT INTO messages_fts (rowid, subject, from_email, recipients, status) SELECT * FROM message_search_rows WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER messages_fts_on_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = OLD.rowid;
END;
`,
  },
  {
    version: 7,
    name: 'why a team is suspended',
    // Who suspended a team was kept (suspended_by); why and when were not. A reason is always set while a
    // team is suspended, a detail (JSON: the rate, figures and thresholds) when a policy suspended it; all
    // three are cleared on reactivation. Teams suspended before this migration get who as the reason and
    // their last change as the time.
    sql: `
ALTER TABLE accounts ADD COLUMN suspension_reason TEXT;
ALTER TABLE accounts ADD COLUMN suspension_detail TEXT;
ALTER TABLE accounts ADD COLUMN suspended_at TEXT;

UPDATE accounts SET
  suspension_reason = CASE suspended_by WHEN 'platform' THEN 'suspended by the platform (before reasons were recorded)' ELSE 'suspended by the account' END,
  suspended_at = updated_at
WHERE status = 'suspended';
`,
  },
  {
    version: 8,
    name: 'lease token on recipients',
    // Each claim writes a token of its own; a delivery result or a release counts only while the recipient
    // still carries the token of the claim it comes from (see store/sqlite/queue.ts). Recipients leased before
    // this migration have none: their holder was stopped for the upgrade, so their lease runs out and the
    // next claim gives them one.
    sql: `
ALTER TABLE recipients ADD COLUMN lease_token TEXT;
`,
  },
  {
    version: 9,
    name: 'one meaning per name: teams, team_id',
    // A row of `accounts` is a team (an account is a team without a parent, the one that pays) and every
    // `account_id` held a team's id: the table becomes `teams` and those columns `team_id`, so that "account"
    // means only the paying team. RENAME (legacy_alter_table off, SQLite's default) rewrites the foreign keys,
    // triggers (message_counts_*, messages_fts_*), the view message_search_rows and the index definitions that
    // name them; an index cannot be renamed, so those named after accounts are made again under team names.
    sql: `
ALTER TABLE accounts RENAME TO teams;
ALTER TABLE domains RENAME COLUMN account_id TO team_id;
ALTER TABLE api_keys RENAME COLUMN account_id TO team_id;
ALTER TABLE webhooks RENAME COLUMN account_id TO team_id;
ALTER TABLE suppressions RENAME COLUMN account_id TO team_id;
ALTER TABLE messages RENAME COLUMN account_id TO team_id;
ALTER TABLE events RENAME COLUMN account_id TO team_id;
ALTER TABLE webhook_deliveries RENAME COLUMN account_id TO team_id;
ALTER TABLE message_counts RENAME COLUMN account_id TO team_id;

DROP INDEX accounts_by_parent;
CREATE INDEX teams_by_parent ON teams(parent_id) WHERE deleted_at IS NULL;
DROP INDEX domains_by_account;
CREATE INDEX domains_by_team ON domains(team_id, created_at) WHERE deleted_at IS NULL;
DROP INDEX api_keys_by_account;
CREATE INDEX api_keys_by_team ON api_keys(team_id, kind, status);
DROP INDEX webhooks_by_account;
CREATE INDEX webhooks_by_team ON webhooks(team_id);
DROP INDEX suppressions_by_account;
CREATE INDEX suppressions_by_team ON suppressions(team_id, created_at);
DROP INDEX messages_by_account;
CREATE INDEX messages_by_team ON messages(team_id, created_at);
DROP INDEX webhook_deliveries_by_account;
CREATE INDEX webhook_deliveries_by_team ON webhook_deliveries(team_id, attempted_at);
`,
  },
  {
    version: 10,
    name: 'dashboard users, sessions, application passwords, auth log, login settings',
    // Dashboard identities. Emails are unique without regard to case (NOCASE folds ASCII, and only ASCII
    // addresses are accepted) and kept as given. Sessions and application passwords keep only the sha256 of
    // their secret, users an Argon2id hash. The auth log belongs to the account of the user an attempt named
    // (null when it named none). Login settings are per account; their bounds are checked here too.
    sql: `
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  team_id INTEGER NOT NULL REFERENCES teams(id),
  email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  name TEXT NOT NULL DEFAULT '' CHECK (length(name) <= 100),
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'viewer')),
  password_hash TEXT NOT NULL,
  must_change_password INTEGER NOT NULL DEFAULT 0 CHECK (must_change_password IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX users_email ON users(email COLLATE NOCASE);
CREATE INDEX users_by_team ON users(team_id);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  user_agent TEXT NOT NULL DEFAULT '' CHECK (length(user_agent) <= 512),
  address TEXT NOT NULL DEFAULT '' CHECK (length(address) <= 64),
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL
);
CREATE INDEX sessions_by_user ON sessions(user_id);

CREATE TABLE application_passwords (
  uuid TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  app_id TEXT,
  password_hash TEXT NOT NULL UNIQUE CHECK (length(password_hash) = 64),
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  last_ip TEXT
);
CREATE UNIQUE INDEX application_passwords_name ON application_passwords(user_id, name);

CREATE TABLE auth_log (
  id INTEGER PRIMARY KEY,
  account_id INTEGER REFERENCES teams(id),
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  email TEXT NOT NULL,
  address TEXT NOT NULL,
  user_agent TEXT NOT NULL,
  result TEXT NOT NULL CHECK (result IN ('success', 'failure', 'throttled')),
  at TEXT NOT NULL
);
CREATE INDEX auth_log_by_account ON auth_log(account_id, id);
CREATE INDEX auth_log_by_account_time ON auth_log(account_id, at);

CREATE TABLE login_settings (
  account_id INTEGER PRIMARY KEY REFERENCES teams(id),
  failures_per_email INTEGER NOT NULL CHECK (failures_per_email BETWEEN 3 AND 50),
  window_minutes INTEGER NOT NULL CHECK (window_minutes BETWEEN 1 AND 1440),
  session_idle_minutes INTEGER NOT NULL CHECK (session_idle_minutes BETWEEN 5 AND 10080),
  session_absolute_hours INTEGER NOT NULL CHECK (session_absolute_hours BETWEEN 1 AND 720),
  updated_at TEXT NOT NULL
);
`,
  },
  {
    version: 11,
    name: 'message counters by hour, queue depth per team',
    // The dashboard's statistics (core/statistics.ts) need hours, which message_counts (days) cannot give. The
    // same triggers' rule at the hour's grain: a row per team, UTC hour (the first 13 characters of created_at,
    // "YYYY-MM-DDTHH"), status and domain, kept in the transaction of every write to messages. message_counts
    // stays as it is (the /v2 log counts whole days from it; the statistics read whole days from it too).
    sql: `
CREATE TABLE message_counts_hourly (
  team_id INTEGER NOT NULL,
  hour TEXT NOT NULL,
  status TEXT NOT NULL,
  domain_key TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (team_id, hour, status, domain_key)
) WITHOUT ROWID;

INSERT INTO message_counts_hourly (team_id, hour, status, domain_key, n)
  SELECT team_id, substr(created_at, 1, 13), status, COALESCE(domain_id, ''), COUNT(*) FROM messages GROUP BY 1, 2, 3, 4;

CREATE TRIGGER message_counts_hourly_on_insert AFTER INSERT ON messages BEGIN
  INSERT INTO message_counts_hourly (team_id, hour, status, domain_key, n)
    VALUES (NEW.team_id, substr(NEW.created_at, 1, 13), NEW.status, COALESCE(NEW.domain_id, ''), 1)
    ON CONFLICT (team_id, hour, status, domain_key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER message_counts_hourly_on_update AFTER UPDATE OF team_id, created_at, status, domain_id ON messages
  WHEN OLD.team_id IS NOT NEW.team_id OR substr(OLD.created_at, 1, 13) IS NOT substr(NEW.created_at, 1, 13)
    OR OLD.status IS NOT NEW.status OR OLD.domain_id IS NOT NEW.domain_id
BEGIN
  UPDATE message_counts_hourly SET n = n - 1
    WHERE team_id = OLD.team_id AND hour = substr(OLD.created_at, 1, 13) AND status = OLD.status AND domain_key = COALESCE(OLD.domain_id, '');
  INSERT INTO message_counts_hourly (team_id, hour, status, domain_key, n)
    VALUES (NEW.team_id, substr(NEW.created_at, 1, 13), NEW.status, COALESCE(NEW.domain_id, ''), 1)
    ON CONFLICT (team_id, hour, status, domain_key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER message_counts_hourly_on_delete AFTER DELETE ON messages BEGIN
  UPDATE message_counts_hourly SET n = n - 1
    WHERE team_id = OLD.team_id AND hour = substr(OLD.created_at, 1, 13) AND status = OLD.status AND domain_key = COALESCE(OLD.domain_id, '');
END;

-- A team's queue depth (recipients queued, sending or deferred), kept the same way: counting it per request walked
-- every pending message of the team and its recipients (tens of thousands for a team with a deep queue). Only a
-- move into or out of the in-flight states changes it (queued -> sending -> deferred do not).
CREATE TABLE queue_depths (
  team_id INTEGER PRIMARY KEY,
  n INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO queue_depths (team_id, n)
  SELECT m.team_id, COUNT(*) FROM recipients r JOIN messages m ON m.id = r.message_id WHERE r.state IN ('queued', 'sending', 'deferred') GROUP BY 1;

CREATE TRIGGER queue_depths_on_insert AFTER INSERT ON recipients WHEN NEW.state IN ('queued', 'sending', 'deferred') BEGIN
  INSERT INTO queue_depths (team_id, n) SELECT team_id, 1 FROM messages WHERE id = NEW.message_id
    ON CONFLICT (team_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER queue_depths_on_update AFTER UPDATE OF state ON recipients
  WHEN (OLD.state IN ('queued', 'sending', 'deferred')) IS NOT (NEW.state IN ('queued', 'sending', 'deferred'))
BEGIN
  INSERT INTO queue_depths (team_id, n)
    SELECT team_id, CASE WHEN NEW.state IN ('queued', 'sending', 'deferred') THEN 1 ELSE -1 END FROM messages WHERE id = NEW.message_id
    ON CONFLICT (team_id) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER queue_depths_on_delete AFTER DELETE ON recipients WHEN OLD.state IN ('queued', 'sending', 'deferred') BEGIN
  UPDATE queue_depths SET n = n - 1 WHERE team_id = (SELECT team_id FROM messages WHERE id = OLD.message_id);
END;
`,
  },
  {
    version: 12,
    name: 'DNS-provider connections of a team',
    // One row per team and provider: the provider's API token sealed, its last 4 characters (all that is ever
    // shown), when the team first connected and when the token last changed. The provider is checked by the
    // store's decoder, not by a CHECK, so a new provider needs no migration.
    sql: `
CREATE TABLE dns_connections (
  team_id INTEGER NOT NULL REFERENCES teams(id),
  provider TEXT NOT NULL,
  token_enc TEXT NOT NULL,
  token_last4 TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (team_id, provider)
);
`,
  },
  {
    version: 13,
    name: "an account's time zone and icon, and the icons uploaded to Tern",
    // A team shows an https icon from elsewhere (icon_url) or one uploaded here (icon_id), never both (the store
    // writes both at once). Uploaded icons are kept in the database, not on a disk, so every API process serves
    // them; a team keeps only the one it shows, so a team holds at most one (1 MB at most).
    sql: `
ALTER TABLE teams ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE teams ADD COLUMN icon_url TEXT;
ALTER TABLE teams ADD COLUMN icon_id TEXT;

CREATE TABLE team_icons (
  id TEXT PRIMARY KEY,
  team_id INTEGER NOT NULL REFERENCES teams(id),
  content_type TEXT NOT NULL,
  content BLOB NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX team_icons_by_team ON team_icons(team_id);
`,
  },
  {
    version: 14,
    name: "messages Tern sends itself: source 'system'",
    // Invitations and DNS instructions go through the intake like any message, recorded with source 'system'.
    // Widening the CHECK leaves every stored row valid, so the table's CREATE statement is rewritten in place
    // (SQLite's documented procedure) instead of copying a log of millions of rows into a new table.
    sql: '',
    edit: (q) => rewriteTableSchema(q, 'messages', "CHECK (source IN ('http', 'smtp'))", "CHECK (source IN ('http', 'smtp', 'system'))"),
  },
  {
    version: 15,
    name: 'invitations of dashboard users',
    // An invitation gives a role on an account (team_id = account_id) or on one of its teams to an email. Only the
    // sha256 of its token is kept (the token travels in the mail's link). One open invitation per account and
    // email: sending again marks the open one replaced. Accepting marks it and records the user it created.
    sql: `
CREATE TABLE invitations (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES teams(id),
  team_id INTEGER NOT NULL REFERENCES teams(id),
  email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'viewer')),
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'revoked', 'replaced')),
  invited_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  message_id TEXT,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  closed_at TEXT
);
CREATE UNIQUE INDEX invitations_open ON invitations(account_id, email COLLATE NOCASE) WHERE status = 'open';
CREATE INDEX invitations_by_account ON invitations(account_id, id);
`,
  },
  {
    version: 16,
    name: 'credits as a ledger; child teams with credits of their own',
    // Every change of a balance is an entry; teams.credit_balance stays as the running sum, changed only in the
    // transaction that writes the entry (so a send's check-and-debit is one conditional UPDATE). Existing
    // balances open the ledger with one adjustment each. A purchase is granted once per payment: the unique index
    // makes a webhook delivered twice a no-op. low_balance_armed makes the low-balance mail one per crossing. The same DDL runs on PostgreSQL (INTEGER GENERATED ... AS IDENTITY
    // for the id, BOOLEAN for credits_shared).
    sql: `
ALTER TABLE teams ADD COLUMN credits_shared INTEGER NOT NULL DEFAULT 1 CHECK (credits_shared IN (0, 1));
-- Set while the pool is at or above the low-balance threshold; cleared by the one alert of its next fall below.
ALTER TABLE teams ADD COLUMN low_balance_armed INTEGER NOT NULL DEFAULT 0 CHECK (low_balance_armed IN (0, 1));

CREATE TABLE credit_entries (
  id INTEGER PRIMARY KEY,
  pool_id INTEGER NOT NULL REFERENCES teams(id),
  kind TEXT NOT NULL CHECK (kind IN ('grant', 'purchase', 'send', 'refund', 'transfer', 'expiry', 'adjustment')),
  amount INTEGER NOT NULL CHECK (amount <> 0),
  balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
  actor_kind TEXT NOT NULL CHECK (actor_kind IN ('user', 'operator', 'sending_key', 'cli', 'system', 'payment')),
  actor_id TEXT,
  reference TEXT,
  reason TEXT NOT NULL DEFAULT '' CHECK (length(reason) <= 500),
  created_at TEXT NOT NULL
);
CREATE INDEX credit_entries_by_pool ON credit_entries(pool_id, id);
CREATE INDEX credit_entries_by_pool_kind ON credit_entries(pool_id, kind, id);
CREATE INDEX credit_entries_by_reference ON credit_entries(reference) WHERE reference IS NOT NULL;
CREATE UNIQUE INDEX credit_entries_one_purchase ON credit_entries(reference) WHERE kind = 'purchase';
CREATE INDEX credit_entries_by_kind ON credit_entries(kind, id);

-- The platform's totals by kind, kept by the writer of each entry in its transaction: the credits summary
-- answers from 7 rows, never a scan of the ledger.
CREATE TABLE credit_totals (
  kind TEXT PRIMARY KEY,
  total INTEGER NOT NULL,
  entries INTEGER NOT NULL
);
INSERT INTO credit_totals (kind, total, entries) VALUES
  ('grant', 0, 0), ('purchase', 0, 0), ('send', 0, 0), ('refund', 0, 0), ('transfer', 0, 0), ('expiry', 0, 0), ('adjustment', 0, 0);

INSERT INTO credit_entries (pool_id, kind, amount, balance_after, actor_kind, actor_id, reference, reason, created_at)
  SELECT id, 'adjustment', credit_balance, credit_balance, 'system', NULL, NULL, 'opening balance', updated_at
  FROM teams WHERE credit_balance <> 0;
UPDATE credit_totals SET total = (SELECT COALESCE(SUM(amount), 0) FROM credit_entries WHERE kind = 'adjustment'),
  entries = (SELECT COUNT(*) FROM credit_entries WHERE kind = 'adjustment') WHERE kind = 'adjustment';
`,
  },
  {
    version: 17,
    name: 'platform operators, the audit log of their actions',
    // A platform operator is a user of no account: users.team_id becomes nullable, with a CHECK that it is null
    // exactly for role 'operator'. Every stored row keeps both rules (none is an operator, each has a team), so the
    // table's CREATE statement is rewritten in place as in migration 14, not copied (sessions, application
    // passwords, invitations and the auth log refer to users). In PostgreSQL the same is:
    //   ALTER TABLE users ALTER COLUMN team_id DROP NOT NULL;
    //   ALTER TABLE users DROP CONSTRAINT users_role_check;
    //   ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('owner', 'admin', 'viewer', 'operator'));
    //   ALTER TABLE users ADD CONSTRAINT operator_has_no_team CHECK ((team_id IS NULL) = (role = 'operator'));
    // The audit log keeps the operator's email as it was (the user may be renamed or removed). Its action and
    // target kind are checked by the store's decoder, not by a CHECK, so a new action needs no migration.
    sql: `
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  operator_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  operator_email TEXT NOT NULL,
  action TEXT NOT NULL,
  target_kind TEXT NOT NULL,
  target_id TEXT NOT NULL,
  before_json TEXT,
  after_json TEXT,
  reason TEXT NOT NULL DEFAULT '' CHECK (length(reason) <= 500),
  at TEXT NOT NULL
);
CREATE INDEX audit_log_by_operator ON audit_log(operator_id, id);
CREATE INDEX audit_log_by_action ON audit_log(action, id);
CREATE INDEX audit_log_by_target ON audit_log(target_kind, target_id, id);
`,
    edit: async (q) => {
      await rewriteTableSchema(q, 'users', 'team_id INTEGER NOT NULL REFERENCES teams(id)', 'team_id INTEGER REFERENCES teams(id)');
      await rewriteTableSchema(q, 'users', "CHECK (role IN ('owner', 'admin', 'viewer'))", "CHECK (role IN ('owner', 'admin', 'viewer', 'operator'))");
      await rewriteTableSchema(
        q,
        'users',
        'updated_at TEXT NOT NULL\n)',
        "updated_at TEXT NOT NULL,\n  CONSTRAINT operator_has_no_team CHECK ((team_id IS NULL) = (role = 'operator'))\n)",
      );
    },
  },
  {
    version: 20,
    name: "the platform's message counters by day and status",
    // The platform operators' statistics (GET /admin/stats) over every tenant: summing message_counts across
    // 10,000 accounts read a row per account, day and status. The same triggers' rule, one row per UTC day and
    // status, kept in the transaction of every write to messages.
    sql: `
CREATE TABLE platform_message_counts (
  day TEXT NOT NULL,
  status TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (day, status)
) WITHOUT ROWID;

INSERT INTO platform_message_counts (day, status, n)
  SELECT substr(created_at, 1, 10), status, COUNT(*) FROM messages GROUP BY 1, 2;

CREATE TRIGGER platform_message_counts_on_insert AFTER INSERT ON messages BEGIN
  INSERT INTO platform_message_counts (day, status, n) VALUES (substr(NEW.created_at, 1, 10), NEW.status, 1)
    ON CONFLICT (day, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER platform_message_counts_on_update AFTER UPDATE OF created_at, status ON messages
  WHEN substr(OLD.created_at, 1, 10) IS NOT substr(NEW.created_at, 1, 10) OR OLD.status IS NOT NEW.status
BEGIN
  UPDATE platform_message_counts SET n = n - 1 WHERE day = substr(OLD.created_at, 1, 10) AND status = OLD.status;
  INSERT INTO platform_message_counts (day, status, n) VALUES (substr(NEW.created_at, 1, 10), NEW.status, 1)
    ON CONFLICT (day, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER platform_message_counts_on_delete AFTER DELETE ON messages BEGIN
  UPDATE platform_message_counts SET n = n - 1 WHERE day = substr(OLD.created_at, 1, 10) AND status = OLD.status;
END;
`,
  },
  {
    version: 21,
    name: 'the platform-wide reads of the log and the suppressions, newest first',
    // The operators' log and suppression list across every tenant are ordered by time with no team to lead the
    // existing indexes: these give that order (and the log's date bounds) without a scan. One more index entry per
    // message written. Messages and domains are numbered by their rowid for the admin routes' {log_id} and {id}
    // (the search index already keys messages by it; see docs/decisions.md); no column is added.
    sql: `
CREATE INDEX messages_by_time ON messages(created_at);
CREATE INDEX suppressions_by_time ON suppressions(created_at);
`,
  },
  {
    version: 22,
    name: 'platform invitations',
    // An operator's invitation to open a new client account: its own table, not invitations' (an account
    // invitation's account, team and role are NOT NULL and scope every query of it; see docs/decisions.md,
    // "Platform invitations (issue 12)"). One open invitation per email; accepting records the account and owner
    // it created. PostgreSQL: the unique index on lower(email).
    sql: `
CREATE TABLE platform_invitations (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  account_name TEXT NOT NULL CHECK (length(account_name) BETWEEN 1 AND 100),
  credits INTEGER NOT NULL CHECK (credits >= 0),
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'revoked', 'replaced')),
  invited_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  message_id TEXT,
  account_id INTEGER REFERENCES teams(id),
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  closed_at TEXT
);
CREATE UNIQUE INDEX platform_invitations_open ON platform_invitations(email COLLATE NOCASE) WHERE status = 'open';
`,
  },
  {
    version: 23,
    name: 'billing info and invoices',
    // An account's billing info is one JSON document (read and written whole). An invoice's number comes from
    // `sequence` (unique: two issues never share one); its current revision is a JSON document and each earlier
    // one is kept in invoice_revisions. One invoice per payment reference (a retried webhook issues none twice).
    sql: `
CREATE TABLE billing_info (
  account_id INTEGER PRIMARY KEY REFERENCES teams(id),
  info_json TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE invoices (
  id INTEGER PRIMARY KEY,
  sequence INTEGER NOT NULL UNIQUE,
  number TEXT NOT NULL UNIQUE,
  account_id INTEGER NOT NULL REFERENCES teams(id),
  payment_reference TEXT NOT NULL UNIQUE,
  revision INTEGER NOT NULL CHECK (revision >= 1),
  document_json TEXT NOT NULL,
  issued_at TEXT NOT NULL
);
CREATE INDEX invoices_by_account ON invoices(account_id, id);

CREATE TABLE invoice_revisions (
  invoice_id INTEGER NOT NULL REFERENCES invoices(id),
  revision INTEGER NOT NULL,
  document_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (invoice_id, revision)
);
`,
  },
  {
    version: 24,
    name: 'card payments: customers at the payment provider, payments of credits',
    // The card itself stays at the provider; Tern keeps the customer id and what it shows of the saved card
    // (brand, last 4, expiry). A payment's intent id is unique: the provider's webhooks find it by that id.
    sql: `
CREATE TABLE payment_customers (
  account_id INTEGER PRIMARY KEY REFERENCES teams(id),
  customer_id TEXT NOT NULL UNIQUE,
  card_json TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE payments (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES teams(id),
  intent_id TEXT UNIQUE,
  credits INTEGER NOT NULL CHECK (credits > 0),
  amount_minor INTEGER NOT NULL CHECK (amount_minor >= 0),
  currency TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('succeeded', 'processing', 'requires_action', 'failed')),
  failure_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX payments_by_account ON payments(account_id, id);
`,
  },
  {
    version: 25,
    name: 'password resets: links a user asks for by mail',
    // Only the token's sha256 is kept. A link is used by one UPDATE that requires used_at IS NULL and expires_at
    // in the future, so two uses at once cannot both pass. A new request deletes the user's unused links.
    sql: `
CREATE TABLE password_resets (
  token_hash TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX password_resets_by_user ON password_resets(user_id);
`,
  },
  {
    version: 26,
    name: 'webhook test events: an outbox event for one webhook, about no message',
    // The dashboard's "Send a test event" goes through the outbox and the dispatcher as a real event does (same
    // signer, same delivery record), to the one webhook it names instead of every subscriber; it has no message
    // and no recipient. Loosening NOT NULL leaves every row valid, so the CREATE statement is rewritten in place.
    // PostgreSQL: ALTER TABLE events ALTER COLUMN message_id DROP NOT NULL, ALTER COLUMN recipient_id DROP NOT NULL,
    //   ADD COLUMN webhook_id INTEGER, ADD CONSTRAINT test_event_names_its_webhook CHECK ((message_id IS NULL) = (webhook_id IS NOT NULL));
    sql: `ALTER TABLE events ADD COLUMN webhook_id INTEGER CONSTRAINT test_event_names_its_webhook CHECK ((message_id IS NULL) = (webhook_id IS NOT NULL));`,
    edit: async (q) => {
      await rewriteTableSchema(q, 'events', 'message_id TEXT NOT NULL REFERENCES messages(id)', 'message_id TEXT REFERENCES messages(id)');
      await rewriteTableSchema(q, 'events', 'recipient_id INTEGER NOT NULL REFERENCES recipients(id)', 'recipient_id INTEGER REFERENCES recipients(id)');
    },
  },
  {
    version: 27,
    name: "a recipient's team, for reading one tenant's queue from an index",
    // A tenant's queue by destination and its newest deferrals were read through its pending messages and then
    // each one's recipients: two random reads per recipient, 100 ms for 20,000 in flight. The team is copied onto
    // the recipient (a message never changes team) so that two partial indexes hold exactly what those reads
    // need, in the order they need it; they cover only recipients in flight, so the history adds nothing to them.
    // The column is filled from the messages, then made NOT NULL (every row now holds one) so no writer forgets it.
    // PostgreSQL: ADD COLUMN team_id INTEGER REFERENCES teams(id), the same UPDATE, ALTER COLUMN team_id SET NOT NULL.
    sql: `
ALTER TABLE recipients ADD COLUMN team_id INTEGER REFERENCES teams(id);
UPDATE recipients SET team_id = (SELECT team_id FROM messages WHERE messages.id = recipients.message_id);
CREATE INDEX recipients_in_flight_by_team ON recipients(team_id, domain, state, queued_at) WHERE state IN ('queued', 'sending', 'deferred');
CREATE INDEX recipients_deferred_by_team ON recipients(team_id, updated_at) WHERE state = 'deferred';
`,
    edit: (q) => rewriteTableSchema(q, 'recipients', 'team_id INTEGER REFERENCES teams(id)', 'team_id INTEGER NOT NULL REFERENCES teams(id)'),
  },
  {
    version: 28,
    name: 'held recipients: an operator keeps them out of delivery until released',
    // 'held' is a new state (domain/queue-state.ts): the scheduler never claims it (the in-flight indexes and
    // the claim leave it out) and it never expires while held. held_at is when the hold began; held_ms sums
    // the time spent held, which the max queue age does not count (the age runs from queued_at + held_ms).
    // Adding a value to the CHECK leaves every stored row valid, so the CREATE statement is rewritten in place.
    // PostgreSQL: DROP and ADD the state CHECK constraint with 'held'; the same columns and index.
    sql: `
ALTER TABLE recipients ADD COLUMN held_at INTEGER;
ALTER TABLE recipients ADD COLUMN held_ms INTEGER NOT NULL DEFAULT 0;
CREATE INDEX recipients_held ON recipients(team_id, domain, held_at) WHERE state = 'held';
`,
    edit: (q) =>
      rewriteTableSchema(
        q,
        'recipients',
        "CHECK (state IN ('queued', 'sending', 'sent', 'deferred', 'bounced', 'complained', 'failed', 'suppressed'))",
        "CHECK (state IN ('queued', 'sending', 'sent', 'deferred', 'held', 'bounced', 'complained', 'failed', 'suppressed'))",
      ),
  },
  {
    version: 29,
    name: 'bodies kept for requeue, marked with when their message finished',
    // The MTA's sweep deletes the bodies of finished messages once the requeue window has passed. Found by a join
    // of every kept body with its message, that was a walk of the whole table (the queue's bodies too) inside a
    // write, every 30 s on every MTA; kept_since, set only on a kept body, and its partial index make it a range
    // read of the bodies due. Bodies already kept take their message's last update.
    // PostgreSQL: the same statements.
    sql: `
ALTER TABLE message_bodies ADD COLUMN kept_since TEXT;
UPDATE message_bodies SET kept_since = (SELECT updated_at FROM messages WHERE messages.id = message_bodies.message_id AND messages.status <> 'pending');
CREATE INDEX message_bodies_kept ON message_bodies(kept_since) WHERE kept_since IS NOT NULL;
`,
  },
  {
    version: 30,
    name: "the platform's settings an operator makes from the dashboard (Tern's own sender)",
    // One row per setting, by name; the configuration (file, TERNMAIL_* variables) wins over a stored value where
    // both give one (docs/decisions.md, "Issue 22 item 7"). updated_by is the operator who made it (null once that
    // user is removed; the audit log keeps who it was).
    // PostgreSQL: the same statement.
    sql: `
CREATE TABLE platform_settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  updated_at TEXT NOT NULL
);
`,
  },
  {
    version: 31,
    name: 'figures per recipient: counters by recipient status, and the statuses of each message',
    // One definition for every figure (docs/decisions.md, "Bounces counted per recipient (issue 22, item 6)"): a
    // recipient counts once, by its status (complained if it complained, pending while in the queue, else its
    // state), on its message's created_at. recipient_counts (day), recipient_counts_hourly (hour) and
    // platform_recipient_counts (day, every tenant) are kept by triggers on recipients, as message_counts is on
    // messages; message_statuses holds, for each message, the statuses its recipients are in (with how many), so
    // the log's status filter finds a message with ANY recipient in that status from an index, newest first.
    // A move within the queue (queued -> sending -> deferred) changes no status and fires nothing; a final
    // outcome costs four counter moves, each a primary-key write, plus the message's row read by its key.
    // PostgreSQL: the same tables; the triggers as one plpgsql function per event.
    sql: `
CREATE TABLE recipient_counts (
  team_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  status TEXT NOT NULL,
  domain_key TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (team_id, day, status, domain_key)
) WITHOUT ROWID;

CREATE TABLE recipient_counts_hourly (
  team_id INTEGER NOT NULL,
  hour TEXT NOT NULL,
  status TEXT NOT NULL,
  domain_key TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (team_id, hour, status, domain_key)
) WITHOUT ROWID;

CREATE TABLE platform_recipient_counts (
  day TEXT NOT NULL,
  status TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (day, status)
) WITHOUT ROWID;

CREATE TABLE message_statuses (
  message_rowid INTEGER NOT NULL,
  status TEXT NOT NULL,
  team_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (message_rowid, status)
) WITHOUT ROWID;
CREATE INDEX message_statuses_by_team ON message_statuses(team_id, status, created_at);
CREATE INDEX message_statuses_by_time ON message_statuses(status, created_at);

INSERT INTO recipient_counts (team_id, day, status, domain_key, n)
  SELECT m.team_id, substr(m.created_at, 1, 10), ${figure31('r')}, COALESCE(m.domain_id, ''), COUNT(*)
  FROM recipients r JOIN messages m ON m.id = r.message_id GROUP BY 1, 2, 3, 4;
INSERT INTO recipient_counts_hourly (team_id, hour, status, domain_key, n)
  SELECT m.team_id, substr(m.created_at, 1, 13), ${figure31('r')}, COALESCE(m.domain_id, ''), COUNT(*)
  FROM recipients r JOIN messages m ON m.id = r.message_id GROUP BY 1, 2, 3, 4;
INSERT INTO platform_recipient_counts (day, status, n)
  SELECT substr(m.created_at, 1, 10), ${figure31('r')}, COUNT(*) FROM recipients r JOIN messages m ON m.id = r.message_id GROUP BY 1, 2;
INSERT INTO message_statuses (message_rowid, status, team_id, created_at, n)
  SELECT m.rowid, ${figure31('r')}, m.team_id, m.created_at, COUNT(*) FROM recipients r JOIN messages m ON m.id = r.message_id GROUP BY 1, 2;

CREATE TRIGGER recipient_figures_on_insert AFTER INSERT ON recipients BEGIN
${countNew31}
END;

CREATE TRIGGER recipient_figures_on_update AFTER UPDATE OF state, complained_at ON recipients
  WHEN (${figure31('OLD')}) IS NOT (${figure31('NEW')})
BEGIN
${countOld31}
${countNew31}
END;

-- A message moved in time, team or domain (only tests backdate messages) takes its recipients' counts along.
CREATE TRIGGER recipient_figures_on_message_move AFTER UPDATE OF team_id, created_at, domain_id ON messages
  WHEN OLD.team_id IS NOT NEW.team_id OR OLD.created_at IS NOT NEW.created_at OR OLD.domain_id IS NOT NEW.domain_id
BEGIN
  UPDATE recipient_counts SET n = n - (SELECT COUNT(*) FROM recipients r WHERE r.message_id = NEW.id AND (${figure31('r')}) = recipient_counts.status)
    WHERE team_id = OLD.team_id AND day = substr(OLD.created_at, 1, 10) AND domain_key = COALESCE(OLD.domain_id, '');
  INSERT INTO recipient_counts (team_id, day, status, domain_key, n)
    SELECT NEW.team_id, substr(NEW.created_at, 1, 10), status, COALESCE(NEW.domain_id, ''), n FROM (SELECT ${figure31('r')} AS status, COUNT(*) AS n FROM recipients r WHERE r.message_id = NEW.id GROUP BY 1) WHERE true
    ON CONFLICT (team_id, day, status, domain_key) DO UPDATE SET n = n + excluded.n;
  UPDATE recipient_counts_hourly SET n = n - (SELECT COUNT(*) FROM recipients r WHERE r.message_id = NEW.id AND (${figure31('r')}) = recipient_counts_hourly.status)
    WHERE team_id = OLD.team_id AND hour = substr(OLD.created_at, 1, 13) AND domain_key = COALESCE(OLD.domain_id, '');
  INSERT INTO recipient_counts_hourly (team_id, hour, status, domain_key, n)
    SELECT NEW.team_id, substr(NEW.created_at, 1, 13), status, COALESCE(NEW.domain_id, ''), n FROM (SELECT ${figure31('r')} AS status, COUNT(*) AS n FROM recipients r WHERE r.message_id = NEW.id GROUP BY 1) WHERE true
    ON CONFLICT (team_id, hour, status, domain_key) DO UPDATE SET n = n + excluded.n;
  UPDATE platform_recipient_counts SET n = n - (SELECT COUNT(*) FROM recipients r WHERE r.message_id = NEW.id AND (${figure31('r')}) = platform_recipient_counts.status)
    WHERE day = substr(OLD.created_at, 1, 10);
  INSERT INTO platform_recipient_counts (day, status, n)
    SELECT substr(NEW.created_at, 1, 10), status, n FROM (SELECT ${figure31('r')} AS status, COUNT(*) AS n FROM recipients r WHERE r.message_id = NEW.id GROUP BY 1) WHERE true
    ON CONFLICT (day, status) DO UPDATE SET n = n + excluded.n;
  UPDATE message_statuses SET team_id = NEW.team_id, created_at = NEW.created_at WHERE message_rowid = NEW.rowid;
END;

CREATE TRIGGER recipient_figures_on_delete AFTER DELETE ON recipients BEGIN
${countOld31}
END;
`,
  },
  {
    version: 32,
    name: 'figures per recipient counted by the writes that move recipients; message_counts_hourly gone',
    // The triggers of migration 31 decided in SQL which recipient state counts as which figure status. That rule
    // now lives in domain/figures.ts, and every write that creates or moves a recipient (the intake's insert, a
    // delivery result, a report, an operator's purge or requeue) asks store/sqlite/figure-counters.ts to move the
    // counters it decided, in the same transaction. The tables and their values stay as they are: they were exact
    // under the triggers, and the writes keep them so. Recipients are never deleted, nor a message's team, time or
    // domain changed, by the product; the delete and message-move triggers go with the rest (tests backdating a
    // message move its counts through StoreTestSupport). message_counts_hourly (migration 11) is read by nothing
    // since the figures count recipients (issue 22): its triggers and the table go.
    // PostgreSQL: the same tables, with no trigger.
    sql: `
DROP TRIGGER recipient_figures_on_insert;
DROP TRIGGER recipient_figures_on_update;
DROP TRIGGER recipient_figures_on_message_move;
DROP TRIGGER recipient_figures_on_delete;
DROP TRIGGER message_counts_hourly_on_insert;
DROP TRIGGER message_counts_hourly_on_update;
DROP TRIGGER message_counts_hourly_on_delete;
DROP TABLE message_counts_hourly;
`,
  },
  {
    version: 33,
    name: 'queue depths moved by the writes that move recipients',
    // The triggers of migration 11 decided in SQL which recipient states count in a team's queue depth (queued,
    // sending, deferred). That rule now lives in domain/figures.ts (depthBumps), and every write that creates or
    // moves a recipient in or out of those states (the intake's insert, a delivery result, a report, an
    // operator's hold, release, purge or requeue) asks the unit of work to move the depth it decided, in the same
    // transaction. The table and its values stay: they were exact under the triggers. Recipients are never
    // deleted by the product, so the delete trigger goes too.
    // PostgreSQL: the same table, with no trigger.
    sql: `
DROP TRIGGER queue_depths_on_insert;
DROP TRIGGER queue_depths_on_update;
DROP TRIGGER queue_depths_on_delete;
`,
  },
  {
    version: 34,
    name: 'webhook outbox events claimed under a lease token',
    // The webhook dispatchers of several MTAs claim outbox events as the queue's workers claim recipients: a
    // token and a lease end on the event, each write fenced on the token (FeedbackRepository.claimEvents), so
    // no process-wide lock is needed. Null on both: free to claim.
    // PostgreSQL: the same columns (claimed_until BIGINT), in its baseline.
    sql: `
ALTER TABLE events ADD COLUMN claim_token TEXT;
ALTER TABLE events ADD COLUMN claimed_until INTEGER;
`,
  },
  {
    version: 35,
    name: 'idempotency replies in the database',
    // The replies of sends made with an Idempotency-Key, per team and key, for installations that keep them in
    // the database rather than Redis (idempotency.store; the default on PostgreSQL), so a Redis failover loses
    // none. A row without a reply is a reservation in progress; expires_at ends either (swept in batches).
    // PostgreSQL: the same table, in its baseline.
    sql: `
CREATE TABLE idempotency_replies (
  team_id INTEGER NOT NULL REFERENCES teams(id),
  idempotency_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  token TEXT NOT NULL,
  reply_status INTEGER,
  reply_body TEXT,
  expires_at TEXT NOT NULL,
  CHECK ((reply_status IS NULL) = (reply_body IS NULL)),
  PRIMARY KEY (team_id, idempotency_key)
);
CREATE INDEX idempotency_replies_expiry ON idempotency_replies(expires_at);
`,
  },
  {
    version: 36,
    name: 'inbound reports keep their body and are claimed under a lease token',
    // A report's content was a file in one MTA's spool directory, so only that machine could process it and a
    // lost disk lost it. The body is now written with the row, in one transaction, before the MX listener's 250,
    // and dropped (NULL) once the report is finished; any MTA's worker claims waiting reports under a token and
    // a lease end, each finish fenced on the token. Rows recorded before this migration have no body: the MTA
    // imports the spool's files into them at start (mta/feedback/spool-import.ts).
    // PostgreSQL: the same columns (body BYTEA, claimed_until BIGINT), in its baseline.
    sql: `
ALTER TABLE inbound_reports ADD COLUMN body BLOB;
ALTER TABLE inbound_reports ADD COLUMN claim_token TEXT;
ALTER TABLE inbound_reports ADD COLUMN claimed_until INTEGER;
`,
  },
  {
    version: 37,
    name: 'login settings for lockout mail, log retention, application passwords and two-step sign-in; two-step challenges',
    // The authentication plugin's settings (issue 26): each account says whether its owners are mailed on a
    // lockout, how many days its auth log is kept, whether application passwords work, and which roles sign in
    // with a code mailed to them. A challenge keeps only hashes: of its token (the sign-in form's) and of the
    // code with that token, so a read of the database gives neither the code nor a way to try codes offline.
    sql: `
ALTER TABLE login_settings ADD COLUMN notify_on_lockout INTEGER NOT NULL DEFAULT 0 CHECK (notify_on_lockout IN (0, 1));
ALTER TABLE login_settings ADD COLUMN log_retention_days INTEGER NOT NULL DEFAULT 90 CHECK (log_retention_days BETWEEN 1 AND 3650);
ALTER TABLE login_settings ADD COLUMN application_passwords INTEGER NOT NULL DEFAULT 1 CHECK (application_passwords IN (0, 1));
ALTER TABLE login_settings ADD COLUMN two_step_roles TEXT NOT NULL DEFAULT '';

CREATE TABLE two_step_challenges (
  token_hash TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL CHECK (length(code_hash) = 64),
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX two_step_challenges_expiry ON two_step_challenges(expires_at);
CREATE UNIQUE INDEX two_step_challenges_unused ON two_step_challenges(user_id) WHERE used_at IS NULL;
`,
  },
  {
    version: 38,
    name: 'support tickets, their responses and attachments, and the docs operators suggest',
    // Tickets between an account's users and the platform's operators (the support namespace, tern-support/v1):
    // each ticket on the team it was opened on; responses from either side, an agent's response carrying the
    // customer's vote; uploaded files kept in the database (bound to nothing until the ticket or response they
    // were uploaded for is sent); the docs operators suggest. Where tickets go is a row of platform_settings.
    // PostgreSQL: the same tables (content BYTEA), migration 38.
    sql: `
${SUPPORT_SCHEMA}`,
  },
  {
    version: 39,
    name: 'email templates and their layout',
    // The mail Tern sends itself becomes editable by operators (issue 26): a row per edited email (none: its
    // default wording), and one layout row (id 1) around every email.
    sql: `
CREATE TABLE email_templates (
  email_id TEXT PRIMARY KEY,
  subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 300),
  body TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 20000),
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  updated_at TEXT NOT NULL
);

CREATE TABLE email_layout (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  logo_url TEXT,
  primary_color TEXT NOT NULL,
  footer TEXT NOT NULL,
  from_name TEXT,
  reply_to TEXT,
  updated_at TEXT NOT NULL
);
`,
  },
  {
    version: 40,
    name: 'the integrity scan of the installation: its state and the ignored paths',
    // An operator's integrity scan of Tern's own files against the build's manifest (issue 26): one state row
    // (id 1; absent: never turned on) with the last result as JSON, and the paths operators ignore.
    sql: `
CREATE TABLE integrity_scan (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  registered_at TEXT,
  daily INTEGER NOT NULL CHECK (daily IN (0, 1)),
  next_scan_at TEXT,
  last_result TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE integrity_ignores (
  path TEXT PRIMARY KEY CHECK (length(path) BETWEEN 1 AND 1000),
  added_at TEXT NOT NULL
);
`,
  },
  {
    version: 41,
    name: "where an account's users land after signing in and out",
    // FluentAuth's auth-forms redirect settings (issue 26): per account, a default and a rule per role, as JSON
    // (read and replaced whole, one row per account).
    sql: `
CREATE TABLE sign_in_redirects (
  account_id INTEGER PRIMARY KEY REFERENCES teams(id),
  rules TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  },
  {
    version: 42,
    name: 'sign-in with a provider: its settings, the links of users to their provider subjects, the method of an auth log entry',
    // Issue 26 (FluentAuth's social-auth): one row per provider an operator set (the client secret sealed with the
    // secret box); one link per provider subject (the key: one subject signs in one user), made at a user's first
    // sign-in by verified email; and how each sign-in was made.
    sql: `
CREATE TABLE social_sign_in_providers (
  provider TEXT PRIMARY KEY CHECK (provider IN ('google', 'github')),
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  client_id TEXT NOT NULL,
  client_secret_enc TEXT,
  issuer TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE social_sign_in_links (
  provider TEXT NOT NULL CHECK (provider IN ('google', 'github')),
  subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  linked_at TEXT NOT NULL,
  PRIMARY KEY (provider, subject)
);
CREATE INDEX social_sign_in_links_by_user ON social_sign_in_links(user_id);

ALTER TABLE auth_log ADD COLUMN method TEXT NOT NULL DEFAULT 'password' CHECK (method IN ('password', 'google', 'github', 'sso', 'magic_link'));
`,
  },
  {
    version: 43,
    name: 'single sign-on between dashboards: paired sites, spent tokens, how a sign-in was made',
    // Issue 26 (FluentAuth's child sites): the dashboards this one sends users to (child) or accepts them from
    // (parent), each with its shared secret sealed by the secret box (both sides sign or verify with it, so it
    // is kept readable); the tokens a child has spent, keyed by pair and one-time id (a replay is the key taken);
    // (the auth log's method, 'sso', is migration 42's column). PostgreSQL: migration 43.
    sql: `
CREATE TABLE sso_sites (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('child', 'parent')),
  site_id TEXT NOT NULL CHECK (length(site_id) = 32),
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  url TEXT NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  secret_sealed TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (kind, site_id),
  UNIQUE (kind, url)
);

CREATE TABLE sso_spent_tokens (
  site_id TEXT NOT NULL,
  jti TEXT NOT NULL CHECK (length(jti) = 32),
  expires_at TEXT NOT NULL,
  spent_at TEXT NOT NULL,
  PRIMARY KEY (site_id, jti)
);
CREATE INDEX sso_spent_tokens_expiry ON sso_spent_tokens(expires_at);
`,
  },
  {
    version: 44,
    name: "the sign-in page's branding (uploaded images, the branding row); magic-link sign-in",
    // FluentAuth's auth customizer (issue 26): images operators upload (named by their content's hash, kept in
    // the database so every API process serves them, never deleted), and one branding row (id 1; absent: Tern's
    // own look) whose logo must be one of them.
    sql: `
CREATE TABLE branding_images (
  id TEXT PRIMARY KEY CHECK (length(id) = 32),
  content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  content BLOB NOT NULL,
  uploaded_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE sign_in_branding (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  logo_image_id TEXT REFERENCES branding_images(id),
  background_color TEXT,
  button_color TEXT,
  message TEXT NOT NULL CHECK (length(message) <= 500),
  updated_at TEXT NOT NULL
);

-- Magic-link sign-in (issue 26): an account's switch, the links mailed (only the token's SHA-256 kept; used once,
-- decided in one UPDATE); the auth log's method ('magic_link') is migration 42's column.
ALTER TABLE login_settings ADD COLUMN magic_link INTEGER NOT NULL DEFAULT 0 CHECK (magic_link IN (0, 1));

CREATE TABLE magic_links (
  token_hash TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX magic_links_by_user ON magic_links(user_id);
`,
  },
  {
    version: 45,
    name: 'support tickets assigned to an operator',
    // Issue 26: an operator a ticket is assigned to (null: none); the operator's list filters on it.
    sql: `
ALTER TABLE support_tickets ADD COLUMN assigned_to INTEGER REFERENCES users(id) ON DELETE SET NULL;
CREATE INDEX support_tickets_by_assignee ON support_tickets(assigned_to, id);
`,
  },
  {
    version: 46,
    name: 'support forwarding outbox',
    // Issue 26: each new ticket and response to forward to the external helpdesk, written in the ticket's or the
    // response's transaction; a dispatcher claims a row with a lease (fenced in the UPDATE), posts it, and marks it
    // delivered, or schedules the next attempt (failed after the last).
    sql: `
CREATE TABLE support_forwards (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('ticket.created', 'ticket.response')),
  ticket_id INTEGER NOT NULL REFERENCES support_tickets(id) ON DELETE CASCADE,
  response_id INTEGER REFERENCES support_responses(id) ON DELETE CASCADE,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  lease_until TEXT,
  lease_token TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX support_forwards_due ON support_forwards(state, next_attempt_at);
`,
  },
  {
    version: 47,
    name: 'content items and terms',
    // Issue 27: the content namespace (wp/v2) as WordPress keeps it: items of the post types (posts, pages,
    // reusable blocks, templates, navigation, menu items; revisions are items whose parent they copy), owned by the
    // platform (team_id null) or a team; terms of the taxonomies linked to items. A non-empty slug is unique per
    // type and owner, a term's slug per taxonomy: the indexes decide between two writes at once.
    sql: `
CREATE TABLE content_items (
  id INTEGER PRIMARY KEY,
  type TEXT NOT NULL CHECK (type IN ('post', 'page', 'wp_block', 'wp_template', 'wp_template_part', 'wp_navigation', 'nav_menu_item', 'wp_font_family', 'wp_font_face', 'wp_global_styles', 'revision')),
  status TEXT NOT NULL CHECK (status IN ('publish', 'future', 'draft', 'pending', 'private', 'trash', 'inherit', 'auto-draft')),
  team_id INTEGER REFERENCES teams(id) ON DELETE CASCADE,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  parent_id INTEGER REFERENCES content_items(id) ON DELETE CASCADE,
  slug TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL DEFAULT '',
  excerpt TEXT NOT NULL DEFAULT '',
  menu_order INTEGER NOT NULL DEFAULT 0,
  comment_status TEXT NOT NULL DEFAULT 'closed' CHECK (comment_status IN ('open', 'closed')),
  meta TEXT NOT NULL DEFAULT '{}',
  trashed_from TEXT,
  date TEXT NOT NULL,
  modified TEXT NOT NULL
);
CREATE UNIQUE INDEX content_items_slug ON content_items(type, COALESCE(team_id, 0), slug) WHERE slug <> '' AND type <> 'revision';
CREATE INDEX content_items_listed ON content_items(type, status, date, id);
CREATE INDEX content_items_by_parent ON content_items(parent_id, type);
CREATE INDEX content_items_by_author ON content_items(author_id);
CREATE INDEX content_items_by_team ON content_items(team_id, type, date);
CREATE TABLE content_terms (
  id INTEGER PRIMARY KEY,
  taxonomy TEXT NOT NULL CHECK (taxonomy IN ('category', 'post_tag', 'nav_menu', 'wp_pattern_category')),
  name TEXT NOT NULL,
  slug TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  parent_id INTEGER REFERENCES content_terms(id) ON DELETE SET NULL,
  UNIQUE (taxonomy, slug)
);
CREATE TABLE content_item_terms (
  item_id INTEGER NOT NULL REFERENCES content_items(id) ON DELETE CASCADE,
  term_id INTEGER NOT NULL REFERENCES content_terms(id) ON DELETE CASCADE,
  PRIMARY KEY (item_id, term_id)
);
CREATE INDEX content_item_terms_by_term ON content_item_terms(term_id, item_id);
`,
  },
  {
    version: 48,
    name: 'media (wp/v2/media): uploaded files and their bytes',
    // Issue 27: a team's (team_id null: the platform's) uploaded files, with WordPress's attachment fields; the bytes
    // in their own table, inserted in the row's transaction and deleted with it, so a list reads no bytes. The
    // storage key is the public path's random part. Lists are by team and date (operators: by date).
    sql: `
CREATE TABLE media (
  id INTEGER PRIMARY KEY,
  team_id INTEGER REFERENCES teams(id) ON DELETE CASCADE,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  caption TEXT NOT NULL,
  alt_text TEXT NOT NULL,
  description TEXT NOT NULL,
  slug TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('inherit', 'private')),
  mime_type TEXT NOT NULL,
  size INTEGER NOT NULL CHECK (size >= 0),
  sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
  storage_key TEXT NOT NULL UNIQUE CHECK (length(storage_key) = 32),
  file_name TEXT NOT NULL,
  width INTEGER,
  height INTEGER,
  date TEXT NOT NULL,
  modified TEXT NOT NULL
);
CREATE INDEX media_by_team_date ON media(team_id, date, id);
CREATE INDEX media_by_date ON media(date, id);
CREATE TABLE media_files (
  media_id INTEGER PRIMARY KEY REFERENCES media(id) ON DELETE CASCADE,
  content BLOB NOT NULL
);
`,
  },
  {
    version: 49,
    name: 'users: WordPress profile fields (username, slug, names, nickname, url, description, locale)',
    // Issue 27 (wp/v2/users): the fields WordPress keeps beside a user. The username (user_login) is unique
    // without regard to case and never changes; users from before it get their email (unique too) as one.
    sql: `
ALTER TABLE users ADD COLUMN username TEXT CHECK (length(username) BETWEEN 1 AND 254);
ALTER TABLE users ADD COLUMN slug TEXT NOT NULL DEFAULT '' CHECK (length(slug) <= 50);
ALTER TABLE users ADD COLUMN first_name TEXT NOT NULL DEFAULT '' CHECK (length(first_name) <= 100);
ALTER TABLE users ADD COLUMN last_name TEXT NOT NULL DEFAULT '' CHECK (length(last_name) <= 100);
ALTER TABLE users ADD COLUMN nickname TEXT NOT NULL DEFAULT '' CHECK (length(nickname) <= 100);
ALTER TABLE users ADD COLUMN url TEXT NOT NULL DEFAULT '' CHECK (length(url) <= 200);
ALTER TABLE users ADD COLUMN description TEXT NOT NULL DEFAULT '' CHECK (length(description) <= 2000);
ALTER TABLE users ADD COLUMN locale TEXT NOT NULL DEFAULT '' CHECK (length(locale) <= 20);
UPDATE users SET username = email, slug = substr(lower(replace(replace(email, '@', '-'), '.', '-')), 1, 50);
CREATE UNIQUE INDEX users_username ON users(username COLLATE NOCASE);
CREATE INDEX users_by_slug ON users(slug);
`,
  },
];

/** The schema version this release brings a database to: its newest migration. */
export const LATEST_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
