// What the MTA reads to send a recipient's copy: the message's stored body, its sending domain for the DKIM
// key, and the sending pool (source address and EHLO name) of the team that sent it. A use case of its own so
// that delivery reaches the store through the core, as every interface does, and the sending-pool rule is said once.
// The body comes from memory when this MTA has just accepted it (intake/body-hand-off.ts); a team's pool is read at
// most once per REUSED_FOR_MS.
import type { Store } from '../store/index.js';
import type { Config } from '../config.js';
import type { Domain } from '../domain/sending-domain.js';
import { LRUCache } from 'lru-cache';
import type { BodyHandOff } from '../intake/body-hand-off.js';

/** Where a team's mail leaves from: the EHLO name it greets with and, when its sending pool has one, the local address. */
export interface SendingIdentity {
  ehloName: string;
  localAddress?: string;
}

/**
 * How long a team's sending pool is reused by deliveries (the domain's row, with its DKIM key, is reused by the
 * MessagePreparer). It decides nothing about whether mail goes (the intake did, on fresh reads): a pool changed
 * reaches the deliveries of this process within this time instead of every delivery reading the team again.
 */
const REUSED_FOR_MS = 2_000;
const MOST_KEPT = 10_000;

export class DeliveryMaterial {
  private readonly identities: LRUCache<number, SendingIdentity>;

  constructor(
    private readonly store: Pick<Store, 'messages' | 'domains' | 'teams'>,
    private readonly config: Pick<Config, 'delivery' | 'publicHostname'>,
    private readonly handOff: BodyHandOff | null = null,
  ) {
    this.identities = new LRUCache({ max: MOST_KEPT, ttl: REUSED_FOR_MS, fetchMethod: (teamId) => this.readIdentity(teamId) });
  }

  /**
   * The sending pool named by the team's backend region (config `delivery.pools`); a region without a pool, or a team
   * gone since, sends from the host's public name and the default source address.
   */
  async sendingIdentity(teamId: number): Promise<SendingIdentity> {
    return (await this.identities.fetch(teamId))!;
  }

  private async readIdentity(teamId: number): Promise<SendingIdentity> {
    const team = await this.store.teams.get(teamId);
    const sendingPool = team ? this.config.delivery.pools[team.backendRegion] : undefined;
    return { ehloName: sendingPool?.ehloName ?? this.config.publicHostname, ...(sendingPool?.localAddress ? { localAddress: sendingPool.localAddress } : {}) };
  }

  /**
   * The body as accepted (handed off in memory when this process accepted it moments ago); undefined when the
   * message is gone (purged, or its body dropped after completion).
   */
  async body(messageId: string): Promise<Buffer | undefined> {
    return this.handOff?.take(messageId) ?? (await this.store.messages.body(messageId));
  }

  /** The domain the message was sent from, with its DKIM key; undefined when it was removed since. */
  sendingDomain(domainId: string): Promise<Domain | undefined> {
    return this.store.domains.get(domainId);
  }
}
