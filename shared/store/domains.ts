// The domains repository: sending domains, unique by name among live domains across the whole service.
import type { Domain } from '../domain/sending-domain.js';
import type { PageOf, PageRequest } from './paging.js';

export interface NewDomain {
  teamId: number;
  name: string;
  dkimSelector: string;
  dkimPublicKey: string;
  dkimPrivateKeyEnc: string;
}

export interface CheckRecord {
  verified: boolean;
  dmarcPolicy: string | null;
  /** What is still missing, shown as auto_verification.reason while checks go on. */
  summary: string;
  result: unknown;
}

export interface DomainCounts {
  live: number;
  verified: number;
}

export interface DomainRepository {
  /** Creates a draft domain, 'exists' when a live domain has the name; the team's first live domain becomes its default. */
  create(d: NewDomain): Promise<Domain | 'exists'>;
  /** A live domain, of the given team when one is given. */
  get(id: string, teamId?: number): Promise<Domain | undefined>;
  findByName(name: string): Promise<Domain | undefined>;
  /** A team's live domains, oldest first. */
  list(teamId: number, page: PageRequest): Promise<PageOf<Domain>>;
  /** How many live domains the team has, and how many of them are verified: counted, however many there are. */
  countsOf(teamId: number): Promise<DomainCounts>;
  /** Removes a domain; when it was the default, the team's oldest remaining domain becomes default. */
  remove(id: string, teamId: number): Promise<boolean>;
  /** Drafts still covered by the automatic check, those never checked first, then the longest unchecked. */
  awaitingCheck(): Promise<Domain[]>;
  /** Stores a check's findings; a passing check verifies the domain and ends its automatic checks. */
  recordCheck(id: string, check: CheckRecord): Promise<Domain | undefined>;
  stopAutoVerify(id: string, reason: string): Promise<void>;
}
