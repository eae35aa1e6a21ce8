// A team's webhook: where feedback events are POSTed, and which ones.
export const WEBHOOK_EVENTS = ['bounced', 'complaint'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const WEBHOOK_STATUSES = ['active', 'inactive'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export interface Webhook {
  id: number;
  teamId: number;
  title: string;
  url: string;
  events: WebhookEvent[];
  status: WebhookStatus;
  includeMessage: boolean;
  /** The signing secret, sealed (see secret-box). */
  secretEnc: string;
  createdAt: string;
  updatedAt: string;
}
