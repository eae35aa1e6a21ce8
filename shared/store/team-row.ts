// A team's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded into a Team.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Flag, Int, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { DEFAULT_SUSPENSION_REASON, type StoredIcon, type Suspension, type SuspensionDetail, type Team, type TeamIcon } from '../domain/team.js';

const Count = Type.Integer({ minimum: 0 });
const Fraction = Type.Number({ minimum: 0, maximum: 1 });

/** The stored detail of a suspension by policy (domain/team.ts SuspensionDetail), checked when read. */
const SuspensionDetailSchema = Type.Object({
  rate: Type.Union([Type.Literal('bounce'), Type.Literal('complaint')]),
  windowDays: Count,
  volume: Count,
  bounced: Count,
  complained: Count,
  bounceRate: Fraction,
  complaintRate: Fraction,
  thresholds: Type.Object({ minVolume: Count, minBounces: Count, minComplaints: Count, maxBounceRate: Fraction, maxComplaintRate: Fraction }),
});

const TeamRow = Type.Object({
  id: Int,
  parent_id: Nullable(Int),
  name: Text,
  status: OneOf(['active', 'suspended'] as const),
  suspended_by: Nullable(OneOf(['account', 'platform'] as const)),
  suspension_reason: Nullable(Text),
  suspension_detail: Nullable(Text),
  suspended_at: Nullable(Text),
  plan_type: Text,
  credit_balance: Int,
  credits_shared: Flag,
  limit_per_second: Int,
  backend_region: Text,
  time_zone: Text,
  icon_url: Nullable(Text),
  icon_id: Nullable(Text),
  created_at: Text,
  updated_at: Text,
});

/** A detail that does not decode (written by a later version, say) is left out; the reason still says why. */
function decodeDetail(text: string | null): SuspensionDetail | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return Value.Check(SuspensionDetailSchema, value) ? value : null;
  } catch {
    return null;
  }
}

function suspensionOf(r: Static<typeof TeamRow>): Suspension | null {
  if (r.status !== 'suspended' || r.suspended_by === null) return null;
  return {
    by: r.suspended_by,
    reason: r.suspension_reason ?? DEFAULT_SUSPENSION_REASON[r.suspended_by],
    at: r.suspended_at ?? r.updated_at,
    detail: decodeDetail(r.suspension_detail),
  };
}

/** The stored icon columns: at most one is set (the store writes both together). */
const iconOf = (r: Static<typeof TeamRow>): TeamIcon | null =>
  r.icon_id !== null ? { kind: 'uploaded', id: r.icon_id } : r.icon_url !== null ? { kind: 'url', url: r.icon_url } : null;

export const decodeTeam = rowDecoder('team', TeamRow, (r): Team => ({
  id: r.id,
  parentId: r.parent_id,
  name: r.name,
  status: r.status,
  suspendedBy: r.suspended_by,
  suspension: suspensionOf(r),
  planType: r.plan_type,
  creditBalance: r.credit_balance,
  creditsShared: r.credits_shared === 1,
  limitPerSecond: r.limit_per_second,
  backendRegion: r.backend_region,
  timeZone: r.time_zone,
  icon: iconOf(r),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
}));

/** An uploaded icon's row. */
export const decodeIcon = rowDecoder(
  'icon',
  Type.Object({ id: Text, team_id: Int, content_type: Text, content: Type.Uint8Array(), created_at: Text }),
  (r): StoredIcon => ({
    id: r.id,
    teamId: r.team_id,
    contentType: r.content_type,
    content: Buffer.from(r.content),
    createdAt: r.created_at,
  }),
);
