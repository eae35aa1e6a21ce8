// Platform suspension: when a team's bounce or complaint rate over the window passes its threshold, with
// at least the minimum volume and the minimum number of those events, the platform suspends the team and
// records why (the rate, the figures, the thresholds, when). Sending stops at once (HTTP 403
// account.suspended, SMTP 550 5.7.1) and only the platform (ternmail team reactivate) lifts it.
import type { Runtime } from '../../shared/runtime/runtime.js';
import type { SuspensionDetail } from '../../shared/domain/team.js';
import { rateTooHigh, ratesOf, suspensionReason, type Rates, type ReputationPolicy } from '../../shared/domain/reputation.js';

export type { ReputationPolicy, Rates } from '../../shared/domain/reputation.js';
export { rateTooHigh } from '../../shared/domain/reputation.js';

export async function teamRates(rt: Runtime, teamId: number, windowDays: number): Promise<Rates> {
  const { volume, bounced, complained } = await rt.store.feedback.rates(teamId, Date.now() - windowDays * 86_400_000);
  return ratesOf(volume, bounced, complained);
}

export class Reputation {
  constructor(
    private readonly rt: Runtime,
    private readonly policy: ReputationPolicy,
  ) {}

  async check(teamId: number): Promise<boolean> {
    const team = await this.rt.store.teams.get(teamId);
    if (!team || team.status === 'suspended') return false;
    const p = this.policy;
    const rates = await teamRates(this.rt, teamId, p.windowDays);
    const rate = rateTooHigh(rates, p);
    if (!rate) return false;
    const { windowDays, ...thresholds } = p;
    const detail: SuspensionDetail = { rate, windowDays, ...rates, thresholds };
    const reason = suspensionReason(rate, rates, p);
    await this.rt.store.teams.changeStatus(teamId, 'suspended', 'platform', { reason, detail });
    this.rt.log.warn({ team: teamId, ...rates, policy: p }, `team suspended by the platform: ${reason}`);
    return true;
  }
}
