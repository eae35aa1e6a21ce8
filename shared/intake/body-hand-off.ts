// Bodies the MTA has just accepted, handed to its own delivery in memory: a message submitted over SMTP is
// usually delivered by the same MTA moments later, and reading back from the store the body it has just written
// cost a statement (a trip to SQLite's thread, or to PostgreSQL) and a copy per message. The store still has
// every body first: a body is handed off only after its message is committed, and a delivery that finds none
// here (another process accepted it, a restart, an eviction) reads the store as before.
//
// Bounded by bytes, and each body is taken by its first read, so what waits here is only what was accepted and
// not yet attempted: the memory per queued message does not grow with the queue.
import { LRUCache } from 'lru-cache';

/** The bytes of bodies kept at most; the oldest go first. */
const MOST_BYTES = 32 * 1024 * 1024;
/** A body larger than this is not kept: a few large ones would push out many small ones. */
const LARGEST = 1024 * 1024;

export class BodyHandOff {
  private readonly bodies = new LRUCache<string, Buffer>({ maxSize: MOST_BYTES, sizeCalculation: (body) => Math.max(body.length, 1) });

  /** Keeps a committed message's body for its delivery. */
  keep(messageId: string, body: Buffer): void {
    if (body.length <= LARGEST) this.bodies.set(messageId, body);
  }

  /** The body, if it is still here; taken, so a later read goes to the store. */
  take(messageId: string): Buffer | undefined {
    const body = this.bodies.get(messageId);
    if (body) this.bodies.delete(messageId);
    return body;
  }
}
