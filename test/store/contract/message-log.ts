// The contract of MessageLogRepository: a message recorded with its credits and read back as given, and the
// log listed newest first with its filters (status, domain, date bounds, words).
import { recordOne } from '../../../shared/intake/record.js';
import { accountOf, at, domainOf, messageOf, record, recipient, check, type ContractCheck } from './fixtures.js';
import type { MessageQuery } from '../../../shared/store/message-log.js';
import type { Store } from '../../../shared/store/index.js';
import type { Team } from '../../../shared/domain/team.js';

export const messageLogChecks: ContractCheck[] = [
  check('a message is recorded with its recipients and its credits, and read back as it was given', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store, 5);
    const domain = await domainOf(store, team, 'log.one.test');
    const given = messageOf(team, {
      domainId: domain.id,
      subject: 'Your invoice',
      replyTo: 'help@one.test',
      hasAttachments: true,
      headers: { 'X-Campaign': 'spring' },
      recipients: [recipient('ann@dest.test', 'queued', 'Ann'), { ...recipient('cc@dest.test'), kind: 'cc' }, recipient('gone@dest.test', 'suppressed')],
    });
    const queued = await record(store, given);
    t.equal(queued.length, 2, 'the queued recipients come back');
    t.equal(await store.teams.payerBalance((await store.teams.get(team.id))!), 3, 'one credit per queued recipient');
    const entry = await store.messages.get(given.id);
    t.match(entry, {
      id: given.id,
      teamId: team.id,
      domainId: domain.id,
      sendingKeyId: null,
      source: 'http',
      envelopeFrom: 'bounces@one.test',
      fromEmail: 'news@one.test',
      fromName: 'News',
      subject: 'Your invoice',
      replyTo: 'help@one.test',
      messageIdHeader: given.messageIdHeader,
      size: given.size,
      status: 'pending',
      error: null,
      sentAt: null,
    });
    t.same(entry?.to, [{ email: 'ann@dest.test', name: 'Ann' }, { email: 'gone@dest.test' }], 'To as given');
    t.same(entry?.headers, { 'X-Campaign': 'spring' });
    t.equal(entry?.hasAttachments, true);
    t.equal(await store.messages.get(given.id, team.id + 1000), undefined, 'not read through another team');
    const recipients = await store.messages.recipientsOf(given.id);
    t.same(
      recipients.map((r) => `${r.kind} ${r.email} ${r.state}`),
      ['to ann@dest.test queued', 'cc cc@dest.test queued', 'to gone@dest.test suppressed'],
      'in the order given',
    );
    t.match(recipients[0], { id: queued[0], messageId: given.id, name: 'Ann', domain: 'dest.test', attempts: 0, lastReply: null });
    t.ok(recipients[0]!.nextAttemptAt !== null && recipients[0]!.queuedAt > 0, 'a queued recipient is due');
    t.same(await store.messages.recipientCounts([given.id, 'no-such-message']), new Map([[given.id, 3]]));
    t.same(await store.messages.attemptsOf(given.id), [], 'no attempt yet');
    t.same(await store.messages.body(given.id), given.body, 'the body is kept for delivery');
  }),

  check('a message no recipient of which can be sent costs nothing and keeps no body; one the account cannot pay for is not recorded', async (t, engine) => {
    const { store } = await engine.open(t);
    const team = await accountOf(store, 1);
    const suppressed = messageOf(team, { recipients: [recipient('x@dest.test', 'suppressed')], error: 'every recipient is suppressed' });
    t.same(await record(store, suppressed), []);
    t.match(await store.messages.get(suppressed.id), { status: 'suppressed', error: 'every recipient is suppressed' });
    t.equal(await store.messages.body(suppressed.id), undefined);
    const failed = messageOf(team, { recipients: [recipient('a@mailinator.com', 'failed'), recipient('x@dest.test', 'suppressed')] });
    await record(store, failed);
    t.equal((await store.messages.get(failed.id))?.status, 'failed');
    const unpaid = messageOf(team, { recipients: [recipient('a@dest.test'), recipient('b@dest.test')] });
    t.equal(await recordOne(store.transaction, unpaid), 'insufficient_balance');
    t.equal(await store.messages.get(unpaid.id), undefined);
    t.equal((await store.teams.get(team.id))?.creditBalance, 1, 'nothing was taken');
    t.same(await store.messages.countByState(), { failed: 1, suppressed: 2 });
  }),

  check('the log lists a team’s messages newest first and filters by status, domain, date bounds and whole words', async (t, engine) => {
    const { store, support } = await engine.open(t);
    const { team, ids, domainId } = await fillLog(store, support);
    const list = async (query: Partial<MessageQuery>, teamId = team.id) => {
      const { rows, total } = await store.messages.list(teamId, { page: 1, perPage: 50, searchCountLimit: 1000, ...query });
      return { ids: rows.map((r) => ids.indexOf(r.id)), total };
    };
    t.same(await list({}), { ids: [9, 8, 7, 6, 5, 4, 3, 2, 1, 0], total: 10 }, 'newest first, by acceptance time');
    t.same(await list({ page: 2, perPage: 4 }), { ids: [5, 4, 3, 2], total: 10 });
    t.same(await list({ status: 'suppressed' }), { ids: [9, 6, 3, 0], total: 4 });
    t.same(await list({ domainId }), { ids: [8, 6, 4, 2, 0], total: 5 });
    t.same(await list({ domainId: 'no-such-domain' }), { ids: [], total: 0 });
    t.same(await list({ from: at(3 * 6), to: at(6 * 6) }), { ids: [6, 5, 4, 3], total: 4 }, 'both bounds inclusive');
    t.same(await list({ from: at(3 * 6), to: at(6 * 6 - 1) }), { ids: [5, 4, 3], total: 3 });
    t.same(await list({ from: at(50 * 6) }), { ids: [], total: 0 });
    t.same(await list({ status: 'pending', domainId, from: at(0), to: at(5 * 6) }), { ids: [4, 2], total: 2 });
    t.same(await list({ search: 'invoice' }), { ids: [8, 4, 0], total: 3 }, 'a word of the subject');
    t.same(await list({ search: 'INVOICE ready' }), { ids: [8, 4, 0], total: 3 }, 'every word, in any case');
    t.same(await list({ search: 'invo' }), { ids: [], total: 0 }, 'part of a word is no match');
    t.same(await list({ search: 'invo*' }), { ids: [8, 4, 0], total: 3 }, 'a word ending in * matches as a prefix');
    t.same(await list({ search: 'bob@dest1.test' }), { ids: [9, 7, 5, 3, 1], total: 5 }, 'a recipient’s address');
    t.same(await list({ search: 'billing' }), { ids: [9, 6, 3, 0], total: 4 }, 'the sender');
    t.same(await list({ search: 'invoice', status: 'suppressed', from: at(0), to: at(3 * 6) }), { ids: [0], total: 1 });
    t.same(await list({ search: 'invoice', status: 'pending' }), { ids: [8, 4], total: 2 }, 'a word and a status, without dates');
    t.same(await list({ search: 'invoice', from: at(1), to: at(8 * 6) }), { ids: [8, 4], total: 2 }, 'bounds inside a day cut it exactly');
    t.same(await list({ search: 'invoice', from: at(1), to: at(8 * 6 - 1) }), { ids: [4], total: 1 });
    t.same(await list({ search: 'invoice', from: at(-24 * 90), to: at(24 * 90) }), { ids: [8, 4, 0], total: 3 }, 'a range of many months');
    t.same(await list({ search: 'welcome', to: at(2 * 6) }), { ids: [2, 1], total: 2 }, 'one bound alone');
    t.same(await list({ search: 'welcome', searchCountLimit: 2, perPage: 1 }), { ids: [9], total: 2 }, 'a search counts up to its limit');
    t.same(await list({ search: '"OR" NEAR(x) :*' }), { ids: [], total: 0 }, 'no operator of the user reaches the engine');
    t.same(await list({ search: ' *** ' }), { ids: [], total: 0 }, 'text with no word matches nothing');
    t.same(await list({}, (await accountOf(store)).id), { ids: [], total: 0 }, 'another team sees none of it');
  }),
  check("a message is found by the number the platform's list gives it, whichever team it is of", async (t, engine) => {
    const { store } = await engine.open(t);
    const ada = await accountOf(store);
    const bob = await accountOf(store);
    const first = messageOf(ada, { recipients: [recipient('a@dest.test')] });
    const second = messageOf(bob, { recipients: [recipient('b@dest.test')], headers: { 'X-Campaign': 'spring' } });
    await record(store, first);
    await record(store, second);
    const listed = await store.messages.list(null, { page: 1, perPage: 10, searchCountLimit: 100 });
    t.equal(listed.total, 2, "every team's messages");
    for (const entry of listed.rows) {
      const { logId, ...rest } = entry;
      const found = await store.messages.getByLogId(logId);
      t.same(found, await store.messages.get(entry.id), `${entry.id} by its number`);
      t.match(found, rest);
    }
    t.same(new Set(listed.rows.map((r) => r.logId)).size, 2, 'each its own number');
    t.match(await store.messages.getByLogId(listed.rows.find((r) => r.id === second.id)!.logId), { id: second.id, teamId: bob.id, headers: { 'X-Campaign': 'spring' } });
    t.equal(await store.messages.getByLogId(Math.max(...listed.rows.map((r) => r.logId)) + 100), undefined);
  }),
];

/**
 * Ten messages, accepted 6 hours apart in that order (the i-th at at(6i)): every third one suppressed (else
 * pending), the even ones on the team's domain, every fourth an invoice (else a welcome), to bob@dest<i%2>.test,
 * and every third from billing@.
 */
async function fillLog(
  store: Store,
  support: { backdateMessage(id: string, createdAt: string): Promise<void> },
): Promise<{ team: Team; ids: string[]; domainId: string }> {
  const team = await accountOf(store, 100);
  const domain = await domainOf(store, team, 'list.one.test');
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const m = messageOf(team, {
      domainId: i % 2 === 0 ? domain.id : null,
      subject: i % 4 === 0 ? `Invoice ${1000 + i} ready` : `Welcome aboard number ${i}`,
      fromEmail: i % 3 === 0 ? 'billing@one.test' : 'news@one.test',
      recipients: [recipient(`bob@dest${i % 2}.test`, i % 3 === 0 ? 'suppressed' : 'queued', 'Bob')],
    });
    await record(store, m);
    await support.backdateMessage(m.id, at(6 * i));
    ids.push(m.id);
  }
  return { team, ids, domainId: domain.id };
}
