// What the MTA reads to send a recipient's copy: the message's stored body, and its sending domain for the DKIM
// key. A use case of its own so that delivery reaches the store through the core, as every interface does.
import type { Store } from '../store/index.js';
import type { Domain } from '../domain/sending-domain.js';

export class DeliveryMaterial {
  constructor(private readonly store: Pick<Store, 'messages' | 'domains'>) {}

  /** The body as accepted; undefined when the message is gone (purged, or its body dropped after completion). */
  body(messageId: string): Promise<Buffer | undefined> {
    return this.store.messages.body(messageId);
  }

  /** The domain the message was sent from, with its DKIM key; undefined when it was removed since. */
  sendingDomain(domainId: string): Promise<Domain | undefined> {
    return this.store.domains.get(domainId);
  }
}
