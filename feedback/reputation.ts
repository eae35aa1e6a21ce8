// Platform suspension: when a team's bounce or complaint rate over the window passes its threshold, with
// at least the minimum volume, the platform suspends the team. Sending stops at once (HTTP 403
// account.suspended, SMTP 550 5.7.1) and only the platform (ternmail team reactivate) lifts it.
import type { Runtime } from '../shared/runtime.js';

export interface ReputationPolicy {
  windowDays: number;
  minVolume: number;
  maxBounceRate: number;
  maxComplaintRate: number;
}

export interface Rates {
  volume: number;
  bounceRate: number;
  complaintRate: number;
}

export async function teamRates(rt: Runtime, accountId: number, windowDays: number): Promise<Rates> {
  const { volume, bounced, complained } = await rt.store.feedback.rates(accountId, Date.now() - windowDays * 86_400_000);
  return { volume, bounceRate: volume ? bounced / volume : 0, complaintRate: volume ? complained / volume : 0 };
}

export class Reputation {
  constructor(
    private readonly rt: Runtime,
    private readonly policy: ReputationPolicy,
  ) {}

  async check(accountId: number): Promise<boolean> {
    const team = await this.rt.store.accounts.get(accountId);
    if (!team || team.status === 'suspended') return false;
    const rates = await teamRates(this.rt, accountId, this.policy.windowDays);
    if (rates.volume < this.policy.minVolume) return false;
    const tooMany = rates.bounceRate > this.policy.maxBounceRate ? 'bounce' : rates.complaintRate > this.policy.maxComplaintRate ? 'complaint' : null;
    if (!tooMany) return false;
    await this.rt.store.accounts.changeStatus(accountId, 'suspended', 'platform');
    this.rt.log.warn({ team: accountId, ...rates, policy: this.policy }, `team suspended by the platform: ${tooMany} rate too high`);
    return true;
  }
}
