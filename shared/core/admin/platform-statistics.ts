// The platform's figures for its operators (GET /admin/stats): teams, recipients by status over a window and
// day by day (counted per recipient, as every figure is: docs/decisions.md, "Bounces counted per recipient
// (issue 22, item 6)"), the queue depth, bounce and complaint rates, and credits granted, sold and used.
import type { Store } from '../../store/index.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../../domain/queue-state.js';
import type { TeamCounts } from '../../store/platform-statistics.js';
import { rate } from '../team-summary.js';
import { utcDay } from '../../time.js';
import { creditSummaryOf, type CreditSummary } from './credits.js';

export type StatusTotals = Record<MessageStatus, number>;

export interface PlatformStats {
  windowDays: number;
  teamCounts: TeamCounts;
  /** Recipients of the messages recorded in the window, by status (the field keeps its name in the REST reply). */
  messages: StatusTotals;
  /** One entry per UTC day of the window, oldest first, every status listed (0 when none). */
  series: Array<{ day: string } & StatusTotals>;
  queueDepth: number;
  /** Over the window's recipients that ended sent, bounced or complained. */
  bounceRate: number;
  complaintRate: number;
  credits: CreditSummary;
}

const DAY_MS = 86_400_000;
const zeroes = (): StatusTotals => Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, 0])) as StatusTotals;

/** The UTC days from `days - 1` days before `now` to `now`'s, oldest first. */
function windowDays(now: number, days: number): string[] {
  return Array.from({ length: days }, (_, i) => utcDay(new Date(now - (days - 1 - i) * DAY_MS)));
}

export class PlatformStatistics {
  constructor(private readonly d: { store: Store; now?: () => number }) {}

  /** Every team's recipients by status over the last `days` UTC days, today included (the Prometheus gauge's figures). */
  async recipients(days: number): Promise<StatusTotals> {
    return (await this.byDay(days)).totals;
  }

  async stats(days: number): Promise<PlatformStats> {
    const [{ dayList, byDay, totals: messages }, teamCounts, queueDepth, credits] = await Promise.all([
      this.byDay(days),
      this.d.store.platformStatistics.teamCounts(),
      this.d.store.platformStatistics.queueDepth(),
      this.d.store.credits.totals(),
    ]);
    const ended = messages.sent + messages.bounced + messages.complained;
    return {
      windowDays: days,
      teamCounts,
      messages,
      series: dayList.map((day) => ({ day, ...byDay.get(day)! })),
      queueDepth,
      bounceRate: rate(messages.bounced, ended),
      complaintRate: rate(messages.complained, ended),
      credits: creditSummaryOf(credits),
    };
  }

  private async byDay(days: number): Promise<{ dayList: string[]; byDay: Map<string, StatusTotals>; totals: StatusTotals }> {
    const dayList = windowDays((this.d.now ?? Date.now)(), days);
    const counts = await this.d.store.platformStatistics.messagesByDay(dayList[0]!, dayList.at(-1)!);
    const byDay = new Map(dayList.map((day) => [day, zeroes()]));
    const totals = zeroes();
    for (const c of counts) {
      byDay.get(c.day)![c.status] += c.n;
      totals[c.status] += c.n;
    }
    return { dayList, byDay, totals };
  }
}
