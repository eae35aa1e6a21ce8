// The JSON shapes more than one interface prints of the core's results: a suspension (GET /v2/info, the dashboard's
// teams, `ternmail team suspend|reactivate`) and the queue's recipients and destinations (the dashboard's
// /admin/queue routes and `ternmail queue list|summary --json`). Said once here, so the two fronts cannot drift.
import type { Suspension } from '../domain/team.js';
import type { DestinationSummary, QueuedRecipient } from '../queue/queue.js';

const isoOf = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A suspension: who suspended the team, why and when; `detail` when a policy did (its figures and thresholds). */
export function suspensionBody(s: Suspension) {
  const d = s.detail;
  const detail = d && {
    rate: d.rate,
    window_days: d.windowDays,
    volume: d.volume,
    bounced: d.bounced,
    complained: d.complained,
    bounce_rate: d.bounceRate,
    complaint_rate: d.complaintRate,
    thresholds: {
      min_volume: d.thresholds.minVolume,
      min_bounces: d.thresholds.minBounces,
      min_complaints: d.thresholds.minComplaints,
      max_bounce_rate: d.thresholds.maxBounceRate,
      max_complaint_rate: d.thresholds.maxComplaintRate,
    },
  };
  return { by: s.by, reason: s.reason, suspended_at: s.at, detail };
}

const recipientIds = (r: QueuedRecipient) => ({ recipient_id: r.id, message_id: r.messageId, team_id: r.teamId });

const recipientProgress = (r: QueuedRecipient) => ({
  state: r.state,
  attempts: r.attempts,
  next_attempt_at: isoOf(r.nextAttemptAt),
  last_reply: r.lastReply,
  queued_at: isoOf(r.queuedAt),
  held_at: isoOf(r.heldAt),
});

/** A recipient in the queue, as the dashboard's GET /admin/queue lists it. */
export const queuedRecipientView = (r: QueuedRecipient) => ({ ...recipientIds(r), email: r.email, domain: r.domain, ...recipientProgress(r) });

/** The same recipient as `ternmail queue list --json` prints it: its address under `recipient`, no domain (as always). */
export const queuedRecipientLine = (r: QueuedRecipient) => ({ ...recipientIds(r), recipient: r.email, ...recipientProgress(r) });

/** A destination domain's share of the queue (qshape's row): counts by state, the oldest, the last temporary error. */
export const destinationView = (d: DestinationSummary) => ({
  domain: d.domain,
  total: d.total,
  queued: d.queued,
  sending: d.sending,
  deferred: d.deferred,
  held: d.held,
  oldest_queued_at: isoOf(d.oldestQueuedAt),
  last_error: d.lastError,
});
