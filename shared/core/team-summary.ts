// What a team (an account or a child team) looks like at a glance: its pooled balance and its bounce and
// complaint rates over the reputation window, the figures platform suspension uses.
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';
import type { Team } from '../domain/team.js';

export interface TeamSummaryDeps {
  config: Config;
  store: Store;
}

export interface TeamSummary {
  team: Team;
  balance: number;
  bounceRate: number;
  complaintRate: number;
}

/** A share rounded to four decimals; 0 when nothing was sent. */
export const rate = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);

export class TeamSummaries {
  constructor(private readonly d: TeamSummaryDeps) {}

  async of(team: Team): Promise<TeamSummary> {
    const since = Date.now() - this.d.config.reputation.windowDays * 86_400_000;
    const totals = await this.d.store.feedback.rates(team.id, since);
    return {
      team,
      balance: await this.d.store.teams.payerBalance(team),
      bounceRate: rate(totals.bounced, totals.volume),
      complaintRate: rate(totals.complained, totals.volume),
    };
  }
}
