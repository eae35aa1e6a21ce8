// A chart of a team's figures over time: uPlot draws it in the browser from the REST route the numbers come
// from (with the session's nonce, web/static/app.js), and the same numbers are in a table under it (read by
// screen readers and tests, and there when scripts are not).
import type { MessageFigures } from '../../shared/core/statistics.js';
import type { Team } from '../../shared/domain/team.js';
import type { AppContext } from '../pipeline/context.js';
import { html, type Html } from './html.js';
import { valueOrPageError } from './errors.js';
import { table } from './parts.js';

export const CHARTED: ReadonlyArray<[keyof MessageFigures, string]> = [
  ['sent', 'Sent'],
  ['bounced', 'Bounced'],
  ['complained', 'Complained'],
  ['suppressed', 'Suppressed'],
];

export interface ChartRequest {
  days: number;
  caption: string;
  interval?: 'day' | 'hour';
  /** Only this domain (its id). */
  domainId?: string;
  /** The exact period (ISO bounds) instead of the last `days` days: a page showing other figures of the same period. */
  period?: { from: string; to: string };
}

/** The REST route the browser draws the chart from. */
export function metricsRoute(c: ChartRequest, from: string, to: string): string {
  const q = new URLSearchParams({ interval: c.interval ?? 'day', from, to });
  if (c.domainId) q.set('domain', c.domainId);
  return `/api/tern/v2/stats/metrics?${q.toString()}`;
}

/** The last `days` days up to now, as ISO bounds. */
export function lastDays(days: number): { from: string; to: string } {
  const to = new Date();
  return { from: new Date(to.getTime() - days * 86_400_000).toISOString(), to: to.toISOString() };
}

/** The figure uPlot fills and, under it, the table of the same points. */
export async function dailyChart(ctx: AppContext, team: Team, c: ChartRequest): Promise<Html> {
  const { from, to } = c.period ?? lastDays(c.days);
  const series = valueOrPageError(await ctx.core.statistics.metrics(team, { interval: c.interval ?? 'day', from, to, domain: c.domainId }));
  const spec = JSON.stringify(CHARTED.map(([field, label]) => ({ field, label })));
  const label = (start: string) => (c.interval === 'hour' ? `${start.slice(0, 13).replace('T', ' ')}:00` : start.slice(0, 10));
  const rows = series.points.map(
    (p) =>
      html`<tr>
        <th scope="row">${label(p.start)}</th>
        ${CHARTED.map(([key]) => html`<td class="number">${p[key]}</td>`)}
      </tr>`,
  );
  return html`<figure class="chart" data-src="${metricsRoute(c, from, to)}" data-rows="points" data-x="start" data-series="${spec}">
      <figcaption>${c.caption}</figcaption>
      <div class="plot" aria-hidden="true"></div>
    </figure>
    <details>
      <summary>The numbers of the chart</summary>
      ${table(c.caption, [c.interval === 'hour' ? 'Hour (UTC)' : 'Day (UTC)', ...CHARTED.map(([, l]) => l)], rows)}
    </details>`;
}
