// The integrity scan's state row as both engines store it, decoded; the last result is JSON text.
import { Type } from '@sinclair/typebox';
import { Flag, Nullable, rowDecoder, Text } from './decode.js';
import type { ScanResult, ScanState } from '../domain/integrity.js';

const Paths = Type.Array(Type.String());
const Result = Type.Object({ scannedAt: Text, manifestBuiltAt: Text, modified: Paths, missing: Paths, unexpected: Paths, ignored: Paths });

export const STATE_COLUMNS = 'registered_at, daily, next_scan_at, last_result';

const decodeResult = rowDecoder('integrity scan result', Result, (r): ScanResult => r);

export const decodeState = rowDecoder(
  'integrity scan',
  Type.Object({ registered_at: Nullable(Text), daily: Flag, next_scan_at: Nullable(Text), last_result: Nullable(Text) }),
  (r): ScanState => ({
    registeredAt: r.registered_at,
    daily: r.daily === 1,
    nextScanAt: r.next_scan_at,
    last: r.last_result === null ? null : decodeResult(JSON.parse(r.last_result) as Record<string, unknown>),
  }),
);

export const decodePath = rowDecoder('ignored path', Type.Object({ path: Text }), (r) => r.path);
