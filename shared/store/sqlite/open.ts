// Opens the SQLite store of a data directory: one database file, migrated, behind the repositories.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite, type Sql } from './sql.js';
import { migrate } from './migrate.js';
import { TeamStore } from './teams.js';
import { DomainStore } from './domains.js';
import { KeyStore } from './keys.js';
import { WebhookStore } from './webhooks.js';
import { SuppressionStore } from './suppressions.js';
import { MessageStore } from './messages.js';
import { QueueStore } from './queue.js';
import { QueueControlStore } from './queue-control.js';
import { FeedbackStore } from './feedback.js';
import { StatisticsStore } from './statistics.js';
import { UserStore } from './users.js';
import { SessionStore } from './sessions.js';
import { ApplicationPasswordStore } from './application-passwords.js';
import { AuthLogStore, LoginSettingsStore } from './login-security.js';
import { DnsConnectionStore } from './dns-connections.js';
import { InvitationStore } from './invitations.js';
import { PlatformInvitationStore } from './platform-invitations.js';
import { CreditLedgerStore } from './credits.js';
import { PlatformStatisticsStore } from './platform-statistics.js';
import { BillingStore } from './billing.js';
import { PaymentStore } from './payments.js';
import { AuditLogStore } from './audit-log.js';
import { AdminTeamStore } from './admin-teams.js';
import { AdminDomainStore } from './admin-domains.js';
import { PasswordResetStore } from './password-resets.js';
import { SystemStore } from './system.js';
import { IdempotencyStore } from './idempotency.js';
import { SupportStore } from './support.js';
import { SqliteUnitOfWork } from './unit-of-work.js';
import type { Store } from '../index.js';
import { TwoStepChallengeStore } from './two-step.js';
import { EmailTemplateStore } from './email-templates.js';
import { SocialSignInStore } from './social-sign-in.js';
import { IntegrityStore } from './integrity.js';
import { SingleSignOnStore } from './single-sign-on.js';
import { ContentStore } from './content.js';
import { BrandingStore } from './branding.js';
import { MediaStore } from './media.js';
import { MagicLinkStore } from './magic-links.js';

/** The database file of a data directory. */
export const databaseFile = (dataDir: string): string => join(dataDir, 'tern.db');

/** Opens (and creates) the database of a data directory and brings its schema up to date. */
export async function openDatabase(dataDir: string): Promise<Sql> {
  mkdirSync(dataDir, { recursive: true, mode: 0o750 });
  const sql = await openSqlite(databaseFile(dataDir));
  await migrate(sql);
  return sql;
}

export async function openSqliteStore(dataDir: string): Promise<Store> {
  const sql = await openDatabase(dataDir);
  return {
    teams: new TeamStore(sql),
    domains: new DomainStore(sql),
    keys: new KeyStore(sql),
    webhooks: new WebhookStore(sql),
    suppressions: new SuppressionStore(sql),
    messages: new MessageStore(sql),
    queue: new QueueStore(sql),
    queueControl: new QueueControlStore(sql),
    feedback: new FeedbackStore(sql),
    statistics: new StatisticsStore(sql),
    users: new UserStore(sql),
    sessions: new SessionStore(sql),
    applicationPasswords: new ApplicationPasswordStore(sql),
    authLog: new AuthLogStore(sql),
    loginSettings: new LoginSettingsStore(sql),
    dnsConnections: new DnsConnectionStore(sql),
    invitations: new InvitationStore(sql),
    platformInvitations: new PlatformInvitationStore(sql),
    credits: new CreditLedgerStore(sql),
    platformStatistics: new PlatformStatisticsStore(sql),
    billing: new BillingStore(sql),
    payments: new PaymentStore(sql),
    auditLog: new AuditLogStore(sql),
    adminTeams: new AdminTeamStore(sql),
    adminDomains: new AdminDomainStore(sql),
    passwordResets: new PasswordResetStore(sql),
    twoStepChallenges: new TwoStepChallengeStore(sql),
    emailTemplates: new EmailTemplateStore(sql),
    socialSignIn: new SocialSignInStore(sql),
    integrity: new IntegrityStore(sql),
    singleSignOn: new SingleSignOnStore(sql),
    content: new ContentStore(sql),
    branding: new BrandingStore(sql),
    media: new MediaStore(sql),
    magicLinks: new MagicLinkStore(sql),
    system: new SystemStore(sql),
    idempotency: new IdempotencyStore(sql),
    support: new SupportStore(sql),
    // Grouped: many callers' units share one transaction and one fsync, each in its own savepoint.
    transaction: (work) => sql.grouped((q) => work(new SqliteUnitOfWork(q))),
    close: () => sql.close(),
  };
}
