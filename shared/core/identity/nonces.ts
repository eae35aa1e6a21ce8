// WordPress's nonces (wp_create_nonce / wp_verify_nonce) for the dashboard's cookie sessions: a keyed hash
// over the tick, the action, the user and the session, valid for the current and the previous 12-hour tick.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Session } from '../../domain/user.js';

/** WordPress's nonce life is a day; a tick is half of it. */
const TICK_S = 12 * 3600;
export const REST_ACTION = 'wp_rest';

export type NonceSubject = Pick<Session, 'userId' | 'tokenHash'>;

export class Nonces {
  /** `key`: a key of its own (derived from the product's secret with a purpose label), never a constant. */
  constructor(
    private readonly key: Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  nonceFor(session: NonceSubject, action = REST_ACTION): string {
    return this.at(this.tick(), session, action);
  }

  /** 'valid' for a nonce of the current or the previous tick, for this very session; compared in constant time. */
  verifyNonce(session: NonceSubject, nonce: string, action = REST_ACTION): 'valid' | 'invalid' {
    if (!/^[0-9a-f]{10}$/.test(nonce)) return 'invalid';
    const given = Buffer.from(nonce);
    const tick = this.tick();
    let valid = false;
    // Both are compared whatever the first gives, so the time taken says nothing about which matched.
    for (const t of [tick, tick - 1]) valid = timingSafeEqual(Buffer.from(this.at(t, session, action)), given) || valid;
    return valid ? 'valid' : 'invalid';
  }

  private tick(): number {
    return Math.ceil(this.now() / 1000 / TICK_S);
  }

  /** As wp_create_nonce: ten hex characters taken from the hash's end, skipping its last two. */
  private at(tick: number, s: NonceSubject, action: string): string {
    return createHmac('sha256', this.key).update(`${tick}|${action}|${s.userId}|${s.tokenHash}`).digest('hex').slice(-12, -2);
  }
}
