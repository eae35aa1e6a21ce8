// Connections kept open between deliveries to the same host, as Postfix's connection cache does: the next
// batch for a destination reuses one instead of paying a new TCP connection, STARTTLS handshake and EHLO.
// An idle connection is closed after a few seconds, and a host gets only a few idle ones.
import type SMTPConnection from 'nodemailer/lib/smtp-connection';

interface Parked {
  conn: SMTPConnection;
  timer: NodeJS.Timeout;
  /** Forgets the connection if the server closes it while it waits; removed when it leaves the cache. */
  onEnd: () => void;
}

export class ConnectionCache {
  private readonly idle = new Map<string, Parked[]>();

  constructor(
    private readonly idleMs = 5_000,
    private readonly maxIdlePerHost = 10,
  ) {}

  /** A kept connection for `key` (host, port, source address and EHLO name), or null. */
  take(key: string): SMTPConnection | null {
    const list = this.idle.get(key);
    while (list?.length) {
      const parked = list.pop()!;
      clearTimeout(parked.timer);
      parked.conn.removeListener('end', parked.onEnd);
      if (!list.length) this.idle.delete(key);
      if (!parked.conn.destroyed) return parked.conn;
    }
    return null;
  }

  /** Keeps a connection that finished its batch cleanly; past the per-host cap it is closed instead. */
  put(key: string, conn: SMTPConnection): void {
    const list = this.idle.get(key) ?? [];
    if (conn.destroyed || list.length >= this.maxIdlePerHost) {
      conn.quit();
      return;
    }
    const parked: Parked = { conn, timer: setTimeout(() => this.drop(key, parked, true), this.idleMs), onEnd: () => this.drop(key, parked, false) };
    parked.timer.unref();
    conn.once('end', parked.onEnd);
    list.push(parked);
    this.idle.set(key, list);
  }

  /** Closes every kept connection (at stop). */
  closeAll(): void {
    for (const [key, list] of this.idle) for (const parked of [...list]) this.drop(key, parked, true);
  }

  private drop(key: string, parked: Parked, quit: boolean): void {
    clearTimeout(parked.timer);
    parked.conn.removeListener('end', parked.onEnd);
    const list = this.idle.get(key);
    const at = list?.indexOf(parked) ?? -1;
    if (list && at >= 0) {
      list.splice(at, 1);
      if (!list.length) this.idle.delete(key);
      if (quit) parked.conn.quit();
    }
  }
}
