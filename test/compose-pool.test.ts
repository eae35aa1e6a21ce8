// The API's compose pool: MIME messages composed on worker threads are the messages composeMessage() makes,
// each caller gets its own, a worker that dies is replaced, and a closed pool refuses work.
import t from 'tap';
import { simpleParser, type ParsedMail } from 'mailparser';
import { ComposePool } from '../api/http/send/compose-pool.js';
import { composeMessage } from '../api/http/send/compose.js';
import type { SendRequest } from '../api/http/send/request.js';

function request(subject: string, extra: Partial<SendRequest> = {}): SendRequest {
  return {
    from: { email: 'sender@example.com', name: 'Sender Name' },
    to: [{ email: 'to@dest.test', name: 'Ünïcode To' }],
    cc: [{ email: 'cc@dest.test', name: '' }],
    bcc: [{ email: 'hidden@dest.test', name: '' }],
    subject,
    html: '<p>Hello <b>there</b></p>',
    replyTo: { email: 'reply@example.com', name: 'Replies' },
    headers: { 'X-Campaign': 'spring', 'List-Unsubscribe': '<https://example.com/u/1>' },
    attachments: [{ filename: 'report.bin', contentType: 'application/octet-stream', content: Buffer.from([0, 1, 2, 250, 251, 252]) }],
    ...extra,
  };
}

/** What a reader sees of a message, without what differs between two compositions (Date, MIME boundaries). */
function visible(m: ParsedMail) {
  return {
    subject: m.subject,
    from: m.from?.text,
    to: [m.to].flat().map((a) => a?.text),
    cc: [m.cc].flat().map((a) => a?.text),
    bcc: m.bcc,
    replyTo: m.replyTo?.text,
    messageId: m.messageId,
    text: m.text,
    html: m.html,
    headers: [m.headers.get('x-campaign'), m.headers.get('list-unsubscribe')],
    attachments: m.attachments.map((a) => ({ name: a.filename, type: a.contentType, content: [...a.content] })),
  };
}

t.test('a message composed on a worker is the message composeMessage() makes on the main thread', async (t) => {
  const pool = new ComposePool(1);
  t.teardown(() => pool.close());
  const r = request('Invoice 42 — ready');
  const onWorker = await pool.compose(r, 'abc123');
  const onMain = await composeMessage(r, 'abc123');
  t.equal(onWorker.messageIdHeader, '<abc123@example.com>');
  t.ok(Buffer.isBuffer(onWorker.body), 'the body comes back as a Buffer');
  const [a, b] = await Promise.all([simpleParser(onWorker.body), simpleParser(onMain.body)]);
  t.same(visible(a), visible(b), 'same headers, parts and attachments');
  t.equal(a.bcc, undefined, 'no Bcc header');
  t.match(a.text, /Hello there/, 'a text part generated from the html');
});

t.test('many sends at once on two workers each get their own message', async (t) => {
  const pool = new ComposePool(2);
  t.teardown(() => pool.close());
  const composed = await Promise.all(Array.from({ length: 200 }, (_, i) => pool.compose(request(`message ${i}`), `id${i}`)));
  const subjects = await Promise.all(composed.map(async (c) => (await simpleParser(c.body)).subject));
  t.same(
    subjects,
    Array.from({ length: 200 }, (_, i) => `message ${i}`),
    'each answer is the message asked for, in order',
  );
  t.same(
    composed.map((c) => c.messageIdHeader),
    Array.from({ length: 200 }, (_, i) => `<id${i}@example.com>`),
  );
});

t.test('a job that kills its worker fails, and the pool replaces the worker for the sends after it', async (t) => {
  const pool = new ComposePool(1);
  t.teardown(() => pool.close());
  // No attachments array: the worker throws outside any promise, and the thread dies.
  const broken = { ...request('broken'), attachments: undefined } as unknown as SendRequest;
  await t.rejects(pool.compose(broken, 'bad'), 'the job fails instead of waiting for ever');
  const after = await pool.compose(request('after the crash'), 'good');
  t.equal((await simpleParser(after.body)).subject, 'after the crash', 'the replacement worker composes');
});

t.test('a large attachment survives the trip to the worker and back', async (t) => {
  const pool = new ComposePool(1);
  t.teardown(() => pool.close());
  const content = Buffer.alloc(8 * 1024 * 1024);
  for (let i = 0; i < content.length; i++) content[i] = (i * 31) & 0xff;
  const composed = await pool.compose(request('big', { attachments: [{ filename: 'big.bin', contentType: 'application/octet-stream', content }] }), 'big');
  const parsed = await simpleParser(composed.body);
  t.ok(parsed.attachments[0]?.content.equals(content), '8 MB back byte for byte');
});

t.test('a closed pool fails what it was still composing and refuses new work', async (t) => {
  const pool = new ComposePool(1);
  const pending = t.rejects(pool.compose(request('in flight'), 'x'), /closed/, 'the send under way fails');
  await pool.close();
  await pending;
  await t.rejects(pool.compose(request('too late'), 'y'), /closed/);
});
