// A recipient's rows as the unit of work reads them back in both engines (the same columns in SQLite and
// PostgreSQL), decoded into its moves' values.
import { Type } from '@sinclair/typebox';
import { Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { RECIPIENT_STATES } from '../domain/queue-state.js';
import type { LeaseNow, MovedRecipient, RecipientAsFound, RequeueCandidate } from './unit-of-work.js';

export const decodeMoved = rowDecoder(
  'moved recipient',
  Type.Object({ id: Int, message_id: Text, team_id: Int, email: Text, domain_id: Nullable(Text), complained: Int }),
  (r): MovedRecipient => ({ id: r.id, messageId: r.message_id, teamId: r.team_id, email: r.email, domainId: r.domain_id, complained: r.complained !== 0 }),
);

export const decodeFound = rowDecoder(
  'recipient',
  Type.Object({ id: Int, state: OneOf(RECIPIENT_STATES), email: Text, message_id: Text, team_id: Int, domain_id: Nullable(Text), complained_at: Nullable(Text) }),
  (r): RecipientAsFound => ({
    id: r.id,
    state: r.state,
    email: r.email,
    messageId: r.message_id,
    teamId: r.team_id,
    domainId: r.domain_id,
    complained: r.complained_at !== null,
  }),
);

export const decodeLease = rowDecoder('lease', Type.Object({ id: Int, state: OneOf(RECIPIENT_STATES), lease_token: Nullable(Text) }), (r): LeaseNow => ({
  id: r.id,
  state: r.state,
  leaseToken: r.lease_token,
}));

export const decodeComplained = rowDecoder('complaint mark', Type.Object({ complained: Int }), (r) => r.complained !== 0);

export const decodeState = rowDecoder('recipient state', Type.Object({ state: OneOf(RECIPIENT_STATES) }), (r) => r.state);

export const decodeCandidate = rowDecoder(
  'requeue candidate',
  Type.Object({ id: Int, message_id: Text, team_id: Int, email: Text, domain: Text }),
  (r): RequeueCandidate => ({
    id: r.id,
    messageId: r.message_id,
    teamId: r.team_id,
    email: r.email,
    domain: r.domain,
  }),
);
