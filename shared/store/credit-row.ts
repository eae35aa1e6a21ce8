// A credit ledger's rows as both engines store them (credit_entries, credit_totals, teams' balances: the same
// columns in SQLite and PostgreSQL), decoded into the ledger's values.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { CREDIT_ACTOR_KINDS, CREDIT_ENTRY_KINDS, type CreditEntry } from '../domain/credits.js';

export const decodeEntry = rowDecoder(
  'credit entry',
  Type.Object({
    id: Int,
    pool_id: Int,
    kind: OneOf(CREDIT_ENTRY_KINDS),
    amount: Int,
    balance_after: Int,
    actor_kind: OneOf(CREDIT_ACTOR_KINDS),
    actor_id: Nullable(Text),
    reference: Nullable(Text),
    reason: Text,
    created_at: Text,
  }),
  (r): CreditEntry => ({
    id: r.id,
    payerId: r.pool_id,
    kind: r.kind,
    amount: r.amount,
    balanceAfter: r.balance_after,
    actor: { kind: r.actor_kind, id: r.actor_id },
    reference: r.reference,
    reason: r.reason,
    createdAt: r.created_at,
  }),
);

export const decodeBalance = rowDecoder('credit balance', Type.Object({ credit_balance: Int }), (r) => r.credit_balance);

export const decodeSum = rowDecoder('credit sum', Type.Object({ balance: Int, sum: Int }), (r) => ({ balance: r.balance, sumOfEntries: r.sum }));

export const decodeSendPayer = rowDecoder('send entry', Type.Object({ reference: Text, pool_id: Int }), (r) => r);

export const decodeClaimed = rowDecoder('low-balance payer', Type.Object({ id: Int, credit_balance: Int }), (r) => ({ payerId: r.id, balance: r.credit_balance }));

export const decodeTotal = rowDecoder('credit total', Type.Object({ kind: OneOf(CREDIT_ENTRY_KINDS), total: Int, entries: Int }), (r) => r);

export const decodeOutstanding = rowDecoder('outstanding credits', Type.Object({ n: Nullable(Int) }), (r) => r.n ?? 0);
