// Emailing a domain's DNS records to the person who runs its zone: the records the domain view shows (the
// same as GET /v2/domains/{id}), sent by Tern itself as system mail, at most
// systemMail.dnsInstructionsPerDomainPerHour per domain (and the system mail's own limit per recipient).
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Team } from '../domain/team.js';
import type { Domain } from '../domain/sending-domain.js';
import type { DnsRecord } from '../dns-records.js';
import { isValidEmail } from '../email-address.js';
import { hitWindow } from '../rate-limit.js';
import { redisKeys } from '../redis-keys.js';
import { done, refuse, type Managed } from './management-refusals.js';
import type { DomainManagement } from './domains.js';
import type { SentSystemMail, SystemMail, SystemMessage } from './system-mail.js';

export interface DnsInstructionsSent extends SentSystemMail {
  to: string;
  domain: Domain;
}

/** Who asked, named in the message so its reader knows why it came. */
export interface Requester {
  name: string;
  email: string;
}

const HOUR_S = 3600;

/** A record with the name to type into the zone: relative to the domain, and in full. */
const rows = (domain: Domain, records: readonly DnsRecord[]) =>
  records.map((r) => ({ type: r.type, name: r.name, fullName: `${r.name}.${domain.name}`, content: r.content, priority: r.priority }));

/** The records as the mail lists them, one block each: its type, its full name (and the name in the zone), its
 * priority when it has one, its value. */
function recordsText(records: ReturnType<typeof rows>): string {
  return records
    .map((r, i) =>
      [
        `${i + 1}. ${r.type} record`,
        `   Name:    ${r.fullName}  (in the zone: ${r.name})`,
        ...(r.priority ? [`   Priority: ${r.priority}`] : []),
        `   Value:   ${r.content}`,
      ].join('\n'),
    )
    .join('\n\n');
}

export class DnsInstructions {
  constructor(
    private readonly d: { config: Config; redis: Redis },
    private readonly domains: DomainManagement,
    private readonly mail: SystemMail,
  ) {}

  /** The message carrying a domain's records, as it is sent. */
  message(domain: Domain, requester: Requester, to: string): Promise<SystemMessage> {
    const records = this.domains.dnsRecords(domain);
    return this.mail.composeRequired('dns_instructions', to, {
      'dns.records': recordsText(rows(domain, [records.dkim, ...records.spf])),
      'domain.name': domain.name,
      'requester.name': requester.name ? `${requester.name} (${requester.email})` : requester.email,
    });
  }

  async send(team: Team, domainId: string, to: string, requester: Requester, log: Logger): Promise<Managed<DnsInstructionsSent>> {
    if (!isValidEmail(to)) return refuse({ kind: 'invalid_field', field: 'email', message: 'email must be an email address (local@domain)' });
    const found = await this.domains.get(team, domainId);
    if (!found.ok) return found;
    const domain = found.value;
    const unavailable = this.domains.recordsUnavailable();
    if (unavailable !== null) return refuse({ kind: 'forbidden', message: unavailable });
    // Checked before the domain's window counts a request that could not be sent anyway.
    const sender = await this.mail.sender();
    if (!sender.ok) return sender;
    const limit = this.d.config.systemMail.dnsInstructionsPerDomainPerHour;
    const rate = await hitWindow(this.d.redis, redisKeys.systemMail('domain', domain.id), limit, HOUR_S);
    if (!rate.allowed) {
      return refuse({ kind: 'rate_limited', message: `At most ${limit} DNS instruction messages per domain in an hour; try again later.`, retryAfterS: rate.resetS });
    }
    const sent = await this.mail.sendAs(sender.value, await this.message(domain, requester, to), log);
    if (!sent.ok) return sent;
    log.info({ domain: domain.id, team: team.id, msg_id: sent.value.messageId }, 'DNS instructions sent');
    return done({ ...sent.value, to, domain });
  }
}
