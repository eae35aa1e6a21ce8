// Credits: what a team's mail is paid from (its account's balance, or its own once credits were moved to it), the
// ledger of a payer, credits moved between an account and its teams, and credits granted or removed by the
// platform. Every change is an entry of the ledger, written with the balance it changes (store/credits.ts).
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { LedgerQuery } from '../store/credits.js';
import type { NewAuditEntry } from '../store/audit-log.js';
import type { PageOf } from '../store/paging.js';
import { payerIdOf, type Team } from '../domain/team.js';
import type { CreditActor, CreditEntry } from '../domain/credits.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';
import { dateBound } from './message-log.js';

/** A team's balance as its billing page shows it: the payer, and each child team's own. */
export interface CreditStanding {
  payerId: number;
  balance: number;
  /** Whether the team draws on its account's balance (always true for an account). */
  creditsShared: boolean;
  /** For an account: its child teams with their own balance and whether they share. */
  teams: Array<{ team: Team; balance: number }>;
}

export interface Transfer {
  teamId: number;
  /** Positive: from the account to the team; negative: back from the team to the account. */
  amount: number;
}

export interface TransferDone {
  accountBalance: number;
  team: { id: number; balance: number; creditsShared: boolean };
}

/** The most credits one grant, transfer or removal moves: a typo of a few digits is refused, not booked. */
export const MAX_CREDITS_MOVED = 1_000_000_000;

const invalidAmount = (field: string) =>
  refuse({ kind: 'invalid_field', field, message: `${field} must be a whole number of credits, not 0, at most ${MAX_CREDITS_MOVED} either way.` } as const);

const validAmount = (n: number): boolean => Number.isInteger(n) && n !== 0 && Math.abs(n) <= MAX_CREDITS_MOVED;

export class Credits {
  constructor(private readonly d: { store: Store }) {}

  async standing(team: Team): Promise<CreditStanding> {
    const payerId = payerIdOf(team);
    const balance = await this.d.store.teams.payerBalance(team);
    const children = team.parentId === null ? await this.d.store.teams.children(team.id) : [];
    const teams = children.map((child) => ({ team: child, balance: child.creditsShared ? balance : child.creditBalance }));
    return { payerId, balance, creditsShared: payerId !== team.id || team.parentId === null, teams };
  }

  /** The ledger of the payer for `team`'s mail, newest first; `from`/`to` are ISO 8601 dates or instants. */
  async transactions(team: Team, query: Omit<LedgerQuery, 'from' | 'to'> & { from?: string; to?: string }): Promise<Managed<PageOf<CreditEntry>>> {
    const from = dateBound(query.from, false);
    const to = dateBound(query.to, true);
    if (from === null) return refuse({ kind: 'invalid_field', field: 'from', message: 'from must be an ISO 8601 date or date-time.' });
    if (to === null) return refuse({ kind: 'invalid_field', field: 'to', message: 'to must be an ISO 8601 date or date-time.' });
    return done(await this.d.store.credits.list(payerIdOf(team), { ...query, from, to }));
  }

  /** Moves credits between `account` and one of its teams; a team given credits pays for itself from then on. */
  async transfer(account: Team, t: Transfer, actor: CreditActor, log: Logger): Promise<Managed<TransferDone>> {
    if (account.parentId !== null) return refuse({ kind: 'not_parent_account' });
    if (!validAmount(t.amount)) return invalidAmount('amount');
    const reason = t.amount > 0 ? 'credits moved to the team' : 'credits moved back to the account';
    const moved = await this.d.store.credits.transfer({ accountId: account.id, teamId: t.teamId, amount: t.amount, actor, reason });
    if (moved === 'not_own_team') return notFound('team', 'Team not found', 'team_id');
    if (moved === 'team_shares_payer')
      return refuse({ kind: 'invalid_field', field: 'amount', message: 'The team shares the account’s credits: it has none of its own to move back.' });
    if (moved === 'insufficient_balance') return refuse({ kind: 'insufficient_credits', balance: await this.balanceOfSource(account, t), field: 'amount' });
    log.info({ account: account.id, team: t.teamId, amount: t.amount, actor }, 'credits transferred');
    return done({ accountBalance: moved.accountBalance, team: { id: t.teamId, balance: moved.teamBalance, creditsShared: moved.teamShares } });
  }

  /**
   * Grants (positive) or removes (negative, an adjustment) credits of a payer: an account, or a team with credits
   * of its own. A removal never takes the balance below zero.
   */
  async adjust(
    payer: Team,
    amount: number,
    actor: CreditActor,
    reason: string,
    log: Logger,
    audit?: (made: CreditEntry) => NewAuditEntry,
  ): Promise<Managed<CreditEntry>> {
    if (!validAmount(amount)) return invalidAmount('amount');
    if (payerIdOf(payer) !== payer.id)
      return refuse({ kind: 'invalid_field', field: 'account_id', message: 'This team shares its account’s credits: grant them to the account.' });
    const kind = amount > 0 ? 'grant' : 'adjustment';
    const entry = await this.d.store.credits.post({ payerId: payer.id, kind, amount, actor, reference: null, reason }, audit);
    if (entry === 'no_payer' || entry === 'already_recorded') return notFound('team', 'Account not found', 'account_id');
    if (entry === 'insufficient_balance')
      return refuse({ kind: 'insufficient_credits', balance: (await this.d.store.teams.get(payer.id))?.creditBalance ?? 0, field: 'amount' });
    log.info({ pool: payer.id, amount, kind, actor }, 'credits adjusted');
    return done(entry);
  }

  private async balanceOfSource(account: Team, t: Transfer): Promise<number> {
    const source = await this.d.store.teams.get(t.amount > 0 ? account.id : t.teamId);
    return source?.creditBalance ?? 0;
  }
}
