// The SMTP load generator, in its own process with worker threads (BENCH_GEN_WORKERS, 2 by default), so that
// it is neither in the MTA's event loop nor limited to one core. Each session is a fresh connection:
// EHLO, STARTTLS (a full handshake: no session resumption), EHLO, AUTH PLAIN, MAIL, RCPT, DATA, QUIT; one
// message per session, as the Postfix reference does. RunSpec.starttls: false leaves STARTTLS out, and
// RunSpec.auth: 'offered' does AUTH only when the server lists it (bench/postfix.ts's Postfix rows).
// IPC: {type:'run', ...RunSpec} → {type:'done', accepted, failed, elapsedMs, errors}.
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, createSecureContext, type TLSSocket } from 'node:tls';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { filler } from './lib.js';

export interface RunSpec {
  /** Submission ports: session i goes to ports[i % ports.length] (several MTAs share the load). */
  ports: number[];
  user: string;
  pass: string;
  from: string;
  /** Recipients are `<toLocal><i % 1000>@<toDomain>`. */
  toLocal: string;
  toDomain: string;
  n: number;
  concurrency: number;
  /** Whole message size in bytes (headers and body). */
  size: number;
  /** STARTTLS after the first EHLO (default true); false: the whole session in the clear. */
  starttls?: boolean;
  /**
   * 'always' (the default): AUTH PLAIN in every session; 'offered': only when the EHLO reply lists AUTH, for
   * servers that relay for loopback without it (the Postfix rows of bench/postfix.ts).
   */
  auth?: 'always' | 'offered';
}

export interface RunResult {
  type: 'done';
  accepted: number;
  failed: number;
  elapsedMs: number;
  errors: string[];
}

/** One SMTP reply read off the socket: its code and text. */
interface SmtpReply {
  code: number;
  text: string;
}

/** SMTP replies read from one socket: a reply is complete at its line with a space after the code. */
class Replies {
  private buffer = '';
  private lines: string[] = [];
  private ready: SmtpReply[] = [];
  private waiter: { resolve: (r: SmtpReply) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor(private readonly sock: Socket | TLSSocket) {
    sock.on('data', this.onData);
    sock.on('error', this.onError);
    sock.on('close', this.onClose);
  }

  detach(): void {
    this.sock.off('data', this.onData);
    this.sock.off('error', this.onError);
    this.sock.off('close', this.onClose);
  }

  next(): Promise<SmtpReply> {
    const r = this.ready.shift();
    if (r) return Promise.resolve(r);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  private readonly onData = (chunk: Buffer) => {
    this.buffer += chunk.toString('latin1');
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      this.lines.push(line);
      if (line.length < 4 || line[3] === ' ') {
        const reply = { code: Number(line.slice(0, 3)), text: this.lines.join(' | ') };
        this.lines = [];
        const w = this.waiter;
        this.waiter = null;
        if (w) w.resolve(reply);
        else this.ready.push(reply);
      }
    }
  };

  private readonly onError = (err: Error) => this.fail(err);
  private readonly onClose = () => this.fail(new Error('connection closed'));

  private fail(err: Error): void {
    this.failure ??= err;
    const w = this.waiter;
    this.waiter = null;
    w?.reject(this.failure);
  }
}

async function expect(replies: Replies, sock: Socket | TLSSocket, line: string | null, code: number): Promise<SmtpReply> {
  if (line !== null) sock.write(line + '\r\n');
  const reply = await replies.next();
  if (reply.code !== code) throw new Error(`${line?.split(' ')[0] ?? 'greeting'}: ${reply.text}`);
  return reply;
}

/** Whether an EHLO reply (its lines joined by ' | ') lists the AUTH extension. */
const offersAuth = (ehlo: SmtpReply) => /(^|\| )250[- ]AUTH[ =]/i.test(ehlo.text);

/** One TLS context for every connection of this thread: making one per connection costs more than the handshake. */
const secureContext = createSecureContext();

/** The session up to MAIL: greeting, EHLO, STARTTLS and EHLO again (unless spec.starttls is false), AUTH. */
async function openSession(spec: RunSpec, plain: Socket): Promise<{ s: Socket | TLSSocket; replies: Replies }> {
  const r1 = new Replies(plain);
  await expect(r1, plain, null, 220);
  let ehlo = await expect(r1, plain, 'EHLO gen.bench.test', 250);
  let s: Socket | TLSSocket = plain;
  let replies = r1;
  if (spec.starttls !== false) {
    await expect(r1, plain, 'STARTTLS', 220);
    r1.detach();
    const secure = tlsConnect({ socket: plain, secureContext, rejectUnauthorized: false, servername: 'localhost' });
    replies = new Replies(secure);
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', resolve);
      secure.once('error', reject);
    });
    s = secure;
    ehlo = await expect(replies, s, 'EHLO gen.bench.test', 250);
  }
  if (spec.auth !== 'offered' || offersAuth(ehlo)) {
    await expect(replies, s, `AUTH PLAIN ${Buffer.from(`\0${spec.user}\0${spec.pass}`).toString('base64')}`, 235);
  }
  return { s, replies };
}

/** One session, one message. Resolves when the message got its 250 and the session ended. */
async function session(spec: RunSpec, i: number, body: Buffer): Promise<void> {
  const plain = connect(spec.ports[i % spec.ports.length]!, '127.0.0.1');
  plain.setNoDelay(true);
  plain.setTimeout(120_000, () => plain.destroy(new Error('timeout')));
  let s: Socket | TLSSocket | null = null;
  try {
    const open = await openSession(spec, plain);
    s = open.s;
    const r2 = open.replies;
    const to = `${spec.toLocal}${i % 1000}@${spec.toDomain}`;
    await expect(r2, s, `MAIL FROM:<${spec.from}>`, 250);
    await expect(r2, s, `RCPT TO:<${to}>`, 250);
    await expect(r2, s, 'DATA', 354);
    const header =
      `From: Bench <${spec.from}>\r\nTo: <${to}>\r\nSubject: bench message ${i}\r\nDate: ${new Date().toUTCString()}\r\n` +
      `MIME-Version: 1.0\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n`;
    s.write(header);
    s.write(body);
    await expect(r2, s, '.', 250);
    s.write('QUIT\r\n');
    await Promise.race([r2.next().catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
  } finally {
    s?.destroy();
    plain.destroy();
  }
}

/** The body for a message of `size` bytes overall (about 200 bytes of headers), ending in CRLF. */
function bodyFor(size: number): Buffer {
  return Buffer.from(filler(Math.max(100, size - 200)) + '\r\n');
}

// --- worker thread: runs `sessions` sessions at a time, taking message numbers from a shared counter ---
interface WorkerTask {
  spec: RunSpec;
  sessions: number;
  counter: SharedArrayBuffer;
}
type WorkerResult = { accepted: number; failed: number; errors: string[] };

async function runSessions(m: WorkerTask): Promise<WorkerResult> {
  const counter = new Int32Array(m.counter);
  const body = bodyFor(m.spec.size);
  const result: WorkerResult = { accepted: 0, failed: 0, errors: [] };
  const loop = async () => {
    for (;;) {
      const i = Atomics.add(counter, 0, 1);
      if (i >= m.spec.n) return;
      try {
        await session(m.spec, i, body);
        result.accepted++;
      } catch (err) {
        result.failed++;
        if (result.errors.length < 5) result.errors.push((err as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: m.sessions }, loop));
  return result;
}

function workerMain(): void {
  // runSessions settles only with a result: each session's failure is counted, not thrown.
  parentPort!.on('message', (m: WorkerTask) => void runSessions(m).then((result) => parentPort!.postMessage(result)));
}

// --- main thread: the workers, and the IPC with the benchmark ---
async function runOnWorkers(workers: Worker[], m: RunSpec): Promise<RunResult> {
  const counter = new SharedArrayBuffer(4);
  const started = performance.now();
  const active = workers.slice(0, Math.min(workers.length, m.concurrency));
  const results = await Promise.all(
    active.map(
      (w, k) =>
        new Promise<WorkerResult>((resolve) => {
          w.once('message', resolve);
          // Sessions spread evenly over the workers.
          const sessions = Math.floor(m.concurrency / active.length) + (k < m.concurrency % active.length ? 1 : 0);
          w.postMessage({ spec: m, sessions, counter } satisfies WorkerTask);
        }),
    ),
  );
  return {
    type: 'done',
    accepted: results.reduce((a, r) => a + r.accepted, 0),
    failed: results.reduce((a, r) => a + r.failed, 0),
    elapsedMs: performance.now() - started,
    errors: results.flatMap((r) => r.errors).slice(0, 5),
  };
}

function processMain(): void {
  const count = Math.max(1, Number(process.env.BENCH_GEN_WORKERS ?? 2));
  const workers = Array.from({ length: count }, () => new Worker(new URL(import.meta.url)));
  process.on('disconnect', () => process.exit(0));
  process.on('message', (m: { type: string } & RunSpec) => {
    if (m.type === 'run') void runOnWorkers(workers, m).then((reply) => process.send!(reply));
  });
  process.send!({ type: 'ready' });
}

if (isMainThread) processMain();
else workerMain();
