// The platform operators' view of every team's sending domains: the list with its team, the ranking by what
// each sent over a window of days, one domain with its DNS records and team, and its DNS check run now (the
// dashboard's own check, through DomainManagement, under the same on-demand rate limit).
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { utcDay } from '../../time.js';
import type { Store } from '../../store/index.js';
import type { PageOf, PageRequest } from '../../store/paging.js';
import type { AdminDomainFilter, NumberedDomain } from '../../store/admin-domains.js';
import type { Team } from '../../domain/team.js';
import type { CheckedDomain, DomainManagement } from '../domains.js';
import { done, notFound, refuse, type Managed } from '../management-refusals.js';
import { figures, type SendingFigures } from './teams.js';

export type { AdminDomainFilter, NumberedDomain } from '../../store/admin-domains.js';

export interface DomainAdministrationDeps {
  store: Store;
  config: Config;
}

/** A domain with the team it belongs to. */
export interface TeamDomain {
  domain: NumberedDomain;
  team: Team;
}

export interface DomainSending extends TeamDomain {
  sending: SendingFigures;
}

export interface CheckedTeamDomain extends CheckedDomain {
  number: number;
  team: Team;
}

export class DomainAdministration {
  constructor(
    private readonly d: DomainAdministrationDeps,
    private readonly domains: DomainManagement,
  ) {}

  async list(filter: AdminDomainFilter, page: PageRequest): Promise<PageOf<TeamDomain>> {
    const found = await this.d.store.adminDomains.list(filter, page);
    return { rows: await this.withTeams(found.rows, (domain, team) => ({ domain, team })), total: found.total };
  }

  /** Every domain with what it sent, bounced and complained over `days` UTC days, the largest volume first. */
  async sendingStats(days: number, page: PageRequest): Promise<Managed<PageOf<DomainSending>>> {
    const max = this.d.config.statistics.maxDays;
    if (!Number.isInteger(days) || days < 1 || days > max) return refuse({ kind: 'invalid_field', field: 'days', message: `days must be an integer from 1 to ${max}` });
    const fromDay = utcDay(new Date(Date.now() - (days - 1) * 86_400_000));
    const ranked = await this.d.store.adminDomains.sendingRanking(fromDay, page);
    const byNumber = new Map(ranked.rows.map((r) => [r.domain.number, figures(r, days)]));
    const rows = await this.withTeams(
      ranked.rows.map((r) => r.domain),
      (domain, team) => ({ domain, team, sending: byNumber.get(domain.number)! }),
    );
    return done({ rows, total: ranked.total });
  }

  async get(number: number): Promise<Managed<TeamDomain>> {
    const domain = await this.d.store.adminDomains.get(number);
    const team = domain && (await this.d.store.teams.get(domain.teamId));
    return domain && team ? done({ domain, team }) : notFound('domain', 'Domain not found');
  }

  /** The dashboard's verify check of the domain, run now and recorded (rate-limited per domain, whoever asks). */
  async checkNow(number: number, log: Logger): Promise<Managed<CheckedTeamDomain>> {
    const found = await this.get(number);
    if (!found.ok) return found;
    const checked = await this.domains.checkNow(found.value.team, found.value.domain.id, log);
    return checked.ok ? done({ ...checked.value, number, team: found.value.team }) : checked;
  }

  /** Each domain with its team, the page's teams read once each; a domain whose team is gone is left out. */
  private async withTeams<T>(domains: readonly NumberedDomain[], make: (domain: NumberedDomain, team: Team) => T): Promise<T[]> {
    const ids = [...new Set(domains.map((d) => d.teamId))];
    const teams = new Map((await Promise.all(ids.map((id) => this.d.store.teams.get(id)))).flatMap((t) => (t ? [[t.id, t] as const] : [])));
    return domains.flatMap((domain) => {
      const team = teams.get(domain.teamId);
      return team ? [make(domain, team)] : [];
    });
  }
}
