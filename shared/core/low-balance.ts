// The low-balance mail: when the balance that pays for an account's mail (or a team's own) falls below the
// configured threshold, the account's owners get one message through Tern's own mail, once per crossing (the
// store arms a payer while it is at or above the threshold and disarms it as it claims the alert). The platform
// can also send it by hand for one payer.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import { accountIdOf, payerIdOf, type Team } from '../domain/team.js';
import type { SystemMail } from './system-mail.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

/** Payers alerted per sweep at most; the rest wait for the next one. */
const SWEEP_LIMIT = 200;
const OFF = 'The low credit balance email is turned off (on the operator’s Emails page): nothing was sent.';

export interface LowBalanceMail {
  /** The owners the message was recorded for. */
  sentTo: string[];
  balance: number;
}

/** The low-balance mail's smartcodes. */
function valuesFor(payer: Team, balance: number, threshold: number): Record<string, string> {
  return {
    'credits.balance': String(balance),
    'credits.threshold': String(threshold),
    'credits.whose': payer.parentId === null ? `your account ${payer.name}` : `the team ${payer.name}`,
    'team.name': payer.name,
  };
}

export class LowBalanceAlerts {
  constructor(
    private readonly d: { store: Store; config: Config },
    private readonly systemMail: SystemMail,
  ) {}

  /** Alerts every payer that fell below the threshold since its last alert; the number of payers alerted. */
  async sweep(log: Logger): Promise<number> {
    const threshold = this.d.config.billing.lowBalanceThreshold;
    if (threshold === 0) return 0;
    await this.d.store.credits.armLowBalanceAlerts(threshold);
    const claimed = await this.d.store.credits.claimLowBalanceAlerts(threshold, SWEEP_LIMIT);
    let alerted = 0;
    for (const { payerId, balance } of claimed) {
      const payer = await this.d.store.teams.get(payerId);
      const sent = payer ? await this.mail(payer, balance, log) : undefined;
      if (sent?.ok) alerted++;
      // Not sent (no system sender, a rate limit): the crossing is alerted on a later sweep instead.
      else if (payer) await this.d.store.credits.rearmLowBalanceAlert(payerId);
    }
    return alerted;
  }

  /** Sends the low-balance mail for the payer for `team`, now, whatever its balance (the platform's button). */
  async sendNow(team: Team, log: Logger): Promise<Managed<LowBalanceMail>> {
    const payer = payerIdOf(team) === team.id ? team : await this.d.store.teams.get(payerIdOf(team));
    if (!payer) return notFound('team', 'Team not found');
    const sent = await this.mail(payer, payer.creditBalance, log);
    // The payer has owners (mail() refuses otherwise): nobody mailed means the email is turned off.
    if (sent.ok && sent.value.sentTo.length === 0) return refuse({ kind: 'system_mail_unavailable', reason: OFF });
    return sent;
  }

  private async mail(payer: Team, balance: number, log: Logger): Promise<Managed<LowBalanceMail>> {
    const owners = (await this.d.store.users.listByTeam(accountIdOf(payer))).filter((u) => u.role === 'owner');
    if (!owners.length) return refuse({ kind: 'invalid_field', field: 'id', message: 'The account has no owner to mail.' });
    const sentTo: string[] = [];
    const values = valuesFor(payer, balance, this.d.config.billing.lowBalanceThreshold);
    for (const owner of owners) {
      const message = await this.systemMail.compose('low_balance', owner.email, values);
      // Turned off by an operator: nothing is sent, and the crossing counts as alerted (it is not retried).
      if (!message) break;
      const sent = await this.systemMail.send(message, log);
      if (!sent.ok) return refuse(sent.refusal);
      sentTo.push(owner.email);
    }
    log.info({ pool: payer.id, balance, owners: sentTo.length }, 'low-balance mail sent');
    return done({ sentTo, balance });
  }
}
