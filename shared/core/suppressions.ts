// A team's suppression list: read (a page, or all of it walked for an export), addresses added by hand, and removals, of which an account has a daily allowance (UTC days),
// counted in Redis so that every interface and process shares one counter.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { PageOf } from '../store/paging.js';
import type { Store } from '../store/index.js';
import type { Suppression } from '../domain/suppression.js';
import type { PlatformSuppressionQuery, SuppressionFilter, SuppressionQuery, TeamSuppression } from '../store/suppressions.js';
import type { Team } from '../domain/team.js';
import validator from 'validator';
import { redisKeys } from '../redis-keys.js';
import { secondsUntilNextUtcDay, utcDay } from '../time.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

export type { SuppressionFilter, TeamSuppression };

export interface SuppressionDeps {
  config: Config;
  store: Store;
  redis: Redis;
}

/** How much of the account's daily allowance of removals is left today. */
export interface RemovalAllowance {
  usedToday: number;
  remainingToday: number;
  dailyLimit: number;
}

export interface Removal {
  email: string;
  usedToday: number;
  remainingToday: number;
  dailyLimit: number;
}

/**
 * Rows read per query when walking a list. Small on purpose: rows waiting for a slow reader survive young-
 * generation collections, and what survives is what makes V8 grow the young generation (up to the API's 64 MB
 * semi-space). An export of 100,000 rows grew the API's RSS by 28–29 MB with 100, 36–82 MB with 1,000.
 */
const WALK_BATCH = 100;

/** The longest address (RFC 5321's path limit) and reason an entry added by hand may have. */
const MAX_EMAIL = 254;
const MAX_REASON = 500;

export class Suppressions {
  constructor(private readonly d: SuppressionDeps) {}

  list(team: Team, query: SuppressionQuery): Promise<PageOf<Suppression>> {
    return this.d.store.suppressions.list(team.id, query);
  }

  /** Every team's entries (platform operators), or one team's, newest first; a search counted up to the paging depth. */
  listAcrossTeams(query: Omit<PlatformSuppressionQuery, 'searchCountLimit'>): Promise<PageOf<TeamSuppression>> {
    return this.d.store.suppressions.listAcrossTeams({ ...query, searchCountLimit: this.d.config.limits.pagingDepth });
  }

  /** Every entry matching the filter, newest first, read from the store a batch at a time (exports of any size). */
  walk(team: Team, filter: SuppressionFilter): AsyncIterable<Suppression> {
    return this.d.store.suppressions.walk(team.id, filter, WALK_BATCH);
  }

  /** The account's removals left today, read without using one (a page shows it beside the remove buttons). */
  async allowance(accountId: number): Promise<RemovalAllowance> {
    const limit = this.d.config.limits.suppressionRemovalsPerDay;
    const used = Math.min(limit, Number((await this.d.redis.get(redisKeys.suppressionRemovals(accountId, utcDay()))) ?? 0));
    return { usedToday: used, remainingToday: Math.max(0, limit - used), dailyLimit: limit };
  }

  /**
   * Adds an address by hand ('suppressed': mail to it is not sent), with an optional reason of one line. An address
   * already suppressed by a bounce or a complaint keeps that entry (SUPPRESSION_RANK); the entry standing is returned.
   */
  async add(team: Team, rawEmail: string, rawReason: string, log: Logger): Promise<Managed<Suppression>> {
    const email = rawEmail.trim().toLowerCase();
    const reason = rawReason.trim();
    if (email.length > MAX_EMAIL || !validator.isEmail(email))
      return refuse({ kind: 'invalid_field', field: 'email', message: 'The address must be an email address such as someone@example.com.' });
    // One line of text: it is shown in lists and written to the CSV export.
    if (reason.length > MAX_REASON || /\p{Cc}/u.test(reason))
      return refuse({ kind: 'invalid_field', field: 'reason', message: `The reason must be one line of at most ${MAX_REASON} characters.` });
    await this.d.store.suppressions.add(team.id, { email, status: 'suppressed', reason, messageId: null });
    const standing = await this.d.store.suppressions.get(team.id, email);
    if (!standing) return notFound('suppression', `${email} is not on the suppression list`);
    log.info({ team: team.id, email }, 'suppression added by hand');
    return done(standing);
  }

  /** Removes an address; only a real removal uses the account's daily allowance. */
  async remove(team: Team, accountId: number, rawEmail: string, log: Logger): Promise<Managed<Removal>> {
    const email = rawEmail.trim().toLowerCase();
    const limit = this.d.config.limits.suppressionRemovalsPerDay;
    const notListed = () => notFound<Removal>('suppression', `${email} is not on the suppression list`);
    // Checked before counting, so requests for unlisted addresses never hold a unit of the allowance,
    // even briefly, while a concurrent real removal is being counted.
    if (!(await this.d.store.suppressions.isSuppressed(team.id, email))) return notListed();
    const key = redisKeys.suppressionRemovals(accountId, utcDay());
    const [[, used]] = (await this.d.redis
      .multi()
      .incr(key)
      .expire(key, 2 * 86_400)
      .exec()) as [[Error | null, number]];
    const release = async () => void (await this.d.redis.decr(key));
    if (used > limit) {
      await release();
      return refuse({ kind: 'daily_limit_reached', limit, retryAfterS: secondsUntilNextUtcDay() });
    }
    if (!(await this.d.store.suppressions.remove(team.id, email))) {
      await release();
      return notListed();
    }
    log.info({ team: team.id, email }, 'suppression removed');
    return done({ email, usedToday: used, remainingToday: Math.max(0, limit - used), dailyLimit: limit });
  }
}
