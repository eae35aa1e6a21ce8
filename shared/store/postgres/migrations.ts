// The PostgreSQL schema, numbered as SQLite's (store/sqlite/migrations.ts): a database of either engine at
// version N holds the same tables and columns, so a repository's queries port one to one and `ternmail store
// copy` moves rows table by table. The engine starts at SQLite's version 36 with one baseline; every later
// change is a migration of the same number in both lists (test/store/postgres-engine.test.ts checks that the
// newest versions are equal). The engine is released (issue 24): never edit a landed migration.
//
// Types: integer keys are BIGINT GENERATED ALWAYS AS IDENTITY (SQLite's INTEGER PRIMARY KEY); every other
// integer is BIGINT (SQLite's integers are 64-bit; epoch milliseconds need it), read as numbers (sql.ts); the
// 0/1 flags stay SMALLINT 0/1, as the repository interfaces and decoders read them; times stay ISO 8601 TEXT,
// as SQLite keeps them (ordering and day/hour keys by prefix work the same); blobs are BYTEA.
// No trigger decides anything: every counter is moved by the writes that change what it counts.

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

const ACCOUNTS = `
CREATE TABLE teams (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  parent_id BIGINT REFERENCES teams(id),
  name TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  suspended_by TEXT CHECK (suspended_by IN ('account', 'platform')),
  plan_type TEXT NOT NULL,
  credit_balance BIGINT NOT NULL DEFAULT 0,
  limit_per_second BIGINT NOT NULL,
  backend_region TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT,
  suspension_reason TEXT,
  suspension_detail TEXT,
  suspended_at TEXT,
  time_zone TEXT NOT NULL DEFAULT 'UTC',
  icon_url TEXT,
  icon_id TEXT,
  credits_shared SMALLINT NOT NULL DEFAULT 1 CHECK (credits_shared IN (0, 1)),
  low_balance_armed SMALLINT NOT NULL DEFAULT 0 CHECK (low_balance_armed IN (0, 1))
);
CREATE INDEX teams_by_parent ON teams(parent_id) WHERE deleted_at IS NULL;

CREATE TABLE team_icons (
  id TEXT PRIMARY KEY,
  team_id BIGINT NOT NULL REFERENCES teams(id),
  content_type TEXT NOT NULL,
  content BYTEA NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX team_icons_by_team ON team_icons(team_id);

CREATE TABLE domains (
  id TEXT PRIMARY KEY,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE, -- SQLite's implicit rowid: the operators' number of a domain (admin-domains)
  team_id BIGINT NOT NULL REFERENCES teams(id),
  name TEXT NOT NULL,
  verification_status TEXT NOT NULL DEFAULT 'draft' CHECK (verification_status IN ('draft', 'verified')),
  is_default SMALLINT NOT NULL DEFAULT 0,
  dkim_selector TEXT NOT NULL,
  dkim_public_key TEXT NOT NULL,
  dkim_private_key_enc TEXT NOT NULL,
  dmarc_policy TEXT,
  auto_verify_active SMALLINT NOT NULL DEFAULT 1,
  auto_verify_reason TEXT NOT NULL DEFAULT '',
  last_check_at TEXT,
  last_check_result TEXT,
  verified_at TEXT,
  total_sent BIGINT NOT NULL DEFAULT 0,
  total_bounced BIGINT NOT NULL DEFAULT 0,
  total_complained BIGINT NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX domains_live_name ON domains(name) WHERE deleted_at IS NULL;
CREATE INDEX domains_to_check ON domains(auto_verify_active, verification_status) WHERE deleted_at IS NULL;
CREATE INDEX domains_by_team ON domains(team_id, created_at) WHERE deleted_at IS NULL;

CREATE TABLE api_keys (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  team_id BIGINT NOT NULL REFERENCES teams(id),
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
CREATE INDEX api_keys_by_team ON api_keys(team_id, kind, status);

CREATE TABLE webhooks (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  team_id BIGINT NOT NULL REFERENCES teams(id),
  title TEXT NOT NULL DEFAULT '',
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  include_message SMALLINT NOT NULL DEFAULT 0,
  secret_enc TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhooks_by_team ON webhooks(team_id);

CREATE TABLE suppressions (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  team_id BIGINT NOT NULL REFERENCES teams(id),
  email TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('bounced', 'complained', 'suppressed')),
  reason TEXT NOT NULL DEFAULT '',
  message_id TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (team_id, email)
);
CREATE INDEX suppressions_by_team ON suppressions(team_id, created_at);
CREATE INDEX suppressions_by_time ON suppressions(created_at);

CREATE TABLE dns_connections (
  team_id BIGINT NOT NULL REFERENCES teams(id),
  provider TEXT NOT NULL,
  token_enc TEXT NOT NULL,
  token_last4 TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (team_id, provider)
);
`;

/**
 * messages.rowid stands for SQLite's implicit rowid: the accepting order, which the log's pages and
 * message_statuses key on. The log search: \`search\` is the words of a message (subject, sender, every
 * recipient's address and name: the columns SQLite's search looks in) as a tsvector, GIN-indexed, in place of
 * SQLite's FTS5 table messages_fts. Recipients live in another table, so the message log repository writes
 * search_recipients (the recipients' "email name" words) with the message. Punctuation is made a space first, so
 * that an address is its words (bob, dest1, test), as FTS5's tokenizer splits it; the parser alone would keep
 * bob@dest1.test as one token. Two kinds of lexeme no typed word can be (a typed word is letters and digits only,
 * log-listing.ts) join the words, so that a search narrowed by a status or by days is one intersection in the GIN
 * index, not a walk of every message the word is in: \`=<status>\` for each status its recipients count in
 * (search_statuses, written with the message's status: the statuses message_statuses holds rows for), and
 * \`@<day>\` for the UTC day it was accepted on.
 */
const MESSAGES = `
CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
  team_id BIGINT NOT NULL REFERENCES teams(id),
  domain_id TEXT REFERENCES domains(id),
  sending_key_id BIGINT REFERENCES api_keys(id),
  source TEXT NOT NULL CHECK (source IN ('http', 'smtp', 'system')),
  envelope_from TEXT NOT NULL,
  from_email TEXT NOT NULL,
  from_name TEXT NOT NULL DEFAULT '',
  subject TEXT NOT NULL DEFAULT '',
  to_json TEXT NOT NULL DEFAULT '[]',
  reply_to TEXT,
  message_id_header TEXT NOT NULL,
  size BIGINT NOT NULL,
  has_attachments SMALLINT NOT NULL DEFAULT 0,
  headers_json TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'bounced', 'complained', 'suppressed', 'failed')),
  error TEXT,
  created_at TEXT NOT NULL,
  sent_at TEXT,
  updated_at TEXT NOT NULL,
  search_recipients TEXT NOT NULL DEFAULT '',
  search_statuses TEXT NOT NULL DEFAULT '',
  search tsvector GENERATED ALWAYS AS (
    to_tsvector('simple'::regconfig, regexp_replace(subject || ' ' || from_email || ' ' || search_recipients, '[[:punct:]]+', ' ', 'g'))
    || array_to_tsvector(string_to_array('@' || left(created_at, 10) || regexp_replace(search_statuses, '(\\S+)\\s*', ' =\\1', 'g'), ' '))
  ) STORED
);
CREATE INDEX messages_by_status ON messages(team_id, status, created_at);
CREATE INDEX messages_by_domain ON messages(team_id, domain_id, created_at);
CREATE INDEX messages_by_team ON messages(team_id, created_at);
CREATE INDEX messages_by_time ON messages(created_at);
CREATE INDEX messages_search ON messages USING GIN (search);

CREATE TABLE message_bodies (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  body BYTEA NOT NULL,
  kept_since TEXT
);
CREATE INDEX message_bodies_kept ON message_bodies(kept_since) WHERE kept_since IS NOT NULL;
`;

/**
 * The queue: recipients in flight are found by partial indexes holding only them, so the lookups of what is
 * due (queued or deferred, by next_attempt_at) and of expired leases (sending, by lease_until) stay small
 * however many delivered recipients the table keeps.
 */
const QUEUE = `
CREATE TABLE recipients (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id TEXT NOT NULL REFERENCES messages(id),
  email TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL CHECK (kind IN ('to', 'cc', 'bcc')),
  domain TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'sent', 'deferred', 'held', 'bounced', 'complained', 'failed', 'suppressed')),
  reason TEXT NOT NULL DEFAULT '',
  attempts BIGINT NOT NULL DEFAULT 0,
  next_attempt_at BIGINT,
  lease_until BIGINT,
  last_reply TEXT,
  queued_at BIGINT NOT NULL,
  updated_at TEXT NOT NULL,
  complained_at TEXT,
  hard_bounce SMALLINT,
  lease_token TEXT,
  team_id BIGINT NOT NULL REFERENCES teams(id),
  held_at BIGINT,
  held_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX recipients_by_message ON recipients(message_id);
CREATE INDEX recipients_in_flight ON recipients(state, next_attempt_at) WHERE state IN ('queued', 'sending', 'deferred');
CREATE INDEX recipients_due ON recipients(next_attempt_at) WHERE state IN ('queued', 'deferred');
CREATE INDEX recipients_leased ON recipients(lease_until) WHERE state = 'sending';
CREATE INDEX recipients_in_flight_by_team ON recipients(team_id, domain, state, queued_at) WHERE state IN ('queued', 'sending', 'deferred');
CREATE INDEX recipients_deferred_by_team ON recipients(team_id, updated_at) WHERE state = 'deferred';
CREATE INDEX recipients_held ON recipients(team_id, domain, held_at) WHERE state = 'held';

CREATE TABLE attempts (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  recipient_id BIGINT NOT NULL REFERENCES recipients(id),
  at TEXT NOT NULL,
  mx_host TEXT,
  ip TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'deferred', 'bounced', 'failed')),
  reply TEXT NOT NULL
);
CREATE INDEX attempts_by_recipient ON attempts(recipient_id);

CREATE TABLE inbound_reports (
  id TEXT PRIMARY KEY,
  mail_from TEXT NOT NULL,
  rcpt_to TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'received' CHECK (state IN ('received', 'processed', 'dropped')),
  kind TEXT,
  detail TEXT NOT NULL DEFAULT '',
  received_at TEXT NOT NULL,
  processed_at TEXT,
  body BYTEA,
  claim_token TEXT,
  claimed_until BIGINT
);
CREATE INDEX inbound_reports_waiting ON inbound_reports(state) WHERE state = 'received';

CREATE TABLE events (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  team_id BIGINT NOT NULL REFERENCES teams(id),
  type TEXT NOT NULL CHECK (type IN ('bounced', 'complaint')),
  message_id TEXT REFERENCES messages(id),
  recipient_id BIGINT REFERENCES recipients(id),
  email TEXT NOT NULL,
  is_hard_bounce SMALLINT,
  reason TEXT NOT NULL DEFAULT '',
  occurred_at TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered')),
  webhook_id BIGINT CONSTRAINT test_event_names_its_webhook CHECK ((message_id IS NULL) = (webhook_id IS NOT NULL)),
  claim_token TEXT,
  claimed_until BIGINT,
  UNIQUE (recipient_id, type)
);
CREATE INDEX events_pending ON events(state, id) WHERE state = 'pending';

CREATE TABLE webhook_deliveries (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id BIGINT NOT NULL,
  team_id BIGINT NOT NULL,
  event_id BIGINT NOT NULL REFERENCES events(id),
  event_type TEXT NOT NULL,
  url TEXT NOT NULL,
  status_code BIGINT,
  error TEXT,
  latency_ms BIGINT NOT NULL,
  attempted_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries(attempted_at);
CREATE INDEX webhook_deliveries_by_team ON webhook_deliveries(team_id, attempted_at);

CREATE TABLE queue_depths (
  team_id BIGINT PRIMARY KEY,
  n BIGINT NOT NULL
);
`;

/**
 * Figures, kept on write. message_counts and platform_message_counts are kept by triggers on SQLite (a message's
 * status per team and day); here they have none yet: which writes move them is the message log's open point
 * (docs/decisions.md).
 */
const FIGURES = `
CREATE TABLE message_counts (
  team_id BIGINT NOT NULL,
  day TEXT NOT NULL,
  status TEXT NOT NULL,
  domain_key TEXT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (team_id, day, status, domain_key)
);
CREATE TABLE platform_message_counts (
  day TEXT NOT NULL,
  status TEXT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (day, status)
);
CREATE TABLE recipient_counts (
  team_id BIGINT NOT NULL,
  day TEXT NOT NULL,
  status TEXT NOT NULL,
  domain_key TEXT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (team_id, day, status, domain_key)
);
CREATE TABLE recipient_counts_hourly (
  team_id BIGINT NOT NULL,
  hour TEXT NOT NULL,
  status TEXT NOT NULL,
  domain_key TEXT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (team_id, hour, status, domain_key)
);
CREATE TABLE platform_recipient_counts (
  day TEXT NOT NULL,
  status TEXT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (day, status)
);
CREATE TABLE message_statuses (
  message_rowid BIGINT NOT NULL,
  status TEXT NOT NULL,
  team_id BIGINT NOT NULL,
  created_at TEXT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (message_rowid, status)
);
CREATE INDEX message_statuses_by_team ON message_statuses(team_id, status, created_at);
CREATE INDEX message_statuses_by_time ON message_statuses(status, created_at);
`;

/**
 * Users. SQLite compares emails with COLLATE NOCASE; here the unique indexes are on lower(email), and the
 * repositories compare lower(email) = lower($1) so that the index serves the lookup.
 */
const USERS = `
CREATE TABLE users (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  team_id BIGINT REFERENCES teams(id),
  email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  name TEXT NOT NULL DEFAULT '' CHECK (length(name) <= 100),
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'viewer', 'operator')),
  password_hash TEXT NOT NULL,
  must_change_password SMALLINT NOT NULL DEFAULT 0 CHECK (must_change_password IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CONSTRAINT operator_has_no_team CHECK ((team_id IS NULL) = (role = 'operator'))
);
CREATE UNIQUE INDEX users_email ON users(lower(email));
CREATE INDEX users_by_team ON users(team_id);

CREATE TABLE sessions (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  user_agent TEXT NOT NULL DEFAULT '' CHECK (length(user_agent) <= 512),
  address TEXT NOT NULL DEFAULT '' CHECK (length(address) <= 64),
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL
);
CREATE INDEX sessions_by_user ON sessions(user_id);

CREATE TABLE application_passwords (
  uuid TEXT PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  app_id TEXT,
  password_hash TEXT NOT NULL UNIQUE CHECK (length(password_hash) = 64),
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  last_ip TEXT
);
CREATE UNIQUE INDEX application_passwords_name ON application_passwords(user_id, name);

CREATE TABLE auth_log (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id BIGINT REFERENCES teams(id),
  user_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  email TEXT NOT NULL,
  address TEXT NOT NULL,
  user_agent TEXT NOT NULL,
  result TEXT NOT NULL CHECK (result IN ('success', 'failure', 'throttled')),
  at TEXT NOT NULL
);
CREATE INDEX auth_log_by_account ON auth_log(account_id, id);
CREATE INDEX auth_log_by_account_time ON auth_log(account_id, at);

CREATE TABLE login_settings (
  account_id BIGINT PRIMARY KEY REFERENCES teams(id),
  failures_per_email BIGINT NOT NULL CHECK (failures_per_email BETWEEN 3 AND 50),
  window_minutes BIGINT NOT NULL CHECK (window_minutes BETWEEN 1 AND 1440),
  session_idle_minutes BIGINT NOT NULL CHECK (session_idle_minutes BETWEEN 5 AND 10080),
  session_absolute_hours BIGINT NOT NULL CHECK (session_absolute_hours BETWEEN 1 AND 720),
  updated_at TEXT NOT NULL
);

CREATE TABLE invitations (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id BIGINT NOT NULL REFERENCES teams(id),
  team_id BIGINT NOT NULL REFERENCES teams(id),
  email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'viewer')),
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'revoked', 'replaced')),
  invited_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
  message_id TEXT,
  user_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  closed_at TEXT
);
CREATE UNIQUE INDEX invitations_open ON invitations(account_id, lower(email)) WHERE status = 'open';
CREATE INDEX invitations_by_account ON invitations(account_id, id);

CREATE TABLE platform_invitations (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
  account_name TEXT NOT NULL CHECK (length(account_name) BETWEEN 1 AND 100),
  credits BIGINT NOT NULL CHECK (credits >= 0),
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'revoked', 'replaced')),
  invited_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
  message_id TEXT,
  account_id BIGINT REFERENCES teams(id),
  user_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  closed_at TEXT
);
CREATE UNIQUE INDEX platform_invitations_open ON platform_invitations(lower(email)) WHERE status = 'open';

CREATE TABLE password_resets (
  token_hash TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX password_resets_by_user ON password_resets(user_id);
CREATE UNIQUE INDEX password_resets_unused ON password_resets(user_id) WHERE used_at IS NULL;
`;

/** Credits, billing and the operators' records. A balance never goes below zero: balance_after's CHECK says so too. */
const LEDGER = `
CREATE TABLE credit_entries (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pool_id BIGINT NOT NULL REFERENCES teams(id),
  kind TEXT NOT NULL CHECK (kind IN ('grant', 'purchase', 'send', 'refund', 'transfer', 'expiry', 'adjustment')),
  amount BIGINT NOT NULL CHECK (amount <> 0),
  balance_after BIGINT NOT NULL CHECK (balance_after >= 0),
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

CREATE TABLE credit_totals (
  kind TEXT PRIMARY KEY,
  total BIGINT NOT NULL,
  entries BIGINT NOT NULL
);
INSERT INTO credit_totals (kind, total, entries) VALUES
  ('grant', 0, 0), ('purchase', 0, 0), ('send', 0, 0), ('refund', 0, 0), ('transfer', 0, 0), ('expiry', 0, 0), ('adjustment', 0, 0);

CREATE TABLE audit_log (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  operator_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
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

CREATE TABLE billing_info (
  account_id BIGINT PRIMARY KEY REFERENCES teams(id),
  info_json TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE invoices (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  sequence BIGINT NOT NULL UNIQUE,
  number TEXT NOT NULL UNIQUE,
  account_id BIGINT NOT NULL REFERENCES teams(id),
  payment_reference TEXT NOT NULL UNIQUE,
  revision BIGINT NOT NULL CHECK (revision >= 1),
  document_json TEXT NOT NULL,
  issued_at TEXT NOT NULL
);
CREATE INDEX invoices_by_account ON invoices(account_id, id);

CREATE TABLE invoice_revisions (
  invoice_id BIGINT NOT NULL REFERENCES invoices(id),
  revision BIGINT NOT NULL,
  document_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (invoice_id, revision)
);

CREATE TABLE payment_customers (
  account_id BIGINT PRIMARY KEY REFERENCES teams(id),
  customer_id TEXT NOT NULL UNIQUE,
  card_json TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE payments (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id BIGINT NOT NULL REFERENCES teams(id),
  intent_id TEXT UNIQUE,
  credits BIGINT NOT NULL CHECK (credits > 0),
  amount_minor BIGINT NOT NULL CHECK (amount_minor >= 0),
  currency TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('succeeded', 'processing', 'requires_action', 'failed')),
  failure_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX payments_by_account ON payments(account_id, id);

CREATE TABLE platform_settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE idempotency_replies (
  team_id BIGINT NOT NULL REFERENCES teams(id),
  idempotency_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  token TEXT NOT NULL,
  reply_status BIGINT,
  reply_body TEXT,
  expires_at TEXT NOT NULL,
  CHECK ((reply_status IS NULL) = (reply_body IS NULL)),
  PRIMARY KEY (team_id, idempotency_key)
);
CREATE INDEX idempotency_replies_expiry ON idempotency_replies(expires_at);
`;

/** Migration 38's tables (the support namespace), as SQLite's. */
const SUPPORT_SCHEMA = `
CREATE TABLE support_tickets (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  team_id BIGINT NOT NULL REFERENCES teams(id),
  opened_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  content TEXT NOT NULL,
  product TEXT,
  priority TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'active', 'closed')),
  response_count BIGINT NOT NULL DEFAULT 0,
  closed_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
  closed_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX support_tickets_by_team ON support_tickets(team_id, id);
CREATE INDEX support_tickets_by_status ON support_tickets(status, id);
CREATE TABLE support_responses (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ticket_id BIGINT NOT NULL REFERENCES support_tickets(id),
  author_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  author_kind TEXT NOT NULL CHECK (author_kind IN ('customer', 'agent')),
  content TEXT NOT NULL,
  feedback TEXT CHECK (feedback IN ('like', 'dislike')),
  created_at TEXT NOT NULL
);
CREATE INDEX support_responses_by_ticket ON support_responses(ticket_id, id);
CREATE TABLE support_attachments (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uploaded_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
  ticket_id BIGINT REFERENCES support_tickets(id),
  response_id BIGINT REFERENCES support_responses(id),
  file_name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size BIGINT NOT NULL,
  content BYTEA NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX support_attachments_by_ticket ON support_attachments(ticket_id, id);
CREATE TABLE support_docs (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  title TEXT NOT NULL,
  link TEXT NOT NULL,
  created_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
`;

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    // SQLite's schema as migration 36 left it, in one step: a PostgreSQL database starts where SQLite is.
    version: 36,
    name: 'baseline: the schema of SQLite migration 36',
    sql: [ACCOUNTS, MESSAGES, QUEUE, FIGURES, USERS, LEDGER].join('\n'),
  },
  {
    version: 37,
    name: 'login settings for lockout mail, log retention, application passwords and two-step sign-in; two-step challenges',
    // As SQLite's migration 37.
    sql: `
ALTER TABLE login_settings ADD COLUMN notify_on_lockout SMALLINT NOT NULL DEFAULT 0 CHECK (notify_on_lockout IN (0, 1));
ALTER TABLE login_settings ADD COLUMN log_retention_days BIGINT NOT NULL DEFAULT 90 CHECK (log_retention_days BETWEEN 1 AND 3650);
ALTER TABLE login_settings ADD COLUMN application_passwords SMALLINT NOT NULL DEFAULT 1 CHECK (application_passwords IN (0, 1));
ALTER TABLE login_settings ADD COLUMN two_step_roles TEXT NOT NULL DEFAULT '';

CREATE TABLE two_step_challenges (
  token_hash TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL CHECK (length(code_hash) = 64),
  attempts BIGINT NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX two_step_challenges_expiry ON two_step_challenges(expires_at);
CREATE UNIQUE INDEX two_step_challenges_unused ON two_step_challenges(user_id) WHERE used_at IS NULL;
`,
  },
  {
    // SQLite's migration 38: support tickets, responses, attachments and docs.
    version: 38,
    name: 'support tickets, their responses and attachments, and the docs operators suggest',
    sql: SUPPORT_SCHEMA,
  },
  {
    version: 39,
    name: 'email templates and their layout',
    // As SQLite's migration 39.
    sql: `
CREATE TABLE email_templates (
  email_id TEXT PRIMARY KEY,
  subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 300),
  body TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 20000),
  enabled SMALLINT NOT NULL CHECK (enabled IN (0, 1)),
  updated_at TEXT NOT NULL
);

CREATE TABLE email_layout (
  id BIGINT PRIMARY KEY CHECK (id = 1),
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
    // As SQLite's migration 40.
    sql: `
CREATE TABLE integrity_scan (
  id BIGINT PRIMARY KEY CHECK (id = 1),
  registered_at TEXT,
  daily SMALLINT NOT NULL CHECK (daily IN (0, 1)),
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
    // As SQLite's migration 41.
    sql: `
CREATE TABLE sign_in_redirects (
  account_id BIGINT PRIMARY KEY REFERENCES teams(id),
  rules TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  },
  {
    version: 42,
    name: 'sign-in with a provider: its settings, the links of users to their provider subjects, the method of an auth log entry',
    // As SQLite's migration 42.
    sql: `
CREATE TABLE social_sign_in_providers (
  provider TEXT PRIMARY KEY CHECK (provider IN ('google', 'github')),
  enabled SMALLINT NOT NULL CHECK (enabled IN (0, 1)),
  client_id TEXT NOT NULL,
  client_secret_enc TEXT,
  issuer TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE social_sign_in_links (
  provider TEXT NOT NULL CHECK (provider IN ('google', 'github')),
  subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
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
    // As SQLite's migration 43.
    sql: `
CREATE TABLE sso_sites (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    // As SQLite's migration 44.
    sql: `
CREATE TABLE branding_images (
  id TEXT PRIMARY KEY CHECK (length(id) = 32),
  content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  content BYTEA NOT NULL,
  uploaded_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE sign_in_branding (
  id BIGINT PRIMARY KEY CHECK (id = 1),
  logo_image_id TEXT REFERENCES branding_images(id),
  background_color TEXT,
  button_color TEXT,
  message TEXT NOT NULL CHECK (length(message) <= 500),
  updated_at TEXT NOT NULL
);

-- Magic-link sign-in (issue 26): an account's switch, the links mailed (only the token's SHA-256 kept; used once,
-- decided in one UPDATE); the auth log's method ('magic_link') is migration 42's column.
ALTER TABLE login_settings ADD COLUMN magic_link SMALLINT NOT NULL DEFAULT 0 CHECK (magic_link IN (0, 1));

CREATE TABLE magic_links (
  token_hash TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
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
    // As SQLite's migration 45.
    sql: `
ALTER TABLE support_tickets ADD COLUMN assigned_to BIGINT REFERENCES users(id) ON DELETE SET NULL;
CREATE INDEX support_tickets_by_assignee ON support_tickets(assigned_to, id);
`,
  },
  {
    version: 46,
    name: 'support forwarding outbox',
    // As SQLite's migration 46.
    sql: `
CREATE TABLE support_forwards (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('ticket.created', 'ticket.response')),
  ticket_id BIGINT NOT NULL REFERENCES support_tickets(id) ON DELETE CASCADE,
  response_id BIGINT REFERENCES support_responses(id) ON DELETE CASCADE,
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
    // As SQLite's migration 47.
    sql: `
CREATE TABLE content_items (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  type TEXT NOT NULL CHECK (type IN ('post', 'page', 'wp_block', 'wp_template', 'wp_template_part', 'wp_navigation', 'nav_menu_item', 'wp_font_family', 'wp_font_face', 'wp_global_styles', 'revision')),
  status TEXT NOT NULL CHECK (status IN ('publish', 'future', 'draft', 'pending', 'private', 'trash', 'inherit', 'auto-draft')),
  team_id BIGINT REFERENCES teams(id) ON DELETE CASCADE,
  author_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  parent_id BIGINT REFERENCES content_items(id) ON DELETE CASCADE,
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
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  taxonomy TEXT NOT NULL CHECK (taxonomy IN ('category', 'post_tag', 'nav_menu', 'wp_pattern_category')),
  name TEXT NOT NULL,
  slug TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  parent_id BIGINT REFERENCES content_terms(id) ON DELETE SET NULL,
  UNIQUE (taxonomy, slug)
);
CREATE TABLE content_item_terms (
  item_id BIGINT NOT NULL REFERENCES content_items(id) ON DELETE CASCADE,
  term_id BIGINT NOT NULL REFERENCES content_terms(id) ON DELETE CASCADE,
  PRIMARY KEY (item_id, term_id)
);
CREATE INDEX content_item_terms_by_term ON content_item_terms(term_id, item_id);
`,
  },
  {
    version: 48,
    name: 'media (wp/v2/media): uploaded files and their bytes',
    // As SQLite's migration 48.
    sql: `
CREATE TABLE media (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  team_id BIGINT REFERENCES teams(id) ON DELETE CASCADE,
  author_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  caption TEXT NOT NULL,
  alt_text TEXT NOT NULL,
  description TEXT NOT NULL,
  slug TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('inherit', 'private')),
  mime_type TEXT NOT NULL,
  size BIGINT NOT NULL CHECK (size >= 0),
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
  media_id BIGINT PRIMARY KEY REFERENCES media(id) ON DELETE CASCADE,
  content BYTEA NOT NULL
);
`,
  },
  {
    version: 49,
    name: 'users: WordPress profile fields (username, slug, names, nickname, url, description, locale)',
    // As SQLite's migration 49; the username's unique index is on lower(username), as the email's.
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
CREATE UNIQUE INDEX users_username ON users(lower(username));
CREATE INDEX users_by_slug ON users(slug);
`,
  },
];

/** The schema version this release brings a PostgreSQL database to: its newest migration. */
export const PG_LATEST_SCHEMA_VERSION = Math.max(...PG_MIGRATIONS.map((m) => m.version));
