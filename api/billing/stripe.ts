// The PaymentProvider on Stripe, through Stripe's own client: customers, SetupIntents confirmed with a
// confirmation token for off-session use, PaymentIntents charged off-session with an idempotency key, payment
// methods read and detached, and webhook signatures checked with the client's constructEvent.
import Stripe from 'stripe';
import type { IntentOutcome, PaymentEvent, PaymentState, SavedCard } from '../../shared/domain/payment.js';
import { PAYMENT_ID_KEY, type ChargeRequest, type PaymentProvider } from '../../shared/core/ports/payment-provider.js';

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  publishableKey: string | null;
  /** Another address for Stripe's API (a test double, a proxy); null for api.stripe.com. */
  apiBaseUrl: string | null;
}

type Intent = Stripe.SetupIntent | Stripe.PaymentIntent;

/** Stripe's statuses as Tern's closed union: what is neither done nor waiting on the customer failed. */
function stateOf(status: Intent['status']): PaymentState {
  switch (status) {
    case 'succeeded':
      return 'succeeded';
    case 'processing':
      return 'processing';
    case 'requires_action':
    case 'requires_confirmation':
      return 'requires_action';
    default:
      return 'failed';
  }
}

/** An off-session charge the bank wants the customer to authenticate: Stripe leaves it requiring a payment method. */
const needsAuthentication = (intent: Intent): boolean =>
  intent.status === 'requires_payment_method' && 'last_payment_error' in intent && intent.last_payment_error?.code === 'authentication_required';

const idOf = (value: string | { id: string } | null): string | null => (value === null ? null : typeof value === 'string' ? value : value.id);

function cardOf(pm: Stripe.PaymentMethod): SavedCard {
  const card = pm.card;
  return { paymentMethodId: pm.id, brand: card?.brand ?? 'unknown', last4: card?.last4 ?? '', expMonth: card?.exp_month ?? 0, expYear: card?.exp_year ?? 0 };
}

function failureOf(intent: Intent): string | null {
  const error = 'last_payment_error' in intent ? intent.last_payment_error : intent.last_setup_error;
  return error?.message ?? (stateOf(intent.status) === 'failed' ? `The payment did not go through (${intent.status}).` : null);
}

function ternPaymentId(intent: Stripe.PaymentIntent): number | null {
  const id = Number(intent.metadata?.[PAYMENT_ID_KEY]);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe';
  readonly publishableKey: string | null;
  private readonly stripe: Stripe;

  constructor(private readonly settings: StripeSettings) {
    this.publishableKey = settings.publishableKey;
    const base = settings.apiBaseUrl ? new URL(settings.apiBaseUrl) : null;
    this.stripe = new Stripe(settings.secretKey, {
      telemetry: false,
      maxNetworkRetries: 2,
      ...(base ? { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol === 'https:' ? 'https' : 'http' } : {}),
    });
  }

  async createCustomer(accountId: number, name: string, email: string | null): Promise<string> {
    const customer = await this.stripe.customers.create(
      { name, ...(email ? { email } : {}), metadata: { tern_account_id: String(accountId) } },
      { idempotencyKey: `tern-customer-${accountId}` },
    );
    return customer.id;
  }

  async saveCard(customerId: string, confirmationToken: string): Promise<IntentOutcome> {
    try {
      const intent = await this.stripe.setupIntents.create({
        customer: customerId,
        confirm: true,
        confirmation_token: confirmationToken,
        usage: 'off_session',
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      });
      const outcome = await this.outcomeOf(intent);
      if (outcome.state === 'succeeded' && outcome.card) await this.makeDefault(customerId, outcome.card.paymentMethodId);
      return outcome;
    } catch (err) {
      return this.refusedIntent(err, 'seti');
    }
  }

  async intent(intentId: string): Promise<{ outcome: IntentOutcome; customerId: string | null } | undefined> {
    try {
      const intent = intentId.startsWith('seti_') ? await this.stripe.setupIntents.retrieve(intentId) : await this.stripe.paymentIntents.retrieve(intentId);
      return { outcome: await this.outcomeOf(intent), customerId: idOf(intent.customer) };
    } catch (err) {
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404) return undefined;
      throw err;
    }
  }

  async charge(c: ChargeRequest): Promise<IntentOutcome> {
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          customer: c.customerId,
          payment_method: c.paymentMethodId,
          amount: c.amountMinor,
          currency: c.currency.toLowerCase(),
          off_session: true,
          confirm: true,
          description: c.description,
          metadata: c.metadata,
        },
        { idempotencyKey: c.idempotencyKey },
      );
      return await this.outcomeOf(intent);
    } catch (err) {
      return this.refusedIntent(err, 'pi');
    }
  }

  async card(paymentMethodId: string): Promise<SavedCard> {
    return cardOf(await this.stripe.paymentMethods.retrieve(paymentMethodId));
  }

  async makeDefault(customerId: string, paymentMethodId: string): Promise<void> {
    await this.stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } });
  }

  async detach(paymentMethodId: string): Promise<void> {
    await this.stripe.paymentMethods.detach(paymentMethodId);
  }

  webhookEvent(rawBody: Buffer, signature: string): PaymentEvent | undefined {
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.settings.webhookSecret);
    } catch {
      return undefined;
    }
    if (event.type === 'payment_intent.succeeded') return { kind: 'payment_succeeded', intentId: event.data.object.id, paymentId: ternPaymentId(event.data.object) };
    if (event.type === 'payment_intent.payment_failed') {
      const intent = event.data.object;
      return { kind: 'payment_failed', intentId: intent.id, paymentId: ternPaymentId(intent), reason: intent.last_payment_error?.message ?? 'The payment failed.' };
    }
    return { kind: 'ignored', type: event.type };
  }

  private async outcomeOf(intent: Intent): Promise<IntentOutcome> {
    const state = needsAuthentication(intent) ? 'requires_action' : stateOf(intent.status);
    const paymentMethod = idOf(intent.payment_method);
    return {
      intentId: intent.id,
      state,
      clientSecret: state === 'requires_action' ? intent.client_secret : null,
      nextAction: state === 'requires_action' ? (needsAuthentication(intent) ? 'confirm_card_payment' : (intent.next_action?.type ?? 'use_stripe_sdk')) : null,
      failureReason: state === 'failed' ? failureOf(intent) : null,
      card: paymentMethod ? await this.card(paymentMethod) : null,
    };
  }

  /**
   * A card error is an answer, not a fault: declined (failed, with the bank's message) or, off-session, the bank
   * asking the customer to authenticate (requires_action: the browser confirms the intent with its secret).
   */
  private refusedIntent(err: unknown, prefix: 'seti' | 'pi'): IntentOutcome {
    if (!(err instanceof Stripe.errors.StripeCardError)) throw err;
    const intent = err.payment_intent ?? null;
    const needsAuthentication = err.code === 'authentication_required';
    return {
      intentId: intent?.id ?? `${prefix}_unknown`,
      state: needsAuthentication ? 'requires_action' : 'failed',
      clientSecret: needsAuthentication ? (intent?.client_secret ?? null) : null,
      nextAction: needsAuthentication ? 'confirm_card_payment' : null,
      failureReason: needsAuthentication ? null : err.message,
      card: null,
    };
  }
}
