// The mix of message statuses the log benchmarks generate (shares of the messages), shared by bench/logs and
// bench/stats so that both measure the same kind of log.
import type { MessageStatus, RecipientState } from '../shared/domain/queue-state.js';

export const STATUS_MIX: ReadonlyArray<[status: MessageStatus, state: RecipientState, share: number]> = [
  ['sent', 'sent', 0.8],
  ['bounced', 'bounced', 0.08],
  ['complained', 'sent', 0.05],
  ['failed', 'failed', 0.03],
  ['pending', 'deferred', 0.02],
  ['suppressed', 'suppressed', 0.02],
];

/** A status and its recipient's state, drawn by their shares with `rand` (a value in [0, 1)). */
export function pickStatus(rand: () => number): [MessageStatus, RecipientState] {
  let r = rand();
  for (const [status, state, share] of STATUS_MIX) if ((r -= share) < 0) return [status, state];
  return ['sent', 'sent'];
}
