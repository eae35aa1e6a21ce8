// The suppressions repository: a team's addresses that are not sent to. Addresses compare case-insensitively.
import type { Suppression, SuppressionStatus } from '../domain/suppression.js';
import type { PageOf, PageRequest } from './paging.js';

export interface SuppressionFilter {
  /** Part of the address, matched literally (no wildcards). */
  search?: string;
  status?: SuppressionStatus;
}

export interface SuppressionQuery extends SuppressionFilter, PageRequest {}

export type NewSuppression = Omit<Suppression, 'createdAt'>;

/** The platform operators' query: every team's entries, or one team's. */
export interface PlatformSuppressionQuery extends SuppressionQuery {
  teamId?: number;
  /** A search counts its matches up to this many (the paging depth), as the log's search does. */
  searchCountLimit: number;
}

/** An entry with the team whose list holds it. */
export interface TeamSuppression {
  teamId: number;
  suppression: Suppression;
}

export interface SuppressionRepository {
  /** Adds or refreshes an address; an entry replaces the standing one only if it ranks as high (SUPPRESSION_RANK). */
  add(teamId: number, s: NewSuppression): Promise<void>;
  get(teamId: number, email: string): Promise<Suppression | undefined>;
  /** A team's entries, newest first. */
  list(teamId: number, query: SuppressionQuery): Promise<PageOf<Suppression>>;
  /** Every team's entries (or one team's) matching the query, newest first, with their team. */
  listAcrossTeams(query: PlatformSuppressionQuery): Promise<PageOf<TeamSuppression>>;
  /**
   * Every entry of a team matching the filter, newest first (the list's order), read `batch` rows at a time in
   * keyset order: no OFFSET scan, never more than one batch in memory, for exports of any size.
   */
  walk(teamId: number, filter: SuppressionFilter, batch: number): AsyncIterable<Suppression>;
  remove(teamId: number, email: string): Promise<boolean>;
  isSuppressed(teamId: number, email: string): Promise<boolean>;
  /** Which of these (lower-cased) addresses the team suppresses, in one query rather than one per recipient. */
  suppressedAmong(teamId: number, emails: readonly string[]): Promise<Set<string>>;
}
