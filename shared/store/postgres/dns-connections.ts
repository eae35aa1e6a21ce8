// DNS-provider connections of a team in PostgreSQL. The token is stored sealed (see secret-box). One connection
// per team and provider is the primary key's: a second save is the upsert's update, never a second row.
import type { PgSql } from './sql.js';
import { decodeConnection } from '../dns-connection-row.js';
import { nowIso } from '../../time.js';
import type { DnsConnection, DnsProviderName } from '../../domain/dns-connection.js';
import type { DnsConnectionRepository, NewDnsConnection } from '../dns-connections.js';

/** A new token replaces the old one; created_at keeps when the team first connected. */
const SAVE = `INSERT INTO dns_connections (team_id, provider, token_enc, token_last4, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
  ON CONFLICT (team_id, provider) DO UPDATE SET token_enc = excluded.token_enc, token_last4 = excluded.token_last4, updated_at = excluded.updated_at
  RETURNING *`;

export class PgDnsConnectionStore implements DnsConnectionRepository {
  constructor(private readonly sql: PgSql) {}

  async save(c: NewDnsConnection): Promise<DnsConnection> {
    const row = await this.sql.get(SAVE, [c.teamId, c.provider, c.tokenEnc, c.tokenLast4, nowIso()]);
    return decodeConnection(row!);
  }

  async get(teamId: number, provider: DnsProviderName): Promise<DnsConnection | undefined> {
    const row = await this.sql.get('SELECT * FROM dns_connections WHERE team_id = $1 AND provider = $2', [teamId, provider]);
    return row && decodeConnection(row);
  }

  async remove(teamId: number, provider: DnsProviderName): Promise<boolean> {
    return (await this.sql.run('DELETE FROM dns_connections WHERE team_id = $1 AND provider = $2', [teamId, provider])).changes === 1;
  }
}
