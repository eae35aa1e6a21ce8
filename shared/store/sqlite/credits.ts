// The credit ledger in SQLite: each entry is written in the transaction that changes its payer's balance
// (teams.credit_balance, the running sum), by one conditional UPDATE that never takes it below zero.
import type { PaidSend } from '../unit-of-work.js';
import { Type } from '@sinclair/typebox';
import type { Queryable, Sql, SqlValue } from './sql.js';
import { countOf, Int, rowDecoder } from './decode.js';
import { chunksByParams } from './write-batch.js';
import { AuditLogStore } from './audit-log.js';
import type { NewAuditEntry } from '../audit-log.js';
import { limitOffset, type PageOf } from '../paging.js';
import { nowIso } from '../../time.js';
import { CREDIT_ENTRY_KINDS, TERN, type CreditActor, type CreditEntry, type CreditEntryKind, type NewCreditEntry } from '../../domain/credits.js';
import type {
  CreditLedgerRepository,
  CreditTotals,
  LedgerQuery,
  PlatformLedgerQuery,
  PostRefusal,
  TransferRefusal,
  TransferRequest,
  TransferResult,
} from '../credits.js';
import { decodeBalance, decodeClaimed, decodeEntry, decodeOutstanding, decodeSendPayer, decodeSum, decodeTotal } from '../credit-row.js';

const decodeTransferTeam = rowDecoder('team', Type.Object({ credits_shared: Int, credit_balance: Int }), (r) => ({
  shares: r.credits_shared === 1,
  balance: r.credit_balance,
}));

/** The live teams whose balance pays for mail: accounts, and child teams holding credits of their own. */
const PAYER_TEAMS = '(parent_id IS NULL OR credits_shared = 0) AND deleted_at IS NULL';

const ENTRY_COLUMNS = 'pool_id, kind, amount, balance_after, actor_kind, actor_id, reference, reason, created_at';

/** A refusal raised inside a transaction so that what it already wrote is rolled back. */
class LedgerRefusal<R extends string> extends Error {
  constructor(readonly refusal: R) {
    super(refusal);
  }
}

/** Changes a payer's balance by `amount` unless that takes it below zero; the balance after, or undefined. */
async function changeBalance(q: Queryable, payerId: number, amount: number): Promise<number | undefined> {
  const row = await q.get('UPDATE teams SET credit_balance = credit_balance + ? WHERE id = ? AND credit_balance + ? >= 0 RETURNING credit_balance', [
    amount,
    payerId,
    amount,
  ]);
  return row && decodeBalance(row);
}

/** The platform's running totals by kind (credit_totals), moved with the entries of the same transaction. */
async function addToTotals(q: Queryable, kind: CreditEntryKind, amount: number, entries: number): Promise<void> {
  await q.run('UPDATE credit_totals SET total = total + ?, entries = entries + ? WHERE kind = ?', [amount, entries, kind]);
}

async function insertEntry(q: Queryable, e: NewCreditEntry, balanceAfter: number, at: string): Promise<CreditEntry> {
  await addToTotals(q, e.kind, e.amount, 1);
  const row = await q.get(`INSERT INTO credit_entries (${ENTRY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`, [
    e.payerId,
    e.kind,
    e.amount,
    balanceAfter,
    e.actor.kind,
    e.actor.id,
    e.reference,
    e.reason,
    at,
  ]);
  return decodeEntry(row!);
}

/** One entry and its balance change; `insufficient_balance` or `no_payer` (no such team) when it cannot be made. */
export async function applyEntry(q: Queryable, e: NewCreditEntry, at: string): Promise<CreditEntry | 'insufficient_balance' | 'no_payer'> {
  const after = await changeBalance(q, e.payerId, e.amount);
  if (after === undefined) return (await q.get('SELECT 1 AS x FROM teams WHERE id = ?', [e.payerId])) ? 'insufficient_balance' : 'no_payer';
  return insertEntry(q, e, after, at);
}

async function mustApply(q: Queryable, e: NewCreditEntry, at: string): Promise<CreditEntry> {
  const made = await applyEntry(q, e, at);
  if (typeof made === 'string') throw new LedgerRefusal(made === 'no_payer' ? 'not_own_team' : made);
  return made;
}

const senderOf = (m: PaidSend): CreditActor => (m.sendingKeyId === null ? TERN : { kind: 'sending_key', id: String(m.sendingKeyId) });

/**
 * Takes the cost of a payer's messages, all or none: one conditional debit of their total, then one send entry
 * per message (in order, each with the balance after it). False, and nothing written, when the payer cannot pay.
 */
export async function debitSends(q: Queryable, payerId: number, messages: readonly PaidSend[], at: string): Promise<boolean> {
  const paying = messages.filter((m) => m.cost > 0);
  const total = paying.reduce((sum, m) => sum + m.cost, 0);
  if (total === 0) return true;
  const after = await changeBalance(q, payerId, -total);
  if (after === undefined) return false;
  let balance = after + total;
  const rows = paying.map((m) => {
    balance -= m.cost;
    const actor = senderOf(m);
    return [payerId, 'send', -m.cost, balance, actor.kind, actor.id, m.messageId, '', at] satisfies SqlValue[];
  });
  await addToTotals(q, 'send', -total, rows.length);
  for (const chunk of chunksByParams(rows, 9)) {
    await q.run(`INSERT INTO credit_entries (${ENTRY_COLUMNS}) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`, chunk.flat());
  }
  return true;
}

/**
 * Gives back the credits of recipients that were never sent (expired in the queue, ended by Tern): one refund
 * entry per message, to the payer its send entry took them from. Messages accepted before the ledger have no
 * send entry and are not refunded.
 */
export async function refundUnsent(q: Queryable, unsent: ReadonlyMap<string, number>, at: string): Promise<void> {
  if (!unsent.size) return;
  const ids = [...unsent.keys()];
  for (const chunk of chunksByParams(ids, 1)) {
    // DISTINCT: a requeued message has a second send entry, and its unsent recipients are refunded once.
    const rows = await q.all(`SELECT DISTINCT reference, pool_id FROM credit_entries WHERE kind = 'send' AND reference IN (${chunk.map(() => '?').join(', ')})`, chunk);
    for (const { reference, pool_id } of rows.map(decodeSendPayer)) {
      const entry: NewCreditEntry = { payerId: pool_id, kind: 'refund', amount: unsent.get(reference)!, actor: TERN, reference, reason: 'recipient not sent' };
      await applyEntry(q, entry, at);
    }
  }
}

function ledgerFilter(query: PlatformLedgerQuery): [string, SqlValue[]] {
  const kinds = query.kinds ?? (query.kind ? [query.kind] : []);
  const conditions: Array<[string, SqlValue[]]> = [
    ['pool_id = ?', query.payerId === undefined ? [] : [query.payerId]],
    [`kind IN (${kinds.map(() => '?').join(', ')})`, [...kinds]],
    ['created_at >= ?', query.from === undefined ? [] : [query.from]],
    ['created_at <= ?', query.to === undefined ? [] : [query.to]],
  ];
  const given = conditions.filter(([, values]) => values.length > 0);
  return [given.map(([clause]) => clause).join(' AND ') || '1 = 1', given.flatMap(([, values]) => values)];
}

export class CreditLedgerStore implements CreditLedgerRepository {
  constructor(private readonly sql: Sql) {}

  async post(entry: NewCreditEntry, audit?: (made: CreditEntry) => NewAuditEntry): Promise<CreditEntry | PostRefusal> {
    try {
      return await this.sql.tx(async (q) => {
        const made = await applyEntry(q, entry, nowIso());
        if (typeof made !== 'string' && audit) await AuditLogStore.insert(q, audit(made));
        return made;
      });
    } catch (err) {
      // The unique index on purchases: this payment was granted already (a webhook delivered twice).
      if (entry.kind === 'purchase' && /UNIQUE constraint failed: credit_entries\.reference/.test((err as Error).message)) return 'already_recorded';
      throw err;
    }
  }

  async transfer(t: TransferRequest): Promise<TransferResult | TransferRefusal> {
    try {
      return await this.sql.tx((q) => this.transferIn(q, t, nowIso()));
    } catch (err) {
      if (err instanceof LedgerRefusal) return err.refusal as TransferRefusal;
      throw err;
    }
  }

  private async transferIn(q: Queryable, t: TransferRequest, at: string): Promise<TransferResult> {
    const row = await q.get('SELECT credits_shared, credit_balance FROM teams WHERE id = ? AND parent_id = ? AND deleted_at IS NULL', [t.teamId, t.accountId]);
    if (!row) throw new LedgerRefusal('not_own_team');
    if (t.amount < 0 && decodeTransferTeam(row).shares) throw new LedgerRefusal('team_shares_payer');
    const [from, to] = t.amount > 0 ? [t.accountId, t.teamId] : [t.teamId, t.accountId];
    const moved = Math.abs(t.amount);
    const base = { kind: 'transfer', actor: t.actor, reason: t.reason } as const;
    const out = await mustApply(q, { ...base, payerId: from, amount: -moved, reference: `team:${to}` }, at);
    const into = await mustApply(q, { ...base, payerId: to, amount: moved, reference: `team:${from}` }, at);
    const teamBalance = from === t.teamId ? out.balanceAfter : into.balanceAfter;
    // Credits moved in make the team pay for itself; the last of them moved back return it to its account's balance.
    const teamShares = teamBalance === 0;
    await q.run('UPDATE teams SET credits_shared = ?, updated_at = ? WHERE id = ?', [+teamShares, at, t.teamId]);
    return { accountBalance: from === t.accountId ? out.balanceAfter : into.balanceAfter, teamBalance, teamShares };
  }

  list(payerId: number, query: LedgerQuery): Promise<PageOf<CreditEntry>> {
    return this.listAll({ ...query, payerId });
  }

  async listAll(query: PlatformLedgerQuery): Promise<PageOf<CreditEntry>> {
    const [where, params] = ledgerFilter(query);
    const rows = await this.sql.all(`SELECT * FROM credit_entries WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`, [...params, ...limitOffset(query)]);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM credit_entries WHERE ${where}`, params);
    return { rows: rows.map(decodeEntry), total: countOf(total!) };
  }

  async totals(): Promise<CreditTotals> {
    const rows = (await this.sql.all('SELECT kind, total, entries FROM credit_totals')).map(decodeTotal);
    const byKind = Object.fromEntries(CREDIT_ENTRY_KINDS.map((kind) => [kind, { total: 0, entries: 0 }])) as CreditTotals['byKind'];
    for (const r of rows) byKind[r.kind] = { total: r.total, entries: r.entries };
    const outstanding = decodeOutstanding((await this.sql.get(`SELECT SUM(credit_balance) AS n FROM teams WHERE ${PAYER_TEAMS}`))!);
    return { byKind, outstanding };
  }

  async armLowBalanceAlerts(threshold: number): Promise<void> {
    await this.sql.run(`UPDATE teams SET low_balance_armed = 1 WHERE low_balance_armed = 0 AND credit_balance >= ? AND ${PAYER_TEAMS}`, [threshold]);
  }

  async claimLowBalanceAlerts(threshold: number, limit: number): Promise<Array<{ payerId: number; balance: number }>> {
    const rows = await this.sql.returning(
      `UPDATE teams SET low_balance_armed = 0 WHERE id IN (
         SELECT id FROM teams WHERE low_balance_armed = 1 AND credit_balance < ? AND ${PAYER_TEAMS} ORDER BY id LIMIT ?
       ) RETURNING id, credit_balance`,
      [threshold, limit],
    );
    return rows.map(decodeClaimed);
  }

  async rearmLowBalanceAlert(payerId: number): Promise<void> {
    await this.sql.run('UPDATE teams SET low_balance_armed = 1 WHERE id = ?', [payerId]);
  }

  async reconcile(payerId: number): Promise<{ balance: number; sumOfEntries: number }> {
    const row = await this.sql.get(
      'SELECT t.credit_balance AS balance, (SELECT COALESCE(SUM(amount), 0) FROM credit_entries WHERE pool_id = t.id) AS sum FROM teams t WHERE t.id = ?',
      [payerId],
    );
    return row ? decodeSum(row) : { balance: 0, sumOfEntries: 0 };
  }
}
