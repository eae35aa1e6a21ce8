// SMTP load for reliability tests: several concurrent clients, each message in its own authenticated
// STARTTLS session (nodemailer, pool: false). A message that is not acknowledged (connection refused or
// cut, a 4xx) is tried again as a new attempt until a deadline, so every message ends with one 250 or
// none. Each attempt carries its own header, so a test can tell a copy the MTA delivered twice from a
// copy the client submitted twice.
import nodemailer from 'nodemailer';

export interface Ack {
  /** The message number, 0-based. */
  n: number;
  /** Which attempt got the 250 (earlier attempts of the same message may have been queued too). */
  attempt: number;
  /** The id in "queued as <id>". */
  queuedId: string;
  at: number;
}

export interface LoadResult {
  acks: Map<number, Ack>;
  /** Attempts that failed, by SMTP code (0: no reply, such as a refused or cut connection). */
  failures: Map<number, number>;
  /** Messages never acknowledged before the deadline. */
  unacknowledged: number[];
  ms: number;
}

export interface LoadOptions {
  /** The submission port, or the one for message n's attempt k (a client failing over between MTAs). */
  port: number | ((n: number, attempt: number) => number);
  key: string;
  count: number;
  concurrency: number;
  /** The raw message for message n, attempt k; it must carry `loadHeader(n, k)`. */
  message(n: number, attempt: number): string;
  envelope(n: number): { from: string; to: string };
  /** Called after each 250, e.g. to kill something mid-run. */
  onAck?(ack: Ack, acked: number): void;
  deadlineMs?: number;
  /** Wait between attempts of one message. */
  retryDelayMs?: number;
}

export const LOAD_HEADER = 'X-Load-Id';
export const loadHeader = (n: number, attempt: number): string => `${LOAD_HEADER}: ${n}.${attempt}`;

/** The LOAD_HEADER value of a delivered message, or null. */
export function loadIdOf(raw: Buffer): { n: number; attempt: number } | null {
  const m = /\r\nX-Load-Id: (\d+)\.(\d+)\r\n/i.exec(raw.toString('latin1'));
  return m ? { n: Number(m[1]), attempt: Number(m[2]) } : null;
}

export function simpleMessage(from: string, to: string, n: number, attempt: number, bodyBytes = 1024): string {
  const line = 'The quick brown fox jumps over the lazy dog 0123456789.\r\n';
  const body = line.repeat(Math.ceil(bodyBytes / line.length));
  return `From: Load <${from}>\r\nTo: <${to}>\r\nSubject: Load ${n}\r\n${loadHeader(n, attempt)}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\n${body}`;
}

/** One message in one session. Resolves with the 250 reply, or rejects with the SMTP code (0 when none). */
export async function submitOnce(port: number, key: string, envelope: { from: string; to: string }, raw: string): Promise<string> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    pool: false,
    auth: { user: 'load', pass: key },
    tls: { rejectUnauthorized: false },
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  try {
    const info = await transport.sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw });
    return info.response;
  } finally {
    transport.close();
  }
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const started = Date.now();
  const deadline = started + (o.deadlineMs ?? 180_000);
  const acks = new Map<number, Ack>();
  const failures = new Map<number, number>();
  const unacknowledged: number[] = [];
  let next = 0;

  async function deliverOne(n: number): Promise<void> {
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      try {
        const port = typeof o.port === 'number' ? o.port : o.port(n, attempt);
        const response = await submitOnce(port, o.key, o.envelope(n), o.message(n, attempt));
        const queuedId = /queued as ([0-9a-z]+)/.exec(response)?.[1];
        if (!queuedId) throw Object.assign(new Error(`unexpected reply ${response}`), { responseCode: 250 });
        const ack = { n, attempt, queuedId, at: Date.now() };
        acks.set(n, ack);
        o.onAck?.(ack, acks.size);
        return;
      } catch (err) {
        const code = (err as { responseCode?: number }).responseCode ?? 0;
        failures.set(code, (failures.get(code) ?? 0) + 1);
        // A 5xx is final: the message was refused, retrying it would not change the verdict.
        if (code >= 500) return;
        await new Promise((r) => setTimeout(r, o.retryDelayMs ?? 200));
      }
    }
    unacknowledged.push(n);
  }

  async function worker(): Promise<void> {
    while (next < o.count) await deliverOne(next++);
  }

  await Promise.all(Array.from({ length: o.concurrency }, () => worker()));
  return { acks, failures, unacknowledged, ms: Date.now() - started };
}
