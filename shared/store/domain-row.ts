// A sending domain's row as both engines store it (the same columns in SQLite and PostgreSQL), decoded into a Domain.
import { Type } from '@sinclair/typebox';
import { Flag, Int, Nullable, OneOf, rowDecoder, Text, type Row } from './decode.js';
import { VERIFICATION_STATUSES, type Domain } from '../domain/sending-domain.js';
import type { NumberedDomain } from './admin-domains.js';
import type { DomainCounts } from './domains.js';

const DomainRow = Type.Object({
  id: Text,
  team_id: Int,
  name: Text,
  verification_status: OneOf(VERIFICATION_STATUSES),
  is_default: Flag,
  dkim_selector: Text,
  dkim_public_key: Text,
  dkim_private_key_enc: Text,
  dmarc_policy: Nullable(Text),
  auto_verify_active: Flag,
  auto_verify_reason: Text,
  last_check_at: Nullable(Text),
  last_check_result: Nullable(Text),
  verified_at: Nullable(Text),
  total_sent: Int,
  total_bounced: Int,
  total_complained: Int,
  created_at: Text,
  updated_at: Text,
});

export const decodeDomain = rowDecoder('domain', DomainRow, (r): Domain => ({
  id: r.id,
  teamId: r.team_id,
  name: r.name,
  verificationStatus: r.verification_status,
  isDefault: r.is_default === 1,
  dkimSelector: r.dkim_selector,
  dkimPublicKey: r.dkim_public_key,
  dkimPrivateKeyEnc: r.dkim_private_key_enc,
  dmarcPolicy: r.dmarc_policy,
  autoVerifyActive: r.auto_verify_active === 1,
  autoVerifyReason: r.auto_verify_reason,
  lastCheckAt: r.last_check_at,
  lastCheckResult: r.last_check_result,
  verifiedAt: r.verified_at,
  totalSent: r.total_sent,
  totalBounced: r.total_bounced,
  totalComplained: r.total_complained,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
}));

const decodeNumber = rowDecoder('domain number', Type.Object({ number: Int }), (r) => r.number);

/** A domain read with its number (`SELECT <number> AS number, …`): the operators' `{id}`. */
export const decodeNumberedDomain = (row: Row): NumberedDomain => ({ ...decodeDomain(row), number: decodeNumber(row) });

/** A team's live and verified domains, counted (`live`, `verified`). */
export const decodeDomainCounts = rowDecoder('domain counts', Type.Object({ live: Int, verified: Int }), (r): DomainCounts => ({ live: r.live, verified: r.verified }));
