// The feedback loop end to end: bounces and complaints become suppressions, events and platform suspensions.
import t from 'tap';
import { startMailWorld, settled, type MailWorld as World } from './helpers/mail-world.js';
import { until } from './helpers/wait.js';

const world = (overrides: Record<string, unknown> = {}) => startMailWorld({ overrides, childTeam: true, domain: 'client.com' });

const send = (w: World, to: string[]) =>
  w.h.request('POST', '/v2/emails', {
    key: w.adminKey,
    teamId: w.teamId,
    body: { from: { email: 'hello@client.com' }, to: to.map((email) => ({ email })), subject: 'Hi', text: 'hello' },
  });

t.test('a recipient refused with 550 5.1.1 bounces hard, is suppressed, is not sent again, and is sent again once removed', async (t) => {
  const w = await world();
  t.teardown(() => w.close());
  w.sink.rcptReply = (address) => (address === 'gone@dest.test' ? { code: 550, message: '5.1.1 <gone@dest.test>: Recipient address rejected: User unknown' } : null);
  const first = await send(w, ['gone@dest.test']);
  t.equal(first.status, 200, first.text);
  t.equal(await settled(w, first.body.message_id), 'bounced');
  const list = await w.h.request('GET', '/v2/suppressions', { key: w.adminKey, teamId: w.teamId });
  t.match(list.body.data, [{ email: 'gone@dest.test', status: 'bounced', message_id: first.body.message_id }]);
  const domain = (await w.h.request('GET', '/v2/domains', { key: w.adminKey, teamId: w.teamId })).body.data[0];
  t.equal(domain.total_bounced, 1, 'the domain counts the bounce');

  const second = await send(w, ['gone@dest.test']);
  t.equal(await settled(w, second.body.message_id), 'suppressed');
  const detail = await w.h.request('GET', `/v2/emails/${second.body.message_id}`, { key: w.adminKey, teamId: w.teamId });
  t.equal(detail.body.data.recipients[0].state, 'suppressed');
  t.equal(w.sink.messages.length, 0, 'nothing reached the sink');

  w.sink.rcptReply = () => null;
  const removed = await w.h.request('DELETE', '/v2/suppressions?email=gone@dest.test', { key: w.adminKey, teamId: w.teamId });
  t.equal(removed.status, 200);
  const third = await send(w, ['gone@dest.test']);
  t.equal(await settled(w, third.body.message_id), 'sent');
  t.equal(w.sink.messages.length, 1, 'delivered again');
});

t.test('a mailbox-full reply bounces soft and does not suppress the address', async (t) => {
  const w = await world();
  t.teardown(() => w.close());
  w.sink.rcptReply = () => ({ code: 552, message: '5.2.2 Mailbox full' });
  const res = await send(w, ['full@dest.test']);
  t.equal(await settled(w, res.body.message_id), 'bounced');
  const list = await w.h.request('GET', '/v2/suppressions', { key: w.adminKey, teamId: w.teamId });
  t.equal(list.body.total, 0);
});

t.test('a team passing the bounce-rate threshold is suspended by the platform and cannot reactivate itself', async (t) => {
  const w = await world({ reputation: { windowDays: 7, minVolume: 4, minBounces: 2, minComplaints: 1, maxBounceRate: 0.3, maxComplaintRate: 0.01 } });
  t.teardown(() => w.close());
  w.sink.rcptReply = (address) => (address.startsWith('bad') ? { code: 550, message: '5.1.1 no such user' } : null);
  const res = await send(w, ['bad1@dest.test', 'bad2@dest.test', 'ok1@dest.test', 'ok2@dest.test']);
  t.equal(await settled(w, res.body.message_id), 'bounced');
  // The reputation check follows the transaction that recorded the bounces, moments after it.
  await until('the platform to suspend the team', async () => (await w.h.rt.store.teams.get(w.teamId))?.status === 'suspended', 5000).catch(() => undefined);
  const team = (await w.h.rt.store.teams.get(w.teamId))!;
  t.equal(team.status, 'suspended');
  t.equal(team.suspendedBy, 'platform');

  const refused = await send(w, ['ok3@dest.test']);
  t.equal(refused.status, 403);
  t.match(refused.body.errors, { account: { suspended: String } });
  const put = await w.h.request('PUT', `/v2/teams/${w.teamId}`, { key: w.adminKey, body: { status: 'active' } });
  t.equal(put.status, 403);
  t.equal(put.body.errors.code, 'suspended_by_platform');
  const info = await w.h.request('GET', '/v2/info', { key: w.adminKey, teamId: w.teamId });
  t.equal(info.body.account.status, 'suspended');
  t.equal(info.body.account.bounce_rate, 0.5);
  t.match(
    info.body.account.suspension,
    {
      by: 'platform',
      reason: /bounce rate 50\.00% \(2 of 4 recipients in 7 days\) is above 30\.00%/,
      suspended_at: String,
      detail: { rate: 'bounce', volume: 4, bounced: 2, bounce_rate: 0.5, thresholds: { min_volume: 4, min_bounces: 2, max_bounce_rate: 0.3 } },
    },
    'the summary says why the platform suspended the team',
  );

  await w.h.rt.store.teams.changeStatus(w.teamId, 'active', 'platform');
  t.equal((await send(w, ['ok4@dest.test'])).status, 200, 'the platform lifts it');
});

t.test('a team under the minimum volume is not suspended however it bounces', async (t) => {
  const w = await world({ reputation: { windowDays: 7, minVolume: 50, minBounces: 1, minComplaints: 1, maxBounceRate: 0.1, maxComplaintRate: 0.01 } });
  t.teardown(() => w.close());
  w.sink.rcptReply = () => ({ code: 550, message: '5.1.1 no such user' });
  const res = await send(w, ['a@dest.test', 'b@dest.test']);
  t.equal(await settled(w, res.body.message_id), 'bounced');
  t.equal((await w.h.rt.store.teams.get(w.teamId))!.status, 'active');
});
