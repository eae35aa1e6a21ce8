// A suppressed address of a team, and the rule for which entry stands when an address is suppressed again.
export const SUPPRESSION_STATUSES = ['bounced', 'complained', 'suppressed'] as const;
export type SuppressionStatus = (typeof SUPPRESSION_STATUSES)[number];

export interface Suppression {
  email: string;
  status: SuppressionStatus;
  reason: string;
  messageId: string | null;
  createdAt: string;
}

/**
 * How strongly an entry holds: a complaint outranks a bounce, which outranks a manual entry ('suppressed'). A
 * new entry replaces the one standing only when it ranks at least as high, so a later bounce never hides an
 * earlier complaint.
 */
export const SUPPRESSION_RANK: Readonly<Record<SuppressionStatus, number>> = { complained: 3, bounced: 2, suppressed: 1 };
