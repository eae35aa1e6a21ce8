// What the platform's operators read of every team's sending domains: the list with its filters, one domain by
// its number, and the domains ranked by what they sent over a window of days. Every read is indexed and paged.
import type { Domain, VerificationStatus } from '../domain/sending-domain.js';
import type { PageOf, PageRequest } from './paging.js';
import type { SendingCounts } from './admin-teams.js';

/** A domain with its number: the operators' `{id}` (digits), beside the id its team's routes use. */
export interface NumberedDomain extends Domain {
  number: number;
}

/** Every field given narrows the list. */
export interface AdminDomainFilter {
  status?: VerificationStatus;
  teamId?: number;
  /** Part of the name, matched literally. */
  search?: string;
}

export interface DomainSendingCounts extends SendingCounts {
  domain: NumberedDomain;
}

export interface AdminDomainRepository {
  /** Live domains of every team that match, by number, with their total. */
  list(filter: AdminDomainFilter, page: PageRequest): Promise<PageOf<NumberedDomain>>;
  /** A live domain by its number. */
  get(number: number): Promise<NumberedDomain | undefined>;
  /** Every live domain's sending counts from `fromDay` (YYYY-MM-DD, UTC) on, the largest volume first (then by number). */
  sendingRanking(fromDay: string, page: PageRequest): Promise<PageOf<DomainSendingCounts>>;
}
