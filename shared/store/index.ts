// The store: repositories that take and return domain types (store/*.ts). Only the engines behind them know
// SQL: store/sqlite/, which openStore wires, and store/postgres/, being written and not selectable yet.
import type { TeamRepository } from './teams.js';
import type { DomainRepository } from './domains.js';
import type { KeyRepository } from './keys.js';
import type { WebhookRepository } from './webhooks.js';
import type { SuppressionRepository } from './suppressions.js';
import type { MessageLogRepository } from './message-log.js';
import type { FeedbackRepository } from './feedback.js';
import type { QueueRepository } from './queue.js';
import type { TwoStepChallengeRepository } from './two-step.js';
import type { EmailTemplateRepository } from './email-templates.js';
import type { SocialSignInRepository } from './social-sign-in.js';
import type { BrandingRepository } from './branding.js';
import type { MediaRepository } from './media.js';
import type { MagicLinkRepository } from './magic-links.js';
import type { IntegrityRepository } from './integrity.js';
import type { SingleSignOnRepository } from './single-sign-on.js';
import type { ContentRepository } from './content.js';
import type { QueueControlRepository } from './queue-control.js';
import type { StatisticsRepository } from './statistics.js';
import type { ApplicationPasswordRepository, SessionRepository, UserRepository } from './users.js';
import type { AuthLogRepository, LoginSettingsRepository } from './login-security.js';
import type { DnsConnectionRepository } from './dns-connections.js';
import type { InvitationRepository } from './invitations.js';
import type { PlatformInvitationRepository } from './platform-invitations.js';
import type { CreditLedgerRepository } from './credits.js';
import type { PlatformStatisticsRepository } from './platform-statistics.js';
import type { BillingRepository } from './billing.js';
import type { PaymentRepository } from './payments.js';
import type { AuditLogRepository } from './audit-log.js';
import type { AdminTeamRepository } from './admin-teams.js';
import type { AdminDomainRepository } from './admin-domains.js';
import type { PasswordResetRepository } from './password-resets.js';
import type { DatabaseBackup } from './database-backup.js';
import type { LogLoading } from './log-loader.js';
import type { SystemRepository } from './system.js';
import type { IdempotencyRepository } from './idempotency.js';
import type { SupportRepository } from './support.js';
import type { Transaction } from './unit-of-work.js';
import { openSqliteStore } from './sqlite/open.js';
import { sqliteDatabaseBackup } from './sqlite/online-backup.js';
import { sqliteLogLoading } from './sqlite/log-loader.js';
import { postgresLogLoading } from './postgres/log-loader.js';
import { openTestSupport } from './sqlite/test-support.js';
import { openPostgresStore } from './postgres/open.js';
import { openPostgresTestSupport } from './postgres/test-support.js';
import type { StoreTestSupport } from './test-support.js';

export interface Store {
  readonly teams: TeamRepository;
  readonly domains: DomainRepository;
  readonly keys: KeyRepository;
  readonly webhooks: WebhookRepository;
  readonly suppressions: SuppressionRepository;
  readonly messages: MessageLogRepository;
  /** The queue's rows; only the queue module (queue/) uses it. */
  readonly queue: QueueRepository;
  /** What operators read and steer of the queue; only the queue module (queue/) uses it. */
  readonly queueControl: QueueControlRepository;
  readonly feedback: FeedbackRepository;
  /** Message counts over periods, kept on write, and queue depth: the dashboard's statistics. */
  readonly statistics: StatisticsRepository;
  /** Dashboard users, their sessions and application passwords. */
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly applicationPasswords: ApplicationPasswordRepository;
  /** Every login attempt, and each account's login settings. */
  readonly authLog: AuthLogRepository;
  readonly loginSettings: LoginSettingsRepository;
  /** Teams' connections to DNS hosting providers. */
  readonly dnsConnections: DnsConnectionRepository;
  /** Invitations of dashboard users. */
  readonly invitations: InvitationRepository;
  /** Operators' invitations to open a new client account. */
  readonly platformInvitations: PlatformInvitationRepository;
  /** The credit ledger: every change of a balance. */
  readonly credits: CreditLedgerRepository;
  /** Figures across every team, for the platform's operators. */
  readonly platformStatistics: PlatformStatisticsRepository;
  /** Accounts' billing info and invoices. */
  readonly billing: BillingRepository;
  /** Card payments: customers at the provider, saved cards, payments of credits. */
  readonly payments: PaymentRepository;
  /** Platform operators' actions. */
  readonly auditLog: AuditLogRepository;
  /** The operators' reads across teams, and the platform's suspensions recorded with their audit entry. */
  readonly adminTeams: AdminTeamRepository;
  /** The operators' reads of every team's sending domains. */
  readonly adminDomains: AdminDomainRepository;
  /** Links users ask for by mail to set a new password. */
  readonly passwordResets: PasswordResetRepository;
  /** Codes mailed for two-step sign-in. */
  readonly twoStepChallenges: TwoStepChallengeRepository;
  /** Operators' edits of the mail Tern sends itself, and its layout. */
  readonly emailTemplates: EmailTemplateRepository;
  /** Sign-in with a provider: its settings, and the provider subjects linked to users. */
  readonly socialSignIn: SocialSignInRepository;
  /** The integrity scan of the installation: its state and ignored paths. */
  readonly integrity: IntegrityRepository;
  /** Single sign-on: the dashboards paired with this one, and the tokens spent. */
  readonly singleSignOn: SingleSignOnRepository;
  readonly content: ContentRepository;
  /** The sign-in page's branding and the images uploaded for it. */
  readonly branding: BrandingRepository;
  /** The media (wp/v2/media): teams' and the platform's uploaded files and their bytes. */
  readonly media: MediaRepository;
  /** Sign-in links mailed to users (magic-link sign-in). */
  readonly magicLinks: MagicLinkRepository;
  /** The database itself: its schema version and engine, for the operator's status and the readiness probe. */
  readonly system: SystemRepository;
  /** Replies of sends made with an Idempotency-Key, when kept in the database (idempotency.store). */
  readonly idempotency: IdempotencyRepository;
  /** Support tickets, their responses and attachments, the docs operators suggest, where tickets go. */
  readonly support: SupportRepository;
  /** The unit of work: row operations bound to one transaction, for writes whose effects the queue module decides. */
  readonly transaction: Transaction;
  close(): Promise<void>;
}

/**
 * The store, migrated to the current schema: on PostgreSQL when `databaseUrl` is given (TERNMAIL_DATABASE_URL),
 * else the embedded SQLite file of the data directory (created if missing).
 */
export function openStore(dataDir: string, databaseUrl: string | null = null): Promise<Store> {
  return databaseUrl === null ? openSqliteStore(dataDir) : openPostgresStore(databaseUrl);
}

/** The tests' support (aging records, forcing states) on the store of a data directory or database, from the same engine. */
export function openStoreTestSupport(dataDir: string, databaseUrl: string | null = null): Promise<StoreTestSupport> {
  return databaseUrl === null ? openTestSupport(dataDir) : openPostgresTestSupport(databaseUrl);
}

/** Consistent copies of the live database, for `ternmail backup` and `ternmail restore`. */
export const databaseBackup: DatabaseBackup = sqliteDatabaseBackup;

/** The benchmarks' bulk loading of the message log and its list's query plans; never used by the product. */
export const logLoading: LogLoading = {
  openLogLoader: (dataDir, databaseUrl) => (databaseUrl === null ? sqliteLogLoading.openLogLoader(dataDir) : postgresLogLoading.openLogLoader(databaseUrl)),
  openListExplainer: (dataDir, databaseUrl) => (databaseUrl === null ? sqliteLogLoading.openListExplainer(dataDir) : postgresLogLoading.openListExplainer(databaseUrl)),
};
