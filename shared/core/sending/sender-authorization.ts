// Who may send, as whom, from which address, and how fast: the sender rules of every way in (SMTP
// submission, POST /v2/emails, later the dashboard). Each answer is a Decision; the interfaces translate refusals.
import type { Redis } from 'ioredis';
import type { KeyCache } from '../../runtime/key-cache.js';
import type { Domain } from '../../domain/sending-domain.js';
import type { Store } from '../../store/index.js';
import { accountIdOf, type Team } from '../../domain/team.js';
import { kindOf } from '../../api-key.js';
import { allows } from '../../scopes.js';
import { domainOfEmail } from '../../email-address.js';
import { hitRateLimit } from '../../rate-limit.js';
import { allowed, refused, type Decision } from './refusals.js';

/** How a key reached us: SMTP AUTH takes sending keys only; HTTP takes admin keys in the header only. */
export type KeyCarrier = 'smtp_auth' | 'http_header' | 'http_body';

export interface SenderCredential {
  key: string | undefined;
  carriedIn: KeyCarrier;
  /** The team an admin key acts on (X-Account-Id); absent: the key's own team. */
  actingTeamId?: number;
}

export interface Sender {
  /** The team the message is sent for, and recorded on. */
  team: Team;
  /** The team owning the key (differs from `team` when an account's admin key acts on a child team). */
  keyOwner: Team;
  /** The account (the key owner's paying team): it pays, and its sending rate applies. */
  accountId: number;
  /** Null for sends made with an admin key: the logs show no sending-key id. */
  sendingKeyId: number | null;
  /** The one domain a restricted sending key may use. */
  onlyDomainId: string | null;
  /** When the teams were last read: checks within TEAM_REUSE_MS reuse them instead of reading again. */
  readAt: number;
  /** The account as last read (its sending rate). */
  account: Team;
}

export interface SenderAuthorizationDeps {
  store: Store;
  redis: Redis;
  keyCache: KeyCache;
}

/** A sender checked this recently is not read again: a MAIL FROM right after AUTH, a batch's items. */
const TEAM_REUSE_MS = 1000;

export class SenderAuthorization {
  constructor(private readonly d: SenderAuthorizationDeps) {}

  /** The key presented, resolved to the sender it speaks for. Says nothing yet about suspension or domains. */
  async identify(credential: SenderCredential): Promise<Decision<Sender>> {
    const { key: value, carriedIn } = credential;
    if (!value) return refused({ kind: 'no_key' });
    const kind = kindOf(value);
    if (kind === 'admin' && carriedIn === 'http_body') return refused({ kind: 'admin_key_in_body' });
    const key = await this.d.keyCache.resolve(value);
    if (!key) return refused({ kind: 'invalid_key', detail: 'The key is invalid or has been revoked' });
    if (key.kind !== 'sending' && carriedIn === 'smtp_auth') {
      return refused({ kind: 'invalid_key', detail: 'Use a sending key as the password' });
    }
    const owner = await this.d.store.teams.get(key.teamId);
    if (!owner) return refused({ kind: 'invalid_key', detail: 'The key is invalid or has been revoked' });
    if (key.kind === 'sending') return this.sender(owner, owner, key.id, key.domainId);
    if (!allows(key.scopes, 'emails:send')) return refused({ kind: 'insufficient_scope', requiredScope: 'emails:send' });
    const team = await this.actingTeam(owner, credential.actingTeamId);
    return team ? this.sender(team, owner, null, null) : refused({ kind: 'team_out_of_reach' });
  }

  /**
   * May this sender send now, from this address? Every team involved must be active (re-read unless read
   * within a second, so a suspension stops a long SMTP session's next message), and the address's domain
   * must be a verified domain of the team, and the key's own when the key is limited to one.
   */
  async authorize(sender: Sender, fromAddress?: string): Promise<Decision<{ sender: Sender; domain: Domain | null }>> {
    const fresh = Date.now() - sender.readAt < TEAM_REUSE_MS ? sender : await this.reread(sender);
    if (!fresh || [fresh.team, fresh.keyOwner, fresh.account].some((t) => t.status === 'suspended')) return refused({ kind: 'team_suspended' });
    if (fromAddress === undefined) return allowed({ sender: fresh, domain: null });
    const domain = await this.d.store.domains.findByName(domainOfEmail(fromAddress));
    if (!domain || domain.teamId !== fresh.team.id || domain.verificationStatus !== 'verified') {
      return refused({ kind: 'domain_not_verified', address: fromAddress, domain: domainOfEmail(fromAddress) });
    }
    if (fresh.onlyDomainId !== null && fresh.onlyDomainId !== domain.id) {
      return refused({ kind: 'domain_not_allowed', address: fromAddress, domain: domain.name });
    }
    return allowed({ sender: fresh, domain });
  }

  /** Takes one message (or one batch request) from the account's sending rate, counted across every process. */
  async takeSendRate(sender: Sender): Promise<Decision<void>> {
    const limit = sender.account.limitPerSecond;
    const decision = await hitRateLimit(this.d.redis, sender.accountId, 'send', limit, 1);
    if (decision.allowed) return allowed(undefined);
    return refused({ kind: 'rate_limited', limitPerSecond: limit, retryAfterS: Math.max(1, decision.resetS) });
  }

  private async sender(team: Team, keyOwner: Team, sendingKeyId: number | null, onlyDomainId: string | null): Promise<Decision<Sender>> {
    const accountId = accountIdOf(keyOwner);
    const account = accountId === keyOwner.id ? keyOwner : await this.d.store.teams.get(accountId);
    if (!account) return refused({ kind: 'invalid_key', detail: 'The key is invalid or has been revoked' });
    return allowed({ team, keyOwner, accountId, sendingKeyId, onlyDomainId, readAt: Date.now(), account });
  }

  /** The teams read again; undefined when one of them is gone. */
  private async reread(sender: Sender): Promise<Sender | undefined> {
    const teams = this.d.store.teams;
    const team = await teams.get(sender.team.id);
    const keyOwner = sender.keyOwner.id === sender.team.id ? team : await teams.get(sender.keyOwner.id);
    const account = sender.accountId === sender.team.id ? team : await teams.get(sender.accountId);
    if (!team || !keyOwner || !account) return undefined;
    return { ...sender, team, keyOwner, account, readAt: Date.now() };
  }

  /** The team an admin key acts on: its own, or, for an account's key, one of the account's child teams. */
  private async actingTeam(owner: Team, actingTeamId: number | undefined): Promise<Team | undefined> {
    if (actingTeamId === undefined || actingTeamId === owner.id) return owner;
    const team = await this.d.store.teams.get(actingTeamId);
    // A team outside the key's reach answers exactly like one that does not exist.
    return team && owner.parentId === null && team.parentId === owner.id ? team : undefined;
  }
}
