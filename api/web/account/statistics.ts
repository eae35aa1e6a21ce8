// The statistics page: the team's figures over a period chosen by interval (hour or day) and length, of all its
// domains or one; the chart of the period with its table, the totals of the same period, each domain's figures,
// and the last 12 months (one line when none had mail). Each figure counts recipients, and the labels say so. Every number comes from the core use cases the REST statistics routes answer from.
import { figuresOf, type DomainFigures, type MessageFigures, type MonthFigures, type Interval } from '../../../shared/core/statistics.js';
import { MESSAGE_STATUSES } from '../../../shared/domain/queue-state.js';
import type { Team } from '../../../shared/domain/team.js';
import type { AppContext } from '../../pipeline/context.js';
import { html, type Html } from '../html.js';
import { pageError, valueOrPageError } from '../errors.js';
import { accountPage, type PageCall } from '../page.js';
import { table } from '../parts.js';
import type { PageReply } from '../reply.js';
import type { AccountViewer } from '../viewer.js';
import { dailyChart, lastDays } from '../charts.js';
import type { PageRequest } from '../request.js';

interface Range {
  days: number;
  label: string;
}

/** The lengths offered for each interval (hours: within the hourly limit of config statistics.maxHourlyDays). */
const RANGES: Readonly<Record<Interval, readonly Range[]>> = {
  day: [
    { days: 7, label: 'Last 7 days' },
    { days: 30, label: 'Last 30 days' },
    { days: 90, label: 'Last 90 days' },
  ],
  hour: [
    { days: 1, label: 'Last 24 hours' },
    { days: 3, label: 'Last 3 days' },
    { days: 7, label: 'Last 7 days' },
  ],
};
const DEFAULT_DAYS: Readonly<Record<Interval, number>> = { day: 30, hour: 1 };
const INTERVAL_LABELS: Readonly<Record<Interval, string>> = { day: 'By day', hour: 'By hour' };

/** The figures a table shows, in order. */
const COLUMNS: ReadonlyArray<[keyof MessageFigures, string]> = [
  ['accepted', 'Accepted'],
  ['sent', 'Sent'],
  ['bounced', 'Bounced'],
  ['complained', 'Complained'],
  ['suppressed', 'Suppressed'],
  ['failed', 'Failed'],
  ['pending', 'Pending'],
];

interface Selection {
  interval: Interval;
  days: number;
  /** A domain's id, or undefined for all. */
  domainId: string | undefined;
}

/** The query's choices, checked against what the selectors offer; anything else is a 400 saying what is allowed. */
function selectionOf(r: PageRequest): Selection {
  const interval = r.query.interval ?? 'day';
  if (interval !== 'day' && interval !== 'hour') throw pageError('invalid_request', 'The interval must be “hour” or “day”.');
  const days = r.query.days === undefined || r.query.days === '' ? DEFAULT_DAYS[interval] : Number(r.query.days);
  if (!RANGES[interval].some((x) => x.days === days)) {
    throw pageError(
      'invalid_request',
      `The period must be one of ${RANGES[interval].map((x) => x.label.toLowerCase()).join(', ')} ${INTERVAL_LABELS[interval].toLowerCase()}.`,
    );
  }
  const domainId = r.query.domain ? r.query.domain : undefined;
  return { interval, days, domainId };
}

const percent = (rate: number): string => `${(rate * 100).toFixed(2)} %`;

const figureCells = (f: MessageFigures): Html[] => [
  ...COLUMNS.map(([key]) => html`<td class="number">${f[key]}</td>`),
  html`<td class="number">${percent(f.bounceRate)}</td>`,
  html`<td class="number">${percent(f.complaintRate)}</td>`,
];
const figureHead = (first: string): string[] => [first, ...COLUMNS.map(([, label]) => label), 'Bounce rate', 'Complaint rate'];

function filters(s: Selection, domains: ReadonlyArray<{ id: string; name: string }>): Html {
  const option = (value: string, label: string, chosen: boolean) => html`<option value="${value}" ${chosen ? html`selected` : undefined}>${label}</option>`;
  const ranges = (['day', 'hour'] as const).map(
    (i) => html`<optgroup label="${INTERVAL_LABELS[i]}">${RANGES[i].map((x) => option(String(x.days), x.label, s.interval === i && s.days === x.days))}</optgroup>`,
  );
  return html`<form method="get" action="/statistics" class="filters">
    <div>
      <label for="interval">Interval</label>
      <select id="interval" name="interval">
        ${(['day', 'hour'] as const).map((i) => option(i, INTERVAL_LABELS[i], s.interval === i))}
      </select>
    </div>
    <div>
      <label for="days">Period</label>
      <select id="days" name="days" aria-describedby="days-hint">
        ${ranges}
      </select>
      <p class="hint" id="days-hint">By hour, at most the last 7 days.</p>
    </div>
    <div>
      <label for="domain">Domain</label>
      <select id="domain" name="domain">
        ${option('', 'All domains', s.domainId === undefined)} ${domains.map((d) => option(d.id, d.name, s.domainId === d.id))}
      </select>
    </div>
    <button type="submit" id="show-statistics">Show</button>
  </form>`;
}

function domainTable(domains: readonly DomainFigures[]): Html {
  return table(
    'Recipients by domain over the period',
    figureHead('Domain'),
    domains.map(
      (d) =>
        html`<tr>
          <th scope="row"><a href="/domains/${d.domainId}">${d.name}</a></th>
          ${figureCells(d)}
        </tr>`,
    ),
    'No domains yet — add one on the Domains page to see its figures here.',
  );
}

/** The last 12 months; none at all with mail in them is one line, not a table of zeros. */
function monthlyTable(months: readonly MonthFigures[]): Html {
  if (months.every((m) => m.accepted === 0)) return html`<p class="muted" id="no-months">No mail in the last 12 months.</p>`;
  return table(
    'Recipients by month, last 12 months (UTC)',
    figureHead('Month'),
    months.map(
      (m) =>
        html`<tr>
          <th scope="row">${m.month}</th>
          ${figureCells(m)}
        </tr>`,
    ),
  );
}

async function periodTotals(ctx: AppContext, team: Team, period: { from: string; to: string }, domainId: string | undefined): Promise<MessageFigures> {
  if (domainId === undefined) return valueOrPageError(await ctx.core.statistics.dashboard(team, period));
  // The totals of one domain are the sum of its points, with the rates the core gives any counts.
  const series = valueOrPageError(await ctx.core.statistics.metrics(team, { ...period, interval: 'day', domain: domainId }));
  return figuresOf(MESSAGE_STATUSES.map((status) => ({ status, n: series.points.reduce((n, p) => n + p[status], 0) })));
}

async function statistics({ ctx, r, viewer }: PageCall<AccountViewer>): Promise<PageReply> {
  const team = viewer.acting;
  const s = selectionOf(r);
  const period = lastDays(s.days);
  const domains = await ctx.core.domains.all(team);
  const chosen = s.domainId === undefined ? undefined : domains.find((d) => d.id === s.domainId);
  if (s.domainId !== undefined && !chosen) throw pageError('not_found', 'There is no such domain on this team.');
  const range = RANGES[s.interval].find((x) => x.days === s.days)!.label;
  const scope = chosen ? chosen.name : 'all domains';
  const chart = await dailyChart(ctx, team, {
    days: s.days,
    period,
    interval: s.interval,
    domainId: s.domainId,
    caption: `Recipients ${INTERVAL_LABELS[s.interval].toLowerCase()}, ${range.toLowerCase()}, ${scope}`,
  });
  const totals = await periodTotals(ctx, team, period, s.domainId);
  const byDomain = valueOrPageError(await ctx.core.statistics.domainSendingStats(team, period));
  const monthly = await ctx.core.statistics.monthly(team);
  const body = html`${filters(s, domains)}
    <p class="hint" id="counting">Each figure counts recipients: a message to three addresses counts three, each in the state it reached.</p>
    <h2>${range}, ${scope}</h2>
    ${table(`Totals, ${range.toLowerCase()}, ${scope}`, figureHead('Period'), [
      html`<tr>
        <th scope="row">${range}</th>
        ${figureCells(totals)}
      </tr>`,
    ])}
    ${chart}
    <h2>By domain</h2>
    ${domainTable(byDomain.domains)}
    <h2>By month</h2>
    ${monthlyTable(monthly.months)}`;
  return { kind: 'page', title: 'Statistics', body };
}

export const STATISTICS_PAGES = [accountPage({ method: 'GET', path: '/statistics', title: 'Statistics', access: 'read', handle: statistics })];
