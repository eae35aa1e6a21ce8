// Raw SQL writes to messages and recipients in engine tests, with the figure counters moved as the product's
// writers move them (domain/figures.ts decides, store/sqlite/figure-counters.ts writes): since migration 32 no
// trigger does it. Every message's figure counts are read before and after the statement, and the difference
// is applied to the counters.
import type { Queryable, SqlValue } from '../../shared/store/sqlite/sql.js';
import { bumpKeyed, type KeyedFigureBump } from '../../shared/store/sqlite/figure-counters.js';
import { figureStatusOf } from '../../shared/domain/figures.js';
import type { RecipientState } from '../../shared/domain/queue-state.js';

interface Counted {
  rowid: number;
  teamId: number;
  createdAt: string;
  domainId: string | null;
  byStatus: Map<string, number>;
}

async function countedNow(q: Queryable): Promise<Map<number, Counted>> {
  const rows = await q.all<{ rowid: number; team_id: number; created_at: string; domain_id: string | null; state: RecipientState | null; complained: number }>(
    `SELECT m.rowid, m.team_id, m.created_at, m.domain_id, r.state, r.complained_at IS NOT NULL AS complained
     FROM messages m LEFT JOIN recipients r ON r.message_id = m.id`,
  );
  const out = new Map<number, Counted>();
  for (const r of rows) {
    const c = out.get(r.rowid) ?? { rowid: r.rowid, teamId: r.team_id, createdAt: r.created_at, domainId: r.domain_id, byStatus: new Map<string, number>() };
    if (r.state !== null) {
      const status = figureStatusOf(r.state, r.complained !== 0);
      c.byStatus.set(status, (c.byStatus.get(status) ?? 0) + 1);
    }
    out.set(r.rowid, c);
  }
  return out;
}

const bumpsOf = (c: Counted, sign: number): KeyedFigureBump[] =>
  [...c.byStatus].map(([status, n]) => ({ rowid: c.rowid, teamId: c.teamId, createdAt: c.createdAt, domainId: c.domainId, status: status as never, by: sign * n }));

/** Runs the statement, then moves the figure counters by what it changed. */
export function runCounted(q: Queryable, statement: string, params: readonly SqlValue[] = []): Promise<void> {
  return counted(q, async () => {
    await q.run(statement, params);
  });
}

/** Runs `work`, then moves the figure counters by what it changed. */
export async function counted(q: Queryable, work: () => Promise<void>): Promise<void> {
  const before = await countedNow(q);
  await work();
  const after = await countedNow(q);
  await bumpKeyed(q, [...[...before.values()].flatMap((c) => bumpsOf(c, -1)), ...[...after.values()].flatMap((c) => bumpsOf(c, 1))]);
  for (const c of after.values()) {
    const was = before.get(c.rowid);
    if (was && (was.createdAt !== c.createdAt || was.teamId !== c.teamId)) {
      await q.run('UPDATE message_statuses SET team_id = ?, created_at = ? WHERE message_rowid = ?', [c.teamId, c.createdAt, c.rowid]);
    }
  }
}
