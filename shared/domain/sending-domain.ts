// A sending domain of a team: its DKIM key, its verification state and its delivery counters.
export const VERIFICATION_STATUSES = ['draft', 'verified'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export interface Domain {
  id: string;
  teamId: number;
  name: string;
  verificationStatus: VerificationStatus;
  /** The team's default domain; a team with domains has exactly one. */
  isDefault: boolean;
  dkimSelector: string;
  dkimPublicKey: string;
  /** The DKIM private key, sealed (see secret-box). */
  dkimPrivateKeyEnc: string;
  dmarcPolicy: string | null;
  autoVerifyActive: boolean;
  autoVerifyReason: string;
  lastCheckAt: string | null;
  /** The last automatic check's findings, as JSON text. */
  lastCheckResult: string | null;
  verifiedAt: string | null;
  totalSent: number;
  totalBounced: number;
  totalComplained: number;
  createdAt: string;
  updatedAt: string;
}
