// Standard Webhooks signing, shared by the MTA's webhook dispatcher and the API's support forwarding: a receiver
// checks `webhook-signature` against the secret it was shown once.
import { createHmac, randomBytes } from 'node:crypto';

/** A new signing secret, `whsec_` + 32 random bytes in base64 (the Standard Webhooks form). */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's decoded bytes. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one signed JSON POST; `id` stays the same across a message's retries (receivers drop copies by it). */
export function standardWebhookHeaders(secret: string, id: string, body: string, userAgent: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
  };
}
