// The platform's credits, for its operators: every grant, purchase and adjustment across teams, credits granted
// to or removed from a team with a reason (each an entry of the ledger, recorded in the audit log in the same
// transaction), and the summary (granted, purchased, used, outstanding) from the ledger's kept totals.
import type { Logger } from '../../log.js';
import type { Store } from '../../store/index.js';
import type { PageOf, PageRequest } from '../../store/paging.js';
import type { CreditTotals } from '../../store/credits.js';
import type { CreditEntry, CreditEntryKind } from '../../domain/credits.js';
import type { Operator } from '../../domain/user.js';
import { MAX_CREDITS_MOVED, type Credits } from '../credits.js';
import type { Billing } from '../billing.js';
import type { Invoice } from '../../domain/billing.js';
import { accountIdOf, payerIdOf } from '../../domain/team.js';
import { dateBound } from '../message-log.js';
import { auditEntry } from '../audit-log.js';
import { notFound, refuse, done, type Managed } from '../management-refusals.js';
import { reasonProblem } from './teams.js';
import type { LowBalanceAlerts, LowBalanceMail } from '../low-balance.js';

function paymentProblem(credits: number, p: OfflinePayment): Managed<never> | undefined {
  if (!Number.isInteger(credits) || credits < 1 || credits > MAX_CREDITS_MOVED)
    return refuse({ kind: 'invalid_field', field: 'amount', message: `A payment buys 1 to ${MAX_CREDITS_MOVED} credits.` });
  if (!Number.isInteger(p.amountMinor) || p.amountMinor < 0)
    return refuse({ kind: 'invalid_field', field: 'paid_amount_minor', message: 'paid_amount_minor must be a whole amount in minor units (cents), 0 or more.' });
  if (!/^[A-Z]{3}$/.test(p.currency)) return refuse({ kind: 'invalid_field', field: 'currency', message: 'currency must be an ISO 4217 code in capitals, e.g. EUR.' });
  if (!/^[\x21-\x7e]{1,100}$/.test(p.reference))
    return refuse({ kind: 'invalid_field', field: 'payment_reference', message: 'payment_reference must be 1 to 100 printable ASCII characters without spaces.' });
  return undefined;
}

/** What GET /admin/credits lists unless asked for a type: what the platform and payments put in or took out. */
export const PLATFORM_KINDS: readonly CreditEntryKind[] = ['grant', 'purchase', 'adjustment', 'expiry'];

export interface PlatformCreditFilter {
  payerId?: number;
  kind?: CreditEntryKind;
  from?: string;
  to?: string;
}

export interface CreditSummary {
  granted: number;
  purchased: number;
  /** Credits spent on recipients sent: sends less refunds. */
  used: number;
  refunded: number;
  /** Removed by the platform (negative adjustments and expiries, as a positive number) less positive adjustments. */
  removed: number;
  /** What every payer holds now. */
  outstanding: number;
}

/** The summary from the ledger's kept totals (the opening balances of migration 16 count as positive adjustments). */
export function creditSummaryOf({ byKind, outstanding }: CreditTotals): CreditSummary {
  return {
    granted: byKind.grant.total,
    purchased: byKind.purchase.total,
    used: -byKind.send.total - byKind.refund.total,
    refunded: byKind.refund.total,
    removed: -(byKind.adjustment.total + byKind.expiry.total),
    outstanding,
  };
}

/** A payment the platform received outside Tern (a bank transfer): what was paid, and its reference. */
export interface OfflinePayment {
  amountMinor: number;
  currency: string;
  reference: string;
}

export class PlatformCredits {
  constructor(
    private readonly d: { store: Store },
    private readonly credits: Credits,
    private readonly lowBalance: LowBalanceAlerts,
    private readonly billing: Billing,
  ) {}

  /**
   * Credits bought outside Tern: a purchase entry (once per payment reference) and its audit entry in one
   * transaction, then the payment's invoice.
   */
  async recordPayment(
    operator: Operator,
    payerId: number,
    credits: number,
    payment: OfflinePayment,
    reason: string,
    log: Logger,
  ): Promise<Managed<{ entry: CreditEntry; invoice: Invoice }>> {
    const bad = reasonProblem(reason) ?? paymentProblem(credits, payment);
    if (bad) return bad;
    const payer = await this.d.store.teams.get(payerId);
    if (!payer || payerIdOf(payer) !== payer.id) return notFound('team', 'Account not found', 'account_id');
    const at = new Date().toISOString();
    const actor = { kind: 'operator', id: String(operator.id) } as const;
    const entry = await this.d.store.credits.post({ payerId, kind: 'purchase', amount: credits, actor, reference: payment.reference, reason }, (made) =>
      auditEntry(
        operator,
        {
          action: 'credits.payment',
          target: { kind: 'tenant', id: String(payerId) },
          before: { balance: made.balanceAfter - credits },
          after: { balance: made.balanceAfter, entry_id: made.id, payment: payment.reference },
          reason,
        },
        at,
      ),
    );
    if (entry === 'already_recorded') return refuse({ kind: 'invalid_field', field: 'payment_reference', message: 'This payment is already recorded.' });
    if (typeof entry === 'string') return notFound('team', 'Account not found', 'account_id');
    const invoice = await this.billing.issue(accountIdOf(payer), {
      reference: payment.reference,
      credits,
      amountMinor: payment.amountMinor,
      currency: payment.currency,
      paidAt: at,
    });
    log.info({ pool: payerId, credits, invoice: invoice.number }, 'offline payment recorded');
    return done({ entry, invoice });
  }

  /** The low-balance mail for a team's payer, now (the platform's button), recorded in the audit log. */
  async sendLowCreditEmail(operator: Operator, teamId: number, log: Logger): Promise<Managed<LowBalanceMail>> {
    const team = await this.d.store.teams.get(teamId);
    if (!team) return notFound('team', 'Tenant not found');
    const sent = await this.lowBalance.sendNow(team, log);
    if (!sent.ok) return sent;
    const change = { balance: sent.value.balance, sent_to: sent.value.sentTo };
    const reason = 'low-credit email sent by hand';
    await this.d.store.auditLog.record(
      auditEntry(
        operator,
        { action: 'tenant.low_credit_email', target: { kind: 'tenant', id: String(teamId) }, before: null, after: change, reason },
        new Date().toISOString(),
      ),
    );
    return sent;
  }

  async list(filter: PlatformCreditFilter, page: PageRequest): Promise<Managed<PageOf<CreditEntry>>> {
    const from = dateBound(filter.from, false);
    const to = dateBound(filter.to, true);
    if (from === null) return refuse({ kind: 'invalid_field', field: 'from', message: 'from must be an ISO 8601 date or date-time.' });
    if (to === null) return refuse({ kind: 'invalid_field', field: 'to', message: 'to must be an ISO 8601 date or date-time.' });
    const kinds = filter.kind ? [filter.kind] : PLATFORM_KINDS;
    return done(await this.d.store.credits.listAll({ ...page, payerId: filter.payerId, kinds, from, to }));
  }

  /** Grants (positive) or removes (negative) credits of a team's payer, with a reason, as `operator`. */
  async adjust(operator: Operator, payerId: number, amount: number, reason: string, log: Logger): Promise<Managed<CreditEntry>> {
    const bad = reasonProblem(reason);
    if (bad) return bad;
    const payer = await this.d.store.teams.get(payerId);
    if (!payer) return notFound('team', 'Account not found', 'account_id');
    const at = new Date().toISOString();
    const audit = (made: CreditEntry) =>
      auditEntry(
        operator,
        {
          action: amount > 0 ? 'credits.grant' : 'credits.remove',
          target: { kind: 'tenant', id: String(payerId) },
          before: { balance: made.balanceAfter - made.amount },
          after: { balance: made.balanceAfter, entry_id: made.id },
          reason,
        },
        at,
      );
    return this.credits.adjust(payer, amount, { kind: 'operator', id: String(operator.id) }, reason, log, audit);
  }

  async summary(): Promise<CreditSummary> {
    return creditSummaryOf(await this.d.store.credits.totals());
  }
}
