// The rows an operator's view of teams reads in both engines (sending counts, destinations, errors: the same
// columns in SQLite and PostgreSQL), decoded.
import { Type } from '@sinclair/typebox';
import { Int, OneOf, rowDecoder, Text } from './decode.js';
import type { DestinationQueue, RecipientError, TeamSendingCounts } from './admin-teams.js';

export const decodeCounts = rowDecoder('sending counts', Type.Object({ team_id: Int, sent: Int, bounced: Int, complained: Int }), (r): TeamSendingCounts => ({
  teamId: r.team_id,
  sent: r.sent,
  bounced: r.bounced,
  complained: r.complained,
}));

export const decodeTeamId = rowDecoder('team id', Type.Object({ team_id: Int }), (r) => r.team_id);

export const decodeDestination = rowDecoder(
  'destination queue',
  Type.Object({ domain: Text, queued: Int, sending: Int, deferred: Int, oldest: Int }),
  (r): DestinationQueue => ({ domain: r.domain, queued: r.queued, sending: r.sending, deferred: r.deferred, oldestQueuedAt: r.oldest }),
);

export const decodeError = rowDecoder(
  'recipient error',
  Type.Object({ message_id: Text, email: Text, domain: Text, state: OneOf(['deferred', 'bounced', 'failed'] as const), reply: Text, attempts: Int, at: Text }),
  (r): RecipientError => ({ messageId: r.message_id, email: r.email, domain: r.domain, state: r.state, reply: r.reply, attempts: r.attempts, at: r.at }),
);
