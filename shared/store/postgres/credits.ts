// The credit ledger in PostgreSQL: each entry is written in the transaction that changes its payer's balance
// (teams.credit_balance, the running sum), by one conditional UPDATE that never takes it below zero: under READ
// COMMITTED a concurrent debit waits for the row and re-checks the condition on the balance it committed.
import type { PaidSend } from '../unit-of-work.js';
import { Type } from '@sinclair/typebox';
import { isUniqueViolation, ParamList, type PgSql, type Queryable } from './sql.js';
import { countOf, Int, rowDecoder } from './decode.js';
import { PgAuditLogStore } from './audit-log.js';
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

const decodeTransferTeam = rowDecoder('team', Type.Object({ credits_shared: Int }), (r) => ({ shares: r.credits_shared === 1 }));

/** The live teams whose balance pays for mail: accounts, and child teams holding credits of their own. */
const PAYER_TEAMS = '(parent_id IS NULL OR credits_shared = 0) AND deleted_at IS NULL';

const ENTRY_COLUMNS = 'pool_id, kind, amount, balance_after, actor_kind, actor_id, reference, reason, created_at';

/** The unique index that keeps one purchase entry per payment. */
const ONE_PURCHASE = 'credit_entries_one_purchase';

/** A refusal raised inside a transaction so that what it already wrote is rolled back. */
class LedgerRefusal<R extends string> extends Error {
  constructor(readonly refusal: R) {
    super(refusal);
  }
}

/** Changes a payer's balance by `amount` unless that takes it below zero; the balance after, or undefined. */
async function changeBalance(q: Queryable, payerId: number, amount: number): Promise<number | undefined> {
  const row = await q.get('UPDATE teams SET credit_balance = credit_balance + $1 WHERE id = $2 AND credit_balance + $1 >= 0 RETURNING credit_balance', [amount, payerId]);
  return row && decodeBalance(row);
}

/** The platform's running totals by kind (credit_totals), moved with the entries of the same transaction. */
async function addToTotals(q: Queryable, kind: CreditEntryKind, amount: number, entries: number): Promise<void> {
  await q.run('UPDATE credit_totals SET total = total + $1, entries = entries + $2 WHERE kind = $3', [amount, entries, kind]);
}

async function insertEntry(q: Queryable, e: NewCreditEntry, balanceAfter: number, at: string): Promise<CreditEntry> {
  await addToTotals(q, e.kind, e.amount, 1);
  const row = await q.get(`INSERT INTO credit_entries (${ENTRY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`, [
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
  if (after === undefined) return (await q.get('SELECT 1 AS x FROM teams WHERE id = $1', [e.payerId])) ? 'insufficient_balance' : 'no_payer';
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
 * per message (in order, each with the balance after it), inserted together from arrays (one parameter per
 * column, whatever the number of messages). False, and nothing written, when the payer cannot pay.
 */
export async function debitSends(q: Queryable, payerId: number, messages: readonly PaidSend[], at: string): Promise<boolean> {
  const paying = messages.filter((m) => m.cost > 0);
  const total = paying.reduce((sum, m) => sum + m.cost, 0);
  if (total === 0) return true;
  const after = await changeBalance(q, payerId, -total);
  if (after === undefined) return false;
  let balance = after + total;
  const balances = paying.map((m) => (balance -= m.cost));
  const actors = paying.map(senderOf);
  await addToTotals(q, 'send', -total, paying.length);
  await q.run(
    `INSERT INTO credit_entries (${ENTRY_COLUMNS})
     SELECT $1::bigint, 'send', -cost, balance_after, actor_kind, actor_id, reference, '', $2::text
     FROM unnest($3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS m(cost, balance_after, actor_kind, actor_id, reference, n)
     ORDER BY n`,
    [payerId, at, paying.map((m) => m.cost), balances, actors.map((a) => a.kind), actors.map((a) => a.id), paying.map((m) => m.messageId)],
  );
  return true;
}

/**
 * Gives back the credits of recipients that were never sent (expired in the queue, ended by Tern): one refund
 * entry per message, to the payer its send entry took them from. Messages accepted before the ledger have no
 * send entry and are not refunded.
 */
export async function refundUnsent(q: Queryable, unsent: ReadonlyMap<string, number>, at: string): Promise<void> {
  if (!unsent.size) return;
  // DISTINCT: a requeued message has a second send entry, and its unsent recipients are refunded once.
  const rows = await q.all("SELECT DISTINCT reference, pool_id FROM credit_entries WHERE kind = 'send' AND reference = ANY($1::text[]) ORDER BY reference", [
    [...unsent.keys()],
  ]);
  for (const { reference, pool_id } of rows.map(decodeSendPayer)) {
    const entry: NewCreditEntry = { payerId: pool_id, kind: 'refund', amount: unsent.get(reference)!, actor: TERN, reference, reason: 'recipient not sent' };
    await applyEntry(q, entry, at);
  }
}

function ledgerFilter(query: PlatformLedgerQuery, params: ParamList): string {
  const kinds = query.kinds ?? (query.kind ? [query.kind] : []);
  const terms: string[] = [];
  if (query.payerId !== undefined) terms.push(`pool_id = ${params.add(query.payerId)}`);
  if (kinds.length) terms.push(`kind = ANY(${params.add(kinds)}::text[])`);
  if (query.from !== undefined) terms.push(`created_at >= ${params.add(query.from)}`);
  if (query.to !== undefined) terms.push(`created_at <= ${params.add(query.to)}`);
  return terms.join(' AND ') || 'TRUE';
}

export class PgCreditLedgerStore implements CreditLedgerRepository {
  constructor(private readonly sql: PgSql) {}

  async post(entry: NewCreditEntry, audit?: (made: CreditEntry) => NewAuditEntry): Promise<CreditEntry | PostRefusal> {
    try {
      return await this.sql.tx(async (q) => {
        const made = await applyEntry(q, entry, nowIso());
        if (typeof made !== 'string' && audit) await PgAuditLogStore.insert(q, audit(made));
        return made;
      });
    } catch (err) {
      // The unique index on purchases: this payment was granted already (a webhook delivered twice).
      if (entry.kind === 'purchase' && isUniqueViolation(err, ONE_PURCHASE)) return 'already_recorded';
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

  /** The team's row is locked first: whether it shares its account's balance is decided on what no one else is changing. */
  private async transferIn(q: Queryable, t: TransferRequest, at: string): Promise<TransferResult> {
    const row = await q.get('SELECT credits_shared FROM teams WHERE id = $1 AND parent_id = $2 AND deleted_at IS NULL FOR UPDATE', [t.teamId, t.accountId]);
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
    await q.run('UPDATE teams SET credits_shared = $1, updated_at = $2 WHERE id = $3', [+teamShares, at, t.teamId]);
    return { accountBalance: from === t.accountId ? out.balanceAfter : into.balanceAfter, teamBalance, teamShares };
  }

  list(payerId: number, query: LedgerQuery): Promise<PageOf<CreditEntry>> {
    return this.listAll({ ...query, payerId });
  }

  async listAll(query: PlatformLedgerQuery): Promise<PageOf<CreditEntry>> {
    const params = new ParamList();
    const where = ledgerFilter(query, params);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM credit_entries WHERE ${where}`, params.values);
    const [limit, offset] = limitOffset(query);
    const rows = await this.sql.all(
      `SELECT * FROM credit_entries WHERE ${where} ORDER BY id DESC LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
      params.values,
    );
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
    await this.sql.run(`UPDATE teams SET low_balance_armed = 1 WHERE low_balance_armed = 0 AND credit_balance >= $1 AND ${PAYER_TEAMS}`, [threshold]);
  }

  /**
   * Disarms and answers the payers below the threshold. SKIP LOCKED: two processes claiming at once take
   * different payers, and the re-checked `low_balance_armed = 1` keeps a payer from being claimed twice.
   */
  async claimLowBalanceAlerts(threshold: number, limit: number): Promise<Array<{ payerId: number; balance: number }>> {
    const rows = await this.sql.all(
      `UPDATE teams SET low_balance_armed = 0 WHERE low_balance_armed = 1 AND id IN (
         SELECT id FROM teams WHERE low_balance_armed = 1 AND credit_balance < $1 AND ${PAYER_TEAMS} ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
       ) RETURNING id, credit_balance`,
      [threshold, limit],
    );
    return rows.map(decodeClaimed).sort((a, b) => a.payerId - b.payerId);
  }

  async rearmLowBalanceAlert(payerId: number): Promise<void> {
    await this.sql.run('UPDATE teams SET low_balance_armed = 1 WHERE id = $1', [payerId]);
  }

  async reconcile(payerId: number): Promise<{ balance: number; sumOfEntries: number }> {
    const row = await this.sql.get(
      'SELECT t.credit_balance AS balance, (SELECT COALESCE(SUM(amount), 0) FROM credit_entries WHERE pool_id = t.id) AS sum FROM teams t WHERE t.id = $1',
      [payerId],
    );
    return row ? decodeSum(row) : { balance: 0, sumOfEntries: 0 };
  }
}
