// The repository contract: what every store engine must do, checked through the Store interfaces and
// StoreTestSupport only (no SQL, nothing of store/sqlite), so that a second engine runs it unchanged.
import type { Test } from 'tap';
import type { ContractEngine } from './contract/fixtures.js';
import { teamChecks } from './contract/teams.js';
import { domainChecks } from './contract/domains.js';
import { keyChecks } from './contract/keys.js';
import { webhookChecks } from './contract/webhooks.js';
import { suppressionChecks } from './contract/suppressions.js';
import { messageLogChecks } from './contract/message-log.js';
import { feedbackChecks, outboxClaimChecks } from './contract/feedback.js';
import { statisticsChecks } from './contract/statistics.js';
import { userChecks } from './contract/users.js';
import { loginSecurityChecks } from './contract/login-security.js';
import { twoStepChallengeChecks } from './contract/two-step.js';
import { emailTemplateChecks } from './contract/email-templates.js';
import { socialSignInChecks } from './contract/social-sign-in.js';
import { integrityChecks } from './contract/integrity.js';
import { singleSignOnChecks } from './contract/single-sign-on.js';
import { contentChecks } from './contract/content.js';
import { brandingChecks } from './contract/branding.js';
import { mediaChecks } from './contract/media.js';
import { magicLinkChecks } from './contract/magic-links.js';
import { dnsConnectionChecks } from './contract/dns-connections.js';
import { concurrentReadChecks } from './contract/concurrent-reads.js';
import { creditChecks } from './contract/credits.js';
import { passwordResetChecks } from './contract/password-resets.js';
import { systemChecks } from './contract/system.js';
import { invitationChecks } from './contract/invitations.js';
import { platformInvitationChecks } from './contract/platform-invitations.js';
import { billingChecks } from './contract/billing.js';
import { paymentChecks } from './contract/payments.js';
import { auditLogChecks } from './contract/audit-log.js';
import { platformStatisticsChecks } from './contract/platform-statistics.js';
import { adminTeamChecks } from './contract/admin-teams.js';
import { adminDomainChecks } from './contract/admin-domains.js';
import { queueChecks } from './contract/queue.js';
import { queueControlChecks } from './contract/queue-control.js';
import { figureChecks } from './contract/figures.js';
import { idempotencyChecks } from './contract/idempotency.js';
import { inboundReportChecks } from './contract/inbound-reports.js';
import { supportChecks } from './contract/support.js';

export type { ContractEngine } from './contract/fixtures.js';

/** Each group of checks: what it covers, and its checks. */
const REPOSITORIES = [
  ['teams (accounts and their child teams)', teamChecks],
  ['domains', domainChecks],
  ['keys', keyChecks],
  ['webhooks', webhookChecks],
  ['suppressions', suppressionChecks],
  ['message log', messageLogChecks],
  ['feedback', feedbackChecks],
  ['the webhook outbox claimed by several dispatchers (feedback)', outboxClaimChecks],
  ['inbound reports kept with their bodies, claimed by several workers (feedback)', inboundReportChecks],
  ['statistics', statisticsChecks],
  ['users, sessions and application passwords', userChecks],
  ['auth log and login settings', loginSecurityChecks],
  ['two-step sign-in challenges', twoStepChallengeChecks],
  ['email templates', emailTemplateChecks],
  ['sign-in with a provider', socialSignInChecks],
  ['integrity scan', integrityChecks],
  ['single sign-on: paired dashboards and spent tokens', singleSignOnChecks],
  ['content: items of the post types and terms of the taxonomies', contentChecks],
  ["the sign-in page's branding and its images", brandingChecks],
  ['media: uploaded files, their lists and their bytes', mediaChecks],
  ['sign-in links mailed to users (magic links)', magicLinkChecks],
  ['DNS-provider connections', dnsConnectionChecks],
  ['the credit ledger', creditChecks],
  ['password resets', passwordResetChecks],
  ['the database itself (schema and engine versions)', systemChecks],
  ['invitations of dashboard users', invitationChecks],
  ["operators' invitations to open an account", platformInvitationChecks],
  ['billing info and invoices', billingChecks],
  ['card payments', paymentChecks],
  ["the operators' audit log", auditLogChecks],
  ['figures across every tenant', platformStatisticsChecks],
  ["the operators' reads and suspensions of tenants", adminTeamChecks],
  ["the operators' reads of every tenant's domains", adminDomainChecks],
  ['lookups of the send path made at the same moment', concurrentReadChecks],
  ['the queue: fenced leases and the effects of results and reports (unit of work)', queueChecks],
  ["queue control: operators' moves, fenced on state; purge and requeue", queueControlChecks],
  ['figures following every write that creates or moves a recipient', figureChecks],
  ['Idempotency-Key replies: one reservation per key, kept replies, takeovers, sweeps', idempotencyChecks],
  ['support tickets, responses, votes, attachments, docs and where tickets go', supportChecks],
] as const;

/** Runs every group of the contract on `engine`. */
export function runRepositoryContract(t: Test, engine: ContractEngine): void {
  for (const [repository, checks] of REPOSITORIES) {
    t.test(`${engine.name}: ${repository}`, async (t) => {
      for (const { name, run } of checks) await t.test(name, (t) => run(t, engine));
    });
  }
}
