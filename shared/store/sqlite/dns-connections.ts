// DNS-provider connections of a team in SQLite. The token is stored sealed (see secret-box).
import type { Sql } from './sql.js';
import { decodeConnection } from '../dns-connection-row.js';
import { nowIso } from '../../time.js';
import type { DnsConnection, DnsProviderName } from '../../domain/dns-connection.js';
import type { DnsConnectionRepository, NewDnsConnection } from '../dns-connections.js';

export class DnsConnectionStore implements DnsConnectionRepository {
  constructor(private readonly sql: Sql) {}

  async save(c: NewDnsConnection): Promise<DnsConnection> {
    const now = nowIso();
    const [row] = await this.sql.returning(
      `INSERT INTO dns_connections (team_id, provider, token_enc, token_last4, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, provider) DO UPDATE SET token_enc = excluded.token_enc, token_last4 = excluded.token_last4, updated_at = excluded.updated_at
       RETURNING *`,
      [c.teamId, c.provider, c.tokenEnc, c.tokenLast4, now, now],
    );
    return decodeConnection(row!);
  }

  async get(teamId: number, provider: DnsProviderName): Promise<DnsConnection | undefined> {
    const row = await this.sql.get('SELECT * FROM dns_connections WHERE team_id = ? AND provider = ?', [teamId, provider]);
    return row && decodeConnection(row);
  }

  async remove(teamId: number, provider: DnsProviderName): Promise<boolean> {
    return (await this.sql.run('DELETE FROM dns_connections WHERE team_id = ? AND provider = ?', [teamId, provider])).changes === 1;
  }
}
