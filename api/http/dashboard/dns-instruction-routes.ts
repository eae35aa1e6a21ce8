// The mailer namespace's /api/domains/{domain_hash}/send_dns_instruction: mails the domain's DNS records (the
// records its /v2 view shows) to whoever runs its zone, sent by Tern itself (core.dnsInstructions).
import { Type } from '@sinclair/typebox';
import { endpoint, IDENTIFIER, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';

type Route = DashboardRoute<DashboardCaller>;

const sendInstructions: Route = {
  namespace: 'tern/v2',
  path: '/api/domains/{domain_hash}/send_dns_instruction',
  vars: { domain_hash: IDENTIFIER },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'write',
      allowBatch: true,
      summary: "Emails the domain's DNS records to an address (rate-limited per domain and per recipient); 202 with the message id",
      args: Type.Object({
        domain_hash: Type.String({ description: 'The id of the domain (as /v2/domains gives it).', pattern: `^${IDENTIFIER}$` }),
        email: Type.String({ description: 'Who receives the records (the person who runs the zone).', minLength: 1, maxLength: 254 }),
      }),
      async handle({ ctx, user, params, log }) {
        const caller = signedIn(user);
        const requester = { name: caller.user.name, email: caller.user.email };
        const sent = valueOf(await ctx.core.dnsInstructions.send(caller.acting, params.domain_hash, params.email, requester, log));
        return { status: 202, body: { message_id: sent.messageId, to: sent.to, domain_hash: sent.domain.id, domain_name: sent.domain.name, queued: sent.queued } };
      },
    }),
  ],
};

export const dnsInstructionRoutes: readonly Route[] = [sendInstructions];
