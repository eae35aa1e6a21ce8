// What the MTA reads to send a recipient's copy: the message's stored body, its sending domain for the DKIM
// key, and the sending pool (source address and EHLO name) of the team that sent it. A use case of its own so
// that delivery reaches the store through the core, as every interface does, and the sending-pool rule is said once.
import type { Store } from '../store/index.js';
import type { Config } from '../config.js';
import type { Domain } from '../domain/sending-domain.js';

/** Where a team's mail leaves from: the EHLO name it greets with and, when its sending pool has one, the local address. */
export interface SendingIdentity {
  ehloName: string;
  localAddress?: string;
}

export class DeliveryMaterial {
  constructor(
    private readonly store: Pick<Store, 'messages' | 'domains' | 'teams'>,
    private readonly config: Pick<Config, 'delivery' | 'publicHostname'>,
  ) {}

  /**
   * The sending pool named by the team's backend region (config `delivery.pools`); a region without a pool, or a team
   * gone since, sends from the host's public name and the default source address.
   */
  async sendingIdentity(teamId: number): Promise<SendingIdentity> {
    const team = await this.store.teams.get(teamId);
    const sendingPool = team ? this.config.delivery.pools[team.backendRegion] : undefined;
    return { ehloName: sendingPool?.ehloName ?? this.config.publicHostname, ...(sendingPool?.localAddress ? { localAddress: sendingPool.localAddress } : {}) };
  }

  /** The body as accepted; undefined when the message is gone (purged, or its body dropped after completion). */
  body(messageId: string): Promise<Buffer | undefined> {
    return this.store.messages.body(messageId);
  }

  /** The domain the message was sent from, with its DKIM key; undefined when it was removed since. */
  sendingDomain(domainId: string): Promise<Domain | undefined> {
    return this.store.domains.get(domainId);
  }
}
