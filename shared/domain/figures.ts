// The figures' one rule (docs/decisions.md, "Bounces counted per recipient (issue 22, item 6)"): every figure
// counts a recipient once, by its figure status — complained if it complained, pending while it is in the queue
// (in flight or held), else its state — on its message's created_at. The engine keeps counters per figure
// status; which status a recipient is in, and so which counters a write moves, is decided here. So is a team's
// queue depth: the recipients it has in flight (queued, sending or deferred; a held one waits for an operator).
import { IN_FLIGHT, IN_QUEUE, MESSAGE_STATUSES, RECIPIENT_STATES, type MessageStatus, type RecipientState } from './queue-state.js';

/** A recipient's status as every figure counts it. */
export function figureStatusOf(state: RecipientState, complained: boolean): MessageStatus {
  if (complained || state === 'complained') return 'complained';
  if (IN_QUEUE.includes(state)) return 'pending';
  return state as Exclude<RecipientState, 'queued' | 'sending' | 'deferred' | 'held' | 'complained'>;
}

/** A recipient as the figures see it. */
export interface FigureState {
  state: RecipientState;
  complained: boolean;
}

/**
 * The statuses a message's recipients count in, each once, in the order of MESSAGE_STATUSES: what a status filter
 * of the log finds the message by (a message with ANY recipient in the status).
 */
export function figureStatusesOf(recipients: readonly FigureState[]): MessageStatus[] {
  const counted = new Set(recipients.map((r) => figureStatusOf(r.state, r.complained)));
  return MESSAGE_STATUSES.filter((status) => counted.has(status));
}

/** One of a message's figure counts raised (or lowered, when `by` is negative) by `by`. */
export interface FigureBump {
  messageId: string;
  status: MessageStatus;
  by: number;
}

/**
 * The figure counts a set of recipient changes moves: each recipient leaves the status it was counted in
 * (`from`, none for a new recipient) for its new one; changes that keep the status move nothing. Summed per
 * message and status, zeros left out.
 */
export function figureBumps(changes: ReadonlyArray<{ messageId: string; from: FigureState | null; to: FigureState }>): FigureBump[] {
  const sums = new Map<string, FigureBump>();
  const add = (messageId: string, status: MessageStatus, by: number): void => {
    const key = `${status} ${messageId}`;
    const bump = sums.get(key) ?? { messageId, status, by: 0 };
    bump.by += by;
    sums.set(key, bump);
  };
  for (const { messageId, from, to } of changes) {
    const before = from && figureStatusOf(from.state, from.complained);
    const after = figureStatusOf(to.state, to.complained);
    if (before === after) continue;
    if (before) add(messageId, before, -1);
    add(messageId, after, 1);
  }
  return [...sums.values()].filter((b) => b.by !== 0);
}

/** The figure counts a new message's recipients start in (none has complained yet). */
export function figuresOfNew(messageId: string, states: readonly RecipientState[]): FigureBump[] {
  return figureBumps(states.map((state) => ({ messageId, from: null, to: { state, complained: false } })));
}

/**
 * The figure statuses as an engine may have to read them from recipient rows directly (the parts of an hour no
 * counter holds): every state, with and without a complaint, mapped by this rule.
 */
export const FIGURE_TABLE: ReadonlyArray<FigureState & { status: MessageStatus }> = RECIPIENT_STATES.flatMap((state) =>
  [false, true].map((complained) => ({ state, complained, status: figureStatusOf(state, complained) })),
);

/** One team's queue depth moved by `by`. */
export interface DepthBump {
  teamId: number;
  by: number;
}

/** A recipient of a team entering `to` from `from` (none for a new recipient). */
export interface DepthChange {
  teamId: number;
  from: RecipientState | null;
  to: RecipientState;
}

const inFlight = (state: RecipientState | null): boolean => state !== null && IN_FLIGHT.includes(state);

/**
 * The queue depths a set of recipient changes moves: a recipient entering the in-flight states adds one to its
 * team's depth, one leaving them takes one away; a move within them (a claim, a deferral, a lease given back)
 * or outside them moves nothing. Summed per team, zeros left out.
 */
export function depthBumps(changes: readonly DepthChange[]): DepthBump[] {
  const sums = new Map<number, number>();
  for (const { teamId, from, to } of changes) {
    const by = +inFlight(to) - +inFlight(from);
    if (by) sums.set(teamId, (sums.get(teamId) ?? 0) + by);
  }
  return [...sums].filter(([, by]) => by !== 0).map(([teamId, by]) => ({ teamId, by }));
}
