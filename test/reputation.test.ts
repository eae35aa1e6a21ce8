// Platform suspension by reputation: a rate above its threshold suspends a team only with enough sends and
// enough events in the window, and why a team was suspended (by whom, which rate, the figures, the
// thresholds, when) is recorded with it, shown in GET /v2/info, and cleared when the team is reactivated.
// Sends, bounces and complaints are recorded through the real store; the check is the MTA's own.
import t from 'tap';
import { newMessage, queuedRecipients, recordMessage } from './helpers/new-message.js';
import { startHarness } from './helpers/harness.js';
import { Reputation, type ReputationPolicy } from '../mta/outcomes/reputation.js';
import { finishAlone } from '../shared/queue/finish.js';
import { recordComplaint } from '../shared/queue/effects.js';

const h = await startHarness();
t.teardown(() => h.close());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let counter = 0;

/** A child team of a new account, and an admin key of that account to act on it. */
async function newTeam(): Promise<{ id: number; key: string }> {
  const owner = await h.account();
  const res = await h.request('POST', '/v2/teams', { key: owner.key, body: { name: `Team ${++counter}` } });
  if (res.status !== 201) throw new Error(`creating team: ${res.status} ${res.text}`);
  return { id: res.body.data.id as number, key: owner.key };
}

/** Records one message of `sent + bounced` recipients for the team as delivered or bounced; returns the ids of the delivered ones. */
async function traffic(teamId: number, sent: number, bounced = 0): Promise<number[]> {
  const id = `rep${++counter}x${process.pid}`;
  const count = sent + bounced;
  const recipients = queuedRecipients(count);
  const queued = await recordMessage(h.rt.store, newMessage({ id, teamId, domainId: null, recipients, body: Buffer.from('x'), cost: 0 }));
  if (queued === 'insufficient_balance') throw new Error('no balance');
  const ids = queued.map((r) => r.id).sort((a, b) => a - b);
  const token = `reputation-test-${id}`;
  const claimed = await h.rt.store.queue.claim(ids, Math.max(Date.now(), ...queued.map((r) => r.due)), Date.now() + 60_000, token);
  if (claimed.length !== count) throw new Error(`claimed ${claimed.length} of ${count}`);
  await finishAlone(
    h.rt.store.transaction,
    ids.map((recipientId, i) =>
      i < sent
        ? { recipientId, leaseToken: token, to: 'sent' as const, reply: '250 ok', mxHost: 'mx.dest.test', ip: '127.0.0.1' }
        : { recipientId, leaseToken: token, to: 'bounced' as const, reply: '550 5.1.1 no such user', mxHost: 'mx.dest.test', ip: '127.0.0.1', hard: true },
    ),
  );
  return ids.slice(0, sent);
}

async function complain(recipientIds: number[]): Promise<void> {
  for (const recipientId of recipientIds) await recordComplaint(h.rt.store.transaction, { recipientId, reason: 'abuse' });
}

const policy = (over: Partial<ReputationPolicy> = {}): ReputationPolicy => ({ ...h.config.reputation, ...over });
const statusOf = async (id: number) => (await h.rt.store.teams.get(id))!.status;

t.test('the default thresholds are ones a platform accepts: 1,000 sends in the window, and 5 complaints or 50 bounces', async (t) => {
  t.match(h.config.reputation, { windowDays: 7, minVolume: 1000, minComplaints: 5, minBounces: 50, maxBounceRate: 0.1, maxComplaintRate: 0.005 });
});

t.test('one complaint in 181 sends does not suspend a team, though 0.55% is above the 0.5% threshold', async (t) => {
  const team = await newTeam();
  const sent = await traffic(team.id, 181);
  await complain(sent.slice(0, 1));
  const info = await h.request('GET', '/v2/info', { key: team.key, teamId: team.id });
  t.equal(info.body.account.complaint_rate, 0.0055, 'the rate is above the threshold');
  t.equal(await new Reputation(h.rt, h.config.reputation).check(team.id), false, 'the check does not suspend');
  t.equal(await statusOf(team.id), 'active');
});

t.test('a complaint rate above its threshold suspends only from the minimum number of complaints', async (t) => {
  const team = await newTeam();
  const reputation = new Reputation(h.rt, policy({ minVolume: 20, minComplaints: 5, maxComplaintRate: 0.05 }));
  const sent = await traffic(team.id, 40);
  await complain(sent.slice(0, 4));
  t.equal(await reputation.check(team.id), false, '4 complaints in 40 (10%) are too few events');
  t.equal(await statusOf(team.id), 'active');
  await complain(sent.slice(4, 5));
  t.equal(await reputation.check(team.id), true, 'the fifth complaint suspends');
  t.equal(await statusOf(team.id), 'suspended');
});

t.test('a bounce rate above its threshold suspends only from the minimum number of bounces', async (t) => {
  const team = await newTeam();
  const reputation = new Reputation(h.rt, policy({ minVolume: 20, minBounces: 5, maxBounceRate: 0.1 }));
  await traffic(team.id, 26, 4);
  t.equal(await reputation.check(team.id), false, '4 bounces in 30 (13%) are too few events');
  await traffic(team.id, 0, 1);
  t.equal(await reputation.check(team.id), true, 'the fifth bounce suspends');
  t.match((await h.rt.store.teams.get(team.id))!.suspension, { by: 'platform', detail: { rate: 'bounce', volume: 31, bounced: 5 } });
});

t.test('the minimum volume still holds: enough events in too few sends do not suspend', async (t) => {
  const team = await newTeam();
  const sent = await traffic(team.id, 999);
  await complain(sent.slice(0, 10));
  t.equal(await new Reputation(h.rt, h.config.reputation).check(team.id), false, '10 complaints (1%) in 999 sends');
  t.equal(await statusOf(team.id), 'active');
});

t.test('a team past every default threshold is suspended, and the reason, rates, counts, thresholds and time are recorded and shown', async (t) => {
  const team = await newTeam();
  const sent = await traffic(team.id, 1000);
  await complain(sent.slice(0, 6));
  const before = new Date().toISOString();
  t.equal(await new Reputation(h.rt, h.config.reputation).check(team.id), true);
  const after = new Date().toISOString();

  const stored = (await h.rt.store.teams.get(team.id))!;
  t.equal(stored.status, 'suspended');
  t.equal(stored.suspendedBy, 'platform');
  const s = stored.suspension!;
  t.equal(s.by, 'platform');
  t.match(s.reason, /complaint rate/);
  t.match(s.at, ISO_MS);
  t.ok(s.at >= before && s.at <= after, 'the time of the suspension');
  t.same(s.detail, {
    rate: 'complaint',
    windowDays: 7,
    volume: 1000,
    bounced: 0,
    complained: 6,
    bounceRate: 0,
    complaintRate: 0.006,
    thresholds: { minVolume: 1000, minBounces: 50, minComplaints: 5, maxBounceRate: 0.1, maxComplaintRate: 0.005 },
  });

  const info = await h.request('GET', '/v2/info', { key: team.key, teamId: team.id });
  t.equal(info.status, 200);
  t.equal(info.body.account.status, 'suspended');
  t.same(info.body.account.suspension, {
    by: 'platform',
    reason: s.reason,
    suspended_at: s.at,
    detail: {
      rate: 'complaint',
      window_days: 7,
      volume: 1000,
      bounced: 0,
      complained: 6,
      bounce_rate: 0,
      complaint_rate: 0.006,
      thresholds: { min_volume: 1000, min_bounces: 50, min_complaints: 5, max_bounce_rate: 0.1, max_complaint_rate: 0.005 },
    },
  });
  t.equal(await new Reputation(h.rt, h.config.reputation).check(team.id), false, 'a suspended team is not suspended again');
  t.equal((await h.rt.store.teams.get(team.id))!.suspension!.at, s.at, 'the record is the first suspension’s');

  const lifted = await h.rt.store.teams.changeStatus(team.id, 'active', 'platform');
  t.ok(lifted.ok);
  t.equal((await h.rt.store.teams.get(team.id))!.suspension, null, 'reactivation clears the record');
  const clean = await h.request('GET', '/v2/info', { key: team.key, teamId: team.id });
  t.equal(clean.body.account.status, 'active');
  t.notOk('suspension' in clean.body.account, 'an active team shows no suspension');
});

t.test('an owner’s and an operator’s suspensions are recorded too, and cleared on reactivation', async (t) => {
  const team = await newTeam();
  const put = await h.request('PUT', `/v2/teams/${team.id}`, { key: team.key, body: { status: 'suspended' } });
  t.equal(put.status, 200);
  const byOwner = await h.request('GET', '/v2/info', { key: team.key, teamId: team.id });
  t.match(byOwner.body.account.suspension, { by: 'account', reason: 'suspended by the account', suspended_at: ISO_MS, detail: null });

  const taken = await h.rt.store.teams.changeStatus(team.id, 'suspended', 'platform');
  t.ok(taken.ok && taken.team.suspension?.by === 'platform', 'the platform takes the suspension over');
  t.match(taken.ok && taken.team.suspension, { by: 'platform', reason: 'suspended by the operator', detail: null });
  const again = await h.request('PUT', `/v2/teams/${team.id}`, { key: team.key, body: { status: 'suspended' } });
  t.equal(again.status, 200);
  t.match((await h.rt.store.teams.get(team.id))!.suspension, { by: 'platform', reason: 'suspended by the operator' }, 'the owner suspending again changes nothing');

  await h.rt.store.teams.changeStatus(team.id, 'active', 'platform');
  t.equal((await h.rt.store.teams.get(team.id))!.suspension, null);
  await h.request('PUT', `/v2/teams/${team.id}`, { key: team.key, body: { status: 'suspended' } });
  const back = await h.request('PUT', `/v2/teams/${team.id}`, { key: team.key, body: { status: 'active' } });
  t.equal(back.status, 200);
  t.equal((await h.rt.store.teams.get(team.id))!.suspension, null, 'the owner reactivating clears it');
});
