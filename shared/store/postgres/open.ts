// Opens the PostgreSQL store of a database URL: migrated, behind the repositories written so far. Not yet
// reachable from openStore (shared/store/index.ts): the engine is incomplete, so no user can select it; the
// contract suite runs what exists (test/store/postgres.test.ts).
import type { Store } from '../index.js';
import { openPostgres, type PoolOptions } from './sql.js';
import { migratePostgres } from './migrate.js';
import { PgSystemStore } from './system.js';
import { PgUserStore } from './users.js';
import { PgAuditLogStore } from './audit-log.js';
import { PgDomainStore } from './domains.js';
import { PgKeyStore } from './keys.js';
import { PgWebhookStore } from './webhooks.js';
import { PgDnsConnectionStore } from './dns-connections.js';
import { PgAdminDomainStore } from './admin-domains.js';
import { PgAdminTeamStore } from './admin-teams.js';
import { PgTeamStore } from './teams.js';
import { PgCreditLedgerStore } from './credits.js';
import { PgMessageStore } from './messages.js';
import { PgQueueStore } from './queue.js';
import { PgQueueControlStore } from './queue-control.js';
import { PgStatisticsStore } from './statistics.js';
import { PgPlatformStatisticsStore } from './platform-statistics.js';
import { PgUnitOfWork } from './unit-of-work.js';
import { PgSuppressionStore } from './suppressions.js';
import { PgFeedbackStore } from './feedback.js';
import { PgBillingStore } from './billing.js';
import { PgPaymentStore } from './payments.js';

/** The repositories of Store the PostgreSQL engine has so far; each engineer adding one adds it here. */
export type PostgresRepositories = Pick<
  Store,
  | 'system'
  | 'users'
  | 'auditLog'
  | 'teams'
  | 'credits'
  | 'domains'
  | 'keys'
  | 'webhooks'
  | 'dnsConnections'
  | 'messages'
  | 'queue'
  | 'queueControl'
  | 'statistics'
  | 'platformStatistics'
  | 'transaction'
  | 'suppressions'
  | 'feedback'
  | 'billing'
  | 'payments'
  | 'adminDomains'
  | 'adminTeams'
  | 'close'
>;

/** The store of the database at `url`, its schema brought up to date first. */
export async function openPostgresStore(url: string, options: PoolOptions = {}): Promise<PostgresRepositories> {
  await migratePostgres(url);
  const sql = openPostgres(url, options);
  const statistics = new PgStatisticsStore(sql);
  return {
    system: new PgSystemStore(sql),
    users: new PgUserStore(sql),
    auditLog: new PgAuditLogStore(sql),
    domains: new PgDomainStore(sql),
    keys: new PgKeyStore(sql),
    webhooks: new PgWebhookStore(sql),
    dnsConnections: new PgDnsConnectionStore(sql),
    adminDomains: new PgAdminDomainStore(sql),
    adminTeams: new PgAdminTeamStore(sql),
    teams: new PgTeamStore(sql),
    credits: new PgCreditLedgerStore(sql),
    messages: new PgMessageStore(sql),
    queue: new PgQueueStore(sql),
    queueControl: new PgQueueControlStore(sql),
    statistics,
    platformStatistics: new PgPlatformStatisticsStore(sql),
    transaction: (work) => sql.tx((q) => work(new PgUnitOfWork(q))),
    suppressions: new PgSuppressionStore(sql),
    // The reputation figures (feedback.rates) read the statistics' counters.
    feedback: new PgFeedbackStore(sql, statistics),
    billing: new PgBillingStore(sql),
    payments: new PgPaymentStore(sql),
    close: () => sql.close(),
  };
}
