// The dashboard's statistics routes over real HTTP on a whole sending world (loopback DNS, MX sink, Redis,
// SQLite, API and MTA): totals, the time series and the months agree with the message log as /v2/emails
// counts it, the args are checked, and only a signed-in user of the team sees them.
import t from 'tap';
import { settled, startMailWorld } from './helpers/mail-world.js';
import { logIn, userOn, withSession, signedInOn, type SignedIn } from './helpers/dashboard-session.js';

const w = await startMailWorld();
t.teardown(() => w.close());
const h = w.h;
const STATS = '/api/tern/v2/stats';
const as = (s: SignedIn) => withSession(s);

async function send(to: string): Promise<string> {
  const res = await h.request('POST', '/v2/emails', { key: w.sendingKey, body: { from: { email: `news@${w.domain}` }, to: [{ email: to }], subject: 'hi', text: 'x' } });
  if (res.status !== 200 && res.status !== 201 && res.status !== 202) throw new Error(`send: ${res.status} ${res.text}`);
  return (res.body as { message_id: string }).message_id;
}

const owner = await logIn(h, await userOn(h, w.accountId, 'owner'));
const from = new Date(Date.now() - 3_600_000).toISOString();
for (const id of [await send('a@dest.test'), await send('b@dest.test')]) await settled(w, id, 10_000);
const to = new Date(Date.now() + 1000).toISOString();
const period = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;

const v2total = async (status: string) => Number((await h.request('GET', `/v2/emails?status=${status}&${period}`, { key: w.adminKey })).body.total);

t.test('without a signed-in caller the statistics answer 401, a cookie without its nonce too, a wrong nonce 403', async (t) => {
  t.match(await h.request('GET', `${STATS}/dashboard`), { status: 401, body: { code: 'rest_forbidden' } });
  t.match(await h.request('GET', `${STATS}/metrics`, withSession(owner, null)), { status: 401 });
  t.match(await h.request('GET', `${STATS}/monthly`, withSession(owner, '0123456789')), { status: 403, body: { code: 'rest_cookie_invalid_nonce' } });
});

t.test('the dashboard totals of a period equal the message log counted by /v2/emails, with the queue depth', async (t) => {
  const reply = await h.request('GET', `${STATS}/dashboard?${period}`, as(owner));
  t.equal(reply.status, 200);
  t.match(reply.body, { period: { from, to }, accepted: 2, queue_depth: 0, bounce_rate: 0, complaint_rate: 0 });
  for (const status of ['sent', 'bounced', 'complained', 'suppressed', 'failed']) t.equal(reply.body[status], await v2total(status), `${status} as /v2/emails counts it`);
  t.equal(reply.body.sent, 2);
});

t.test('metrics by hour add up to the dashboard of the same period, for the team and for its domain', async (t) => {
  const all = await h.request('GET', `${STATS}/metrics?interval=hour&${period}`, as(owner));
  t.equal(all.status, 200);
  t.match(all.body, { interval: 'hour', domain_id: null });
  const sum = (points: Array<{ sent: number; accepted: number }>) => points.reduce((n, p) => n + p.sent, 0);
  t.equal(sum(all.body.points), 2);
  const byDomain = await h.request('GET', `${STATS}/metrics?interval=day&${period}&domain=${w.domain}`, as(owner));
  t.equal(byDomain.status, 200);
  t.equal(sum(byDomain.body.points), 2, 'by name');
  t.match(byDomain.body, { interval: 'day', domain_id: String });
});

t.test('monthly gives the 12 last months, this one last with the messages', async (t) => {
  const reply = await h.request('GET', `${STATS}/monthly`, as(owner));
  t.equal(reply.status, 200);
  t.equal(reply.body.months.length, 12);
  t.match(reply.body.months[11], { month: new Date().toISOString().slice(0, 7), sent: 2, accepted: 2 });
});

t.test('bad args are refused in the WordPress shape', async (t) => {
  t.match(await h.request('GET', `${STATS}/metrics?interval=week`, as(owner)), {
    status: 400,
    body: { code: 'rest_invalid_param', data: { params: { interval: 'interval is not one of hour and day.' } } },
  });
  t.match(await h.request('GET', `${STATS}/metrics?interval=hour&from=2020-01-01&to=2020-12-31`, as(owner)), {
    status: 400,
    body: { data: { params: { from: /31 days/ } } },
  });
  t.match(await h.request('GET', `${STATS}/dashboard?to=soon`, as(owner)), { status: 400, body: { data: { params: { to: /ISO 8601/ } } } });
  t.match(await h.request('GET', `${STATS}/metrics?domain=nowhere.example`, as(owner)), { status: 404, body: { code: 'rest_domain_invalid_id' } });
});

t.test('a viewer reads the statistics; another account sees only its own (zeros) and cannot name this domain', async (t) => {
  const viewer = await logIn(h, await userOn(h, w.accountId, 'viewer'));
  t.match(await h.request('GET', `${STATS}/dashboard?${period}`, as(viewer)), { status: 200, body: { sent: 2 } });
  const stranger = await signedInOn(h);
  t.match(await h.request('GET', `${STATS}/dashboard?${period}`, as(stranger.session)), { status: 200, body: { accepted: 0 } });
  t.match(await h.request('GET', `${STATS}/metrics?domain=${w.domain}`, as(stranger.session)), { status: 404 });
  t.match(await h.request('GET', `${STATS}/dashboard`, { headers: { ...as(stranger.session).headers, 'x-account-id': String(w.accountId) } }), {
    status: 404,
    body: { code: 'rest_team_invalid_id' },
  });
});
