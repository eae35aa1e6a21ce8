// The contract of FeedbackRepository: complaints and bounces with their effects, the event outbox, webhook
// delivery records, reputation figures (inbound reports: inbound-reports.ts).
import { accountOf, at, messageOf, record, recipient, check, type ContractCheck } from './fixtures.js';
import { recordBounce, recordComplaint } from '../../../shared/queue/effects.js';
import type { Store } from '../../../shared/store/index.js';

export const feedbackChecks: ContractCheck[] = [
  check('a test event waits in the outbox for its one webhook, about no message, and leaves it as a real event does', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const hook = await store.webhooks.create(team.id, { title: 'T', url: 'https://hooks.example.com/x', events: ['complaint'], includeMessage: false }, 'sealed', 10);
    if (hook === 'limit_reached') throw new Error('no webhook');
    const event = await store.feedback.addTestEvent({
      teamId: team.id,
      webhookId: hook.id,
      type: 'complaint',
      email: 'test@example.com',
      isHardBounce: null,
      reason: 'test',
    });
    t.match(event, {
      teamId: team.id,
      type: 'complaint',
      messageId: null,
      testOf: hook.id,
      email: 'test@example.com',
      isHardBounce: null,
      reason: 'test',
      state: 'pending',
    });
    t.same(await store.feedback.pendingEvents(10), [event]);
    await store.feedback.logDelivery({
      webhookId: hook.id,
      teamId: team.id,
      eventId: event.id,
      eventType: 'complaint',
      url: hook.url,
      statusCode: 204,
      error: null,
      latencyMs: 3,
    });
    await store.feedback.markDelivered(event.id);
    t.same(await store.feedback.pendingEvents(10), []);
    t.match(await store.feedback.deliveriesOf(team.id), [{ webhookId: hook.id, eventId: event.id, statusCode: 204 }], 'its attempt is recorded as any');
  }),

  check('a complaint suppresses the address and adds one event; a repeated one adds none; the outbox empties as events are delivered', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const m = messageOf(team, { recipients: [recipient('ann@dest.test')] });
    const [recipientId] = await record(store, m);
    const applied = await recordComplaint(store.transaction, { recipientId: recipientId!, reason: 'abuse report' });
    t.match(applied, { teamId: team.id, messageId: m.id, email: 'ann@dest.test', suppressed: true });
    t.type(applied?.eventId, 'number');
    t.match(await store.suppressions.get(team.id, 'ann@dest.test'), { status: 'complained', reason: 'abuse report', messageId: m.id });
    t.match(await store.feedback.eventsOf(m.id), [
      { id: applied!.eventId, teamId: team.id, type: 'complaint', email: 'ann@dest.test', isHardBounce: null, reason: 'abuse report', state: 'pending' },
    ]);
    t.equal((await recordComplaint(store.transaction, { recipientId: recipientId!, reason: 'again' }))?.eventId, null, 'a repeated report adds no event');
    t.same(
      (await store.feedback.pendingEvents(10)).map((e) => e.id),
      [applied!.eventId],
    );
    t.equal(await store.feedback.countPendingEvents(), 1, 'the outbox depth counts it');
    await store.feedback.markDelivered(applied!.eventId!);
    t.same(await store.feedback.pendingEvents(10), []);
    t.equal(await store.feedback.countPendingEvents(), 0, 'and no longer once it is delivered');
    t.equal((await store.feedback.eventsOf(m.id))[0]?.state, 'delivered');
    t.equal(await recordComplaint(store.transaction, { recipientId: recipientId! + 1000, reason: 'x' }), null, 'an unknown recipient changes nothing');
  }),

  check('an expiry is a soft bounce: an event, no suppression; a reported bounce of a recipient still in flight is ignored', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const m = messageOf(team, { recipients: [recipient('slow@dest.test'), recipient('busy@dest.test')] });
    const [slow, busy] = await record(store, m);
    const expired = await recordBounce(store.transaction, { recipientId: slow!, hard: false, reason: 'expired after 5 days', source: 'expiry' });
    t.match(expired, { email: 'slow@dest.test', suppressed: false });
    t.equal(await store.suppressions.isSuppressed(team.id, 'slow@dest.test'), false);
    t.match(await store.feedback.eventsOf(m.id), [{ type: 'bounced', email: 'slow@dest.test', isHardBounce: false, reason: 'expired after 5 days' }]);
    t.equal(await recordBounce(store.transaction, { recipientId: busy!, hard: true, reason: '550 gone', source: 'report' }), null);
    t.equal(await store.suppressions.isSuppressed(team.id, 'busy@dest.test'), false);
    t.equal((await store.feedback.eventsOf(m.id)).length, 1);
  }),

  check('reputation figures count a team’s delivered and bounced recipients of messages accepted since a time', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const team = await accountOf(store);
    const other = await accountOf(store);
    const outcomes = async (owner: typeof team, acceptedAt: string, list: Array<['sent' | 'bounced', boolean]>) => {
      const m = messageOf(owner, { recipients: list.map((_, i) => recipient(`r${i}@dest.test`)) });
      const ids = await record(store, m);
      for (const [i, [state, complained]] of list.entries()) await support.forceRecipientOutcome(ids[i]!, state, complained);
      await support.backdateMessage(m.id, acceptedAt);
    };
    await outcomes(team, at(0), [
      ['bounced', false],
      ['sent', true],
      ['sent', false],
    ]);
    await outcomes(team, at(24), [
      ['sent', false],
      ['bounced', false],
      ['sent', false],
      ['sent', true],
    ]);
    await outcomes(other, at(24), [['bounced', false]]);
    await record(store, messageOf(team, { recipients: [recipient('queued@dest.test')] }));
    t.same(await store.feedback.rates(team.id, Date.parse(at(24))), { volume: 4, bounced: 1, complained: 1 }, 'since the time, inclusive; queued ones do not count');
    t.same(await store.feedback.rates(team.id, Date.parse(at(0))), { volume: 7, bounced: 2, complained: 2 });
    t.same(await store.feedback.rates(team.id, Date.parse(at(48))), { volume: 0, bounced: 0, complained: 0 }, 'none: zeros');
  }),

  check('webhook deliveries are kept per team, newest first, and pruned by age', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const team = await accountOf(store);
    const m = messageOf(team, { recipients: [recipient('ann@dest.test')] });
    const [recipientId] = await record(store, m);
    const eventId = (await recordComplaint(store.transaction, { recipientId: recipientId!, reason: 'abuse' }))!.eventId!;
    const base = { webhookId: 7, teamId: team.id, eventId, eventType: 'complaint' as const, latencyMs: 12 };
    await store.feedback.logDelivery({ ...base, url: 'https://a.example.com/', statusCode: 200, error: null });
    await new Promise((resolve) => setTimeout(resolve, 2));
    await store.feedback.logDelivery({ ...base, url: 'https://b.example.com/', statusCode: null, error: 'timed out' });
    const [newer, older] = await store.feedback.deliveriesOf(team.id);
    t.match(newer, {
      webhookId: 7,
      teamId: team.id,
      eventId,
      eventType: 'complaint',
      url: 'https://b.example.com/',
      statusCode: null,
      error: 'timed out',
      latencyMs: 12,
    });
    t.match(older, { url: 'https://a.example.com/', statusCode: 200, error: null });
    t.same(await store.feedback.deliveriesOf((await accountOf(store)).id), [], 'per team');
    t.equal((await store.feedback.deliveriesOf(team.id, 1)).length, 1, 'up to the limit asked');
    await support.backdateWebhookDelivery(older!.id, at(0));
    t.equal(await store.feedback.pruneDeliveries(at(1)), 1);
    t.same(
      (await store.feedback.deliveriesOf(team.id)).map((d) => d.id),
      [newer!.id],
    );
  }),

  check('the webhook deliveries of given events are read oldest first, of the team asked for only', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const m = messageOf(team, { recipients: [recipient('ann@dest.test'), recipient('bob@dest.test')] });
    const [ann, bob] = await record(store, m);
    const complaint = (await recordComplaint(store.transaction, { recipientId: ann!, reason: 'abuse' }))!.eventId!;
    const other = (await recordComplaint(store.transaction, { recipientId: bob!, reason: 'abuse' }))!.eventId!;
    const base = { webhookId: 3, teamId: team.id, eventType: 'complaint' as const, latencyMs: 5, error: null };
    await store.feedback.logDelivery({ ...base, eventId: complaint, url: 'https://a.example.com/', statusCode: 500 });
    await new Promise((resolve) => setTimeout(resolve, 2));
    await store.feedback.logDelivery({ ...base, eventId: complaint, url: 'https://a.example.com/', statusCode: 200 });
    await store.feedback.logDelivery({ ...base, eventId: other, url: 'https://b.example.com/', statusCode: 200 });
    t.same(
      (await store.feedback.deliveriesOfEvents(team.id, [complaint])).map((d) => d.statusCode),
      [500, 200],
      'the event’s own attempts, oldest first',
    );
    t.equal((await store.feedback.deliveriesOfEvents(team.id, [complaint, other])).length, 3);
    t.same(await store.feedback.deliveriesOfEvents((await accountOf(store)).id, [complaint]), [], 'another team reads none');
    t.same(await store.feedback.deliveriesOfEvents(team.id, []), [], 'no events, no deliveries');
  }),

  check('a team’s webhook deliveries are listed newest first, by webhook, by result and by time, a page at a time with their total', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const [ann] = await record(store, messageOf(team, { recipients: [recipient('ann@dest.test')] }));
    const eventId = (await recordComplaint(store.transaction, { recipientId: ann!, reason: 'abuse' }))!.eventId!;
    const base = { teamId: team.id, eventId, eventType: 'complaint' as const, latencyMs: 5, error: null };
    for (const [webhookId, statusCode] of [
      [3, 500],
      [3, 200],
      [4, 204],
    ] as const) {
      await store.feedback.logDelivery({ ...base, webhookId, url: `https://h${webhookId}.example.com/`, statusCode });
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const all = await store.feedback.listDeliveries(team.id, { page: 1, perPage: 10 });
    t.equal(all.total, 3);
    t.same(
      all.rows.map((d) => d.statusCode),
      [204, 200, 500],
      'newest first',
    );
    t.same(
      (await store.feedback.listDeliveries(team.id, { page: 2, perPage: 1 })).rows.map((d) => d.statusCode),
      [200],
      'the second page of one',
    );
    t.equal((await store.feedback.listDeliveries(team.id, { page: 2, perPage: 1 })).total, 3, 'the total counts every page');
    t.same(
      (await store.feedback.listDeliveries(team.id, { page: 1, perPage: 10, webhookId: 3 })).rows.map((d) => d.statusCode),
      [200, 500],
    );
    t.same(
      (await store.feedback.listDeliveries(team.id, { page: 1, perPage: 10, result: 'failed' })).rows.map((d) => d.statusCode),
      [500],
    );
    t.equal((await store.feedback.listDeliveries(team.id, { page: 1, perPage: 10, result: 'succeeded' })).total, 2);
    const later = new Date(Date.now() + 60_000).toISOString();
    t.equal((await store.feedback.listDeliveries(team.id, { page: 1, perPage: 10, from: later })).total, 0, 'none attempted after the bound');
    t.equal((await store.feedback.listDeliveries(team.id, { page: 1, perPage: 10, to: later })).total, 3, 'every one before it');
    t.same(await store.feedback.listDeliveries((await accountOf(store)).id, { page: 1, perPage: 10 }), { rows: [], total: 0 }, 'another team lists none');
  }),

  check('a recipient is found by its message’s Message-ID header, and by its address when the message has several', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const single = messageOf(team, { recipients: [recipient('one@dest.test')] });
    const [only] = await record(store, single);
    const several = messageOf(team, { recipients: [recipient('ann@dest.test'), recipient('bob@dest.test')] });
    const [, bob] = await record(store, several);
    t.equal(await store.feedback.recipientByMessageIdHeader(single.messageIdHeader, null), only);
    t.equal(await store.feedback.recipientByMessageIdHeader(several.messageIdHeader, 'BOB@dest.test'), bob);
    t.equal(await store.feedback.recipientByMessageIdHeader(several.messageIdHeader, null), null, 'several and no address: none');
    t.equal(await store.feedback.recipientByMessageIdHeader('<unknown@one.test>', 'bob@dest.test'), null);
  }),
];

/** Test events in a team's outbox (for a webhook id the events name only: no webhook is read), oldest first. */
async function outboxOf(store: Store, teamId: number, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const event = await store.feedback.addTestEvent({ teamId, webhookId: 1, type: 'bounced', email: `e${i}@dest.test`, isHardBounce: true, reason: 'test' });
    ids.push(event.id);
  }
  return ids;
}

export const outboxClaimChecks: ContractCheck[] = [
  check('a claim leases events to one dispatcher until its lease runs out; a claim taken over fences out the old holder', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const [first, second, third] = await outboxOf(store, team.id, 3);
    const now = Date.parse(at(0));
    const ids = async (claimed: Promise<Array<{ id: number }>>) => (await claimed).map((e) => e.id);
    t.same(await ids(store.feedback.claimEvents(2, now, now + 60_000, 'a')), [first, second], 'oldest first, up to the limit');
    t.same(await ids(store.feedback.claimEvents(10, now, now + 60_000, 'b')), [third], 'another claim skips the leased ones');
    t.same(await ids(store.feedback.claimEvents(10, now + 59_999, now + 60_000, 'x')), [], 'while their leases run');
    t.equal(await store.feedback.countPendingEvents(), 3, 'claimed events are still pending');
    t.equal(await store.feedback.finishEvent(first!, 'b'), false, 'not finished under another claim’s token');
    t.equal(await store.feedback.finishEvent(first!, 'a'), true);
    t.equal(await store.feedback.finishEvent(first!, 'a'), false, 'finished once');
    t.same(await ids(store.feedback.claimEvents(10, now + 60_000, now + 120_000, 'c')), [second, third], 'a lease run out is taken over');
    t.equal(await store.feedback.finishEvent(second!, 'a'), false, 'the old holder is fenced out');
    t.equal(await store.feedback.releaseEvents('b'), 0, 'a claim taken over gives back nothing');
    t.equal(await store.feedback.finishEvent(second!, 'c'), true);
    t.equal(await store.feedback.releaseEvents('c'), 1, 'the rest of a claim is given back');
    t.same(await ids(store.feedback.claimEvents(10, now + 60_000, now + 120_000, 'd')), [third], 'and free to claim at once');
    t.same(
      (await store.feedback.pendingEvents(10)).map((e) => e.id),
      [third],
    );
  }),

  check('of claims made at once, each event goes to one claim only', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store);
    const events = await outboxOf(store, team.id, 24);
    const now = Date.parse(at(0));
    const claims = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((token) => store.feedback.claimEvents(6, now, now + 60_000, token)));
    const claimed = claims.flatMap((c) => c.map((e) => e.id));
    t.equal(new Set(claimed).size, claimed.length, 'no event in two claims');
    t.same(
      [...claimed].sort((a, b) => a - b),
      events,
      'and every event claimed',
    );
  }),
];
