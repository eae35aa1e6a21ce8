// The operators' reads of every team's domains in SQLite. A domain's number is its rowid (stable: see
// docs/decisions.md, "Platform-admin reads"). Sending counts come from the day counters of recipients (recipient_counts, on its
// primary key: team, then day, the domain's key among them), never from the log.
import { Type } from '@sinclair/typebox';
import type { Sql, SqlValue } from './sql.js';
import { countOf, Int, rowDecoder, Text } from './decode.js';
import { inList } from './point-reads.js';
import { limitOffset, type PageOf, type PageRequest } from '../paging.js';
import { decodeNumberedDomain as numbered } from '../domain-row.js';
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

function whereOf(f: AdminDomainFilter): [string, SqlValue[]] {
  const terms = [LIVE];
  const params: SqlValue[] = [];
  const add = (term: string, value: SqlValue) => {
    terms.push(term);
    params.push(value);
  };
  if (f.teamId !== undefined) add('team_id = ?', f.teamId);
  if (f.status !== undefined) add('verification_status = ?', f.status);
  // Names are stored lower-case; a part of one is matched literally.
  if (f.search !== undefined) add("name LIKE ? ESCAPE '\\'", likeContains(f.search.toLowerCase()));
  return [terms.join(' AND '), params];
}

export class AdminDomainStore implements AdminDomainRepository {
  constructor(private readonly sql: Sql) {}

  async list(filter: AdminDomainFilter, page: PageRequest): Promise<PageOf<NumberedDomain>> {
    const [where, params] = whereOf(filter);
    // By rowid: the table's own order, or domains_by_team for one team; a name part reads the (small) table.
    const rows = await this.sql.all(`SELECT rowid AS number, * FROM domains WHERE ${where} ORDER BY rowid LIMIT ? OFFSET ?`, [...params, ...limitOffset(page)]);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM domains WHERE ${where}`, params);
    return { rows: rows.map(numbered), total: countOf(total!) };
  }

  async get(number: number): Promise<NumberedDomain | undefined> {
    const row = await this.sql.get(`SELECT rowid AS number, * FROM domains WHERE rowid = ? AND ${LIVE}`, [number]);
    return row && numbered(row);
  }

  /**
   * Ranked by the window's total alone, each domain's read on the counters' primary key (its team, then the
   * days of the window), as the teams' ranking is; then the page's domains counted by status.
   */
  async sendingRanking(fromDay: string, page: PageRequest): Promise<PageOf<DomainSendingCounts>> {
    const rows = await this.sql.all(
      `SELECT d.rowid AS number, d.* FROM domains d WHERE d.${LIVE}
       ORDER BY COALESCE((SELECT SUM(n) FROM recipient_counts c WHERE c.team_id = d.team_id AND c.day >= ? AND c.domain_key = d.id AND ${ENDED}), 0) DESC, d.rowid
       LIMIT ? OFFSET ?`,
      [fromDay, ...limitOffset(page)],
    );
    const domains = rows.map(numbered);
    const counts = await this.countsOf(domains, fromDay);
    const total = await this.sql.get(`SELECT COUNT(*) AS n FROM domains WHERE ${LIVE}`);
    return { rows: domains.map((domain) => ({ domain, ...(counts.get(domain.id) ?? NONE) })), total: countOf(total!) };
  }

  private async countsOf(domains: readonly NumberedDomain[], fromDay: string): Promise<Map<string, SendingCounts>> {
    if (!domains.length) return new Map();
    const teams = inList([...new Set(domains.map((d) => d.teamId))]);
    const keys = inList(domains.map((d) => d.id));
    const rows = await this.sql.all(
      `SELECT domain_key, ${COUNTS} FROM recipient_counts WHERE team_id IN ${teams.sql} AND day >= ? AND domain_key IN ${keys.sql} AND ${ENDED} GROUP BY domain_key`,
      [...teams.params, fromDay, ...keys.params],
    );
    return new Map(rows.map(decodeCounts).map((c) => [c.domain_key, { sent: c.sent, bounced: c.bounced, complained: c.complained }]));
  }
}
