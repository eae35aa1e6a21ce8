// Platform suspension: when a team's bounce or complaint rate over the window passes its threshold, with
// at least the minimum volume and the minimum number of those events, the platform suspends the team and
// records why (the rate, the figures, the thresholds, when). Sending stops at once (HTTP 403
// account.suspended, SMTP 550 5.7.1) and only the platform (ternmail team reactivate) lifts it.
import type { Runtime } from '../shared/runtime.js';
import type { SuspensionDetail } from '../domain/team.js';

export interface ReputationPolicy {
  windowDays: number;
  minVolume: number;
  minBounces: number;
  minComplaints: number;
  maxBounceRate: number;
  maxComplaintRate: number;
}

export interface Rates {
  volume: number;
  bounced: number;
  complained: number;
  bounceRate: number;
  complaintRate: number;
}

export async function teamRates(rt: Runtime, accountId: number, windowDays: number): Promise<Rates> {
  const { volume, bounced, complained } = await rt.store.feedback.rates(accountId, Date.now() - windowDays * 86_400_000);
  return { volume, bounced, complained, bounceRate: volume ? bounced / volume : 0, complaintRate: volume ? complained / volume : 0 };
}

/** The rate that calls for a suspension, if any: above its threshold, over enough sends and enough events. */
export function rateTooHigh(rates: Rates, p: ReputationPolicy): 'bounce' | 'complaint' | null {
  if (rates.volume < p.minVolume) return null;
  if (rates.bounced >= p.minBounces && rates.bounceRate > p.maxBounceRate) return 'bounce';
  if (rates.complained >= p.minComplaints && rates.complaintRate > p.maxComplaintRate) return 'complaint';
  return null;
}

const percent = (fraction: number) => `${(fraction * 100).toFixed(2)}%`;

function describe(rate: 'bounce' | 'complaint', rates: Rates, p: ReputationPolicy): string {
  const [value, count, limit] = rate === 'bounce' ? [rates.bounceRate, rates.bounced, p.maxBounceRate] : [rates.complaintRate, rates.complained, p.maxComplaintRate];
  return `${rate} rate ${percent(value)} (${count} of ${rates.volume} recipients in ${p.windowDays} days) is above ${percent(limit)}`;
}

export class Reputation {
  constructor(
    private readonly rt: Runtime,
    private readonly policy: ReputationPolicy,
  ) {}

  async check(accountId: number): Promise<boolean> {
    const team = await this.rt.store.accounts.get(accountId);
    if (!team || team.status === 'suspended') return false;
    const p = this.policy;
    const rates = await teamRates(this.rt, accountId, p.windowDays);
    const rate = rateTooHigh(rates, p);
    if (!rate) return false;
    const { windowDays, ...thresholds } = p;
    const detail: SuspensionDetail = { rate, windowDays, ...rates, thresholds };
    const reason = describe(rate, rates, p);
    await this.rt.store.accounts.changeStatus(accountId, 'suspended', 'platform', { reason, detail });
    this.rt.log.warn({ team: accountId, ...rates, policy: p }, `team suspended by the platform: ${reason}`);
    return true;
  }
}
