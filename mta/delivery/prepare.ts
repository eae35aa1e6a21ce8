// The bytes a recipient's copy is sent with: the stored body, DKIM-signed once per message for its From
// domain. Signed bodies are kept in a small bounded cache, so that recipients of one message share one
// signature while the queue's bodies are never all held in memory.
import type { DeliveryMaterial } from '../../shared/core/delivery-material.js';
import type { Domain } from '../../shared/domain/sending-domain.js';
import { signMessage, type DkimKeyCache } from './dkim.js';

const MAX_CACHED_BYTES = 32 * 1024 * 1024;
/** A domain row (its DKIM key) is read once per this long, not once per message; a rotated key takes effect within it. */
const DOMAIN_TTL_MS = 10_000;

export class MessagePreparer {
  private readonly cache = new Map<string, Promise<Buffer>>();
  private readonly sizes = new Map<string, number>();
  private cachedBytes = 0;
  private readonly domains = new Map<string, { at: number; row: Promise<Domain | undefined> }>();

  constructor(
    private readonly material: Pick<DeliveryMaterial, 'body' | 'sendingDomain'>,
    private readonly keys: DkimKeyCache,
  ) {}

  signed(messageId: string, domainId: string | null): Promise<Buffer> {
    let entry = this.cache.get(messageId);
    if (!entry) {
      entry = this.build(messageId, domainId);
      this.cache.set(messageId, entry);
      entry.then(
        (body) => this.account(messageId, body.length),
        () => this.cache.delete(messageId),
      );
    }
    return entry;
  }

  /** Drops a message whose recipients are all done. */
  forget(messageId: string): void {
    this.cache.delete(messageId);
    this.cachedBytes -= this.sizes.get(messageId) ?? 0;
    this.sizes.delete(messageId);
  }

  private async build(messageId: string, domainId: string | null): Promise<Buffer> {
    const raw = await this.material.body(messageId);
    if (!raw) throw new Error(`the body of message ${messageId} is missing from the store`);
    const domain = domainId ? await this.domain(domainId) : undefined;
    // A domain removed after the message was accepted: the message still goes, unsigned.
    return domain ? ownMemory(await signMessage(raw, this.keys.keyFor(domain))) : raw;
  }

  private domain(id: string): Promise<Domain | undefined> {
    const hit = this.domains.get(id);
    if (hit && Date.now() - hit.at < DOMAIN_TTL_MS) return hit.row;
    const row = this.material.sendingDomain(id);
    this.domains.set(id, { at: Date.now(), row });
    row.catch(() => this.domains.delete(id));
    // Expired entries go as new ones come: the map never holds more than the domains seen lately.
    for (const [key, entry] of this.domains) if (Date.now() - entry.at >= DOMAIN_TTL_MS) this.domains.delete(key);
    return row;
  }

  private account(messageId: string, size: number): void {
    if (!this.cache.has(messageId)) return;
    this.sizes.set(messageId, size);
    this.cachedBytes += size;
    for (const oldest of this.cache.keys()) {
      if (this.cachedBytes <= MAX_CACHED_BYTES) break;
      this.forget(oldest);
    }
  }
}

/**
 * A small Buffer may be a slice of a shared 8 KB pool block, which it keeps alive whole: a cache of
 * thousands of 1 KB bodies would hold eight times their size. Small bodies get a block of their own.
 */
function ownMemory(body: Buffer): Buffer {
  if (body.byteOffset === 0 && body.buffer.byteLength === body.length) return body;
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  return own;
}
