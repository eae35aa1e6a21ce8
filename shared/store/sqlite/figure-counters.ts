// The figure counters of migration 31 (recipient_counts by day, recipient_counts_hourly by hour,
// platform_recipient_counts by day for every team, message_statuses per message), moved as they are asked:
// which status a recipient counts in, and so which counts move, is decided above the engine (domain/figures.ts).
// A batch's bumps are summed per counter row first, so many recipients of one team, day and domain cost one
// write per table rather than one per recipient.
import { Type } from '@sinclair/typebox';
import type { Queryable, SqlValue } from './sql.js';
import { Int, Nullable, rowDecoder, Text } from './decode.js';
import { chunksByParams } from './write-batch.js';
import type { MessageStatus } from '../../domain/queue-state.js';
import type { FigureBump } from '../../domain/figures.js';

/** A bump with what its message is counted under: its row, team, acceptance time and domain. */
export interface KeyedFigureBump {
  rowid: number;
  teamId: number;
  createdAt: string;
  domainId: string | null;
  status: MessageStatus;
  by: number;
}

interface Counter {
  table: string;
  /** The primary key's columns, then any other column the row carries. */
  columns: readonly string[];
  keyLength: number;
  values: (b: KeyedFigureBump) => SqlValue[];
}

const COUNTERS: readonly Counter[] = [
  {
    table: 'recipient_counts',
    columns: ['team_id', 'day', 'status', 'domain_key'],
    keyLength: 4,
    values: (b) => [b.teamId, b.createdAt.slice(0, 10), b.status, b.domainId ?? ''],
  },
  {
    table: 'recipient_counts_hourly',
    columns: ['team_id', 'hour', 'status', 'domain_key'],
    keyLength: 4,
    values: (b) => [b.teamId, b.createdAt.slice(0, 13), b.status, b.domainId ?? ''],
  },
  { table: 'platform_recipient_counts', columns: ['day', 'status'], keyLength: 2, values: (b) => [b.createdAt.slice(0, 10), b.status] },
  {
    table: 'message_statuses',
    columns: ['message_rowid', 'status', 'team_id', 'created_at'],
    keyLength: 2,
    values: (b) => [b.rowid, b.status, b.teamId, b.createdAt],
  },
];

/** One counter's bumps summed per row (zeros left out). */
function summed(counter: Counter, bumps: readonly KeyedFigureBump[]): Array<{ values: SqlValue[]; by: number }> {
  const rows = new Map<string, { values: SqlValue[]; by: number }>();
  for (const b of bumps) {
    const values = counter.values(b);
    const key = JSON.stringify(values.slice(0, counter.keyLength));
    const row = rows.get(key) ?? { values, by: 0 };
    row.by += b.by;
    rows.set(key, row);
  }
  return [...rows.values()].filter((r) => r.by !== 0);
}

async function upsert(q: Queryable, counter: Counter, bumps: readonly KeyedFigureBump[]): Promise<void> {
  const width = counter.columns.length + 1;
  const row = `(${Array(width).fill('?').join(', ')})`;
  for (const chunk of chunksByParams(summed(counter, bumps), width)) {
    await q.run(
      `INSERT INTO ${counter.table} (${counter.columns.join(', ')}, n) VALUES ${chunk.map(() => row).join(', ')}
       ON CONFLICT (${counter.columns.slice(0, counter.keyLength).join(', ')}) DO UPDATE SET n = n + excluded.n`,
      chunk.flatMap((r) => [...r.values, r.by]),
    );
  }
}

/** Moves the counters by the bumps, whose messages are known; a message's status it no longer has any recipient in is dropped. */
export async function bumpKeyed(q: Queryable, bumps: readonly KeyedFigureBump[]): Promise<void> {
  if (!bumps.length) return;
  for (const counter of COUNTERS) await upsert(q, counter, bumps);
  const lowered = [...new Set(bumps.filter((b) => b.by < 0).map((b) => b.rowid))];
  for (const chunk of chunksByParams(lowered, 1)) {
    await q.run(`DELETE FROM message_statuses WHERE message_rowid IN (${chunk.map(() => '?').join(', ')}) AND n <= 0`, chunk);
  }
}

const decodeMessageKey = rowDecoder('message key', Type.Object({ rowid: Int, id: Text, team_id: Int, created_at: Text, domain_id: Nullable(Text) }), (r) => r);

/** Moves the counters by the bumps, reading each message's row, team, time and domain by its key. */
export async function bumpFigures(q: Queryable, bumps: readonly FigureBump[]): Promise<void> {
  if (!bumps.length) return;
  const keys = new Map<string, ReturnType<typeof decodeMessageKey>>();
  for (const chunk of chunksByParams([...new Set(bumps.map((b) => b.messageId))], 1)) {
    const rows = await q.all(`SELECT rowid, id, team_id, created_at, domain_id FROM messages WHERE id IN (${chunk.map(() => '?').join(', ')})`, chunk);
    for (const r of rows.map(decodeMessageKey)) keys.set(r.id, r);
  }
  await bumpKeyed(
    q,
    bumps.flatMap((b) => {
      const m = keys.get(b.messageId);
      return m ? [{ rowid: m.rowid, teamId: m.team_id, createdAt: m.created_at, domainId: m.domain_id, status: b.status, by: b.by }] : [];
    }),
  );
}
