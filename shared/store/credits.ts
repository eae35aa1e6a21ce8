// The credit ledger repository: entries written together with the balance they change, in one transaction,
// never below zero; transfers between an account and its child teams; the ledger read back, newest first.
import type { CreditActor, CreditEntry, CreditEntryKind, NewCreditEntry } from '../domain/credits.js';
import type { PageOf, PageRequest } from './paging.js';
import type { NewAuditEntry } from './audit-log.js';

/** An entry refused: it would take the payer below zero, the payer is no live team, or its payment was already granted. */
export type PostRefusal = 'insufficient_balance' | 'no_payer' | 'already_recorded';

export interface TransferRequest {
  accountId: number;
  teamId: number;
  /** Positive moves credits from the account to the team; negative moves them back. */
  amount: number;
  actor: CreditActor;
  reason: string;
}

export interface TransferResult {
  accountBalance: number;
  teamBalance: number;
  /** False while the team holds credits of its own; true again once all of them went back. */
  teamShares: boolean;
}

/** `not_own_team`: no such live child team of the account. `team_shares_payer`: nothing of its own to move back. */
export type TransferRefusal = 'insufficient_balance' | 'not_own_team' | 'team_shares_payer';

export interface LedgerQuery extends PageRequest {
  kind?: CreditEntryKind;
  /** Inclusive bounds of created_at, ISO 8601 UTC with milliseconds. */
  from?: string;
  to?: string;
}

/** Entries across every payer (the platform's view), newest first. */
export interface PlatformLedgerQuery extends LedgerQuery {
  payerId?: number;
  /** Only entries of these kinds (one `kind` of LedgerQuery is ignored when this is given). */
  kinds?: readonly CreditEntryKind[];
}

/** The platform's ledger in figures: each kind's sum and number of entries, and what every payer holds now. */
export interface CreditTotals {
  byKind: Record<CreditEntryKind, { total: number; entries: number }>;
  /** The sum of the balances of every live payer. */
  outstanding: number;
}

export interface CreditLedgerRepository {
  /**
   * Writes one entry and changes its payer's balance by its amount, in one transaction; with `audit`, the audit
   * entry it builds from the written entry too (an operator's grant and its record commit together).
   */
  post(entry: NewCreditEntry, audit?: (made: CreditEntry) => NewAuditEntry): Promise<CreditEntry | PostRefusal>;
  /** Moves credits between an account and one of its teams: two entries and the team's sharing, in one transaction. */
  transfer(t: TransferRequest): Promise<TransferResult | TransferRefusal>;
  /** A payer's entries, newest first. */
  list(payerId: number, query: LedgerQuery): Promise<PageOf<CreditEntry>>;
  /** Entries of every payer, newest first. */
  listAll(query: PlatformLedgerQuery): Promise<PageOf<CreditEntry>>;
  /** Kept totals: never a scan of the ledger. */
  totals(): Promise<CreditTotals>;
  /**
   * Low-balance alerts, one per crossing: `armLowBalanceAlerts` arms every payer at or above `threshold`;
   * `claimLowBalanceAlerts` disarms and returns armed payers now below it (so that two processes never alert the
   * same crossing twice); `rearmLowBalanceAlert` arms one again when its alert could not be sent.
   */
  armLowBalanceAlerts(threshold: number): Promise<void>;
  claimLowBalanceAlerts(threshold: number, limit: number): Promise<Array<{ payerId: number; balance: number }>>;
  rearmLowBalanceAlert(payerId: number): Promise<void>;
  /** A payer's balance as kept and as the sum of its entries: the two are equal unless something wrote around the ledger. */
  reconcile(payerId: number): Promise<{ balance: number; sumOfEntries: number }>;
}
