// A local HTTP double of the few Stripe API endpoints Tern uses (customers, setup_intents, payment_intents,
// payment_methods retrieve and detach), answering as Stripe does (form-encoded requests, JSON objects, card
// errors as 402 with the intent), honouring Idempotency-Key. Confirmation tokens and payment methods decide
// the outcome: a card that works, one whose bank wants authentication, one that is declined.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Tokens the tests send as if Stripe.js made them, and the card each one saves. */
export const TOKENS = {
  /** Saved; charges succeed. */
  visa: 'ctoken_visa',
  /** Saved; an off-session charge needs the customer to authenticate. */
  authLater: 'ctoken_auth_later',
  /** Saved; charges are declined. */
  declinesLater: 'ctoken_declines_later',
  /** Saving needs 3-D Secure in the browser first. */
  threeDs: 'ctoken_3ds',
  /** Declined when saved. */
  declined: 'ctoken_declined',
} as const;

const CARDS: Record<string, { last4: string; charge: 'succeeds' | 'authentication_required' | 'declined' }> = {
  pm_card_visa: { last4: '4242', charge: 'succeeds' },
  pm_card_auth: { last4: '3155', charge: 'authentication_required' },
  pm_card_declines: { last4: '0341', charge: 'declined' },
  pm_card_3ds: { last4: '3220', charge: 'succeeds' },
};

const TOKEN_CARD: Record<string, string> = {
  [TOKENS.visa]: 'pm_card_visa',
  [TOKENS.authLater]: 'pm_card_auth',
  [TOKENS.declinesLater]: 'pm_card_declines',
  [TOKENS.threeDs]: 'pm_card_3ds',
};

type StripeObject = Record<string, unknown> & { id: string };

export interface StripeDouble {
  url: string;
  /** Every request: method and path. */
  requests: Array<{ method: string; path: string }>;
  /** PaymentIntents made, by id (the real ones a webhook would announce). */
  paymentIntents: Map<string, StripeObject>;
  /** The customer authenticated a SetupIntent in the browser: it succeeds. */
  authenticate(setupIntentId: string): void;
  /** A customer as Stripe holds it (its default payment method). */
  customer(id: string): StripeObject | undefined;
  close(): Promise<void>;
}

/** Stripe's form encoding, nested keys (`metadata[k]`) as nested objects. */
function formOf(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split(/\[|\]\[|\]/).filter(Boolean);
    let target = out;
    for (const part of parts.slice(0, -1)) target = (target[part] ??= {}) as Record<string, unknown>;
    target[parts.at(-1)!] = value;
  }
  return out;
}

const cardError = (code: string, message: string, intent?: StripeObject) => ({
  status: 402,
  body: {
    error: { type: 'card_error', code, message, ...(code === 'card_declined' ? { decline_code: 'generic_decline' } : {}), ...(intent ? { payment_intent: intent } : {}) },
  },
});

/** The double's objects and the answers it gave per Idempotency-Key. */
class StripeState {
  private next = 0;
  readonly objects = new Map<string, StripeObject>();
  readonly paymentIntents = new Map<string, StripeObject>();
  readonly idempotent = new Map<string, { status: number; body: unknown }>();

  id(prefix: string): string {
    return `${prefix}_${(++this.next).toString().padStart(8, '0')}`;
  }

  paymentMethod(pmId: string) {
    const card = CARDS[pmId];
    return card && { id: pmId, object: 'payment_method', type: 'card', card: { brand: 'visa', last4: card.last4, exp_month: 12, exp_year: 2030 } };
  }

  setupIntent(form: Record<string, unknown>): { status: number; body: unknown } {
    const token = String(form.confirmation_token);
    if (token === TOKENS.declined) return cardError('card_declined', 'Your card was declined.');
    const pm = TOKEN_CARD[token];
    if (!pm) return { status: 400, body: { error: { type: 'invalid_request_error', message: `No such confirmationtoken: '${token}'` } } };
    const needsAction = token === TOKENS.threeDs;
    const id = this.id('seti');
    const seti = {
      id,
      object: 'setup_intent',
      customer: form.customer,
      payment_method: pm,
      usage: form.usage,
      status: needsAction ? 'requires_action' : 'succeeded',
      client_secret: `seti_secret_${id}`,
      next_action: needsAction ? { type: 'use_stripe_sdk' } : null,
      last_setup_error: null,
    };
    this.objects.set(seti.id, seti);
    return { status: 200, body: seti };
  }

  paymentIntent(form: Record<string, unknown>): { status: number; body: unknown } {
    const pm = String(form.payment_method);
    const card = CARDS[pm];
    if (!card) return { status: 400, body: { error: { type: 'invalid_request_error', message: `No such PaymentMethod: '${pm}'` } } };
    const id = this.id('pi');
    const base: StripeObject = {
      id,
      object: 'payment_intent',
      amount: Number(form.amount),
      currency: form.currency,
      customer: form.customer,
      payment_method: pm,
      metadata: form.metadata ?? {},
      client_secret: `pi_secret_${id}`,
      next_action: null,
      last_payment_error: null,
      status: 'succeeded',
    };
    const failed = card.charge !== 'succeeds';
    const intent: StripeObject = failed
      ? {
          ...base,
          status: 'requires_payment_method',
          last_payment_error: { code: card.charge, message: card.charge === 'declined' ? 'Your card was declined.' : 'This payment requires authentication.' },
        }
      : base;
    this.objects.set(id, intent);
    this.paymentIntents.set(id, intent);
    if (!failed) return { status: 200, body: intent };
    return card.charge === 'declined'
      ? cardError('card_declined', 'Your card was declined.', intent)
      : cardError('authentication_required', 'This payment requires authentication.', intent);
  }

  customer(objectId: string | undefined, form: Record<string, unknown>): { status: number; body: unknown } {
    if (!objectId) {
      const customer = { id: this.id('cus'), object: 'customer', name: form.name, email: form.email ?? null, metadata: form.metadata ?? {} };
      this.objects.set(customer.id, customer);
      return { status: 200, body: customer };
    }
    const customer = this.objects.get(objectId);
    if (!customer) return missing(`customer: '${objectId}'`);
    Object.assign(customer, form);
    return { status: 200, body: customer };
  }

  route(method: string, path: string, form: Record<string, unknown>): { status: number; body: unknown } {
    const [, , resource, objectId, action] = path.split('/');
    if (method === 'POST' && resource === 'customers') return this.customer(objectId, form);
    if (method === 'POST' && resource === 'setup_intents' && !objectId) return this.setupIntent(form);
    if (method === 'POST' && resource === 'payment_intents' && !objectId) return this.paymentIntent(form);
    if (method === 'GET' && (resource === 'setup_intents' || resource === 'payment_intents') && objectId) {
      const found = this.objects.get(objectId);
      return found ? { status: 200, body: found } : missing(`${resource}: '${objectId}'`);
    }
    if (resource === 'payment_methods' && objectId) {
      const pm = this.paymentMethod(objectId);
      if (!pm) return missing(`PaymentMethod: '${objectId}'`);
      return { status: 200, body: method === 'POST' && action === 'detach' ? { ...pm, customer: null } : pm };
    }
    return missing(`route (${method}: ${path})`);
  }
}

const missing = (what: string) => ({ status: 404, body: { error: { type: 'invalid_request_error', message: `No such ${what}` } } });

export async function startStripeDouble(): Promise<StripeDouble> {
  const state = new StripeState();
  const requests: StripeDouble['requests'] = [];
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const path = new URL(req.url ?? '/', 'http://double').pathname;
    requests.push({ method: req.method ?? 'GET', path });
    const key = req.headers['idempotency-key'];
    const cached = typeof key === 'string' ? state.idempotent.get(key) : undefined;
    const answer = cached ?? state.route(req.method ?? 'GET', path, formOf(Buffer.concat(chunks).toString()));
    if (typeof key === 'string') state.idempotent.set(key, answer);
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  }
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    paymentIntents: state.paymentIntents,
    authenticate: (id) => Object.assign(state.objects.get(id)!, { status: 'succeeded', next_action: null }),
    customer: (id) => state.objects.get(id),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
