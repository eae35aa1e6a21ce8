// The card payment provider the configuration names, built by the API process and handed to the core (which
// declares the PaymentProvider port and never names Stripe).
import type { Config } from '../../shared/config.js';
import type { PaymentProvider } from '../../shared/core/ports/payment-provider.js';
import { StripeProvider } from './stripe.js';

/** The provider the configuration names; null when the platform takes no card payments. */
export function paymentProviderFrom(config: Pick<Config, 'billing'>): PaymentProvider | null {
  const { provider, stripe } = config.billing;
  if (provider !== 'stripe' || stripe.secretKey === null || stripe.webhookSecret === null) return null;
  return new StripeProvider({ secretKey: stripe.secretKey, webhookSecret: stripe.webhookSecret, publishableKey: stripe.publishableKey, apiBaseUrl: stripe.apiBaseUrl });
}
