// When a team's feedback calls for a platform suspension: a rate above its threshold, over enough sends and
// enough of those events, within the window. Pure rules; feedback/reputation.ts reads the figures and acts.
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

export const ratesOf = (volume: number, bounced: number, complained: number): Rates => ({
  volume,
  bounced,
  complained,
  bounceRate: volume ? bounced / volume : 0,
  complaintRate: volume ? complained / volume : 0,
});

/** The rate that calls for a suspension, if any: above its threshold, over enough sends and enough events. */
export function rateTooHigh(rates: Rates, p: ReputationPolicy): 'bounce' | 'complaint' | null {
  if (rates.volume < p.minVolume) return null;
  if (rates.bounced >= p.minBounces && rates.bounceRate > p.maxBounceRate) return 'bounce';
  if (rates.complained >= p.minComplaints && rates.complaintRate > p.maxComplaintRate) return 'complaint';
  return null;
}

const percent = (fraction: number) => `${(fraction * 100).toFixed(2)}%`;

/** The recorded reason of a suspension by policy, in words. */
export function suspensionReason(rate: 'bounce' | 'complaint', rates: Rates, p: ReputationPolicy): string {
  const [value, count, limit] = rate === 'bounce' ? [rates.bounceRate, rates.bounced, p.maxBounceRate] : [rates.complaintRate, rates.complained, p.maxComplaintRate];
  return `${rate} rate ${percent(value)} (${count} of ${rates.volume} recipients in ${p.windowDays} days) is above ${percent(limit)}`;
}
