// The counters on PostgreSQL, moved as they are asked (no trigger): the figure counters (recipient_counts by day,
// recipient_counts_hourly by hour, platform_recipient_counts by day for every team, message_statuses per message;
// which status a recipient counts in is decided above the engine, domain/figures.ts) and the message counters
// (message_counts per team, day, status and domain, platform_message_counts per day and status: the log's totals,
// moved by the writes that record a message or set its status, which SQLite's triggers followed).
//
// Inside a transaction the moves are kept and written just before COMMIT (Queryable.atCommit), all of them by one
// flush in one fixed order (the counter tables, then queue_depths), whatever order the use case moved them in.
// These rows are hot (every message of a day bumps the same platform rows): a transaction that locked some while
// another locked others in the opposite order (the intake moves the message counts before the queue depths, the
// delivery results the depths before the message counts) deadlocked under several processes. Taken last, after
// every other lock of the transaction, and in one order, they cannot be part of a cycle.
//
// A batch's bumps are summed per counter row first: PostgreSQL refuses an INSERT … ON CONFLICT DO UPDATE that
// touches one row twice. The rows go in key order, so two transactions bumping the same rows lock them in the same
// order (no deadlock between writers), and every table is written by one statement of fixed text, its rows sent as
// arrays (one parameter per column, whatever the batch's size).
import { Type } from '@sinclair/typebox';
import type { Queryable, SqlValue } from './sql.js';
import { Int, Nullable, rowDecoder, Text } from './decode.js';
import type { MessageStatus } from '../../domain/queue-state.js';
import type { FigureBump } from '../../domain/figures.js';

/** A figure bump with what its message is counted under: its row, team, acceptance time and domain. */
export interface KeyedFigureBump {
  rowid: number;
  teamId: number;
  createdAt: string;
  domainId: string | null;
  status: MessageStatus;
  by: number;
}

/** A message counted in (by 1) or out of (by -1) its status, under its team, acceptance time and domain. */
export interface MessageCountBump {
  teamId: number;
  createdAt: string;
  domainId: string | null;
  status: MessageStatus;
  by: number;
}

type Cell = string | number;

/** Bumps summed per key (the key's values first, the sum last), zeros left out, in key order. */
function summed<B extends { by: number }>(bumps: readonly B[], key: (b: B) => Cell[]): Cell[][] {
  const rows = new Map<string, Cell[]>();
  for (const b of bumps) {
    const values = key(b);
    const id = JSON.stringify(values);
    const row = rows.get(id) ?? [...values, 0];
    row[row.length - 1] = (row[row.length - 1] as number) + b.by;
    rows.set(id, row);
  }
  const compare = (a: Cell[], b: Cell[]) => {
    for (let i = 0; i < a.length - 1; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return 0;
  };
  return [...rows.values()].filter((r) => r[r.length - 1] !== 0).sort(compare);
}

/** The columns of summed rows, as arrays: one parameter each. */
const columns = (rows: Cell[][], width: number): SqlValue[] => Array.from({ length: width }, (_, i) => rows.map((r) => r[i]!));

const upsert = (table: string, cols: string, key: string, types: readonly string[], first: number): string =>
  `INSERT INTO ${table} (${cols}) SELECT * FROM unnest(${types.map((t, i) => `$${first + i}::${t}[]`).join(', ')})
   ON CONFLICT (${key}) DO UPDATE SET n = ${table}.n + excluded.n`;

/**
 * Every counter in one statement (one data-modifying CTE per table). The statement's text is fixed, so its plan
 * and the order its parts run in are the same in every transaction.
 */
const MOVE_COUNTS = `WITH
  rc AS (${upsert('recipient_counts', 'team_id, day, status, domain_key, n', 'team_id, day, status, domain_key', ['bigint', 'text', 'text', 'text', 'bigint'], 1)}),
  hc AS (${upsert('recipient_counts_hourly', 'team_id, hour, status, domain_key, n', 'team_id, hour, status, domain_key', ['bigint', 'text', 'text', 'text', 'bigint'], 6)}),
  pc AS (${upsert('platform_recipient_counts', 'day, status, n', 'day, status', ['text', 'text', 'bigint'], 11)}),
  ms AS (${upsert('message_statuses', 'message_rowid, status, team_id, created_at, n', 'message_rowid, status', ['bigint', 'text', 'bigint', 'text', 'bigint'], 14)}),
  mc AS (${upsert('message_counts', 'team_id, day, status, domain_key, n', 'team_id, day, status, domain_key', ['bigint', 'text', 'text', 'text', 'bigint'], 19)})
  ${upsert('platform_message_counts', 'day, status, n', 'day, status', ['text', 'text', 'bigint'], 24)}`;

/** A team's queue depth moved by `by`. */
export interface DepthMove {
  teamId: number;
  by: number;
}

/** The counter moves of one transaction, written together at its end. */
class CounterMoves {
  readonly figures: KeyedFigureBump[] = [];
  readonly messages: MessageCountBump[] = [];
  readonly depths: DepthMove[] = [];

  async flush(q: Queryable): Promise<void> {
    await writeCounts(q, this.figures, this.messages);
    await writeDepths(q, this.depths);
  }
}

/** The moves of q's transaction (written at its end), or null outside one (written at once). */
const movesOf = (q: Queryable): CounterMoves | null => q.atCommit?.('counters', () => new CounterMoves()) ?? null;

/**
 * Moves the figure and message counters by the bumps, whose messages are known; a message's status it no longer
 * has any recipient in is dropped from message_statuses. In a transaction, at its end.
 */
export async function moveCounts(q: Queryable, figures: readonly KeyedFigureBump[], messages: readonly MessageCountBump[] = []): Promise<void> {
  const moves = movesOf(q);
  if (!moves) return writeCounts(q, figures, messages);
  moves.figures.push(...figures);
  moves.messages.push(...messages);
}

/** Moves the teams' queue depths (queue_depths); in a transaction, at its end. */
export async function moveDepths(q: Queryable, depths: readonly DepthMove[]): Promise<void> {
  const moves = movesOf(q);
  if (!moves) return writeDepths(q, depths);
  moves.depths.push(...depths);
}

/** Summed per team first (ON CONFLICT may touch a row once), in team order. */
async function writeDepths(q: Queryable, depths: readonly DepthMove[]): Promise<void> {
  const byTeam = new Map<number, number>();
  for (const b of depths) byTeam.set(b.teamId, (byTeam.get(b.teamId) ?? 0) + b.by);
  const rows = [...byTeam].filter(([, by]) => by !== 0).sort((a, b) => a[0] - b[0]);
  if (!rows.length) return;
  await q.run(
    `INSERT INTO queue_depths (team_id, n) SELECT * FROM unnest($1::bigint[], $2::bigint[])
     ON CONFLICT (team_id) DO UPDATE SET n = queue_depths.n + excluded.n`,
    [rows.map(([teamId]) => teamId), rows.map(([, by]) => by)],
  );
}

/**
 * moveCounts written at once, even in a transaction: for test support moving a message in time, whose bumps out of
 * its old time and into its new one name the same message_statuses rows and must land one after the other.
 */
export async function writeCounts(q: Queryable, figures: readonly KeyedFigureBump[], messages: readonly MessageCountBump[]): Promise<void> {
  if (!figures.length && !messages.length) return;
  const day = (iso: string) => iso.slice(0, 10);
  const params = [
    ...columns(
      summed(figures, (b) => [b.teamId, day(b.createdAt), b.status, b.domainId ?? '']),
      5,
    ),
    ...columns(
      summed(figures, (b) => [b.teamId, b.createdAt.slice(0, 13), b.status, b.domainId ?? '']),
      5,
    ),
    ...columns(
      summed(figures, (b) => [day(b.createdAt), b.status]),
      3,
    ),
    ...columns(
      summed(figures, (b) => [b.rowid, b.status, b.teamId, b.createdAt]),
      5,
    ),
    ...columns(
      summed(messages, (b) => [b.teamId, day(b.createdAt), b.status, b.domainId ?? '']),
      5,
    ),
    ...columns(
      summed(messages, (b) => [day(b.createdAt), b.status]),
      3,
    ),
  ];
  await q.run(MOVE_COUNTS, params);
  const lowered = [...new Set(figures.filter((b) => b.by < 0).map((b) => b.rowid))];
  if (lowered.length) await q.run('DELETE FROM message_statuses WHERE message_rowid = ANY($1::bigint[]) AND n <= 0', [lowered]);
}

const decodeMessageKey = rowDecoder('message key', Type.Object({ rowid: Int, id: Text, team_id: Int, created_at: Text, domain_id: Nullable(Text) }), (r) => r);

/** Moves the figure counters by the bumps, reading each message's row, team, time and domain by its key (one read). */
export async function bumpFigures(q: Queryable, bumps: readonly FigureBump[]): Promise<void> {
  if (!bumps.length) return;
  const rows = await q.all('SELECT rowid, id, team_id, created_at, domain_id FROM messages WHERE id = ANY($1::text[])', [[...new Set(bumps.map((b) => b.messageId))]]);
  const keys = new Map(rows.map(decodeMessageKey).map((r) => [r.id, r]));
  await moveCounts(
    q,
    bumps.flatMap((b) => {
      const m = keys.get(b.messageId);
      return m ? [{ rowid: m.rowid, teamId: m.team_id, createdAt: m.created_at, domainId: m.domain_id, status: b.status, by: b.by }] : [];
    }),
  );
}
