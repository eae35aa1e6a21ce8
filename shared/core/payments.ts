// Card payments of credits through the configured PaymentProvider (none on an offline platform): a card saved
// for later off-session charges, a charge of it, the state of an intent, removing the card, and the provider's
// signed webhooks. Credits enter the ledger only when a payment succeeded, as the webhook confirms it, once per
// payment (the ledger's unique purchase reference), with the payment's invoice.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import { PAYMENT_ID_KEY, type PaymentProvider } from './ports/payment-provider.js';
import type { IntentOutcome, Payment, SavedCard } from '../domain/payment.js';
import { accountIdOf, type Team } from '../domain/team.js';
import { MAX_CREDITS_MOVED } from './credits.js';
import type { Billing } from './billing.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

/** Stripe charges at least 50 minor units in most currencies: a smaller purchase is refused before it is tried. */
const MIN_CHARGE_MINOR = 50;

export interface ChargeOutcome {
  payment: Payment;
  outcome: IntentOutcome;
}

export class CardPayments {
  constructor(
    private readonly d: { store: Store; config: Config },
    private readonly provider: PaymentProvider | null,
    private readonly billing: Billing,
  ) {}

  get providerName(): 'offline' | 'stripe' {
    return this.provider?.name ?? 'offline';
  }

  get publishableKey(): string | null {
    return this.provider?.publishableKey ?? null;
  }

  async card(account: Team): Promise<SavedCard | null> {
    return (await this.d.store.payments.customer(accountIdOf(account)))?.card ?? null;
  }

  /** Saves the card of a confirmation token (Stripe.js) for later charges; it replaces the saved one once it succeeded. */
  async saveCard(account: Team, ownerEmail: string, confirmationToken: string, log: Logger): Promise<Managed<IntentOutcome>> {
    if (!this.provider) return refuse({ kind: 'payments_offline' });
    const accountId = accountIdOf(account);
    const customerId = await this.customerOf(this.provider, accountId, account.name, ownerEmail);
    const outcome = await this.provider.saveCard(customerId, confirmationToken);
    if (outcome.state === 'succeeded' && outcome.card) await this.replaceCard(this.provider, accountId, outcome.card);
    log.info({ account: accountId, intent: outcome.intentId, state: outcome.state }, 'card saved');
    return outcome.state === 'failed' ? refuse({ kind: 'payment_failed', reason: outcome.failureReason ?? 'The card was declined.' }) : done(outcome);
  }

  /**
   * The state of one of the account's intents (a card being saved, a payment); another's answers as missing. A
   * succeeded payment's credits still come only with the provider's signed webhook.
   */
  async verify(account: Team, intentId: string): Promise<Managed<IntentOutcome>> {
    if (!this.provider) return refuse({ kind: 'payments_offline' });
    const accountId = accountIdOf(account);
    const customer = await this.d.store.payments.customer(accountId);
    const found = customer ? await this.provider.intent(intentId) : undefined;
    if (!found || found.customerId !== customer!.customerId) return notFound('payment', 'Payment not found', 'intent_id');
    // A card saved after the browser's authentication: it becomes the default and replaces the saved one.
    if (
      found.outcome.state === 'succeeded' &&
      intentId.startsWith('seti_') &&
      found.outcome.card &&
      found.outcome.card.paymentMethodId !== customer!.card?.paymentMethodId
    ) {
      await this.provider.makeDefault(customer!.customerId, found.outcome.card.paymentMethodId);
      await this.replaceCard(this.provider, accountId, found.outcome.card);
    }
    return done(found.outcome);
  }

  /** Charges the saved card for `credits` off-session; the credits come with the provider's confirmation. */
  async charge(account: Team, credits: number, log: Logger): Promise<Managed<ChargeOutcome>> {
    if (!this.provider) return refuse({ kind: 'payments_offline' });
    const accountId = accountIdOf(account);
    const { pricePerThousandCreditsMinor: price, currency } = this.d.config.billing;
    const amountMinor = Math.ceil((credits * price) / 1000);
    if (!Number.isInteger(credits) || credits < 1 || credits > MAX_CREDITS_MOVED || amountMinor < MIN_CHARGE_MINOR) {
      const least = Math.ceil((MIN_CHARGE_MINOR * 1000) / price);
      return refuse({ kind: 'invalid_field', field: 'credits', message: `credits must be a whole number from ${least} to ${MAX_CREDITS_MOVED}.` });
    }
    const customer = await this.d.store.payments.customer(accountId);
    if (!customer?.card) return refuse({ kind: 'no_saved_card' });
    const payment = await this.d.store.payments.create({ accountId, credits, amountMinor, currency, state: 'processing' });
    const outcome = await this.provider.charge({
      customerId: customer.customerId,
      paymentMethodId: customer.card.paymentMethodId,
      amountMinor,
      currency,
      // One charge per payment row, whatever the retries between Tern and the provider.
      idempotencyKey: `tern-payment-${payment.id}`,
      description: `${credits} sending credits`,
      metadata: { [PAYMENT_ID_KEY]: String(payment.id), tern_account_id: String(accountId) },
    });
    const updated = (await this.d.store.payments.update(payment.id, { intentId: outcome.intentId, state: outcome.state, failureReason: outcome.failureReason }))!;
    log.info({ account: accountId, payment: payment.id, intent: outcome.intentId, state: outcome.state }, 'card charged');
    if (outcome.state === 'failed') return refuse({ kind: 'payment_failed', reason: outcome.failureReason ?? 'The card was declined.' });
    return done({ payment: updated, outcome });
  }

  async deleteCard(account: Team, log: Logger): Promise<Managed<void>> {
    if (!this.provider) return refuse({ kind: 'payments_offline' });
    const accountId = accountIdOf(account);
    const card = (await this.d.store.payments.customer(accountId))?.card;
    if (!card) return refuse({ kind: 'no_saved_card' });
    await this.provider.detach(card.paymentMethodId);
    await this.d.store.payments.setCard(accountId, null);
    log.info({ account: accountId }, 'card removed');
    return done(undefined);
  }

  /** A provider webhook: false when its signature does not hold (nothing is done). */
  async webhook(rawBody: Buffer, signature: string, log: Logger): Promise<Managed<boolean>> {
    if (!this.provider) return refuse({ kind: 'payments_offline' });
    const event = this.provider.webhookEvent(rawBody, signature);
    if (!event) return done(false);
    if (event.kind === 'ignored') return done(true);
    const payment = (event.paymentId !== null ? await this.d.store.payments.get(event.paymentId) : undefined) ?? (await this.d.store.payments.byIntent(event.intentId));
    // Not a payment of Tern's (another product on the same Stripe account): acknowledged, nothing done.
    if (!payment) return done(true);
    if (event.kind === 'payment_succeeded') await this.succeeded({ ...payment, intentId: event.intentId }, log);
    else await this.d.store.payments.update(payment.id, { intentId: event.intentId, state: 'failed', failureReason: event.reason });
    return done(true);
  }

  /** A payment succeeded: its credits (once, whatever repeats the news), its invoice (once), its state. */
  private async succeeded(payment: Payment, log: Logger): Promise<void> {
    const reference = payment.intentId!;
    const paidAt = new Date().toISOString();
    const entry = await this.d.store.credits.post({
      payerId: payment.accountId,
      kind: 'purchase',
      amount: payment.credits,
      actor: { kind: 'payment', id: reference },
      reference,
      reason: 'card payment',
    });
    // The account is gone: an error, so the webhook answers 500 and Stripe delivers it again while someone looks.
    if (entry === 'no_payer' || entry === 'insufficient_balance')
      throw new Error(`payment ${payment.id}: its account ${payment.accountId} cannot take the credits (${entry})`);
    await this.billing.issue(payment.accountId, { reference, credits: payment.credits, amountMinor: payment.amountMinor, currency: payment.currency, paidAt });
    await this.d.store.payments.update(payment.id, { intentId: reference, state: 'succeeded', failureReason: null });
    if (entry !== 'already_recorded') log.info({ account: payment.accountId, payment: payment.id, credits: payment.credits }, 'payment granted credits');
  }

  /** The new card is the saved one; the previous one is detached at the provider (a customer keeps one card). */
  private async replaceCard(provider: PaymentProvider, accountId: number, card: SavedCard): Promise<void> {
    const previous = (await this.d.store.payments.customer(accountId))?.card;
    await this.d.store.payments.setCard(accountId, card);
    if (previous && previous.paymentMethodId !== card.paymentMethodId) await provider.detach(previous.paymentMethodId);
  }

  private async customerOf(provider: PaymentProvider, accountId: number, name: string, email: string): Promise<string> {
    const existing = await this.d.store.payments.customer(accountId);
    if (existing) return existing.customerId;
    const customerId = await provider.createCustomer(accountId, name, email);
    await this.d.store.payments.saveCustomer(accountId, customerId);
    return (await this.d.store.payments.customer(accountId))!.customerId;
  }
}
