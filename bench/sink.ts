// A sink in its own process, so that it runs in neither the MTA's nor the load generator's event loop.
//   node dist/bench/sink.js fast          a minimal SMTP sink (no TLS, no AUTH) counting whole messages and the
//                                         DKIM-signed ones: where Tern delivers.
//   node dist/bench/sink.js smtp-server [procs]   smtp-server (greeting at once, as Tern's) with STARTTLS (a fresh RSA-2048 self-signed
//                                         certificate, as Tern's) and AUTH accepting anything: the load generator's
//                                         ceiling; in `procs` processes sharing the port (node:cluster).
// It reports {type:'listening', port} over IPC, answers {type:'stats'} with {type:'stats', count, signed,
// firstAt, lastAt} (and `arrivals`, each message's arrival time, when asked with arrivals: true), {type:'reset'}
// with {type:'reset'}, and leaves when its parent goes. The fast sink also answers {type:'capture'} with
// {type:'capturing'} and then keeps the next message whole (dot-unstuffed) to send it back as
// {type:'captured', message} (base64): how bench/postfix.ts checks a probe's DKIM signature. Only that one
// message is copied; the others are counted as before.
import cluster from 'node:cluster';
import { createServer, type Socket } from 'node:net';
import { PromptGreetingSmtpServer } from '../shared/prompt-greeting.js';
import { generate } from 'selfsigned';

const mode = process.argv[2] ?? 'fast';
const stats = { count: 0, signed: 0, firstAt: 0, lastAt: 0 };
/** When each message arrived (epoch ms), for the late ones to be told apart. */
let arrivals: number[] = [];

function counted(signed: boolean): void {
  const now = Date.now();
  if (!stats.count) stats.firstAt = now;
  stats.count++;
  if (signed) stats.signed++;
  stats.lastAt = now;
  arrivals.push(now);
}

const END = Buffer.from('\r\n.\r\n');
const HEAD_BYTES = 8192;

/** Whether the start of a message (its first HEAD_BYTES) has a DKIM-Signature header field. */
function isSigned(head: Buffer[]): boolean {
  const headers = Buffer.concat(head).toString('latin1');
  const headerEnd = headers.indexOf('\r\n\r\n');
  return /(^|\r\n)dkim-signature:/i.test(headerEnd >= 0 ? headers.slice(0, headerEnd) : headers);
}

/** Set by {type:'capture'}: the next DATA is kept whole. */
let captureArmed = false;

/** At a DATA command: a list to keep its chunks in when a capture is armed (which it disarms), else null. */
function claimCapture(): Buffer[] | null {
  const kept = captureArmed ? [] : null;
  captureArmed = false;
  return kept;
}

/** A captured DATA section (its chunks, as received after the DATA line) as the message: up to the end line, dot-unstuffed. */
function capturedMessage(chunks: Buffer[]): string {
  const whole = Buffer.concat([Buffer.from('\r\n'), ...chunks]);
  const text = whole.subarray(0, whole.indexOf(END) + 2).toString('latin1');
  return Buffer.from(text.replace(/\r\n\.\./g, '\r\n.').slice(2), 'latin1').toString('base64');
}

/** The fast sink's answer to each command it knows but QUIT. */
const ANSWERS = new Map([
  ['EHLO', '250-sink.test\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SIZE 104857600\r\n'],
  ['HELO', '250 sink.test\r\n'],
  ['MAIL', '250 2.1.0 Ok\r\n'],
  ['RCPT', '250 2.1.5 Ok\r\n'],
  ['DATA', '354 End data with <CR><LF>.<CR><LF>\r\n'],
  ['RSET', '250 2.0.0 Ok\r\n'],
  ['NOOP', '250 2.0.0 Ok\r\n'],
]);

/** One SMTP session of the fast sink: commands line by line, DATA until CRLF.CRLF (across chunks). */
function fastSession(sock: Socket): void {
  sock.setNoDelay(true);
  let inData = false;
  let pending = Buffer.alloc(0);
  // In DATA: the last bytes seen (to find the end across chunks), the start of the message (its headers), all of it if captured.
  let tail = Buffer.alloc(0);
  let head: Buffer[] = [];
  let headLength = 0;
  let kept: Buffer[] | null = null;

  const endData = () => {
    if (kept) process.send!({ type: 'captured', message: capturedMessage(kept) });
    counted(isSigned(head));
    sock.write('250 2.0.0 Ok: queued\r\n');
  };

  const command = (line: string) => {
    const verb = line.slice(0, 4).toUpperCase();
    if (verb === 'QUIT') {
      sock.end('221 2.0.0 Bye\r\n');
      return;
    }
    sock.write(ANSWERS.get(verb) ?? '502 5.5.2 Command not implemented\r\n');
    if (verb !== 'DATA') return;
    inData = true;
    tail = Buffer.from('\r\n'); // the DATA line's CRLF: an immediate ".\r\n" ends an empty message
    [head, headLength, kept] = [[], 0, claimCapture()];
  };

  const feed = (chunk: Buffer) => {
    let data = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    pending = Buffer.alloc(0);
    while (data.length) {
      if (inData) {
        kept?.push(data);
        if (headLength < HEAD_BYTES) {
          head.push(data.subarray(0, HEAD_BYTES - headLength));
          headLength += Math.min(data.length, HEAD_BYTES - headLength);
        }
        const joined = Buffer.concat([tail, data]);
        const at = joined.indexOf(END);
        if (at < 0) {
          tail = joined.subarray(Math.max(0, joined.length - (END.length - 1)));
          return;
        }
        inData = false;
        endData();
        data = joined.subarray(at + END.length);
        continue;
      }
      const nl = data.indexOf(0x0a);
      if (nl < 0) {
        pending = Buffer.from(data);
        return;
      }
      command(data.subarray(0, nl).toString('latin1').replace(/\r$/, ''));
      data = data.subarray(nl + 1);
    }
  };

  sock.on('data', feed);
  sock.on('error', () => undefined);
  sock.write('220 sink.test ESMTP bench sink\r\n');
}

async function listenFast(): Promise<number> {
  const server = createServer(fastSession);
  server.maxConnections = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 1024, () => resolve()));
  return (server.address() as { port: number }).port;
}

/** smtp-server with STARTTLS and AUTH on `port` (0: any), with a given or fresh RSA-2048 certificate. */
async function listenSmtpServer(port: number, pems: { private: string; cert: string }): Promise<number> {
  // Tern's submission servers greet at once (mta/prompt-greeting.ts); so does this one, or its 100 ms
  // greeting pause, not the generator, would set the ceiling.
  const server = new PromptGreetingSmtpServer({
    secure: false,
    key: pems.private,
    cert: pems.cert,
    name: 'sink.test',
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: false,
    logger: false,
    size: 100 * 1024 * 1024,
    maxClients: 10_000,
    onAuth: (_auth, _session, cb) => cb(null, { user: 'bench' }),
    onData(stream, _session, cb) {
      let headers = '';
      stream.on('data', (c: Buffer) => {
        if (headers.length < HEAD_BYTES) headers += c.toString('latin1', 0, HEAD_BYTES);
      });
      stream.on('end', () => {
        counted(/(^|\r\n)dkim-signature:/i.test(headers));
        cb();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return (server as unknown as { server: { address(): { port: number } } }).server.address().port;
}

const freshCertificate = () => generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, notAfterDate: new Date(Date.now() + 86_400_000) });

/**
 * The smtp-server sink in `procs` processes sharing one port (node:cluster), so that the sink is less of a
 * limit when it measures the generator's ceiling. Messages are counted only with one process.
 */
async function listenSmtpServers(procs: number): Promise<number> {
  const pems = await freshCertificate();
  if (procs <= 1) return listenSmtpServer(0, pems);
  const probe = createServer();
  const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)));
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  cluster.setupPrimary({ args: ['smtp-server-worker'] });
  const workers = Array.from({ length: procs }, () => cluster.fork({ SINK_PORT: String(port), SINK_KEY: pems.private, SINK_CERT: pems.cert }));
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('listening', resolve))));
  return port;
}

process.on('disconnect', () => process.exit(0));
process.on('message', (m: { type: string; arrivals?: boolean }) => {
  if (m.type === 'stats') process.send!({ type: 'stats', ...stats, ...(m.arrivals ? { arrivals } : {}) });
  if (m.type === 'capture') {
    captureArmed = true;
    process.send!({ type: 'capturing' });
  }
  if (m.type === 'reset') {
    Object.assign(stats, { count: 0, signed: 0, firstAt: 0, lastAt: 0 });
    arrivals = [];
    process.send!({ type: 'reset' });
  }
});

if (mode === 'smtp-server-worker') {
  // A cluster worker of listenSmtpServers: listens on the shared port and nothing else.
  await listenSmtpServer(Number(process.env.SINK_PORT), { private: process.env.SINK_KEY!, cert: process.env.SINK_CERT! });
} else {
  const port = await (mode === 'smtp-server' ? listenSmtpServers(Number(process.argv[3] ?? 1)) : listenFast());
  process.send!({ type: 'listening', port });
}
