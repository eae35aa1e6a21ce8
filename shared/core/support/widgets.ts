// The account's context beside a ticket (GET /info/widgets), what an operator answering needs at a glance: the
// team's plan and status, its credits, its sending over the reputation window with the bounce and complaint rates
// platform suspension watches, its suppressions, what it has in the queue and its open tickets. Reads only, each
// the store's existing read (the same figures the team summary and the statistics give).
import type { Config } from '../../config.js';
import type { Store } from '../../store/index.js';
import type { Team } from '../../domain/team.js';
import { rate } from '../team-summary.js';
import { done, refuse, type Managed } from '../management-refusals.js';
import { ticketNotFound, type SupportParty } from './party.js';
import type { SupportTickets } from './tickets.js';

export interface WidgetDeps {
  config: Config;
  store: Store;
}

export interface AccountWidgets {
  team: Team;
  balance: number;
  windowDays: number;
  volume: number;
  bounced: number;
  complained: number;
  bounceRate: number;
  complaintRate: number;
  suppressions: number;
  queued: number;
  openTickets: number;
}

export class SupportWidgets {
  constructor(
    private readonly d: WidgetDeps,
    private readonly tickets: SupportTickets,
  ) {}

  /**
   * The context of a ticket's team, or (a customer without a ticket) of the team acted on. An operator names the
   * ticket: it belongs to no team of its own.
   */
  async of(party: SupportParty, ticketId: number | undefined): Promise<Managed<AccountWidgets>> {
    if (ticketId === undefined) {
      if (party.kind === 'agent')
        return refuse({ kind: 'invalid_field', field: 'ticket_id', message: 'ticket_id is required for an operator: the ticket whose account to show' });
      return done(await this.figures(party.team));
    }
    const ticket = await this.tickets.find(party, ticketId);
    if (!ticket.ok) return ticket;
    const team = party.kind === 'customer' ? party.team : await this.d.store.teams.get(ticket.value.teamId);
    return team ? done(await this.figures(team)) : ticketNotFound();
  }

  private async figures(team: Team): Promise<AccountWidgets> {
    const windowDays = this.d.config.reputation.windowDays;
    const [balance, rates, suppressions, queued, open] = await Promise.all([
      this.d.store.teams.payerBalance(team),
      this.d.store.feedback.rates(team.id, Date.now() - windowDays * 86_400_000),
      this.d.store.suppressions.list(team.id, { page: 1, perPage: 1 }),
      this.d.store.statistics.queueDepth(team.id),
      this.d.store.support.listTickets({ teamId: team.id, status: 'open', orderBy: 'id', order: 'desc' }, { page: 1, perPage: 1 }),
    ]);
    return {
      team,
      balance,
      windowDays,
      ...rates,
      bounceRate: rate(rates.bounced, rates.volume),
      complaintRate: rate(rates.complained, rates.volume),
      suppressions: suppressions.total,
      queued,
      openTickets: open.total,
    };
  }
}
