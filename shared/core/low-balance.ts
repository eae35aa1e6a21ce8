// The low-balance mail: when the balance that pays for an account's mail (or a team's own) falls below the
// configured threshold, the account's owners get one message through Tern's own mail, once per crossing (the
// store arms a payer while it is at or above the threshold and disarms it as it claims the alert). The platform
// can also send it by hand for one payer.
import escapeHtml from 'escape-html';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import { accountIdOf, payerIdOf, type Team } from '../domain/team.js';
import type { SystemMail, SystemMessage } from './system-mail.js';
import { done, notFound, refuse, type Managed } from './management-refusals.js';

/** Payers alerted per sweep at most; the rest wait for the next one. */
const SWEEP_LIMIT = 200;

export interface LowBalanceMail {
  /** The owners the message was recorded for. */
  sentTo: string[];
  balance: number;
}

function messageFor(to: string, payer: Team, balance: number, threshold: number): SystemMessage {
  const whose = payer.parentId === null ? `your account ${payer.name}` : `the team ${payer.name}`;
  const text = `The credits of ${whose} are running low: ${balance} left (the alert threshold is ${threshold}).\n\nMail is refused once they run out; add credits to keep sending.\n`;
  const e = escapeHtml;
  const html = `<!doctype html><html><body><p>The credits of ${e(whose)} are running low: <strong>${balance}</strong> left (the alert threshold is ${threshold}).</p><p>Mail is refused once they run out; add credits to keep sending.</p></body></html>`;
  return { to, subject: `Low credit balance: ${balance} left`, text, html };
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
    return this.mail(payer, payer.creditBalance, log);
  }

  private async mail(payer: Team, balance: number, log: Logger): Promise<Managed<LowBalanceMail>> {
    const owners = (await this.d.store.users.listByTeam(accountIdOf(payer))).filter((u) => u.role === 'owner');
    if (!owners.length) return refuse({ kind: 'invalid_field', field: 'id', message: 'The account has no owner to mail.' });
    const sentTo: string[] = [];
    for (const owner of owners) {
      const sent = await this.systemMail.send(messageFor(owner.email, payer, balance, this.d.config.billing.lowBalanceThreshold), log);
      if (!sent.ok) return refuse(sent.refusal);
      sentTo.push(owner.email);
    }
    log.info({ pool: payer.id, balance, owners: sentTo.length }, 'low-balance mail sent');
    return done({ sentTo, balance });
  }
}
