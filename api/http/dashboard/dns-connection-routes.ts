// The mailer namespace's DNS-provider connection, /api-keys/verify-connect/cloudflare: status (GET), connect
// with an API token (POST), publish a domain's records in its zone (PUT or PATCH), disconnect (DELETE), on
// core.dnsConnections; its refusals become dashboard errors in one table (api/pipeline/dns-errors.ts).
import { Type } from '@sinclair/typebox';
import { endpoint, IDENTIFIER, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { dnsErrorFor } from '../../pipeline/dns-errors.js';
import type { DnsConnectionStatus, DnsOutcome, PublishedRecords } from '../../../shared/core/dns-connection.js';

type Route = DashboardRoute<DashboardCaller>;

function outcome<T>(o: DnsOutcome<T>): T {
  if (!o.ok) throw dnsErrorFor(o.refusal);
  return o.value;
}

const statusView = (s: DnsConnectionStatus) =>
  s.connected
    ? {
        provider: s.provider,
        connected: true,
        connected_since: s.connectedSince,
        token_updated_at: s.tokenUpdatedAt,
        token_last4: s.tokenLast4,
        zones: s.zones,
        zones_problem: s.zonesProblem,
      }
    : { provider: s.provider, connected: false };

const publishedView = (p: PublishedRecords) => ({ provider: p.provider, domain: p.domain, zone: p.zone, records: p.records });

const cloudflare: Route = {
  namespace: 'tern/v2',
  path: '/api-keys/verify-connect/cloudflare',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: "The team's Cloudflare connection: connected or not, the token's last 4 characters, the zones it sees",
      args: Type.Object({}),
      async handle({ ctx, user }) {
        return { body: statusView(await ctx.core.dnsConnections.status(signedIn(user).acting, 'cloudflare')) };
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'write',
      summary: 'Connects Cloudflare with an API token (checked with Cloudflare first, stored encrypted, never shown again)',
      args: Type.Object({ api_token: Type.String({ description: 'A Cloudflare API token that may edit the zone DNS.', minLength: 1, maxLength: 512 }) }),
      async handle({ ctx, user, params, log }) {
        return { body: statusView(outcome(await ctx.core.dnsConnections.connect(signedIn(user).acting, 'cloudflare', params.api_token, log))) };
      },
    }),
    endpoint({
      methods: ['PUT', 'PATCH'],
      permission: 'write',
      summary: "Creates or updates the domain's DKIM, return-path MX and SPF records in its Cloudflare zone (running it again changes nothing)",
      args: Type.Object({ domain: Type.String({ description: 'The id of a domain of the team.', pattern: `^${IDENTIFIER}$` }) }),
      async handle({ ctx, user, params, log }) {
        return { body: publishedView(outcome(await ctx.core.dnsConnections.publish(signedIn(user).acting, 'cloudflare', params.domain, log))) };
      },
    }),
    endpoint({
      methods: ['DELETE'],
      permission: 'write',
      summary: 'Forgets the Cloudflare token; the records already published stay in the zone',
      args: Type.Object({}),
      async handle({ ctx, user, log }) {
        outcome(await ctx.core.dnsConnections.disconnect(signedIn(user).acting, 'cloudflare', log));
        return { body: { deleted: true, provider: 'cloudflare' } };
      },
    }),
  ],
};

export const dnsConnectionRoutes: readonly Route[] = [cloudflare];
