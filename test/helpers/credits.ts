// Credits granted in tests through the ledger, as `ternmail credits add` grants them.
import type { Store } from '../../shared/store/index.js';
import type { CreditEntry } from '../../shared/domain/credits.js';

/** Grants `amount` credits to a payer; the balance after, or the store's refusal. */
export async function grantCredits(store: Store, payerId: number, amount: number): Promise<number | string> {
  const entry: CreditEntry | string = await store.credits.post({
    payerId,
    kind: 'grant',
    amount,
    actor: { kind: 'cli', id: null },
    reference: null,
    reason: 'test grant',
  });
  return typeof entry === 'string' ? entry : entry.balanceAfter;
}
