// Message bodies kept in the store (migration 5): written with the message, kept while any recipient is in
// flight, and gone with the transaction that finishes the message, whichever path finished it; unless a recipient
// of it bounced or failed, when it is kept for an operator's requeue until the requeue window has passed.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../shared/store/index.js';
import type { NewMessage, NewRecipient } from '../shared/store/message-log.js';
import type { AttemptResult } from '../shared/store/queue.js';
import { newMessage, recordMessage } from './helpers/new-message.js';
import { finishAlone } from '../shared/queue/finish.js';

/** The account and domain of the store the running test opened (subtests run one after the other). */
let owner = { teamId: 0, domainId: '' };

/** A store of its own with one account holding `credits` and one domain (made the owner), through the repositories. */
async function store(t: Test, credits: number): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'tern-bodies-'));
  const opened = await openStore(dir);
  t.teardown(async () => {
    await opened.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const account = await opened.teams.createAccount({ name: 'a', credits, limitPerSecond: 10, planType: 'free', backendRegion: 'eu' });
  const domain = await opened.domains.create({ teamId: account.id, name: 'one.test', dkimSelector: 'tern', dkimPublicKey: 'pub', dkimPrivateKeyEnc: 'enc' });
  if (domain === 'exists') throw new Error('a new store has no domain');
  owner = { teamId: account.id, domainId: domain.id };
  return opened;
}

const recipient = (email: string, state: NewRecipient['state'] = 'queued'): NewRecipient => ({ email, name: '', kind: 'to', domain: 'dest.test', state, reason: '' });

function message(id: string, recipients: NewRecipient[]): NewMessage {
  return newMessage({ id, teamId: owner.teamId, domainId: owner.domainId, recipients, body: Buffer.from(`Subject: ${id}\r\n\r\nbody of ${id}\r\n`) });
}

const attempt = (recipientId: number, leaseToken: string, to: 'sent' | 'deferred' | 'bounced'): AttemptResult => ({
  recipientId,
  leaseToken,
  to,
  reply: to === 'sent' ? '250 ok' : to === 'deferred' ? '451 later' : '550 no such user',
  mxHost: 'mx.dest.test',
  ip: '127.0.0.1',
  ...(to === 'deferred' ? { nextAttemptAt: Date.now() - 1 } : {}),
  ...(to === 'bounced' ? { hard: true } : {}),
});

t.test('a body is kept while any recipient is in flight and deleted with the last outcome', async (t) => {
  const s = await store(t, 10);
  const { messages, queue, transaction } = s;
  const m = message('m1', [recipient('one@dest.test'), recipient('two@dest.test')]);
  const due = await recordMessage(s, m);
  if (due === 'insufficient_balance') throw new Error('the account can pay');
  t.same(await messages.body('m1'), m.body, 'stored with the message, byte for byte');
  const [first, second] = due.map((r) => r.id) as [number, number];
  const claim = async (id: number, token: string) => t.equal((await queue.claim([id], Date.now(), Date.now() + 60_000, token)).length, 1);

  await claim(first, 'lease-1');
  await claim(second, 'lease-2');
  t.same((await finishAlone(transaction, [attempt(first, 'lease-1', 'sent'), attempt(second, 'lease-2', 'deferred')])).finished, []);
  t.same(await messages.body('m1'), m.body, 'kept: one recipient is deferred');

  await claim(second, 'lease-3');
  t.same((await finishAlone(transaction, [attempt(second, 'lease-3', 'sent')])).finished, ['m1']);
  t.equal(await messages.body('m1'), undefined, 'deleted in the transaction that finished the message');
});

t.test('a body whose message ended with a bounce is kept for a requeue, until the requeue window has passed', async (t) => {
  const s = await store(t, 10);
  const { messages, queue, queueControl, transaction } = s;
  const m = message('m2', [recipient('one@dest.test'), recipient('two@dest.test')]);
  const due = await recordMessage(s, m);
  if (due === 'insufficient_balance') throw new Error('the account can pay');
  const [first, second] = due.map((r) => r.id) as [number, number];
  t.equal((await queue.claim([first, second], Date.now(), Date.now() + 60_000, 'lease-1')).length, 2);
  t.same((await finishAlone(transaction, [attempt(first, 'lease-1', 'sent'), attempt(second, 'lease-1', 'bounced')])).finished, ['m2']);
  t.same(await messages.body('m2'), m.body, 'kept: its bounced recipient may be sent again');
  t.equal(await queueControl.dropKeptBodies(new Date(Date.now() - 60_000).toISOString(), 10), 0, 'not while the window lasts');
  t.equal(await queueControl.dropKeptBodies(new Date(Date.now() + 60_000).toISOString(), 10), 1);
  t.equal(await messages.body('m2'), undefined, 'deleted once it has passed');
});

t.test('a message with nothing to send keeps no body, and neither does one the account cannot pay for', async (t) => {
  const s = await store(t, 1);
  const { messages } = s;
  t.not(await recordMessage(s, message('suppressed', [recipient('x@dest.test', 'suppressed')])), 'insufficient_balance');
  t.equal(await messages.body('suppressed'), undefined, 'every recipient suppressed: no body');
  t.equal(await recordMessage(s, message('unpaid', [recipient('a@dest.test'), recipient('b@dest.test')])), 'insufficient_balance');
  t.equal(await messages.body('unpaid'), undefined, 'refused for credits: no body');
});
