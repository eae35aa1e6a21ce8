// POST /v2/emails and /v2/emails/batch over real HTTP: every sending error of the specification's table in its
// body shape, the extra refusals of issue 3 (suspension, header injection, size, types), what a
// successful send stores and costs, batches and the per-account send rate (Idempotency-Key: send-idempotency.test.ts).
import t, { type Test } from 'tap';
import { simpleParser } from 'mailparser';
import { startHarness, type Harness, type HttpReply, type UntypedJson } from './helpers/harness.js';
import { storedDomain } from './helpers/sending-setup.js';

const h: Harness = await startHarness();
t.teardown(() => h.close());

let domainCounter = 0;
const uniqueDomain = (): string => `sender${++domainCounter}.example.com`;

/** A domain of the team in the store, verified unless `draft`. */
const makeDomain = (teamId: number, name = uniqueDomain(), draft = false) => storedDomain(h, teamId, name, draft);

interface Setup {
  id: number;
  adminKey: string;
  domain: string;
  domainId: string;
  sendKey: string;
  sendKeyId: number;
}

/** A root account with a verified domain and an unrestricted sending key; a high send rate unless told. */
async function setup(credits = 1000, limitPerSecond = 1000): Promise<Setup> {
  const acct = await h.account({ credits });
  await h.rt.store.teams.update(acct.id, { limitPerSecond });
  const d = await makeDomain(acct.id);
  const key = await h.request('POST', '/v2/api-keys', { key: acct.key, body: { name: 'app' } });
  if (key.status !== 201) throw new Error(key.text);
  return { id: acct.id, adminKey: acct.key, domain: d.name, domainId: d.id, sendKey: key.body.data.api_key, sendKeyId: key.body.data.id };
}

const rcpt = (n: number, host = 'dest.test') => Array.from({ length: n }, (_, i) => ({ email: `user${i}@${host}` }));

/** A valid send request from `domain`, with fields replaced or added by `extra`. */
const mail = (domain: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  from: { email: `news@${domain}`, name: 'News' },
  to: [{ email: 'bob@dest.test', name: 'Bob' }],
  subject: 'Hello',
  text: 'Hello Bob',
  ...extra,
});

const send = (key: string | undefined, body: unknown, o: { headers?: Record<string, string>; teamId?: number | string } = {}) =>
  h.request('POST', '/v2/emails', { key, body, ...o });

const SHAPE_KEYS = ['error_type', 'errors', 'message', 'status_code'];

/** The sending error shape: exactly these keys, codes as {field: {code: text}}, and no stack trace. */
function errorShape(t: Test, body: UntypedJson, status: number, type: string): void {
  t.same(Object.keys(body ?? {}).sort(), SHAPE_KEYS, 'the body has exactly status_code, error_type, message and errors');
  t.equal(body.status_code, status);
  t.equal(body.error_type, type);
  t.type(body.message, 'string');
  for (const codes of Object.values(body.errors as Record<string, unknown>)) {
    t.type(codes, 'object');
    for (const text of Object.values(codes as Record<string, unknown>)) t.type(text, 'string');
  }
  t.notMatch(JSON.stringify(body), /\bat .+\.(ts|js):\d+|stack/i, 'no stack trace');
}

function sendError(t: Test, res: HttpReply, status: number, type: string, field: string, code: string): void {
  t.equal(res.status, status, res.text);
  errorShape(t, res.body, status, type);
  t.ok(res.body?.errors?.[field]?.[code], `errors.${field}.${code} is given (${res.text})`);
}

async function balance(id: number): Promise<number> {
  return (await h.rt.store.teams.get(id))!.creditBalance;
}

async function messageCount(id: number): Promise<number> {
  return (await h.request('GET', '/v2/emails', { key: await adminKeyOf(id) })).body.total;
}

const adminKeys = new Map<number, string>();
async function adminKeyOf(id: number): Promise<string> {
  if (!adminKeys.has(id)) adminKeys.set(id, await h.adminKey(id, ['emails:read']));
  return adminKeys.get(id)!;
}

/** The body as stored for delivery (the MTA is not running here, so it stays until the test ends). */
const storedBody = async (id: string): Promise<Buffer> => {
  const body = await h.rt.store.messages.body(id);
  if (!body) throw new Error(`no stored body for ${id}`);
  return body;
};

// ---------------------------------------------------------------------------------------------------
// 1. The specification's sending error table

t.test('a request with no key anywhere is refused with 401 api_key.required', async (t) => {
  const s = await setup();
  sendError(t, await send(undefined, mail(s.domain)), 401, 'unauthorized', 'api_key', 'required');
});

t.test('an unknown key is refused with 403 api_key.invalid, in the header or in the body', async (t) => {
  const s = await setup();
  sendError(t, await send('tern_doesnotexist0000000000000000', mail(s.domain)), 403, 'forbidden', 'api_key', 'invalid');
  sendError(t, await send(undefined, mail(s.domain, { api_key: 'tern_doesnotexist0000000000000000' })), 403, 'forbidden', 'api_key', 'invalid');
});

t.test('a revoked sending key stops sending: 403 api_key.invalid', async (t) => {
  const s = await setup();
  t.equal((await send(s.sendKey, mail(s.domain))).status, 200, 'the key works before revocation');
  const del = await h.request('DELETE', `/v2/api-keys/${s.sendKeyId}`, { key: s.adminKey });
  t.equal(del.status, 200, del.text);
  sendError(t, await send(s.sendKey, mail(s.domain)), 403, 'forbidden', 'api_key', 'invalid');
  sendError(t, await send(undefined, mail(s.domain, { api_key: s.sendKey })), 403, 'forbidden', 'api_key', 'invalid');
});

t.test('an admin key given as body api_key is refused with 403 api_key.invalid', async (t) => {
  const s = await setup();
  const before = await balance(s.id);
  sendError(t, await send(undefined, mail(s.domain, { api_key: s.adminKey })), 403, 'forbidden', 'api_key', 'invalid');
  t.equal(await balance(s.id), before, 'nothing was charged');
});

t.test('an admin key without emails:send is refused with 403 api_key.insufficient_scope naming the scope, not as an invalid key', async (t) => {
  const s = await setup();
  const key = await h.adminKey(s.id, ['domains:read', 'emails:read', 'api_keys:write']);
  for (const path of ['/v2/emails', '/v2/emails/batch']) {
    const res = await h.request('POST', path, { key, body: path.endsWith('batch') ? [mail(s.domain)] : mail(s.domain) });
    sendError(t, res, 403, 'forbidden', 'api_key', 'insufficient_scope');
    t.equal(res.body.errors.api_key.required_scope, 'emails:send', `${path}: the missing scope is named`);
    t.notMatch(res.body.message, /invalid/i, `${path}: the key is not called invalid`);
  }
  const withSend = await h.adminKey(s.id, ['emails:send']);
  t.equal((await send(withSend, mail(s.domain))).status, 200, 'the same account with emails:send can send');
});

t.test('a From domain the team has not verified is refused with 422 from.domain_not_verified', async (t) => {
  const s = await setup();
  const other = await setup();
  const draft = await makeDomain(s.id, uniqueDomain(), true);
  sendError(t, await send(s.sendKey, mail('unknown-domain.example.org')), 422, 'validation_error', 'from', 'domain_not_verified');
  sendError(t, await send(s.sendKey, mail(draft.name)), 422, 'validation_error', 'from', 'domain_not_verified');
  sendError(t, await send(s.sendKey, mail(other.domain)), 422, 'validation_error', 'from', 'domain_not_verified');
  sendError(t, await send(s.adminKey, mail(other.domain)), 422, 'validation_error', 'from', 'domain_not_verified');
  t.equal(await messageCount(s.id), 0, 'nothing was stored');
});

t.test('a sending key limited to one domain cannot send from another verified domain of its team: 422 from.domain_not_allowed', async (t) => {
  const s = await setup();
  const b = await makeDomain(s.id);
  const limited = await h.request('POST', '/v2/api-keys', { key: s.adminKey, body: { name: 'only A', domain: s.domainId } });
  t.equal(limited.status, 201, limited.text);
  const key = limited.body.data.api_key;
  sendError(t, await send(key, mail(b.name)), 422, 'validation_error', 'from', 'domain_not_allowed');
  t.equal((await send(key, mail(s.domain))).status, 200, 'its own domain is fine');
  t.equal((await send(s.sendKey, mail(b.name))).status, 200, 'an unrestricted key of the team may use B');
});

t.test('without enough credits a send is refused with 403 account.insufficient_balance and costs nothing', async (t) => {
  const broke = await setup(0);
  sendError(t, await send(broke.sendKey, mail(broke.domain)), 403, 'forbidden', 'account', 'insufficient_balance');
  const one = await setup(1);
  sendError(t, await send(one.sendKey, mail(one.domain, { to: rcpt(2) })), 403, 'forbidden', 'account', 'insufficient_balance');
  t.equal(await balance(one.id), 1, 'the single credit is still there');
  t.equal(await messageCount(one.id), 0, 'no message was stored');
  t.equal((await send(one.sendKey, mail(one.domain, { to: rcpt(1) }))).status, 200, 'one recipient fits the one credit');
  t.equal(await balance(one.id), 0);
});

t.test('concurrent sends never take more credits than the payer holds', async (t) => {
  const s = await setup(3);
  const replies = await Promise.all(Array.from({ length: 6 }, () => send(s.sendKey, mail(s.domain))));
  const statuses = replies.map((r) => r.status).sort();
  t.same(statuses, [200, 200, 200, 403, 403, 403]);
  for (const r of replies.filter((x) => x.status === 403)) sendError(t, r, 403, 'forbidden', 'account', 'insufficient_balance');
  t.equal(await balance(s.id), 0);
  t.equal(await messageCount(s.id), 3);
});

t.test('a missing subject and missing content are both reported in one 422 response', async (t) => {
  const s = await setup();
  const body = mail(s.domain);
  delete body.subject;
  delete body.text;
  const res = await send(s.sendKey, body);
  sendError(t, res, 422, 'validation_error', 'subject', 'required');
  t.ok(res.body.errors.content?.required, 'content.required in the same response');
  sendError(t, await send(s.sendKey, mail(s.domain, { subject: '' })), 422, 'validation_error', 'subject', 'required');
  sendError(t, await send(s.sendKey, mail(s.domain, { text: '', html: '' })), 422, 'validation_error', 'content', 'required');
});

t.test('more than 50 recipients in to, cc or bcc is refused with 422 <field>.max_limit; 50 each is fine', async (t) => {
  const s = await setup();
  sendError(t, await send(s.sendKey, mail(s.domain, { to: rcpt(51) })), 422, 'validation_error', 'to', 'max_limit');
  sendError(t, await send(s.sendKey, mail(s.domain, { cc: rcpt(51, 'cc.test') })), 422, 'validation_error', 'cc', 'max_limit');
  sendError(t, await send(s.sendKey, mail(s.domain, { bcc: rcpt(51, 'bcc.test') })), 422, 'validation_error', 'bcc', 'max_limit');
  t.equal(await messageCount(s.id), 0);
  const before = await balance(s.id);
  const ok = await send(s.sendKey, mail(s.domain, { to: rcpt(50), cc: rcpt(50, 'cc.test'), bcc: rcpt(50, 'bcc.test') }));
  t.equal(ok.status, 200, ok.text);
  t.equal((await h.rt.store.messages.recipientsOf(ok.body.message_id)).length, 150);
  t.equal(await balance(s.id), before - 150, 'one credit per recipient');
});

// ---------------------------------------------------------------------------------------------------
// 2. The other refusals of issue 3

t.test('a sending key of a suspended team is refused with 403 account.suspended', async (t) => {
  const s = await setup();
  const child = await h.request('POST', '/v2/teams', { key: s.adminKey, body: { name: 'Client A' } });
  t.equal(child.status, 201, child.text);
  const teamId: number = child.body.data.id;
  const d = await makeDomain(teamId);
  const key = await h.request('POST', '/v2/api-keys', { key: s.adminKey, teamId, body: { name: 'client app' } });
  t.equal(key.status, 201, key.text);
  t.equal((await send(key.body.data.api_key, mail(d.name))).status, 200, 'the team sends while active');
  const suspended = await h.request('PUT', `/v2/teams/${teamId}`, { key: s.adminKey, body: { status: 'suspended' } });
  t.equal(suspended.status, 200, suspended.text);
  sendError(t, await send(key.body.data.api_key, mail(d.name)), 403, 'forbidden', 'account', 'suspended');
  sendError(t, await send(s.adminKey, mail(d.name), { teamId }), 403, 'forbidden', 'account', 'suspended');
  t.equal((await send(s.sendKey, mail(s.domain))).status, 200, 'the parent account still sends');
  await h.rt.store.teams.changeStatus(s.id, 'suspended', 'platform');
  sendError(t, await send(s.sendKey, mail(s.domain)), 403, 'forbidden', 'account', 'suspended');
});

t.test('an admin key whose owning account is suspended cannot send for a child team, nor can the child team’s own keys', async (t) => {
  const s = await setup();
  const child = await h.request('POST', '/v2/teams', { key: s.adminKey, body: { name: 'Client B' } });
  const teamId: number = child.body.data.id;
  const d = await makeDomain(teamId);
  t.equal((await send(s.adminKey, mail(d.name), { teamId })).status, 200, 'the child team sends while the owner is active');
  const childKey: string = (await h.request('POST', '/v2/api-keys', { key: s.adminKey, teamId, body: { name: 'child app' } })).body.data.api_key;
  t.equal((await send(childKey, mail(d.name))).status, 200, 'and so does its own sending key');
  const change = await h.rt.store.teams.changeStatus(s.id, 'suspended', 'platform');
  t.ok(change.ok);
  sendError(t, await send(s.adminKey, mail(d.name), { teamId }), 403, 'forbidden', 'account', 'suspended');
  sendError(t, await send(s.adminKey, mail(s.domain)), 403, 'forbidden', 'account', 'suspended');
  sendError(t, await send(childKey, mail(d.name)), 403, 'forbidden', 'account', 'suspended');
  t.equal((await h.rt.store.teams.get(teamId))?.status, 'active', 'the child team itself is still active');
});

t.test('an invalid email address is refused with 422', async (t) => {
  const s = await setup();
  for (const bad of ['not-an-address', 'a@b', '@dest.test', 'a b@dest.test', 'bob@dest.test\r\nBcc: x@evil.test', '']) {
    const res = await send(s.sendKey, mail(s.domain, { to: [{ email: bad }] }));
    t.equal(res.status, 422, `to ${JSON.stringify(bad)}: ${res.text}`);
    errorShape(t, res.body, 422, 'validation_error');
    t.ok(
      Object.keys(res.body.errors).some((f) => f.startsWith('to')),
      'the error names the to field',
    );
  }
  const badFrom = await send(s.sendKey, mail(s.domain, { from: { email: 'nobody' } }));
  t.equal(badFrom.status, 422, badFrom.text);
  t.ok(badFrom.body.errors.from, 'the error names from');
  const badCc = await send(s.sendKey, mail(s.domain, { cc: [{ email: 'x@' }] }));
  t.equal(badCc.status, 422, badCc.text);
  for (const reply of ['Name <nope>', 'a@dest.test, b@dest.test', 'Team: a@dest.test, b@dest.test;', '', { email: 'nope' }]) {
    const badReply = await send(s.sendKey, mail(s.domain, { reply_to: reply }));
    t.equal(badReply.status, 422, `reply_to ${JSON.stringify(reply)}: ${badReply.text}`);
    t.ok(badReply.body.errors.reply_to, 'the error names reply_to');
  }
  t.equal(await messageCount(s.id), 0);
});

t.test('CR or LF in a header name or value, in the subject or in a name is refused with 422 and nothing is queued', async (t) => {
  const s = await setup();
  const before = await balance(s.id);
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['header value with CRLF', { headers: { 'X-Campaign': 'spring\r\nBcc: victim@evil.test' } }, 'headers'],
    ['header value with bare LF', { headers: { 'X-Campaign': 'spring\nBcc: victim@evil.test' } }, 'headers'],
    ['header value with bare CR', { headers: { 'X-Campaign': 'spring\rBcc: victim@evil.test' } }, 'headers'],
    ['header name with CRLF', { headers: { 'X-A\r\nBcc': 'victim@evil.test' } }, 'headers'],
    ['header name with LF', { headers: { 'X-A\nBcc': 'victim@evil.test' } }, 'headers'],
    ['subject with CRLF', { subject: 'Hi\r\nBcc: victim@evil.test' }, 'subject'],
    ['subject with LF', { subject: 'Hi\nBcc: victim@evil.test' }, 'subject'],
    ['from name with CRLF', { from: { email: `a@${s.domain}`, name: 'A\r\nBcc: victim@evil.test' } }, 'from'],
    ['to name with LF', { to: [{ email: 'bob@dest.test', name: 'Bob\nBcc: victim@evil.test' }] }, 'to[0]'],
    ['reply_to string with CRLF', { reply_to: 'A <a@dest.test>\r\nBcc: victim@evil.test' }, 'reply_to'],
    ['attachment name with CRLF', { attachments: [{ name: 'a.txt\r\nX-Evil: 1', type: 'text/plain', content: 'aGk=' }] }, 'attachments'],
  ];
  for (const [what, extra, field] of cases) {
    const res = await send(s.sendKey, mail(s.domain, extra));
    t.equal(res.status, 422, `${what}: ${res.text}`);
    errorShape(t, res.body, 422, 'validation_error');
    t.ok(res.body.errors[field], `${what}: the error names ${field}`);
  }
  t.equal(await messageCount(s.id), 0, 'nothing was queued');
  t.equal(await balance(s.id), before, 'nothing was charged');
});

t.test('a headers entry that would replace From, To, Cc, Bcc, Subject, Date, Message-ID, DKIM-Signature or Return-Path is refused with 422', async (t) => {
  const s = await setup();
  for (const name of ['From', 'To', 'Cc', 'Bcc', 'Subject', 'Date', 'Message-ID', 'DKIM-Signature', 'Return-Path', 'from', 'message-id', 'RETURN-PATH']) {
    const res = await send(s.sendKey, mail(s.domain, { headers: { [name]: 'someone@evil.test' } }));
    sendError(t, res, 422, 'validation_error', 'headers', 'reserved');
  }
  t.equal(await messageCount(s.id), 0);
});

t.test('attachments over 10 MB decoded in total are refused with 422; bad base64 is refused with 422', async (t) => {
  const s = await setup();
  const big = Buffer.alloc(10.5 * 1024 * 1024, 'a').toString('base64');
  sendError(
    t,
    await send(s.sendKey, mail(s.domain, { attachments: [{ name: 'big.bin', type: 'application/octet-stream', content: big }] })),
    422,
    'validation_error',
    'attachments',
    'max_size',
  );
  const half = Buffer.alloc(5.25 * 1024 * 1024, 'b').toString('base64');
  const two = [1, 2].map((i) => ({ name: `part${i}.bin`, type: 'application/octet-stream', content: half }));
  sendError(t, await send(s.sendKey, mail(s.domain, { attachments: two })), 422, 'validation_error', 'attachments', 'max_size');
  for (const content of ['!!!not base64!!!', 'aGVsbG8=\u0000', 'aGk=aGk=', '%%%%', 'a', 'aGk==', 'aG=k', 'aGVsbG8-_w==']) {
    const res = await send(s.sendKey, mail(s.domain, { attachments: [{ name: 'a.txt', type: 'text/plain', content }] }));
    sendError(t, res, 422, 'validation_error', 'attachments', 'invalid');
  }
  t.equal(await messageCount(s.id), 0);
});

t.test('wrong types are refused with 422, never 500', async (t) => {
  const s = await setup();
  const cases: Array<[string, unknown]> = [
    ['to as a string', mail(s.domain, { to: 'bob@dest.test' })],
    ['subject as a number', mail(s.domain, { subject: 42 })],
    ['from as a string', mail(s.domain, { from: `a@${s.domain}` })],
    ['from.email as a number', mail(s.domain, { from: { email: 7 } })],
    ['to as an object', mail(s.domain, { to: { email: 'bob@dest.test' } })],
    ['to item null', mail(s.domain, { to: [null] })],
    ['to item a number', mail(s.domain, { to: [5] })],
    ['cc as a number', mail(s.domain, { cc: 3 })],
    ['html as an object', mail(s.domain, { html: { p: 'x' } })],
    ['text as an array', mail(s.domain, { text: ['x'] })],
    ['reply_to as a number', mail(s.domain, { reply_to: 12 })],
    ['reply_to object without email', mail(s.domain, { reply_to: { name: 'x' } })],
    ['headers as an array', mail(s.domain, { headers: ['X-A: b'] })],
    ['header value as a number', mail(s.domain, { headers: { 'X-Count': 3 } })],
    ['attachments as a string', mail(s.domain, { attachments: 'aGk=' })],
    ['attachment without content', mail(s.domain, { attachments: [{ name: 'a', type: 'text/plain' }] })],
    ['attachment content as a number', mail(s.domain, { attachments: [{ name: 'a', type: 'text/plain', content: 12 }] })],
    ['attachment type not a MIME type', mail(s.domain, { attachments: [{ name: 'a', type: 'nonsense', content: 'aGk=' }] })],
    ['the body an array', [mail(s.domain)]],
    ['the body a string', 'hello'],
    ['the body a number', 42],
    ['the body null', null],
  ];
  for (const [what, body] of cases) {
    const res = await h.request('POST', '/v2/emails', { key: s.sendKey, rawBody: JSON.stringify(body) });
    t.equal(res.status, 422, `${what}: ${res.text}`);
    errorShape(t, res.body, 422, 'validation_error');
  }
  t.equal(await messageCount(s.id), 0);
});

t.test('a body that is not JSON, or larger than the sending body limit, is refused in the sending shape', async (t) => {
  const s = await setup();
  const form = await h.request('POST', '/v2/emails', { key: s.sendKey, rawBody: 'from=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(form.status, 415, form.text);
  errorShape(t, form.body, 415, form.body?.error_type);
  const huge = JSON.stringify(mail(s.domain, { text: 'x'.repeat(h.config.api.sendBodyLimitBytes) }));
  const res = await h.raw('POST', '/v2/emails', { headers: { authorization: `Bearer ${s.sendKey}`, 'content-type': 'application/json' }, body: huge });
  t.equal(res.status, 413, res.text.slice(0, 300));
  errorShape(t, res.body, 413, 'payload_too_large');
  const empty = await h.request('POST', '/v2/emails', { key: s.sendKey });
  t.equal(empty.status, 422, `an empty body: ${empty.text}`);
  errorShape(t, empty.body, 422, 'validation_error');
  t.equal(await messageCount(s.id), 0);
});

t.test('malformed JSON is refused with 400 in the sending error shape', async (t) => {
  const s = await setup();
  for (const rawBody of ['{"from":', '{from: 1}', '[1,2', 'not json at all']) {
    const res = await h.request('POST', '/v2/emails', { key: s.sendKey, rawBody });
    t.equal(res.status, 400, `${rawBody}: ${res.text}`);
    errorShape(t, res.body, 400, 'bad_request');
  }
  const batch = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, rawBody: '[{"x":' });
  t.equal(batch.status, 400, batch.text);
  errorShape(t, batch.body, 400, 'bad_request');
  const noKey = await h.request('POST', '/v2/emails', { rawBody: '{"from":' });
  t.ok([400, 401].includes(noKey.status), `without a key: ${noKey.status}`);
  errorShape(t, noKey.body, noKey.status, noKey.status === 400 ? 'bad_request' : 'unauthorized');
});

// ---------------------------------------------------------------------------------------------------
// 3. What a successful send returns, stores and costs

t.test('a send answers 200 with only a message_id', async (t) => {
  const s = await setup();
  const res = await send(s.sendKey, mail(s.domain));
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body), ['message_id']);
  t.match(res.body.message_id, /^[0-9a-z]+$/);
  t.match(res.headers.get('content-type') ?? '', /application\/json/);
});

t.test('reply_to is accepted as the string "Name <email>" and as an object', async (t) => {
  const s = await setup();
  const asString = await send(s.sendKey, mail(s.domain, { reply_to: 'Support Desk <support@dest.test>' }));
  t.equal(asString.status, 200, asString.text);
  const asObject = await send(s.sendKey, mail(s.domain, { reply_to: { email: 'help@dest.test', name: 'Help' } }));
  t.equal(asObject.status, 200, asObject.text);
  const bare = await send(s.sendKey, mail(s.domain, { reply_to: 'plain@dest.test' }));
  t.equal(bare.status, 200, bare.text);
  const parsedString = await simpleParser(await storedBody(asString.body.message_id));
  t.same(
    parsedString.replyTo?.value.map((a) => [a.name, a.address]),
    [['Support Desk', 'support@dest.test']],
  );
  const parsedObject = await simpleParser(await storedBody(asObject.body.message_id));
  t.same(
    parsedObject.replyTo?.value.map((a) => [a.name, a.address]),
    [['Help', 'help@dest.test']],
  );
  const log = await h.request('GET', `/v2/emails/${asString.body.message_id}`, { key: s.adminKey });
  t.match(String(log.body.data.reply_to), /support@dest\.test/);
});

t.test('an html-only send gets a text/plain part generated from the html', async (t) => {
  const s = await setup();
  const res = await send(
    s.sendKey,
    mail(s.domain, { text: undefined, html: '<h1>Welcome</h1><p>Hello <b>Bob</b>, <a href="https://example.com/x">click here</a>.</p>' }),
  );
  t.equal(res.status, 200, res.text);
  const raw = await storedBody(res.body.message_id);
  t.match(raw.toString('latin1'), /Content-Type: text\/plain/i);
  t.match(raw.toString('latin1'), /Content-Type: text\/html/i);
  const parsed = await simpleParser(raw, { skipHtmlToText: true });
  t.ok(parsed.text, 'a text part exists');
  t.match(parsed.text ?? '', /Hello Bob/);
  t.notMatch(parsed.text ?? '', /<b>|<p>/, 'the text part has no markup');
  t.match(parsed.html || '', /<b>Bob<\/b>/);
});

t.test('attachments, cc and custom headers arrive in the MIME message; bcc does not appear in the headers', async (t) => {
  const s = await setup();
  const pdf = Buffer.from('%PDF-1.4 fake invoice\n');
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3]);
  const res = await send(
    s.sendKey,
    mail(s.domain, {
      cc: [{ email: 'carol@dest.test', name: 'Carol' }],
      bcc: [{ email: 'secret@dest.test' }],
      headers: { 'X-Campaign': 'spring-2024', 'List-Unsubscribe': '<https://example.com/u/1>' },
      attachments: [
        { name: 'invoice.pdf', type: 'application/pdf', content: pdf.toString('base64') },
        { name: 'pixel.png', type: 'image/png', content: png.toString('base64') },
      ],
    }),
  );
  t.equal(res.status, 200, res.text);
  const raw = await storedBody(res.body.message_id);
  const parsed = await simpleParser(raw);
  t.equal(parsed.subject, 'Hello');
  t.same(
    parsed.from?.value.map((a) => [a.name, a.address]),
    [['News', `news@${s.domain}`]],
  );
  t.same(
    (Array.isArray(parsed.to) ? parsed.to[0] : parsed.to)?.value.map((a) => a.address),
    ['bob@dest.test'],
  );
  t.same(
    (Array.isArray(parsed.cc) ? parsed.cc[0] : parsed.cc)?.value.map((a) => a.address),
    ['carol@dest.test'],
  );
  t.notOk(parsed.headers.get('bcc'), 'no Bcc header');
  t.notMatch(raw.toString('latin1'), /secret@dest\.test/, 'the bcc address is nowhere in the message');
  t.equal(parsed.headers.get('x-campaign'), 'spring-2024');
  t.match(raw.toString('latin1'), /^List-Unsubscribe: <https:\/\/example\.com\/u\/1>\r$/m, 'List-Unsubscribe kept as given');
  t.same(
    parsed.attachments.map((a) => [a.filename, a.contentType]),
    [
      ['invoice.pdf', 'application/pdf'],
      ['pixel.png', 'image/png'],
    ],
  );
  t.ok(parsed.attachments[0]!.content.equals(pdf), 'the pdf bytes are intact');
  t.ok(parsed.attachments[1]!.content.equals(png), 'the png bytes are intact');
  t.match(parsed.messageId ?? '', new RegExp(`@${s.domain.replace(/\./g, '\\.')}>?$`));
  t.ok(parsed.date, 'a Date header');
  const recipients = await h.rt.store.messages.recipientsOf(res.body.message_id);
  t.same(
    recipients.map((r) => [r.email, r.kind]).sort(),
    [
      ['bob@dest.test', 'to'],
      ['carol@dest.test', 'cc'],
      ['secret@dest.test', 'bcc'],
    ].sort(),
  );
  const log = await h.request('GET', `/v2/emails/${res.body.message_id}`, { key: s.adminKey });
  t.equal(log.body.data.has_attachments, true);
});

t.test('attachments just under 10 MB in total are accepted', async (t) => {
  const s = await setup();
  const nearly = Buffer.alloc(10 * 1024 * 1024 - 1024, 'z');
  const res = await send(s.sendKey, mail(s.domain, { attachments: [{ name: 'big.bin', type: 'application/octet-stream', content: nearly.toString('base64') }] }));
  t.equal(res.status, 200, res.text);
});

t.test('a child team sending through an admin key pays one credit per accepted recipient from the parent account', async (t) => {
  const s = await setup(10);
  const child = await h.request('POST', '/v2/teams', { key: s.adminKey, body: { name: 'Client C' } });
  const teamId: number = child.body.data.id;
  const d = await makeDomain(teamId);
  await h.rt.store.suppressions.add(teamId, { email: 'gone@dest.test', status: 'bounced', reason: 'hard bounce', messageId: null });
  const res = await send(
    s.adminKey,
    mail(d.name, { to: [{ email: 'ann@dest.test' }, { email: 'gone@dest.test' }, { email: 'temp@mailinator.com' }], cc: [{ email: 'cid@dest.test' }] }),
    { teamId },
  );
  t.equal(res.status, 200, res.text);
  t.equal(await balance(s.id), 8, 'two accepted recipients, two credits from the parent');
  t.equal(await balance(teamId), 0, 'the child team has no balance of its own');
  t.equal(res.headers.get('x-account-id'), String(teamId), 'the response echoes the team acted on');
  const states = Object.fromEntries((await h.rt.store.messages.recipientsOf(res.body.message_id)).map((r) => [r.email, r.state]));
  t.same(states, { 'ann@dest.test': 'queued', 'gone@dest.test': 'suppressed', 'temp@mailinator.com': 'failed', 'cid@dest.test': 'queued' });
  const row = await h.rt.store.messages.get(res.body.message_id);
  t.equal(row?.teamId, teamId, 'the message belongs to the child team');
  t.equal(row?.status, 'pending');
  const log = await h.request('GET', `/v2/emails/${res.body.message_id}`, { key: s.adminKey, teamId });
  t.equal(log.status, 200, log.text);
  t.equal(log.body.data.sending_key_id, null, 'an admin-key send has no sending-key id');
  // The same suppression does not cost the other teams anything: it is per team.
  const parentSend = await send(s.sendKey, mail(s.domain, { to: [{ email: 'gone@dest.test' }] }));
  t.equal(parentSend.status, 200);
  t.equal(await balance(s.id), 7, 'the address is suppressed only on the child team');
});

t.test('a message whose every recipient is disposable or suppressed is failed or suppressed with an error and costs nothing', async (t) => {
  const s = await setup(5);
  const res = await send(s.sendKey, mail(s.domain, { to: [{ email: 'a@mailinator.com' }, { email: 'b@mailinator.com' }] }));
  t.equal(res.status, 200, res.text);
  const row = await h.rt.store.messages.get(res.body.message_id);
  t.equal(row?.status, 'failed');
  t.ok(row?.error, `an error says why: ${row?.error}`);
  t.equal(await balance(s.id), 5, 'nothing was charged');
  t.equal(await h.rt.store.messages.body(res.body.message_id), undefined, 'nothing was kept for delivery');
  const states = (await h.rt.store.messages.recipientsOf(res.body.message_id)).map((r) => r.state);
  t.same(states, ['failed', 'failed']);
  const log = await h.request('GET', `/v2/emails/${res.body.message_id}`, { key: s.adminKey });
  t.equal(log.body.data.status, 'failed');
  t.ok(log.body.data.error);

  await h.rt.store.suppressions.add(s.id, { email: 'bounced@dest.test', status: 'bounced', reason: 'hard bounce', messageId: null });
  const broke = await setup(0);
  await h.rt.store.suppressions.add(broke.id, { email: 'bounced@dest.test', status: 'bounced', reason: 'hard bounce', messageId: null });
  const onlySuppressed = await send(broke.sendKey, mail(broke.domain, { to: [{ email: 'Bounced@dest.test' }] }));
  t.equal(onlySuppressed.status, 200, `an account without credits may still record a message that costs nothing: ${onlySuppressed.text}`);
  const suppressedRow = await h.rt.store.messages.get(onlySuppressed.body.message_id);
  t.equal(suppressedRow?.status, 'suppressed');
  t.ok(suppressedRow?.error);
});

t.test('X-Account-Id selects the team for an admin key only: a sending key acts on its own team, a foreign team is 404', async (t) => {
  const s = await setup();
  const other = await setup();
  const own = await send(s.sendKey, mail(s.domain), { teamId: other.id });
  t.equal(own.status, 200, own.text);
  t.equal(own.headers.get('x-account-id'), String(s.id), 'a sending key acts on its own team whatever the header says');
  t.equal((await h.rt.store.messages.get(own.body.message_id))?.teamId, s.id);
  sendError(t, await send(s.adminKey, mail(s.domain), { teamId: other.id }), 404, 'not_found', 'account_id', 'not_found');
  sendError(t, await send(s.adminKey, mail(s.domain), { teamId: 999999 }), 404, 'not_found', 'account_id', 'not_found');
  sendError(t, await send(s.adminKey, mail(s.domain), { teamId: 'abc' }), 422, 'validation_error', 'account_id', 'invalid');
  const self = await send(s.adminKey, mail(s.domain), { teamId: s.id });
  t.equal(self.status, 200, 'naming its own account is fine');
  t.equal(self.headers.get('x-account-id'), String(s.id));
});

t.test('a sending-key send records the key id; an admin-key send records none', async (t) => {
  const s = await setup();
  const byKey = await send(s.sendKey, mail(s.domain));
  const byAdmin = await send(s.adminKey, mail(s.domain));
  const byBodyKey = await send(undefined, mail(s.domain, { api_key: s.sendKey }));
  for (const r of [byKey, byAdmin, byBodyKey]) t.equal(r.status, 200, r.text);
  const detail = async (id: string) => (await h.request('GET', `/v2/emails/${id}`, { key: s.adminKey })).body.data;
  t.equal((await detail(byKey.body.message_id)).sending_key_id, s.sendKeyId);
  t.equal((await detail(byAdmin.body.message_id)).sending_key_id, null);
  t.equal((await detail(byBodyKey.body.message_id)).sending_key_id, s.sendKeyId, 'a body api_key is the same sending key');
});

t.test('a sending key is also accepted as api_key in the body, and the key is not kept in the message', async (t) => {
  const s = await setup();
  const res = await send(undefined, mail(s.domain, { api_key: s.sendKey, headers: { 'X-Campaign': 'body-key' } }));
  t.equal(res.status, 200, res.text);
  const raw = (await storedBody(res.body.message_id)).toString('latin1');
  t.notMatch(raw, new RegExp(s.sendKey), 'the key is nowhere in the message');
  const log = await h.request('GET', `/v2/emails/${res.body.message_id}`, { key: s.adminKey });
  t.notMatch(JSON.stringify(log.body), new RegExp(s.sendKey), 'nor in the log');
  const besideBasic = await send(undefined, mail(s.domain, { api_key: s.sendKey }), { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
  t.equal(besideBasic.status, 200, `a non-Bearer Authorization header does not hide the body key: ${besideBasic.text}`);
  sendError(t, await send(undefined, mail(s.domain), { headers: { authorization: 'Basic dXNlcjpwYXNz' } }), 401, 'unauthorized', 'api_key', 'required');
  sendError(t, await send(undefined, mail(s.domain, { api_key: '' })), 401, 'unauthorized', 'api_key', 'required');
});

// ---------------------------------------------------------------------------------------------------
// 4. Idempotency-Key: test/send-idempotency.test.ts, run with the replies in Redis and in the database.

// ---------------------------------------------------------------------------------------------------
// 5. Batch

t.test('a batch accepts a JSON array and answers 200 with data in order', async (t) => {
  const s = await setup();
  const res = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, body: [mail(s.domain, { subject: 'One' }), mail(s.domain, { subject: 'Two' })] });
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body), ['data']);
  t.equal(res.body.data.length, 2);
  const subjects = [];
  for (const item of res.body.data) subjects.push((await h.rt.store.messages.get(item.message_id))?.subject);
  t.same(subjects, ['One', 'Two']);
});

t.test('a batch larger than the credits sends its first items and refuses the later ones with insufficient_balance', async (t) => {
  const s = await setup(5);
  const res = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, body: Array.from({ length: 8 }, (_, i) => mail(s.domain, { subject: `n${i}` })) });
  t.equal(res.status, 200, res.text);
  const sent = res.body.data.map((item: { message_id?: string }) => Boolean(item.message_id));
  t.same(sent, [true, true, true, true, true, false, false, false]);
  for (const item of res.body.data.slice(5)) t.match(item, { error: { status_code: 403, errors: { account: { insufficient_balance: String } } } });
  t.equal(await balance(s.id), 0);
  t.equal(await messageCount(s.id), 5);
});

t.test('a batch accepts {"emails": [...]}', async (t) => {
  const s = await setup();
  const res = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, body: { emails: [mail(s.domain), mail(s.domain)] } });
  t.equal(res.status, 200, res.text);
  t.equal(res.body.data.length, 2);
  for (const item of res.body.data) t.match(item, { message_id: /^[0-9a-z]+$/ });
});

t.test('a batch of 100 is accepted with the default send rate; 101 is refused with 422', async (t) => {
  const s = await setup(1000, 10);
  const hundred = Array.from({ length: 100 }, (_, i) => mail(s.domain, { subject: `n${i}` }));
  const ok = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, body: hundred });
  t.equal(ok.status, 200, ok.text.slice(0, 500));
  t.equal(ok.body.data.length, 100);
  t.ok(
    ok.body.data.every((d: { message_id?: string }) => typeof d.message_id === 'string'),
    'every item was sent',
  );
  t.equal(await messageCount(s.id), 100);
  const tooMany = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, body: { emails: [...hundred, mail(s.domain)] } });
  t.equal(tooMany.status, 422, tooMany.text.slice(0, 500));
  errorShape(t, tooMany.body, 422, 'validation_error');
  const arrayTooMany = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, body: [...hundred, mail(s.domain)] });
  t.equal(arrayTooMany.status, 422);
  t.equal(await messageCount(s.id), 100, 'nothing of the refused batches was sent');
  for (const body of [[], { emails: [] }, { emails: 'x' }, 'x', {}]) {
    const res = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, body });
    t.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
    errorShape(t, res.body, 422, 'validation_error');
  }
});

t.test('each batch item is validated on its own: a bad item gets an error in the sending shape, the others a message_id', async (t) => {
  const s = await setup();
  const items = [
    mail(s.domain, { subject: 'first' }),
    mail(s.domain, { subject: undefined, text: undefined }),
    mail('not-ours.example.org'),
    mail(s.domain, { to: rcpt(51) }),
    'not an object',
    mail(s.domain, { subject: 'last' }),
  ];
  const res = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, body: items });
  t.equal(res.status, 200, res.text);
  const data = res.body.data;
  t.equal(data.length, 6);
  t.match(data[0], { message_id: String });
  t.match(data[5], { message_id: String });
  t.same(Object.keys(data[1]), ['error']);
  errorShape(t, data[1].error, 422, 'validation_error');
  t.ok(data[1].error.errors.subject.required && data[1].error.errors.content.required);
  errorShape(t, data[2].error, 422, 'validation_error');
  t.ok(data[2].error.errors.from.domain_not_verified);
  t.ok(data[3].error.errors.to.max_limit);
  errorShape(t, data[4].error, 422, 'validation_error');
  t.equal((await h.rt.store.messages.get(data[0].message_id))?.subject, 'first');
  t.equal((await h.rt.store.messages.get(data[5].message_id))?.subject, 'last');
  t.equal(await messageCount(s.id), 2);
});

t.test('batch items that run out of credits get account.insufficient_balance while earlier ones are sent', async (t) => {
  const s = await setup(2);
  const res = await h.request('POST', '/v2/emails/batch', { key: s.sendKey, body: [mail(s.domain), mail(s.domain), mail(s.domain)] });
  t.equal(res.status, 200, res.text);
  t.match(res.body.data[0], { message_id: String });
  t.match(res.body.data[1], { message_id: String });
  errorShape(t, res.body.data[2].error, 403, 'forbidden');
  t.ok(res.body.data[2].error.errors.account.insufficient_balance);
  t.equal(await balance(s.id), 0);
});

t.test('batch authentication errors answer the whole request in the sending shape', async (t) => {
  const s = await setup();
  sendError(t, await h.request('POST', '/v2/emails/batch', { body: [mail(s.domain)] }), 401, 'unauthorized', 'api_key', 'required');
  sendError(t, await h.request('POST', '/v2/emails/batch', { key: 'tern_nope', body: [mail(s.domain)] }), 403, 'forbidden', 'api_key', 'invalid');
  const viaBody = await h.request('POST', '/v2/emails/batch', { body: { api_key: s.sendKey, emails: [mail(s.domain)] } });
  t.equal(viaBody.status, 200, `a sending key in the body of the {"emails"} form: ${viaBody.text}`);
});

// ---------------------------------------------------------------------------------------------------
// 6. Send rate

t.test('over the account send rate a send is refused with 429 and Retry-After', async (t) => {
  const s = await setup(1000, 2);
  const burst = await Promise.all(Array.from({ length: 5 }, () => send(s.sendKey, mail(s.domain))));
  const statuses = burst.map((r) => r.status);
  const limited = burst.filter((r) => r.status === 429);
  t.ok(limited.length >= 1, `at least one 429 in ${statuses.join(',')}`);
  t.ok(statuses.filter((c) => c === 200).length >= 1, 'some sends went through');
  for (const r of limited) {
    errorShape(t, r.body, 429, 'rate_limited');
    const after = Number(r.headers.get('retry-after'));
    t.ok(Number.isInteger(after) && after >= 1, `Retry-After: ${r.headers.get('retry-after')}`);
  }
  await new Promise((r) => setTimeout(r, 1100));
  t.equal((await send(s.sendKey, mail(s.domain))).status, 200, 'after the window a send goes through');
});

t.test('a batch counts as one request against the send rate, and over it the whole batch is refused with 429', async (t) => {
  const s = await setup(1000, 2);
  const body = Array.from({ length: 5 }, () => mail(s.domain));
  const burst = await Promise.all(Array.from({ length: 4 }, () => h.request('POST', '/v2/emails/batch', { key: s.sendKey, body })));
  const ok = burst.filter((r) => r.status === 200);
  const limited = burst.filter((r) => r.status === 429);
  t.ok(ok.length >= 1 && limited.length >= 1, burst.map((r) => r.status).join(','));
  for (const r of ok) t.equal(r.body.data.filter((d: { message_id?: string }) => d.message_id).length, 5, 'an accepted batch sends every item');
  for (const r of limited) {
    errorShape(t, r.body, 429, 'rate_limited');
    t.ok(Number(r.headers.get('retry-after')) >= 1);
  }
  t.equal(await messageCount(s.id), ok.length * 5, 'a refused batch sends nothing');
});

t.test('the send rate is per account: one account over its rate does not slow another', async (t) => {
  const slow = await setup(1000, 1);
  const other = await setup(1000, 1000);
  await Promise.all([send(slow.sendKey, mail(slow.domain)), send(slow.sendKey, mail(slow.domain)), send(slow.sendKey, mail(slow.domain))]);
  const res = await Promise.all(Array.from({ length: 5 }, () => send(other.sendKey, mail(other.domain))));
  t.same(
    res.map((r) => r.status),
    [200, 200, 200, 200, 200],
  );
});

t.test('a send with an admin key counts against the same account rate', async (t) => {
  const s = await setup(1000, 2);
  const res = await Promise.all([send(s.adminKey, mail(s.domain)), send(s.sendKey, mail(s.domain)), send(s.adminKey, mail(s.domain)), send(s.sendKey, mail(s.domain))]);
  t.ok(
    res.some((r) => r.status === 429),
    res.map((r) => r.status).join(','),
  );
});
