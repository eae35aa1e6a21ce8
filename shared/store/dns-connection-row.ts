// A DNS-provider connection's row as both engines store it, decoded into a DnsConnection.
import { Type } from '@sinclair/typebox';
import { Int, OneOf, rowDecoder, Text } from './decode.js';
import { DNS_PROVIDERS, type DnsConnection } from '../domain/dns-connection.js';

const ConnectionRow = Type.Object({
  team_id: Int,
  provider: OneOf(DNS_PROVIDERS),
  token_enc: Text,
  token_last4: Text,
  created_at: Text,
  updated_at: Text,
});

export const decodeConnection = rowDecoder('DNS connection', ConnectionRow, (r): DnsConnection => ({
  teamId: r.team_id,
  provider: r.provider,
  tokenEnc: r.token_enc,
  tokenLast4: r.token_last4,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
}));
