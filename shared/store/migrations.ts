// Numbered schema migrations. Each runs once, in order, inside one transaction; never edit a landed one.
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
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
];
