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

export type { ContractEngine } from './contract/fixtures.js';

/** Each group of checks: a short stable key (the contract file's name), what it covers, its checks. */
const REPOSITORIES = [
  ['teams', 'teams (accounts and their child teams)', teamChecks],
  ['domains', 'domains', domainChecks],
  ['keys', 'keys', keyChecks],
  ['webhooks', 'webhooks', webhookChecks],
  ['suppressions', 'suppressions', suppressionChecks],
  ['message-log', 'message log', messageLogChecks],
  ['feedback', 'feedback', feedbackChecks],
  ['outbox-claims', 'the webhook outbox claimed by several dispatchers (feedback)', outboxClaimChecks],
  ['inbound-reports', 'inbound reports kept with their bodies, claimed by several workers (feedback)', inboundReportChecks],
  ['statistics', 'statistics', statisticsChecks],
  ['users', 'users, sessions and application passwords', userChecks],
  ['login-security', 'auth log and login settings', loginSecurityChecks],
  ['dns-connections', 'DNS-provider connections', dnsConnectionChecks],
  ['credits', 'the credit ledger', creditChecks],
  ['password-resets', 'password resets', passwordResetChecks],
  ['system', 'the database itself (schema and engine versions)', systemChecks],
  ['invitations', 'invitations of dashboard users', invitationChecks],
  ['platform-invitations', "operators' invitations to open an account", platformInvitationChecks],
  ['billing', 'billing info and invoices', billingChecks],
  ['payments', 'card payments', paymentChecks],
  ['audit-log', "the operators' audit log", auditLogChecks],
  ['platform-statistics', 'figures across every tenant', platformStatisticsChecks],
  ['admin-teams', "the operators' reads and suspensions of tenants", adminTeamChecks],
  ['admin-domains', "the operators' reads of every tenant's domains", adminDomainChecks],
  ['concurrent-reads', 'lookups of the send path made at the same moment', concurrentReadChecks],
  ['queue', 'the queue: fenced leases and the effects of results and reports (unit of work)', queueChecks],
  ['queue-control', "queue control: operators' moves, fenced on state; purge and requeue", queueControlChecks],
  ['figures', 'figures following every write that creates or moves a recipient', figureChecks],
  ['idempotency', 'Idempotency-Key replies: one reservation per key, kept replies, takeovers, sweeps', idempotencyChecks],
] as const;

export type RepositoryKey = (typeof REPOSITORIES)[number][0];

/**
 * Runs the contract on `engine`: every group, or only the groups of `only` (an engine being written runs the
 * groups of the repositories it has; a key not in the contract fails to type-check).
 */
export function runRepositoryContract(t: Test, engine: ContractEngine, only?: readonly RepositoryKey[]): void {
  for (const [key, repository, checks] of REPOSITORIES) {
    if (only && !only.includes(key)) continue;
    t.test(`${engine.name}: ${repository}`, async (t) => {
      for (const { name, run } of checks) await t.test(name, (t) => run(t, engine));
    });
  }
}
