// Message bodies kept in the store (migration 5): written with the message, kept while any recipient is in
// flight, and gone with the transaction that finishes the message, whichever outcome finished it.
import t, { type Test } from 'tap';
import { tempDatabase } from './helpers/temp-sql.js';
import { migrate } from '../store/sqlite/migrate.js';
import { MessageStore, type NewMessage, type NewRecipient } from '../store/sqlite/messages.js';
import { QueueStore, type AttemptResult } from '../store/sqlite/queue.js';

const ACCOUNT = 1;
const DOMAIN = 'dom-one';

async function store(t: Test, credits: number): Promise<{ messages: MessageStore; queue: QueueStore }> {
  const { sql } = await tempDatabase(t);
  await migrate(sql);
  const now = new Date().toISOString();
  await sql.run(
    `INSERT INTO accounts (id, name, plan_type, credit_balance, limit_per_second, backend_region, created_at, updated_at) VALUES (?, 'a', 'free', ?, 10, 'eu', ?, ?)`,
    [ACCOUNT, credits, now, now],
  );
  await sql.run(
    `INSERT INTO domains (id, account_id, name, dkim_selector, dkim_public_key, dkim_private_key_enc, created_at, updated_at) VALUES (?, ?, 'one.test', 'tern', 'pub', 'enc', ?, ?)`,
    [DOMAIN, ACCOUNT, now, now],
  );
  return { messages: new MessageStore(sql), queue: new QueueStore(sql) };
}

const recipient = (email: string, state: NewRecipient['state'] = 'queued'): NewRecipient => ({ email, name: '', kind: 'to', domain: 'dest.test', state, reason: '' });

function message(id: string, recipients: NewRecipient[]): NewMessage {
  const body = Buffer.from(`Subject: ${id}\r\n\r\nbody of ${id}\r\n`);
  return {
    id, accountId: ACCOUNT, rootId: ACCOUNT, domainId: DOMAIN, sendingKeyId: null, source: 'http', envelopeFrom: 'a@one.test', fromEmail: 'a@one.test',
    fromName: '', subject: id, to: [], replyTo: null, messageIdHeader: `<${id}@one.test>`, size: body.length, hasAttachments: false, headers: {},
    recipients, body, cost: recipients.filter((r) => r.state === 'queued').length, error: null,
  };
}

const attempt = (recipientId: number, leaseToken: string, to: 'sent' | 'deferred' | 'bounced'): AttemptResult => ({
  recipientId, leaseToken, to, reply: to === 'sent' ? '250 ok' : to === 'deferred' ? '451 later' : '550 no such user', mxHost: 'mx.dest.test', ip: '127.0.0.1',
  ...(to === 'deferred' ? { nextAttemptAt: Date.now() - 1 } : {}), ...(to === 'bounced' ? { hard: true } : {}),
});

t.test('a body is kept while any recipient is in flight and deleted with the last outcome', async (t) => {
  const { messages, queue } = await store(t, 10);
  const m = message('m1', [recipient('one@dest.test'), recipient('two@dest.test')]);
  const due = await messages.insert(m);
  if (due === 'insufficient_balance') throw new Error('the account can pay');
  t.same(await messages.body('m1'), m.body, 'stored with the message, byte for byte');
  const [first, second] = due.map((r) => r.id) as [number, number];
  const claim = async (id: number, token: string) => t.equal((await queue.claim([id], Date.now(), Date.now() + 60_000, token)).length, 1);

  await claim(first, 'lease-1');
  await claim(second, 'lease-2');
  t.same((await queue.finish([attempt(first, 'lease-1', 'sent'), attempt(second, 'lease-2', 'deferred')])).finished, []);
  t.same(await messages.body('m1'), m.body, 'kept: one recipient is deferred');

  await claim(second, 'lease-3');
  t.same((await queue.finish([attempt(second, 'lease-3', 'bounced')])).finished, ['m1']);
  t.equal(await messages.body('m1'), undefined, 'deleted in the transaction that finished the message');
});

t.test('a message with nothing to send keeps no body, and neither does one the account cannot pay for', async (t) => {
  const { messages } = await store(t, 1);
  t.not(await messages.insert(message('suppressed', [recipient('x@dest.test', 'suppressed')])), 'insufficient_balance');
  t.equal(await messages.body('suppressed'), undefined, 'every recipient suppressed: no body');
  t.equal(await messages.insert(message('unpaid', [recipient('a@dest.test'), recipient('b@dest.test')])), 'insufficient_balance');
  t.equal(await messages.body('unpaid'), undefined, 'refused for credits: no body');
});
