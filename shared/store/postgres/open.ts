// Opens the PostgreSQL store of a database URL, its schema brought up to date first: every repository of Store,
// each passing the whole contract suite (test/store/postgres.test.ts).
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
import { PgIdempotencyStore } from './idempotency.js';
import { PgSupportStore } from './support.js';
import { PgSessionStore } from './sessions.js';
import { PgApplicationPasswordStore } from './application-passwords.js';
import { PgAuthLogStore, PgLoginSettingsStore } from './login-security.js';
import { PgPasswordResetStore } from './password-resets.js';
import { PgInvitationStore } from './invitations.js';
import { PgPlatformInvitationStore } from './platform-invitations.js';
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
import { PgTwoStepChallengeStore } from './two-step.js';
import { PgEmailTemplateStore } from './email-templates.js';
import { PgSocialSignInStore } from './social-sign-in.js';
import { PgIntegrityStore } from './integrity.js';
import { PgSingleSignOnStore } from './single-sign-on.js';
import { PgContentStore } from './content.js';
import { PgBrandingStore } from './branding.js';
import { PgMediaStore } from './media.js';
import { PgMagicLinkStore } from './magic-links.js';

/** The store of the database at `url`, its schema brought up to date first. */
export async function openPostgresStore(url: string, options: PoolOptions = {}): Promise<Store> {
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
    sessions: new PgSessionStore(sql),
    applicationPasswords: new PgApplicationPasswordStore(sql),
    authLog: new PgAuthLogStore(sql),
    loginSettings: new PgLoginSettingsStore(sql),
    passwordResets: new PgPasswordResetStore(sql),
    twoStepChallenges: new PgTwoStepChallengeStore(sql),
    emailTemplates: new PgEmailTemplateStore(sql),
    socialSignIn: new PgSocialSignInStore(sql),
    integrity: new PgIntegrityStore(sql),
    singleSignOn: new PgSingleSignOnStore(sql),
    content: new PgContentStore(sql),
    branding: new PgBrandingStore(sql),
    media: new PgMediaStore(sql),
    magicLinks: new PgMagicLinkStore(sql),
    invitations: new PgInvitationStore(sql),
    platformInvitations: new PgPlatformInvitationStore(sql),
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
    idempotency: new PgIdempotencyStore(sql),
    support: new PgSupportStore(sql),
    close: () => sql.close(),
  };
}
