// A real SMTP server on loopback standing in for the recipients' MX hosts. It keeps every message it
// accepts; a test decides per recipient what it answers.
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { freePort } from './redis.js';

export interface SunkMessage {
  from: string;
  to: string[];
  raw: Buffer;
  secure: boolean;
  heloName: string;
  remoteAddress: string;
}

export interface Sink {
  port: number;
  messages: SunkMessage[];
  /** SMTP sessions opened so far (connections). */
  sessions: number;
  /** How long it waits before answering a message's data (a slow MX host); 0 by default. */
  dataDelayMs: number;
  /** Messages whose data is being taken or answered now (one per connection at most), and the most there ever were at once. */
  transactions: { now: number; most: number };
  /** Decides the reply to RCPT TO; null accepts. */
  rcptReply: (address: string) => { code: number; message: string } | null;
  waitFor(count: number, timeoutMs?: number): Promise<SunkMessage[]>;
  /** Closes every open session from the server's side, as an MX host ending idle connections does. */
  dropSessions(): void;
  close(): Promise<void>;
}

/** Keeps one message's data, and answers it after the sink's delay. */
function takeData(sink: Sink, stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void): void {
  sink.transactions.now++;
  sink.transactions.most = Math.max(sink.transactions.most, sink.transactions.now);
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => {
    sink.messages.push({
      from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
      to: session.envelope.rcptTo.map((r) => r.address),
      raw: Buffer.concat(chunks),
      secure: session.secure,
      heloName: session.hostNameAppearsAs,
      remoteAddress: session.remoteAddress,
    });
    const answer = () => {
      sink.transactions.now--;
      callback();
    };
    if (sink.dataDelayMs > 0) setTimeout(answer, sink.dataDelayMs);
    else answer();
  });
}

export async function startSink(): Promise<Sink> {
  const port = await freePort();
  const sink: Sink = {
    port,
    messages: [],
    sessions: 0,
    dataDelayMs: 0,
    transactions: { now: 0, most: 0 },
    rcptReply: () => null,
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (sink.messages.length < count) {
        if (Date.now() > deadline) throw new Error(`sink got ${sink.messages.length} of ${count} messages`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return sink.messages;
    },
    dropSessions: () => {
      for (const connection of (server as unknown as { connections: Set<{ close(): void }> }).connections) connection.close();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH'],
    logger: false,
    size: 50 * 1024 * 1024,
    onConnect(_session, callback) {
      sink.sessions++;
      callback();
    },
    onRcptTo(address, _session, callback) {
      const reply = sink.rcptReply(address.address);
      if (!reply) return callback();
      const err = Object.assign(new Error(reply.message), { responseCode: reply.code });
      callback(err);
    },
    onData: (stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void) => takeData(sink, stream, session, callback),
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return sink;
}
