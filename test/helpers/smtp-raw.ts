// A hand-driven SMTP client for malformed-input tests: it writes exactly the bytes it is given and reads
// the server's replies one by one (multi-line replies joined), over plain TCP, implicit TLS or STARTTLS.
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

export interface SmtpReply {
  code: number;
  text: string;
}

export class RawSmtp {
  private buffer = '';
  private lines: string[] = [];
  private readonly replies: SmtpReply[] = [];
  private waiters: Array<() => void> = [];
  private ended = false;

  private constructor(private readonly socket: Socket | TLSSocket) {
    this.attach(socket);
  }

  /** Connects and reads the greeting. */
  static async open(port: number, tls: boolean): Promise<{ smtp: RawSmtp; greeting: SmtpReply }> {
    const socket = tls ? tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }) : netConnect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once(tls ? 'secureConnect' : 'connect', () => resolve());
      socket.once('error', reject);
    });
    const smtp = new RawSmtp(socket);
    return { smtp, greeting: await smtp.next() };
  }

  /** Connects, says EHLO and authenticates with AUTH PLAIN over implicit TLS. */
  static async authenticated(port: number, key: string): Promise<RawSmtp> {
    const { smtp } = await RawSmtp.open(port, true);
    await smtp.expect('EHLO client.test', 250);
    await smtp.expect(`AUTH PLAIN ${Buffer.from(`\0user\0${key}`).toString('base64')}`, 235);
    return smtp;
  }

  get closed(): boolean {
    return this.ended;
  }

  private attach(socket: Socket | TLSSocket): void {
    socket.on('data', (chunk: Buffer) => this.receive(chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
  }

  private receive(text: string): void {
    this.buffer += text;
    let at: number;
    while ((at = this.buffer.indexOf('\r\n')) >= 0) {
      const line = this.buffer.slice(0, at);
      this.buffer = this.buffer.slice(at + 2);
      this.lines.push(line);
      // "250-..." continues a reply; "250 ..." (or a bare code) ends it.
      if (/^\d{3}(?: |$)/.test(line)) {
        this.replies.push({ code: Number(line.slice(0, 3)), text: this.lines.map((l) => l.slice(4)).join('\n') });
        this.lines = [];
      }
    }
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** The next reply; rejects if the connection closes first or nothing comes within `timeoutMs`. */
  async next(timeoutMs = 15_000): Promise<SmtpReply> {
    const deadline = Date.now() + timeoutMs;
    while (!this.replies.length) {
      if (this.ended) throw new Error('connection closed');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no reply in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
    return this.replies.shift()!;
  }

  /** Writes, waiting for the socket to drain when it asks to (so megabytes can be streamed). */
  async write(data: string | Buffer): Promise<void> {
    if (this.ended) throw new Error('connection closed');
    if (!this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
  }

  async command(line: string, timeoutMs?: number): Promise<SmtpReply> {
    await this.write(`${line}\r\n`);
    return this.next(timeoutMs);
  }

  async expect(line: string, code: number): Promise<SmtpReply> {
    const reply = await this.command(line);
    if (reply.code !== code) throw new Error(`${line.slice(0, 40)}: expected ${code}, got ${reply.code} ${reply.text}`);
    return reply;
  }

  destroy(): void {
    this.socket.destroy();
  }

  async quit(): Promise<void> {
    if (this.ended) return;
    await this.command('QUIT').catch(() => undefined);
    this.socket.destroy();
  }
}
