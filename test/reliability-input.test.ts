// Malformed input, on SMTP and HTTP: each gets a clear error (or is accepted as the bytes it is), nothing
// crashes, and a normal send right after still goes through.
import t, { type Test } from 'tap';
import type { Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { simpleParser } from 'mailparser';
import type { UntypedJson } from './helpers/harness.js';
import { startMailWorld, type MailWorld } from './helpers/mail-world.js';
import { RawSmtp } from './helpers/smtp-raw.js';
import { submitOnce } from './helpers/smtp-load.js';
import { MAX_MESSAGE_BYTES, MAX_RECIPIENTS } from '../mta/smtp/submission.js';

interface World extends MailWorld {
  key: string;
  starttlsPort: number;
  tlsPort: number;
}

/** The shared sending world, closed when `t` ends. */
async function world(t: Test): Promise<World> {
  const w = await startMailWorld({ domain: 'input.example.com' });
  t.teardown(() => w.close());
  return { ...w, key: w.sendingKey, starttlsPort: w.h.config.smtp.starttlsPorts[0]!, tlsPort: w.h.config.smtp.tlsPorts[0]! };
}

const FROM = 'app@input.example.com';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Buffer memory still referenced (garbage collected first), in bytes. The MTA runs in this process. */
function retainedBuffers(): number {
  gc();
  return process.memoryUsage().arrayBuffers;
}

/** retainedBuffers() once it stops moving (data still in transit is not what the server keeps). */
async function settledBuffers(): Promise<number> {
  let last = retainedBuffers();
  for (let i = 0; i < 25; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const now = retainedBuffers();
    if (Math.abs(now - last) < 1024 * 1024) return now;
    last = now;
  }
  return last;
}
let counter = 0;

/** A normal message over authenticated STARTTLS: it must be accepted and reach the sink. */
async function normalSmtpSend(t: Test, w: World): Promise<void> {
  const subject = `Still fine ${++counter}`;
  const raw = `From: <${FROM}>\r\nTo: <ok@dest.test>\r\nSubject: ${subject}\r\n\r\nhello\r\n`;
  const reply = await submitOnce(w.starttlsPort, w.key, { from: FROM, to: 'ok@dest.test' }, raw);
  t.match(reply, /^250 .*queued as/, 'a normal SMTP send right after is accepted');
  await waitForSubject(w, subject);
}

async function waitForSubject(w: World, subject: string, timeoutMs = 15_000): Promise<Buffer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = Buffer.from(`\r\nSubject: ${subject}\r\n`, 'utf8');
    const found = w.sink.messages.find((m) => m.raw.includes(line));
    if (found) return found.raw;
    if (Date.now() > deadline) throw new Error(`"${subject}" never reached the sink`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A reply that refuses: a 4xx or 5xx with some text, never a 2xx or 3xx for garbage. */
function isClearRefusal(reply: { code: number; text: string }): boolean {
  return reply.code >= 400 && reply.code < 600 && reply.text.trim().length > 3;
}

t.test('malformed SMTP input', async (t) => {
  const w = await world(t);

  await t.test('garbage commands get clear refusals and the session survives them', async (t) => {
    const { smtp, greeting } = await RawSmtp.open(w.tlsPort, true);
    t.equal(greeting.code, 220);
    for (const garbage of ['FOO BAR', 'HELLO?', '\x00\x01\x02\xff\xfe', 'MAIL FROM:<app@input.example.com>']) {
      const reply = await smtp.command(garbage);
      t.ok(isClearRefusal(reply), `${JSON.stringify(garbage)} → ${reply.code} ${reply.text}`);
    }
    await smtp.expect('EHLO client.test', 250);
    await smtp.expect(`AUTH PLAIN ${Buffer.from(`\0u\0${w.key}`).toString('base64')}`, 235);
    for (const [line, codes] of [
      ['RCPT TO:<ok@dest.test>', [503]],
      ['DATA', [503]],
      ['MAIL FROM:<not an address>', [501, 553]],
      ['MAIL FROM:<app@input.example.com>', [250]],
      ['RCPT TO:<@@@>', [501, 553]],
      ['MAIL FROM:<app@input.example.com>', [503]],
    ] as const) {
      const reply = await smtp.command(line);
      t.ok((codes as readonly number[]).includes(reply.code), `${line} → ${reply.code} ${reply.text}`);
    }
    const long = await smtp.command(`NOOP ${'x'.repeat(20_000)}`).catch((err: Error) => ({ code: 0, text: err.message }));
    t.ok(long.code === 0 ? smtp.closed : long.code >= 400, `a 20 KB line is refused or the session closed (${long.code} ${long.text.slice(0, 60)})`);
    smtp.destroy();
    await normalSmtpSend(t, w);
  });

  await t.test('plain text on the implicit-TLS port and garbage before STARTTLS do not disturb the listener', async (t) => {
    const { createConnection } = await import('node:net');
    const socket = createConnection(w.tlsPort, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write('EHLO not-tls\r\nMAIL FROM:<x@y>\r\n');
    await new Promise((r) => socket.once('close', r));
    t.pass('the TLS port closed the plaintext connection');
    const { smtp, greeting } = await RawSmtp.open(w.starttlsPort, false);
    t.equal(greeting.code, 220);
    const garbage = await smtp.command('\xff\xfe STARTTLS please');
    t.ok(isClearRefusal(garbage), `garbage before TLS is refused (${garbage.code} ${garbage.text})`);
    await smtp.expect('EHLO client.test', 250);
    const auth = await smtp.command(`AUTH PLAIN ${Buffer.from(`\0u\0${w.key}`).toString('base64')}`);
    t.ok(isClearRefusal(auth), `AUTH before TLS is refused (${auth.code} ${auth.text})`);
    const mail = await smtp.command('MAIL FROM:<app@input.example.com>');
    t.ok(isClearRefusal(mail), `MAIL without AUTH is refused (${mail.code} ${mail.text})`);
    await smtp.quit();
    await normalSmtpSend(t, w);
  });

  await t.test('a message with no header section is refused with a clear 550', async (t) => {
    const smtp = await RawSmtp.authenticated(w.tlsPort, w.key);
    await smtp.expect(`MAIL FROM:<${FROM}>`, 250);
    await smtp.expect('RCPT TO:<ok@dest.test>', 250);
    await smtp.expect('DATA', 354);
    const reply = await smtp.command('just some words, no headers at all\r\n.');
    t.equal(reply.code, 550);
    t.match(reply.text, /From header/);
    await smtp.quit();
    await normalSmtpSend(t, w);
  });

  await t.test('broken MIME and 8-bit headers are accepted as they are and delivered', async (t) => {
    const smtp = await RawSmtp.authenticated(w.tlsPort, w.key);
    const subject = 'Grüße – 日本 ' + ++counter;
    const broken = Buffer.concat([
      Buffer.from(`From: Andr`, 'latin1'),
      Buffer.from([0xe9]), // a bare latin-1 byte: not valid UTF-8
      Buffer.from(` <${FROM}>\r\nTo: <ok@dest.test>\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\n`, 'utf8'),
      Buffer.from(
        'Content-Type: multipart/mixed; boundary="never-closed"\r\n\r\n--never-closed\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n%%% not base64 %%%\r\n--never-closed\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n',
        'latin1',
      ),
    ]);
    await smtp.expect(`MAIL FROM:<${FROM}>`, 250);
    await smtp.expect('RCPT TO:<ok@dest.test>', 250);
    await smtp.expect('DATA', 354);
    await smtp.write(broken);
    const reply = await smtp.command('.');
    t.equal(reply.code, 250, reply.text);
    await smtp.quit();
    const id = /queued as ([0-9a-z]+)/.exec(reply.text)![1]!;
    const raw = await waitForSubject(w, subject);
    t.ok(raw.includes(Buffer.from(`Subject: ${subject}\r\n`, 'utf8')), 'the 8-bit subject arrives byte for byte');
    t.ok(raw.includes(Buffer.concat([Buffer.from('From: Andr'), Buffer.from([0xe9])])), 'the latin-1 byte arrives unchanged');
    t.ok(raw.includes(Buffer.from('%%% not base64 %%%')), 'the broken part arrives unchanged');
    const parsed = await simpleParser(raw);
    t.equal(parsed.subject, subject);
    const log = await w.h.request('GET', `/v2/emails/${id}`, { key: w.adminKey });
    t.equal(log.body.data.subject, subject, 'the log shows the decoded subject');
  });

  await t.test('a declared SIZE over the limit is refused at MAIL FROM with 552', async (t) => {
    const smtp = await RawSmtp.authenticated(w.tlsPort, w.key);
    const reply = await smtp.command(`MAIL FROM:<${FROM}> SIZE=${MAX_MESSAGE_BYTES + 1}`);
    t.equal(reply.code, 552, reply.text);
    await smtp.quit();
  });

  await t.test('a 50 MB DATA is refused with 552, not held in memory, and the session goes on', async (t) => {
    const smtp = await RawSmtp.authenticated(w.tlsPort, w.key);
    await smtp.expect(`MAIL FROM:<${FROM}>`, 250);
    await smtp.expect('RCPT TO:<big@dest.test>', 250);
    await smtp.expect('DATA', 354);
    const baseline = retainedBuffers();
    const line = Buffer.from(`${'y'.repeat(998)}\r\n`);
    const chunk = Buffer.concat([Buffer.from(`From: <${FROM}>\r\nTo: <big@dest.test>\r\nSubject: Huge\r\n\r\n`), ...Array(1024).fill(line)]);
    const started = Date.now();
    for (let sent = 0; sent < 50 * 1024 * 1024; sent += chunk.length) await smtp.write(chunk);
    // Everything but the final dot is sent; once the server has read it all, what it holds stays held.
    const held = (await settledBuffers()) - baseline;
    const reply = await smtp.command('.', 60_000);
    t.equal(reply.code, 552, `${reply.code} ${reply.text}`);
    t.comment(`50 MB DATA answered in ${Date.now() - started} ms; ${Math.round(held / 1e6)} MB of it held before the end`);
    t.ok(held < MAX_MESSAGE_BYTES / 2, 'the oversized message was not kept in memory');
    await smtp.expect('RSET', 250);
    await smtp.expect(`MAIL FROM:<${FROM}>`, 250);
    await smtp.expect('RCPT TO:<ok@dest.test>', 250);
    await smtp.expect('DATA', 354);
    const subject = `After the big one ${++counter}`;
    const ok = await smtp.command(`From: <${FROM}>\r\nTo: <ok@dest.test>\r\nSubject: ${subject}\r\n\r\nsmall\r\n.`);
    t.equal(ok.code, 250, 'the same session sends a normal message after');
    await smtp.quit();
    await waitForSubject(w, subject);
    t.notOk(
      w.sink.messages.some((m) => m.to.includes('big@dest.test')),
      'nothing of the big message was delivered',
    );
  });

  await t.test(`10,000 RCPTs: ${MAX_RECIPIENTS} accepted, then 452 for every other`, async (t) => {
    const smtp = await RawSmtp.authenticated(w.tlsPort, w.key);
    await smtp.expect(`MAIL FROM:<${FROM}>`, 250);
    const lines = Array.from({ length: 10_000 }, (_, i) => `RCPT TO:<r${i}@dest.test>\r\n`).join('');
    const started = Date.now();
    await smtp.write(lines);
    const codes = new Map<number, number>();
    let first452 = '';
    for (let i = 0; i < 10_000; i++) {
      const reply = await smtp.next(30_000);
      codes.set(reply.code, (codes.get(reply.code) ?? 0) + 1);
      if (reply.code === 452 && !first452) first452 = reply.text;
    }
    t.same(Object.fromEntries(codes), { 250: MAX_RECIPIENTS, 452: 10_000 - MAX_RECIPIENTS }, `answered in ${Date.now() - started} ms`);
    t.match(first452, /4\.5\.3 Too many recipients/);
    await smtp.expect('RSET', 250);
    await smtp.quit();
    await normalSmtpSend(t, w);
  });

  await t.test('clients that connect and stall do not hold up anyone else', async (t) => {
    const { createConnection } = await import('node:net');
    // Twenty that never start TLS, ten that stop after EHLO, one that stops in the middle of DATA.
    const silent = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = createConnection(w.tlsPort, '127.0.0.1', () => resolve(s));
            s.on('error', () => undefined);
          }),
      ),
    );
    const idle = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { smtp } = await RawSmtp.open(w.tlsPort, true);
        await smtp.expect('EHLO idle.test', 250);
        return smtp;
      }),
    );
    const halfway = await RawSmtp.authenticated(w.tlsPort, w.key);
    await halfway.expect(`MAIL FROM:<${FROM}>`, 250);
    await halfway.expect('RCPT TO:<halfway@dest.test>', 250);
    await halfway.expect('DATA', 354);
    await halfway.write(`From: <${FROM}>\r\nTo: <halfway@dest.test>\r\nSubject: Halfway\r\n\r\nthe first half of`);
    t.teardown(() => {
      for (const s of silent) s.destroy();
      for (const s of idle) s.destroy();
    });

    const started = Date.now();
    await normalSmtpSend(t, w);
    const ms = Date.now() - started;
    t.ok(ms < 5_000, `a normal send took ${ms} ms beside 31 stalled clients`);
    const http = await w.h.request('POST', '/v2/emails', {
      key: w.key,
      body: { from: { email: FROM }, to: [{ email: 'ok@dest.test' }], subject: 'HTTP beside stalls', text: 'x' },
    });
    t.equal(http.status, 200, 'HTTP sending is unaffected too');

    // The half-sent message is dropped with its connection: nothing is queued for it.
    halfway.destroy();
    await new Promise((r) => setTimeout(r, 500));
    const logged = await w.h.request('GET', '/v2/emails?search=halfway', { key: w.adminKey });
    t.equal(logged.body.data.length, 0, 'the interrupted message was never queued');
    await normalSmtpSend(t, w);
  });
});

t.test('malformed HTTP send requests', async (t) => {
  const w = await world(t);
  const send = (body: unknown, headers: Record<string, string> = {}) => w.h.request('POST', '/v2/emails', { key: w.key, body, headers });
  const rawSend = (text: string, headers: Record<string, string> = {}) => w.h.request('POST', '/v2/emails', { key: w.key, rawBody: text, headers });

  async function normalHttpSend(t: Test): Promise<void> {
    const subject = `HTTP still fine ${++counter}`;
    const res = await send({ from: { email: FROM }, to: [{ email: 'ok@dest.test' }], subject, text: 'hello' });
    t.equal(res.status, 200, 'a normal send right after is accepted');
    await waitForSubject(w, subject);
  }

  /** The sending error shape, with a message and at least one field named. */
  function clearError(t: Test, res: { status: number; body: UntypedJson; text: string }, status: number, field?: string): void {
    t.equal(res.status, status, res.text.slice(0, 300));
    t.equal(res.body?.status_code, status);
    t.type(res.body?.error_type, 'string');
    t.ok(typeof res.body?.message === 'string' && res.body.message.length > 3, 'a message saying what is wrong');
    if (field) t.ok(res.body?.errors?.[field], `errors names ${field}: ${JSON.stringify(res.body?.errors)}`);
  }

  await t.test('wrong types are refused field by field', async (t) => {
    const res = await send({ from: 'app@input.example.com', to: 'ok@dest.test', subject: 42, text: ['x'], headers: 'X-A: b', attachments: {} });
    clearError(t, res, 422);
    for (const field of ['from', 'to', 'subject', 'text', 'headers', 'attachments']) t.ok(res.body.errors[field], `${field} is named`);
    clearError(t, await send({ from: { email: 12 }, to: [{ email: FROM }], subject: 's', text: 'x' }), 422, 'from');
    clearError(t, await send({ from: { email: FROM }, to: [null, 7, { email: ['a'] }], subject: 's', text: 'x' }), 422);
    clearError(t, await send({ from: { email: FROM }, to: [{ email: 'ok@dest.test' }], subject: 's', text: 'x', headers: { 'X-N': 5 } }), 422, 'headers');
    for (const body of [[], 'a string', 12, null, true]) {
      const res = await send(body);
      t.ok(res.status >= 400 && res.status < 500, `a ${JSON.stringify(body)} body → ${res.status} ${res.text.slice(0, 120)}`);
    }
    await normalHttpSend(t);
  });

  await t.test('malformed JSON gets a clear 400', async (t) => {
    for (const text of ['{"from":', '{from: 1}', '\u0000\u0001', '{"a":1}}']) clearError(t, await rawSend(text), 400);
    await normalHttpSend(t);
  });

  await t.test('a body over the limit gets 413', async (t) => {
    const limit = w.h.config.api.sendBodyLimitBytes;
    const huge = JSON.stringify({ from: { email: FROM }, to: [{ email: 'ok@dest.test' }], subject: 'huge', text: 'z'.repeat(limit + 1024) });
    const res = await rawSend(huge);
    clearError(t, res, 413);
    await normalHttpSend(t);
  });

  await t.test('deeply nested JSON is refused, not a crash', async (t) => {
    const deep = `{"from":${'['.repeat(100_000)}${']'.repeat(100_000)},"to":[],"subject":"s","text":"x"}`;
    const res = await rawSend(deep);
    t.ok(res.status >= 400 && res.status < 500, `${res.status} ${res.text.slice(0, 200)}`);
    const again = await rawSend(deep, { 'Idempotency-Key': 'deep-1' });
    t.ok(again.status >= 400 && again.status < 500, `with an Idempotency-Key: ${again.status} ${again.text.slice(0, 200)}`);
    await normalHttpSend(t);
  });

  await t.test('bad base64 in an attachment is refused', async (t) => {
    for (const content of ['%%% not base64 %%%', 'aGVsbG8=aGVsbG8=', '====', 'abcde', 'aGVsbG8\u0000']) {
      const res = await send({
        from: { email: FROM },
        to: [{ email: 'ok@dest.test' }],
        subject: 'att',
        text: 'x',
        attachments: [{ name: 'a.txt', type: 'text/plain', content }],
      });
      clearError(t, res, 422, 'attachments');
    }
    await normalHttpSend(t);
  });
});
