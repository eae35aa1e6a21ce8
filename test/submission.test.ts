// SMTP submission: AUTH with a sending key over TLS only, the envelope and headers checked, messages queued and delivered.
import t from 'tap';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import nodemailer from 'nodemailer';
import { simpleParser } from 'mailparser';
import { dkimVerdict, startMailWorld, type MailWorld } from './helpers/mail-world.js';
import { RawSmtp } from './helpers/smtp-raw.js';
import { PromptGreetingSmtpServer } from '../shared/prompt-greeting.js';
import { listenSmtp } from '../shared/smtp-listen.js';
import { freePort } from './helpers/redis.js';

interface World extends MailWorld {
  starttlsPort: number;
  tlsPort: number;
}

async function world(): Promise<World> {
  const w = await startMailWorld();
  return { ...w, starttlsPort: w.h.config.smtp.starttlsPorts[0]!, tlsPort: w.h.config.smtp.tlsPorts[0]! };
}

/** The SMTP reply code a send failed with, or 0 when it went through. */
async function refusal(send: Promise<unknown>): Promise<number> {
  try {
    await send;
    return 0;
  } catch (err) {
    return (err as { responseCode?: number }).responseCode ?? -1;
  }
}

const transport = (port: number, secure: boolean, pass: string) =>
  nodemailer.createTransport({ host: '127.0.0.1', port, secure, requireTLS: !secure, auth: { user: 'anything', pass }, tls: { rejectUnauthorized: false } });

t.test('SMTP submission', async (t) => {
  const w = await world();
  t.teardown(() => w.close());

  await t.test('a message submitted with STARTTLS and a sending key reaches the sink, Bcc removed, List-Unsubscribe byte for byte', async (t) => {
    const listUnsubscribe =
      'List-Unsubscribe: <mailto:unsub@example.com?subject=x>,\r\n\t<https://example.com/u?a=1&b=2>\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n';
    const raw = `From: Shop <shop@example.com>\r\nTo: Bob <bob@dest.test>\r\nBcc: hidden@dest.test\r\nSubject: Receipt\r\n${listUnsubscribe}MIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nThanks\r\n`;
    const info = await transport(w.starttlsPort, false, w.sendingKey).sendMail({
      envelope: { from: 'shop@example.com', to: ['bob@dest.test', 'hidden@dest.test'] },
      raw,
    });
    t.match(info.response, /^250 .*queued as [0-9a-z]+/);
    const got = await w.sink.waitFor(2);
    const delivered = got.map((m) => m.raw.toString('latin1'));
    t.notOk(
      delivered.some((r) => /^Bcc:/im.test(r)),
      'no Bcc header leaves',
    );
    t.ok(
      delivered.every((r) => r.includes(`\r\n${listUnsubscribe}`)),
      'List-Unsubscribe and List-Unsubscribe-Post pass through unchanged',
    );
    t.same(got.map((m) => m.to[0]).sort(), ['bob@dest.test', 'hidden@dest.test']);
    for (const copy of got) t.equal((await dkimVerdict(w, copy.raw)).result, 'pass', 'DKIM passes for an independent verifier');
    const parsed = await simpleParser(got[0]!.raw);
    t.match(parsed.messageId ?? '', /@example\.com>$/, 'a Message-ID was added');
    t.ok(parsed.date, 'a Date was added');
    const id = /queued as ([0-9a-z]+)/.exec(info.response)![1]!;
    const recipients = await w.h.rt.store.messages.recipientsOf(id);
    t.same(recipients.map((r) => r.kind).sort(), ['bcc', 'to']);
  });

  await t.test('the log keeps what the headers say: subject, sender, to and cc, reply-to, and whether anything is attached', async (t) => {
    const send = (extra: Record<string, unknown>) =>
      transport(w.starttlsPort, false, w.sendingKey).sendMail({
        from: { name: 'Shop Ünd Co', address: 'shop@example.com' },
        to: [{ name: 'Bob', address: 'bob@dest.test' }],
        cc: 'carol@dest.test',
        replyTo: 'Help <help@example.com>',
        subject: 'Reçu n° 42',
        text: 'Thanks',
        ...extra,
      });
    const idOf = (response: string) => /queued as ([0-9a-z]+)/.exec(response)![1]!;
    const withFile = idOf((await send({ attachments: [{ filename: 'r.pdf', content: Buffer.from('%PDF-1.4 x') }] })).response);
    const without = idOf((await send({})).response);
    const row = (await w.h.rt.store.messages.get(withFile))!;
    t.equal(row.subject, 'Reçu n° 42', 'the encoded subject is decoded');
    t.equal(row.fromEmail, 'shop@example.com');
    t.equal(row.fromName, 'Shop Ünd Co');
    t.same(row.to, [{ email: 'bob@dest.test', name: 'Bob' }]);
    t.match(row.replyTo ?? '', /help@example\.com/);
    t.equal(row.hasAttachments, true, 'an attachment is noticed');
    t.equal((await w.h.rt.store.messages.get(without))!.hasAttachments, false, 'and its absence too');
    const kinds = (await w.h.rt.store.messages.recipientsOf(withFile)).map((r) => `${r.kind} ${r.email}`).sort();
    t.same(kinds, ['cc carol@dest.test', 'to bob@dest.test']);
  });

  await t.test('implicit TLS submission works too', async (t) => {
    const before = w.sink.messages.length;
    await transport(w.tlsPort, true, w.sendingKey).sendMail({ from: 'shop@example.com', to: 'carol@dest.test', subject: 'TLS', text: 'x' });
    const got = await w.sink.waitFor(before + 1);
    t.equal((await dkimVerdict(w, got[before]!.raw)).result, 'pass', 'DKIM passes on the implicit-TLS path too');
  });

  await t.test('an admin key is refused at login with 535 5.7.8', async (t) => {
    t.equal(await refusal(transport(w.starttlsPort, false, w.adminKey).sendMail({ from: 'shop@example.com', to: 'a@dest.test', subject: 's', text: 'x' })), 535);
  });

  await t.test('a wrong key is refused at login', async (t) => {
    t.equal(await refusal(transport(w.starttlsPort, false, 'tern_nope').sendMail({ from: 'shop@example.com', to: 'a@dest.test', subject: 's', text: 'x' })), 535);
  });

  await t.test('an unverified sender domain is refused with 550 5.7.1', async (t) => {
    t.equal(await refusal(transport(w.starttlsPort, false, w.sendingKey).sendMail({ from: 'x@other.org', to: 'a@dest.test', subject: 's', text: 'x' })), 550);
  });

  await t.test('without AUTH nothing is relayed', async (t) => {
    const plain = nodemailer.createTransport({ host: '127.0.0.1', port: w.starttlsPort, secure: false, tls: { rejectUnauthorized: false } });
    t.equal(await refusal(plain.sendMail({ from: 'shop@example.com', to: 'a@dest.test', subject: 's', text: 'x' })), 530);
  });

  await t.test('AUTH is not offered before TLS', async (t) => {
    const plain = nodemailer.createTransport({ host: '127.0.0.1', port: w.starttlsPort, secure: false, ignoreTLS: true, auth: { user: 'u', pass: w.sendingKey } });
    await t.rejects(plain.sendMail({ from: 'shop@example.com', to: 'a@dest.test', subject: 's', text: 'x' }));
  });

  await t.test('a suspended team is refused with 550 5.7.1', async (t) => {
    await w.h.rt.store.teams.changeStatus(w.accountId, 'suspended', 'account');
    t.teardown(() => w.h.rt.store.teams.changeStatus(w.accountId, 'active', 'account').then(() => undefined));
    t.equal(await refusal(transport(w.starttlsPort, false, w.sendingKey).sendMail({ from: 'shop@example.com', to: 'a@dest.test', subject: 's', text: 'x' })), 550);
  });

  await t.test('bare LF and bare CR around the dot never end the message (SMTP smuggling)', async (t) => {
    const before = w.sink.messages.length;
    const socket: TLSSocket = tlsConnect({ host: '127.0.0.1', port: w.tlsPort, rejectUnauthorized: false });
    const lines: string[] = [];
    socket.on('data', (d: Buffer) => lines.push(...d.toString().split('\r\n').filter(Boolean)));
    const waitFor = async (re: RegExp) => {
      const deadline = Date.now() + 5000;
      while (!lines.some((l) => re.test(l))) {
        if (Date.now() > deadline) throw new Error(`no ${re} in ${lines.join(' | ')}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await waitFor(/^220 /);
    socket.write('EHLO smuggler.test\r\n');
    await waitFor(/^250 /);
    socket.write(`AUTH PLAIN ${Buffer.from(`\0u\0${w.sendingKey}`).toString('base64')}\r\n`);
    await waitFor(/^235 /);
    socket.write('MAIL FROM:<shop@example.com>\r\nRCPT TO:<bob@dest.test>\r\nDATA\r\n');
    await waitFor(/^354 /);
    const smuggled = 'MAIL FROM:<shop@example.com>\r\nRCPT TO:<victim@dest.test>\r\nDATA\r\nFrom: shop@example.com\r\nSubject: smuggled\r\n\r\nevil\r\n';
    socket.write(`From: shop@example.com\r\nTo: bob@dest.test\r\nSubject: outer\r\n\r\nhello\n.\n${smuggled}\r.\r${smuggled}\n.\r\n${smuggled}\r\n.\r\n`);
    await waitFor(/^250 .*queued/);
    socket.end('QUIT\r\n');
    await w.sink.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 1000));
    // Counted by what they say, not by the sink's total: an earlier test's deliveries may still be arriving.
    const sent = w.sink.messages.filter((m) => m.raw.includes('Subject: outer') || m.raw.includes('Subject: smuggled'));
    t.equal(sent.length, 1, 'one message, not several');
    t.ok(sent[0]?.raw.includes('Subject: outer'), 'the outer one, the smuggled text inside it');
    t.notOk(w.sink.messages.some((m) => m.to.includes('victim@dest.test')));
  });

  await t.test('the submission ports greet at once, without the early-talker pause the MX port keeps', async (t) => {
    // The least of a few greetings: a busy machine can slow one, never speed one up past a timer.
    const fastest = async (port: number, tls: boolean): Promise<number> => {
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const { smtp, greeting } = await RawSmtp.open(port, tls);
        best = Math.min(best, performance.now() - started);
        t.equal(greeting.code, 220);
        await smtp.quit();
      }
      return best;
    };
    const mx = await fastest(w.h.config.smtp.mxPort, false);
    t.ok(mx >= 100, `the MX port pauses (${mx.toFixed(0)} ms)`);
    const starttls = await fastest(w.starttlsPort, false);
    const implicit = await fastest(w.tlsPort, true);
    t.ok(starttls < 100 && implicit < 100, `the submission ports do not (${starttls.toFixed(0)} ms, ${implicit.toFixed(0)} ms with the TLS handshake)`);
  });
});

t.test('a prompt-greeting server still refuses clients past maxClients with 421', async (t) => {
  const server = new PromptGreetingSmtpServer({ maxClients: 1, authOptional: true, logger: false, name: 'limit.test' });
  const port = await freePort();
  await listenSmtp(server, port, '127.0.0.1');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const first = await RawSmtp.open(port, false);
  t.equal(first.greeting.code, 220);
  const second = await RawSmtp.open(port, false);
  t.equal(second.greeting.code, 421);
  t.match(second.greeting.text, /limit\.test Too many connected clients/);
  await first.smtp.quit();
});
