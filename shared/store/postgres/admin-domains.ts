// The operators' reads of every team's domains in PostgreSQL. A domain's number is domains.rowid, the identity
// column standing for SQLite's implicit rowid (stable: see docs/decisions.md, "Platform-admin reads"). Sending
// counts come from the day counters of recipients (recipient_counts, on its primary key: team, then day, the
// domain's key among them), never from the log.
import { Type } from '@sinclair/typebox';
import { ParamList, type PgSql } from './sql.js';
import { countOf, Int, rowDecoder, Text } from './decode.js';
import { decodeNumberedDomain } from '../domain-row.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import type { AdminDomainFilter, AdminDomainRepository, DomainSendingCounts, NumberedDomain } from '../admin-domains.js';
import type { SendingCounts } from '../admin-teams.js';
import { likeContains } from '../like.js';

const decodeCounts = rowDecoder('domain sending counts', Type.Object({ domain_key: Text, sent: Int, bounced: Int, complained: Int }), (r) => r);

/** A domain's counters by the status its messages ended in (pending, failed and suppressed are left out). */
const COUNTS = `SUM(CASE WHEN status = 'sent' THEN n ELSE 0 END) AS sent, SUM(CASE WHEN status = 'bounced' THEN n ELSE 0 END) AS bounced,
  SUM(CASE WHEN status = 'complained' THEN n ELSE 0 END) AS complained`;
const ENDED = "status IN ('sent', 'bounced', 'complained')";
const NONE: SendingCounts = { sent: 0, bounced: 0, complained: 0 };
const LIVE = 'deleted_at IS NULL';

function whereOf(f: AdminDomainFilter, params: ParamList): string {
  const terms = [LIVE];
  if (f.teamId !== undefined) terms.push(`team_id = ${params.add(f.teamId)}`);
  if (f.status !== undefined) terms.push(`verification_status = ${params.add(f.status)}`);
  // Names are stored lower-case; a part of one is matched literally.
  if (f.search !== undefined) terms.push(`name LIKE ${params.add(likeContains(f.search.toLowerCase()))} ESCAPE '\\'`);
  return terms.join(' AND ');
}

export class PgAdminDomainStore implements AdminDomainRepository {
  constructor(private readonly sql: PgSql) {}

  async list(filter: AdminDomainFilter, page: PageRequest): Promise<PageOf<NumberedDomain>> {
    const params = new ParamList();
    const where = whereOf(filter, params);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM domains WHERE ${where}`, params.values);
    const [limit, offset] = limitOffset(page);
    const rows = await this.sql.all(
      `SELECT rowid AS number, * FROM domains WHERE ${where} ORDER BY rowid LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
      params.values,
    );
    return { rows: rows.map(decodeNumberedDomain), total: countOf(total!) };
  }

  async get(number: number): Promise<NumberedDomain | undefined> {
    const row = await this.sql.get(`SELECT rowid AS number, * FROM domains WHERE rowid = $1 AND ${LIVE}`, [number]);
    return row && decodeNumberedDomain(row);
  }

  /**
   * Ranked by the window's total alone, each domain's read on the counters' primary key (its team, then the
   * days of the window), as the teams' ranking is; then the page's domains counted by status.
   */
  async sendingRanking(fromDay: string, page: PageRequest): Promise<PageOf<DomainSendingCounts>> {
    const [limit, offset] = limitOffset(page);
    const rows = await this.sql.all(
      `SELECT d.rowid AS number, d.* FROM domains d WHERE d.${LIVE}
       ORDER BY COALESCE((SELECT SUM(n) FROM recipient_counts c WHERE c.team_id = d.team_id AND c.day >= $1 AND c.domain_key = d.id AND ${ENDED}), 0) DESC, d.rowid
       LIMIT $2 OFFSET $3`,
      [fromDay, limit, offset],
    );
    const domains = rows.map(decodeNumberedDomain);
    const counts = await this.countsOf(domains, fromDay);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM domains WHERE ${LIVE}`);
    return { rows: domains.map((domain) => ({ domain, ...(counts.get(domain.id) ?? NONE) })), total: countOf(total!) };
  }

  /** The page's teams and domains each as one array parameter. */
  private async countsOf(domains: readonly NumberedDomain[], fromDay: string): Promise<Map<string, SendingCounts>> {
    if (!domains.length) return new Map();
    const rows = await this.sql.all(
      `SELECT domain_key, ${COUNTS} FROM recipient_counts
       WHERE team_id = ANY($1::bigint[]) AND day >= $2 AND domain_key = ANY($3::text[]) AND ${ENDED} GROUP BY domain_key`,
      [[...new Set(domains.map((d) => d.teamId))], fromDay, domains.map((d) => d.id)],
    );
    return new Map(rows.map(decodeCounts).map((c) => [c.domain_key, { sent: c.sent, bounced: c.bounced, complained: c.complained }]));
  }
}
