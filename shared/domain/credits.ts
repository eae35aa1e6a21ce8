// Credits as a ledger: every change of a balance is an entry (who or what made it, why, the balance after it),
// and a balance is the sum of its entries. A payer is the team whose balance pays: an account, or a child team
// that was given credits of its own (domain/team.ts payerIdOf).
export const CREDIT_ENTRY_KINDS = ['grant', 'purchase', 'send', 'refund', 'transfer', 'expiry', 'adjustment'] as const;
export type CreditEntryKind = (typeof CREDIT_ENTRY_KINDS)[number];

/** Who or what made an entry: a dashboard user, a platform operator, a sending key, the CLI, Tern itself, a payment. */
export const CREDIT_ACTOR_KINDS = ['user', 'operator', 'sending_key', 'cli', 'system', 'payment'] as const;
export type CreditActorKind = (typeof CREDIT_ACTOR_KINDS)[number];

export interface CreditActor {
  kind: CreditActorKind;
  /** The user's, operator's or key's id, the payment's provider id; null for the CLI and Tern itself. */
  id: string | null;
}

export interface CreditEntry {
  id: number;
  payerId: number;
  kind: CreditEntryKind;
  /** Signed: what the entry added to (positive) or took from (negative) the payer. */
  amount: number;
  /** The payer's balance right after this entry. */
  balanceAfter: number;
  actor: CreditActor;
  /** What the entry is about: the message sent or refunded, the other payer of a transfer, a payment. */
  reference: string | null;
  reason: string;
  createdAt: string;
}

/** An entry to write: the store gives it its id, its time and the balance after it. */
export type NewCreditEntry = Pick<CreditEntry, 'payerId' | 'kind' | 'amount' | 'actor' | 'reference' | 'reason'>;

export const isCreditEntryKind = (value: string): value is CreditEntryKind => (CREDIT_ENTRY_KINDS as readonly string[]).includes(value);

export const TERN: CreditActor = { kind: 'system', id: null };
export const CLI: CreditActor = { kind: 'cli', id: null };
