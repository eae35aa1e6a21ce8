// An API key's row as both engines store it (api_keys, with its domain's name joined as domain_name), decoded
// into a KeyRecord.
import { Type } from '@sinclair/typebox';
import { Int, jsonDecoder, Nullable, OneOf, rowDecoder, Text } from './decode.js';
import { isScope } from '../scopes.js';
import { KEY_STATUSES, type KeyRecord } from '../domain/key-record.js';

const KeyRow = Type.Object({
  id: Int,
  team_id: Int,
  kind: OneOf(['sending', 'admin'] as const),
  title: Text,
  key_hash: Text,
  key_start: Text,
  key_end: Text,
  scopes: Text,
  domain_id: Nullable(Text),
  domain_name: Nullable(Text),
  status: OneOf(KEY_STATUSES),
  created_at: Text,
});

/** A scope no longer known (retired since the key was made) is dropped, not kept as an unknown string. */
const decodeScopes = jsonDecoder('key scopes', Type.Array(Text));

export const decodeKey = rowDecoder('API key', KeyRow, (r): KeyRecord => ({
  id: r.id,
  teamId: r.team_id,
  kind: r.kind,
  title: r.title,
  keyHash: r.key_hash,
  keyStart: r.key_start,
  keyEnd: r.key_end,
  scopes: decodeScopes(r.scopes).filter(isScope),
  domainId: r.domain_id,
  domainName: r.domain_name,
  status: r.status,
  createdAt: r.created_at,
}));

export const decodeKeyHash = rowDecoder('key hash', Type.Object({ key_hash: Text }), (r) => r.key_hash);
