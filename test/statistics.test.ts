// The dashboard's statistics (core/statistics.ts) after a mixed run written through the store's and feedback's
// real write paths (intake records, deliveries finished under their lease, DSN bounces, expiry, complaints):
// every figure equals a count of the recipients of the messages the message log gives for the same period and
// team, each by its state (issue 22, item 6: figures count recipients), the log's status filter finds the
// messages with any recipient in that status, other teams' messages never count; and the periods asked for are
// checked, with typed refusals.
import t, { type Test } from 'tap';
import { newMessage, recordMessage } from './helpers/new-message.js';
import { startHarness } from './helpers/harness.js';
import { storeSupport } from './helpers/store-support.js';
import { Statistics, type MessageFigures } from '../shared/core/statistics.js';
import { DomainManagement } from '../shared/core/domains.js';
import { MessageLog } from '../shared/core/message-log.js';
import { IN_QUEUE, MESSAGE_STATUSES, type MessageStatus, type RecipientState } from '../shared/domain/queue-state.js';
import type { NewRecipient } from '../shared/store/message-log.js';
import type { AttemptResult } from '../shared/store/queue.js';
import type { Team } from '../shared/domain/team.js';
import { finishAlone } from '../shared/queue/finish.js';
import { recordBounce, recordComplaint } from '../shared/queue/effects.js';

const h = await startHarness();
t.teardown(() => h.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Midnight UTC three days ago: the run's messages lie within the three days after it. */
const BASE = Math.floor(Date.now() / DAY) * DAY - 3 * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

const domains = new DomainManagement(h.rt);
const stats = new Statistics(h.rt, domains);
const messageLog = new MessageLog(h.rt, domains);

let counter = 0;
const rcpt = (email: string, state: NewRecipient['state'] = 'queued'): NewRecipient => ({
  email,
  name: '',
  kind: 'to',
  domain: email.split('@')[1]!,
  state,
  reason: state === 'queued' ? '' : `not sent: ${state}`,
});

type Outcome = 'sent' | 'hard' | 'soft-expired' | 'deferred' | 'dsn' | 'complaint' | 'queued';

/** What happens to each queued recipient of a message, in order; suppressed and disposable ones are set at intake. */
interface Planned {
  recipients: NewRecipient[];
  outcomes: Outcome[];
}

const PLAN: Planned[] = [
  { recipients: [rcpt('a@dest.test')], outcomes: ['sent'] },
  { recipients: [rcpt('b@dest.test'), rcpt('c@dest.test')], outcomes: ['sent', 'sent'] },
  { recipients: [rcpt('d@dest.test')], outcomes: ['hard'] },
  { recipients: [rcpt('e@dest.test')], outcomes: ['soft-expired'] },
  { recipients: [rcpt('f@dest.test')], outcomes: ['deferred'] },
  { recipients: [rcpt('g@dest.test'), rcpt('h@dest.test')], outcomes: ['sent', 'dsn'] },
  { recipients: [rcpt('i@dest.test')], outcomes: ['complaint'] },
  { recipients: [rcpt('j@dest.test', 'suppressed')], outcomes: [] },
  { recipients: [rcpt('k@mailinator.com', 'failed')], outcomes: [] },
  { recipients: [rcpt('l@dest.test'), rcpt('m@dest.test', 'suppressed')], outcomes: ['sent'] },
  { recipients: [rcpt('n@dest.test'), rcpt('o@mailinator.com', 'failed')], outcomes: ['hard'] },
  { recipients: [rcpt('p@dest.test')], outcomes: ['queued'] },
];

/** Records a message of `teamId` at `createdAt` and takes its recipients through their planned outcomes. */
async function run(teamId: number, domainId: string | null, createdAt: number, plan: Planned, support: Awaited<ReturnType<typeof storeSupport>>) {
  const id = `stat${++counter}x${process.pid}`;
  const queued = await recordMessage(h.rt.store, newMessage({ id, teamId, domainId, recipients: plan.recipients, cost: 0 }));
  if (queued === 'insufficient_balance') throw new Error('no balance');
  await support.backdateMessage(id, iso(createdAt));
  const ids = queued.map((r) => r.id).sort((a, b) => a - b);
  const delivered = ids.filter((_, i) => plan.outcomes[i] !== 'queued' && plan.outcomes[i] !== 'soft-expired');
  const token = `stats-${id}`;
  await h.rt.store.queue.claim(delivered, Math.max(Date.now(), ...queued.map((r) => r.due)), Date.now() + 60_000, token);
  const reply = { leaseToken: token, mxHost: 'mx.dest.test', ip: '127.0.0.1' };
  await finishAlone(
    h.rt.store.transaction,
    ids.flatMap((recipientId, i): AttemptResult[] => {
      const o = plan.outcomes[i];
      if (o === 'hard') return [{ recipientId, ...reply, to: 'bounced' as const, reply: '550 5.1.1 no such user', hard: true }];
      if (o === 'deferred') return [{ recipientId, ...reply, to: 'deferred' as const, reply: '451 later', nextAttemptAt: Date.now() + HOUR }];
      if (o === 'sent' || o === 'dsn' || o === 'complaint') return [{ recipientId, ...reply, to: 'sent' as const, reply: '250 ok' }];
      return [];
    }),
  );
  for (const [i, recipientId] of ids.entries()) {
    const o = plan.outcomes[i];
    if (o === 'dsn') await recordBounce(h.rt.store.transaction, { recipientId, hard: true, reason: '5.1.1 (DSN)', source: 'report' });
    if (o === 'complaint') await recordComplaint(h.rt.store.transaction, { recipientId, reason: 'abuse' });
    if (o === 'soft-expired') await recordBounce(h.rt.store.transaction, { recipientId, hard: false, reason: 'expired', source: 'expiry' });
  }
}

/** The message log's count for a team, period, optional status and domain. */
async function logged(team: Team, from: string, to: string, o: { status?: (typeof MESSAGE_STATUSES)[number]; domain?: string } = {}): Promise<number> {
  const page = await messageLog.list(team, { page: 1, perPage: 1, from, to, ...o });
  if (!page.ok) throw new Error(JSON.stringify(page.refusal));
  return page.value.total;
}

/** A recipient's status as every figure counts it: pending while in the queue, else its state (a complaint moves it to complained). */
const statusOf = (state: RecipientState): MessageStatus => (IN_QUEUE.includes(state) ? 'pending' : (state as MessageStatus));

interface LoggedRecipientRow {
  messageId: string;
  createdAt: string;
  domainId: string | null;
  status: MessageStatus;
}

/** Every recipient of the team's messages as the message log shows them (the list, then each message). */
async function recipientsInLog(team: Team): Promise<LoggedRecipientRow[]> {
  const rows: LoggedRecipientRow[] = [];
  for (let page = 1; ; page++) {
    const listed = ok(await messageLog.list(team, { page, perPage: 100 }));
    for (const m of listed.rows) {
      for (const r of ok(await messageLog.get(team, m.id)).recipients)
        rows.push({ messageId: m.id, createdAt: m.createdAt, domainId: m.domainId, status: statusOf(r.state) });
    }
    if (listed.rows.length < 100) return rows;
  }
}

/** The figures the log's recipients give for a period (and domain): a count per status, accepted, and the rates from those. */
function fromLog(all: readonly LoggedRecipientRow[], from: string, to: string, domain?: string): MessageFigures {
  const within = all.filter((r) => r.createdAt >= from && r.createdAt <= to && (domain === undefined || r.domainId === domain));
  const by = Object.fromEntries(MESSAGE_STATUSES.map((status) => [status, within.filter((r) => r.status === status).length])) as Record<MessageStatus, number>;
  const outcomes = by.sent + by.bounced + by.complained;
  const r4 = (n: number) => (outcomes ? Math.round((n / outcomes) * 10_000) / 10_000 : 0);
  return { accepted: within.length, ...by, bounceRate: r4(by.bounced), complaintRate: r4(by.complained) };
}

const figures = ({ accepted, pending, sent, bounced, complained, suppressed, failed, bounceRate, complaintRate }: MessageFigures): MessageFigures => ({
  accepted,
  pending,
  sent,
  bounced,
  complained,
  suppressed,
  failed,
  bounceRate,
  complaintRate,
});

const ok = <T>(r: { ok: true; value: T } | { ok: false; refusal: unknown }): T => {
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.refusal)}`);
  return r.value;
};

/** An account with two domains, a child team and another account; the mixed run three times over for each, spread over three days. */
async function mixedRun(t: Test) {
  const support = await storeSupport(t, h.dataDir);
  const owner = await h.account({ credits: 1000 });
  const team = (await h.rt.store.teams.get(owner.id))!;
  const addDomain = async (name: string) => {
    const res = await h.request('POST', '/v2/domains', { key: owner.key, body: { name } });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    return res.body.data.id as string;
  };
  const domainIds = [await addDomain(`one-${process.pid}-${counter}-stats.com`), await addDomain(`two-${process.pid}-${counter}-stats.com`), null];
  const child = await h.request('POST', '/v2/teams', { key: owner.key, body: { name: 'Child' } });
  const other = await h.account({ credits: 1000 });
  let k = 0;
  for (let round = 0; round < 3; round++) {
    for (const plan of PLAN) {
      // Every 5 h 17 min 3.5 s or so: messages land in many hours, on and off the hour, over three days.
      const at = BASE + Math.floor((k * 3 * DAY) / (3 * PLAN.length)) + 1000 * (k % 7);
      await run(team.id, domainIds[k % 3]!, at, plan, support);
      await run(child.body.data.id as number, null, at, plan, support);
      await run(other.id, null, at + 1, plan, support);
      k++;
    }
  }
  return { team, domainIds, otherId: other.id, childId: child.body.data.id as number };
}

t.test('after a mixed run every figure equals the count of the recipients the message log gives for the same period and team', async (t) => {
  const { team, domainIds, otherId } = await mixedRun(t);
  const all = await recipientsInLog(team);
  const periods = [
    { from: iso(BASE), to: iso(BASE + 3 * DAY - 1) },
    { from: iso(BASE + 5 * HOUR + 17 * 60_000 + 1), to: iso(BASE + 2 * DAY + 7 * HOUR + 123) },
    { from: iso(BASE + DAY).slice(0, 10), to: iso(BASE + DAY).slice(0, 10) },
  ];
  for (const p of periods) {
    const { from, to } = ok(await stats.dashboard(team, p)).period;
    t.same(figures(ok(await stats.dashboard(team, p))), fromLog(all, from, to), `dashboard ${p.from} .. ${p.to}`);
    for (const status of MESSAGE_STATUSES) {
      const withOne = new Set(all.filter((r) => r.createdAt >= from && r.createdAt <= to && r.status === status).map((r) => r.messageId));
      t.equal(await logged(team, from, to, { status }), withOne.size, `the log's ${status} filter finds the messages with any recipient ${status}, ${p.from} .. ${p.to}`);
    }
    for (const interval of ['hour', 'day'] as const) {
      for (const domain of [undefined, domainIds[0]!]) {
        const series = ok(await stats.metrics(team, { interval, ...p, ...(domain ? { domain } : {}) }));
        for (const point of series.points) {
          const end = Date.parse(point.start) + (interval === 'hour' ? HOUR : DAY) - 1;
          const bounds = [point.start > from ? point.start : from, iso(end) < to ? iso(end) : to] as const;
          const expected = fromLog(all, bounds[0], bounds[1], domain);
          if (JSON.stringify(figures(point)) !== JSON.stringify(expected)) t.same(figures(point), expected, `${interval} ${point.start} ${domain ?? ''}`);
        }
        t.equal(
          series.points.reduce((n, pt) => n + pt.accepted, 0),
          fromLog(all, from, to, domain).accepted,
          `the ${interval} points add up to the period (${domain ? 'one domain' : 'all domains'})`,
        );
      }
    }
    const perDomain = ok(await stats.domainSendingStats(team, p));
    t.same(
      perDomain.domains.map((d) => d.domainId),
      domainIds.slice(0, 2),
      'every domain of the team',
    );
    for (const d of perDomain.domains) t.same(figures(d), fromLog(all, from, to, d.domainId), `domain ${d.name}`);
  }
  const whole = ok(await stats.dashboard(team, periods[0]!));
  t.ok(whole.sent > 0 && whole.bounced > 0 && whole.complained > 0 && whole.suppressed > 0 && whole.failed > 0 && whole.pending > 0, 'every status occurs');
  const recipientsPerRun = PLAN.reduce((n, p) => n + p.recipients.length, 0);
  t.equal(whole.accepted, 3 * recipientsPerRun, 'only the recipients of the team’s own messages: neither its child team’s nor another account’s');
  t.equal(whole.queueDepth, 3 * 2, 'the deferred and the never-claimed recipient of each round');
  t.equal(ok(await stats.dashboard((await h.rt.store.teams.get(otherId))!, periods[0]!)).accepted, 3 * recipientsPerRun);
  const monthly = await stats.monthly(team);
  t.equal(monthly.months.length, 12);
  for (const m of monthly.months) {
    const start = Date.parse(`${m.month}-01T00:00:00.000Z`);
    const next = new Date(start);
    next.setUTCMonth(next.getUTCMonth() + 1);
    t.same(figures(m), fromLog(all, iso(start), iso(next.getTime() - 1)), `month ${m.month}`);
  }
  t.equal(
    monthly.months.reduce((n, m) => n + m.accepted, 0),
    3 * recipientsPerRun,
  );
});

t.test('metrics give every hour or day of the period, zeros included, the first and last cut to the period', async (t) => {
  const owner = await h.account();
  const team = (await h.rt.store.teams.get(owner.id))!;
  const hours = ok(await stats.metrics(team, { interval: 'hour', from: '2024-03-01T10:30:00.000Z', to: '2024-03-02T10:29:59.999Z' }));
  t.equal(hours.points.length, 25);
  t.equal(hours.points[0]!.start, '2024-03-01T10:00:00.000Z');
  t.equal(hours.points[24]!.start, '2024-03-02T10:00:00.000Z');
  t.ok(hours.points.every((p) => p.accepted === 0 && p.bounceRate === 0));
  const days = ok(await stats.metrics(team, { interval: 'day', from: '2024-01-01', to: '2024-12-31' }));
  t.equal(days.points.length, 366, 'a leap year, by day');
  t.same(days.period, { from: '2024-01-01T00:00:00.000Z', to: '2024-12-31T23:59:59.999Z' }, 'a date alone is its first or last millisecond');
  const monthly = await new Statistics(h.rt, domains, () => Date.parse('2024-02-29T12:00:00.000Z')).monthly(team);
  t.same(
    monthly.months.map((m) => m.month),
    ['2023-03', '2023-04', '2023-05', '2023-06', '2023-07', '2023-08', '2023-09', '2023-10', '2023-11', '2023-12', '2024-01', '2024-02'],
  );
  t.same(monthly.period, { from: '2023-03-01T00:00:00.000Z', to: '2024-02-29T23:59:59.999Z' });
});

t.test('periods are checked: dates, order, length; an unknown interval or another team’s domain is refused', async (t) => {
  const owner = await h.account();
  const team = (await h.rt.store.teams.get(owner.id))!;
  const stranger = await h.account();
  const res = await h.request('POST', '/v2/domains', { key: stranger.key, body: { name: `strange-${process.pid}-stats.com` } });
  const theirs = res.body.data.id as string;
  const refusal = async (r: Promise<{ ok: boolean; refusal?: unknown }>) => (await r).refusal;
  t.match(await refusal(stats.dashboard(team, { from: 'yesterday' })), { kind: 'invalid_field', field: 'from' });
  t.match(await refusal(stats.dashboard(team, { to: '2024-13-45' })), { kind: 'invalid_field', field: 'to' });
  t.match(await refusal(stats.dashboard(team, { from: '2024-02-02', to: '2024-02-01' })), { kind: 'invalid_field', field: 'from', message: /after/ });
  t.match(await refusal(stats.dashboard(team, { from: '2024-01-01', to: '2025-01-01' })), { kind: 'invalid_field', field: 'from', message: /366 days/ });
  t.equal((await stats.dashboard(team, { from: '2024-01-01', to: '2024-12-31' })).ok, true, '366 days are allowed');
  t.match(await refusal(stats.metrics(team, { interval: 'hour', from: '2024-01-01', to: '2024-02-01' })), { kind: 'invalid_field', message: /31 days/ });
  t.equal((await stats.metrics(team, { interval: 'hour', from: '2024-01-01', to: '2024-01-31' })).ok, true, '31 days by hour are allowed');
  t.match(await refusal(stats.metrics(team, { interval: 'week' })), { kind: 'invalid_field', field: 'interval' });
  t.match(await refusal(stats.metrics(team, { interval: 'day', domain: theirs })), { kind: 'not_found', what: 'domain', field: 'domain' });
  t.match(await refusal(stats.metrics(team, { interval: 'day', domain: 'no-such.example' })), { kind: 'not_found', what: 'domain' });
  t.match(await refusal(stats.domainSendingStats(team, { from: 'x' })), { kind: 'invalid_field', field: 'from' });
  const before = Date.now();
  const dflt = ok(await stats.dashboard(team, {}));
  t.equal(Date.parse(dflt.period.to) - Date.parse(dflt.period.from) + 1, 30 * DAY, 'no period: the last 30 days');
  t.ok(Date.parse(dflt.period.to) >= before, 'up to now');
  const hourly = ok(await stats.metrics(team, { interval: 'hour' }));
  t.equal(Date.parse(hourly.period.to) - Date.parse(hourly.period.from) + 1, DAY, 'by hour, no period: the last 24 hours');
});
