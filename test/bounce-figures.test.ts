// Issue 22, item 6: every figure of bounces counts recipients, one definition read from the store's counters.
// A message to two recipients goes through the real delivery path to a sink that refuses one (550, a hard bounce)
// and defers the other (451); then /v2/info, every dashboard REST route, every page's numbers (HTML), the log's
// status filter (REST and page, the account's and the operator's) and the Prometheus gauge must agree. One more
// single-recipient bounce, and they must agree again.
import t from 'tap';
import { startMailWorld, type MailWorld } from './helpers/mail-world.js';
import { logIn, operatorOn, userOn, withSession, type SignedIn } from './helpers/dashboard-session.js';
import { page, signInOverHttp } from './helpers/web-pages.js';
import { until } from './helpers/wait.js';
import type { UntypedJson } from './helpers/harness.js';

const API = '/api/tern/v2';

interface Callers {
  owner: SignedIn;
  ownerCookie: string;
  operator: SignedIn;
  operatorCookie: string;
}

/** The cells of the rows of the table captioned `caption` on a page, keyed by the column headings. */
function tableRows(htmlText: string, caption: string | RegExp): Array<Record<string, string>> {
  const text = (s: string) =>
    s
      .replace(/<[^>]*>/g, ' ')
      .replace(/&nbsp;|&#160;/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  for (const [, body] of htmlText.matchAll(/<table>([\s\S]*?)<\/table>/g)) {
    const cap = /<caption>([\s\S]*?)<\/caption>/.exec(body!)?.[1];
    if (cap === undefined || (typeof caption === 'string' ? text(cap) !== caption : !caption.test(text(cap)))) continue;
    const heads = [...(/<thead>([\s\S]*?)<\/thead>/.exec(body!)?.[1] ?? '').matchAll(/<th[^>]*>([\s\S]*?)<\/th>/g)].map((m) => text(m[1]!));
    const rows = [...(/<tbody>([\s\S]*?)<\/tbody>/.exec(body!)?.[1] ?? '').matchAll(/<tr>([\s\S]*?)<\/tr>/g)];
    return rows.map(([, tr]) => {
      const cells = [...tr!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((m) => text(m[1]!));
      return Object.fromEntries(heads.map((h, i) => [h, cells[i] ?? '']));
    });
  }
  throw new Error(`no table captioned "${String(caption)}"`);
}

/** The one row of a table whose first cell is `first`. */
function rowOf(htmlText: string, caption: string | RegExp, first: string): Record<string, string> {
  const row = tableRows(htmlText, caption).find((r) => Object.values(r)[0] === first);
  if (!row) throw new Error(`no row "${first}" in "${String(caption)}"`);
  return row;
}

async function pageText(w: MailWorld, cookie: string, path: string): Promise<string> {
  const reply = await page(w.h, 'GET', path, { cookie });
  if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text.slice(0, 300)}`);
  return reply.text;
}

async function rest(w: MailWorld, s: SignedIn, path: string): Promise<UntypedJson> {
  const reply = await w.h.request('GET', `${API}${path}`, withSession(s));
  if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`);
  return reply.body;
}

const sum = (points: UntypedJson[], key: string) => points.reduce((n: number, p) => n + (p[key] as number), 0);

/** Waits until no recipient of the message is queued or being sent (bounced and deferred ones are what we want). */
async function attempted(w: MailWorld, messageId: string): Promise<void> {
  await until(
    `message ${messageId} to be attempted`,
    async () => {
      const detail = await w.h.request('GET', `/v2/emails/${messageId}`, { key: w.adminKey });
      const states = (detail.body.data?.recipients ?? []).map((r: UntypedJson) => r.state as string);
      return states.length > 0 && states.every((s: string) => s !== 'queued' && s !== 'sending') ? true : null;
    },
    15_000,
  );
}

async function send(w: MailWorld, to: string[], subject: string): Promise<string> {
  const res = await w.h.request('POST', '/v2/emails', {
    key: w.sendingKey,
    body: { from: { email: `hello@${w.domain}` }, to: to.map((email) => ({ email })), subject, text: 'hello' },
  });
  if (res.status !== 200) throw new Error(res.text);
  const id = res.body.message_id as string;
  await attempted(w, id);
  return id;
}

/** Every figure of bounced (and sent, pending) recipients the product shows, by where it is shown. */
async function everyFigure(w: MailWorld, c: Callers, bouncedIds: string[], subjects: string[]) {
  const f: Record<string, unknown> = {};
  const info = (await w.h.request('GET', '/v2/info', { key: w.adminKey })).body;
  f['/v2/info bounce_rate'] = info.account.bounce_rate;

  const dashboard = await rest(w, c.owner, '/stats/dashboard');
  f['REST overview bounced'] = dashboard.bounced;
  f['REST overview sent'] = dashboard.sent;
  f['REST overview pending'] = dashboard.pending;
  f['REST overview bounce_rate'] = dashboard.bounce_rate;
  const metrics = await rest(w, c.owner, '/stats/metrics?interval=day');
  f['REST statistics by day bounced'] = sum(metrics.points, 'bounced');
  const monthly = await rest(w, c.owner, '/stats/monthly');
  f['REST statistics by month bounced'] = sum(monthly.months, 'bounced');
  const domains = await rest(w, c.owner, '/api/domains/sending-stats');
  f['REST domain bounced'] = sum(domains.domains, 'bounced');
  const platform = await rest(w, c.operator, '/admin/stats?days=30');
  f['REST platform bounced'] = platform.messages.bounced;
  f['REST platform bounce_rate'] = platform.bounce_rate;
  const team = await rest(w, c.operator, `/admin/tenants/${w.teamId}`);
  f['REST tenant bounced'] = team.sending.bounced;
  f['REST tenant sent'] = team.sending.sent;
  const teams = await rest(w, c.operator, '/admin/tenants?per_page=100');
  const listed = (teams as UntypedJson[]).find((x) => x.id === w.teamId)!;
  f['REST tenant list bounced'] = listed.sending.bounced;
  f['REST tenant list sent'] = listed.sending.sent;
  const logs = await w.h.request('GET', `${API}/api/logs?status=bounced`, withSession(c.owner));
  f['REST logs ?status=bounced finds'] = bouncedIds.filter((id) => logs.text.includes(id)).length;
  f['REST logs ?status=bounced total'] = Number(logs.headers.get('x-wp-total'));
  const adminLogs = await w.h.request('GET', `${API}/admin/logs?status=bounced`, withSession(c.operator));
  f['REST operator logs ?status=bounced finds'] = subjects.filter((s) => adminLogs.text.includes(s)).length;

  const overview = await pageText(w, c.ownerCookie, '/');
  const last30 = rowOf(overview, 'Recipients by period', 'Last 30 days');
  f['page overview bounced'] = Number(last30.Bounced);
  f['page overview sent'] = Number(last30.Sent);
  const statistics = await pageText(w, c.ownerCookie, '/statistics');
  const totals = rowOf(statistics, 'Totals, last 30 days, all domains', 'Last 30 days');
  f['page statistics bounced'] = Number(totals.Bounced);
  f['page statistics pending'] = Number(totals.Pending);
  f['page statistics by domain bounced'] = Number(rowOf(statistics, 'Recipients by domain over the period', w.domain).Bounced);
  const domainId = (await w.h.request('GET', '/v2/domains', { key: w.adminKey })).body.data[0].id as string;
  const domainPage = await pageText(w, c.ownerCookie, `/domains/${domainId}`);
  f['page domain "Sending, last 30 days" bounced'] = Number(/<span class="figure">(\d+)<\/span> bounced/.exec(domainPage)?.[1]);
  const platformPage = await pageText(w, c.operatorCookie, '/admin');
  f['page platform bounced'] = Number(rowOf(platformPage, PLATFORM_TABLE, 'Bounced')[rowHead(platformPage)]);
  const teamPage = await pageText(w, c.operatorCookie, `/admin/tenants/${w.teamId}`);
  f['page tenant bounced'] = Number(rowOf(teamPage, 'Sending over the last 30 days', 'Bounced').Value);
  f['page tenant sent'] = Number(rowOf(teamPage, 'Sending over the last 30 days', 'Sent').Value);
  const teamList = await pageText(w, c.operatorCookie, '/admin/tenants');
  const teamRow = tableRows(teamList, 'Tenants').find((r) => r.Id === String(w.teamId))!;
  f['page tenant list sent'] = Number(teamRow['Sent, 30 days']);
  const logsPage = await pageText(w, c.ownerCookie, '/logs?status=bounced');
  f['page logs ?status=bounced finds'] = bouncedIds.filter((id) => logsPage.includes(`/logs/${id}`)).length;
  const adminLogsPage = await pageText(w, c.operatorCookie, '/admin/logs?status=bounced');
  f['page operator logs ?status=bounced finds'] = subjects.filter((s) => adminLogsPage.includes(s)).length;

  const scraped = await (await fetch(`${w.h.api.metricsUrl}/metrics`)).text();
  f['Prometheus tern_recipients bounced'] = Number(/^tern_recipients\{status="bounced"\} (\d+)$/m.exec(scraped)?.[1]);
  f['Prometheus tern_recipients pending'] = Number(/^tern_recipients\{status="pending"\} (\d+)$/m.exec(scraped)?.[1]);
  return f;
}

/** The heading of the platform page's count column (the second of its status table). */
const rowHead = (htmlText: string): string => Object.keys(tableRows(htmlText, PLATFORM_TABLE)[0]!)[1]!;
/** The platform page's table of the window's figures by status. */
const PLATFORM_TABLE = /of the last 30 days by status$/;

/** What every figure must say when `bounced` recipients bounced and one is deferred, none delivered. */
function expected(bounced: number, found: number): Record<string, unknown> {
  const rate = 1; // every recipient with an outcome bounced
  return {
    '/v2/info bounce_rate': rate,
    'REST overview bounced': bounced,
    'REST overview sent': 0,
    'REST overview pending': 1,
    'REST overview bounce_rate': rate,
    'REST statistics by day bounced': bounced,
    'REST statistics by month bounced': bounced,
    'REST domain bounced': bounced,
    'REST platform bounced': bounced,
    'REST platform bounce_rate': rate,
    'REST tenant bounced': bounced,
    'REST tenant sent': 0,
    'REST tenant list bounced': bounced,
    'REST tenant list sent': 0,
    'REST logs ?status=bounced finds': found,
    'REST logs ?status=bounced total': found,
    'REST operator logs ?status=bounced finds': found,
    'page overview bounced': bounced,
    'page overview sent': 0,
    'page statistics bounced': bounced,
    'page statistics pending': 1,
    'page statistics by domain bounced': bounced,
    'page domain "Sending, last 30 days" bounced': bounced,
    'page platform bounced': bounced,
    'page tenant bounced': bounced,
    'page tenant sent': 0,
    'page tenant list sent': 0,
    'page logs ?status=bounced finds': found,
    'page operator logs ?status=bounced finds': found,
    'Prometheus tern_recipients bounced': bounced,
    'Prometheus tern_recipients pending': 1,
  };
}

t.test('a hard bounce beside a deferred recipient counts as one bounced recipient in every figure, and a second bounce makes two everywhere', async (t) => {
  const w = await startMailWorld({ mtaEnv: { TERNMAIL_RETRY_DELAYS_S: '3600' } });
  t.teardown(() => w.close());
  w.sink.rcptReply = (address) => {
    if (address.startsWith('gone')) return { code: 550, message: '5.1.1 <gone@dest.test>: Recipient address rejected: User unknown' };
    if (address.startsWith('later')) return { code: 451, message: '4.7.1 try again later' };
    return null;
  };
  const ownerEmail = await userOn(w.h, w.accountId, 'owner');
  const operatorEmail = await operatorOn(w.h);
  const c: Callers = {
    owner: await logIn(w.h, ownerEmail),
    ownerCookie: await signInOverHttp(w.h, ownerEmail),
    operator: await logIn(w.h, operatorEmail),
    operatorCookie: await signInOverHttp(w.h, operatorEmail),
  };

  const mixed = await send(w, ['gone@dest.test', 'later@dest.test'], 'Mixed outcome one');
  const suppressed = await w.h.request('GET', '/v2/suppressions', { key: w.adminKey });
  t.match(suppressed.body.data, [{ email: 'gone@dest.test', status: 'bounced' }], 'the hard bounce is suppressed');
  t.same(await everyFigure(w, c, [mixed], ['Mixed outcome one']), expected(1, 1), 'one bounced recipient, everywhere');

  const single = await send(w, ['gone2@dest.test'], 'Single bounce two');
  t.same(await everyFigure(w, c, [mixed, single], ['Mixed outcome one', 'Single bounce two']), expected(2, 2), 'two bounced recipients, everywhere');
});
