// Emailing a domain's DNS records to the person who runs its zone: the records the domain view shows (the
// same as GET /v2/domains/{id}), sent by Tern itself as system mail, at most
// systemMail.dnsInstructionsPerDomainPerHour per domain (and the system mail's own limit per recipient).
import escapeHtml from 'escape-html';
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

function textOf(domain: Domain, requester: Requester, records: ReturnType<typeof rows>): string {
  const by = requester.name ? `${requester.name} (${requester.email})` : requester.email;
  const lines = records.map((r, i) =>
    [
      `${i + 1}. ${r.type} record`,
      `   Name:    ${r.fullName}  (in the zone: ${r.name})`,
      ...(r.priority ? [`   Priority: ${r.priority}`] : []),
      `   Value:   ${r.content}`,
    ].join('\n'),
  );
  return [
    'Hello,',
    '',
    `${by} asked Tern to send you the DNS records that let ${domain.name} send mail through Tern.`,
    `Please add these records to the DNS zone of ${domain.name}:`,
    '',
    lines.join('\n\n'),
    '',
    'Once they are published, Tern finds them and verifies the domain on its own.',
    '',
  ].join('\n');
}

function htmlOf(domain: Domain, requester: Requester, records: ReturnType<typeof rows>): string {
  const e = escapeHtml;
  const by = requester.name ? `${e(requester.name)} (${e(requester.email)})` : e(requester.email);
  const cells = records
    .map((r) => `<tr><td>${e(r.type)}</td><td><code>${e(r.fullName)}</code></td><td>${e(r.priority)}</td><td><code>${e(r.content)}</code></td></tr>`)
    .join('\n');
  return [
    '<!doctype html><html><body>',
    '<p>Hello,</p>',
    `<p>${by} asked Tern to send you the DNS records that let <b>${e(domain.name)}</b> send mail through Tern.`,
    `Please add these records to the DNS zone of ${e(domain.name)}:</p>`,
    '<table border="1" cellpadding="4" cellspacing="0"><tr><th>Type</th><th>Name</th><th>Priority</th><th>Value</th></tr>',
    cells,
    '</table>',
    '<p>Once they are published, Tern finds them and verifies the domain on its own.</p>',
    '</body></html>',
  ].join('\n');
}

export class DnsInstructions {
  constructor(
    private readonly d: { config: Config; redis: Redis },
    private readonly domains: DomainManagement,
    private readonly mail: SystemMail,
  ) {}

  /** The message carrying a domain's records, as it is sent. */
  message(domain: Domain, requester: Requester, to: string): SystemMessage {
    const records = this.domains.dnsRecords(domain);
    const list = rows(domain, [records.dkim, ...records.spf]);
    return { to, subject: `DNS records for ${domain.name}`, text: textOf(domain, requester, list), html: htmlOf(domain, requester, list) };
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
    const sent = await this.mail.sendAs(sender.value, this.message(domain, requester, to), log);
    if (!sent.ok) return sent;
    log.info({ domain: domain.id, team: team.id, msg_id: sent.value.messageId }, 'DNS instructions sent');
    return done({ ...sent.value, to, domain });
  }
}
