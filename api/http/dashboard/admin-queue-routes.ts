// The platform's queue routes (tern/v2 /admin/queue…), for platform operators only: what `ternmail queue` does
// on the host, over HTTP — the recipients in the queue chosen by team, destination, state, age or message,
// summed by destination, and the holds, releases, flushes and purges (each recorded in the audit log). The rules
// are core.queueControl's; a change with no selector is refused unless it says `all`.
import { Type, type Static } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { oneOf } from './collection.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { IN_QUEUE, REQUEUEABLE } from '../../../shared/domain/queue-state.js';
import { LIST_DEFAULT, LIST_MAX, type ChangedRecipient, type QueueActor, type QueueSelection } from '../../../shared/core/queue-control.js';
import { destinationView, queuedRecipientView } from '../../../shared/core/presenters.js';

type Route = DashboardRoute<DashboardCaller>;

const selectors = {
  team_id: Type.Optional(Type.Integer({ description: 'Only recipients of this account or team.', minimum: 1 })),
  domain: Type.Optional(Type.String({ description: 'Only recipients at this destination domain.', minLength: 1, maxLength: 253 })),
  state: Type.Optional(oneOf(IN_QUEUE, { description: 'Only recipients in this state.' })),
  older_than: Type.Optional(Type.String({ description: 'Only recipients queued longer ago than this: 90s, 15m, 1h, 2d.', minLength: 2, maxLength: 10 })),
  message_id: Type.Optional(Type.String({ description: 'Only the recipients of this message.', minLength: 1, maxLength: 200 })),
};
const SelectorArgs = Type.Object(selectors);

const changeArgs = {
  ...selectors,
  all: Type.Optional(Type.Boolean({ description: 'Apply to the whole queue (the states the action applies to); required when no selector is given.', default: false })),
  reason: Type.Optional(Type.String({ description: 'Why: one line, kept in the audit log.', minLength: 1, maxLength: 500 })),
};

const selectionOf = (p: Static<typeof SelectorArgs> & { all?: boolean }): QueueSelection => ({
  teamId: p.team_id,
  domain: p.domain,
  state: p.state,
  olderThan: p.older_than,
  messageId: p.message_id,
  all: p.all,
});

/** The operator signed in, as the queue's audit entries name it. */
const actorOf = (user: DashboardCaller | undefined): QueueActor => ({ kind: 'operator', operator: operatorOf(user).user });

const changedView = (recipients: readonly ChangedRecipient[]) => recipients.map((r) => ({ recipient_id: r.id, message_id: r.messageId }));

const list: Route = {
  namespace: 'tern/v2',
  path: '/admin/queue',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'The recipients in the queue (operators), oldest first: state, attempts, next attempt, last reply; chosen by team, destination, state, age or message',
      args: Type.Object({
        ...selectors,
        limit: Type.Integer({ description: `At most this many recipients (1 to ${LIST_MAX}).`, default: LIST_DEFAULT, minimum: 1, maximum: LIST_MAX }),
      }),
      async handle({ ctx, user, params }) {
        operatorOf(user);
        return { body: valueOf(await ctx.core.queueControl.list(selectionOf(params), params.limit)).map(queuedRecipientView) };
      },
    }),
  ],
};

const summary: Route = {
  namespace: 'tern/v2',
  path: '/admin/queue/summary',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'The queue by destination domain (operators), the largest first: counts by state, the oldest, the last temporary error',
      args: SelectorArgs,
      async handle({ ctx, user, params }) {
        operatorOf(user);
        return { body: valueOf(await ctx.core.queueControl.summary(selectionOf(params))).map(destinationView) };
      },
    }),
  ],
};

/** hold, release and flush: the same arguments, the same answer. */
function simpleChange(action: 'hold' | 'release' | 'flush', summaryText: string): Route {
  return {
    namespace: 'tern/v2',
    path: `/admin/queue/${action}`,
    endpoints: [
      endpoint({
        methods: ['POST'],
        permission: 'operator',
        // An operator's change counts against no account's write bucket (see authentication.ts accountOf).
        rate: null,
        summary: summaryText,
        args: Type.Object(changeArgs),
        async handle({ ctx, user, params }) {
          const change = valueOf(await ctx.core.queueControl[action](actorOf(user), selectionOf(params), params.reason ?? ''));
          return { body: { changed: change.changed, recipients: changedView(change.recipients) } };
        },
      }),
    ],
  };
}

const purge: Route = {
  namespace: 'tern/v2',
  path: '/admin/queue/purge',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      rate: null,
      summary:
        'Ends the chosen recipients not being attempted (queued, deferred, held) as failed with a reason, refunds their credits; soft-bounce webhooks only with notify (operators, audited)',
      args: Type.Object({
        ...changeArgs,
        reason: Type.String({ description: 'Why: one line, kept in the audit log and in each recipient’s log.', minLength: 1, maxLength: 500 }),
        notify: Type.Boolean({ description: 'Report each purged recipient to the team’s webhooks as a soft bounce.', default: false }),
      }),
      async handle({ ctx, user, params }) {
        const change = valueOf(await ctx.core.queueControl.purge(actorOf(user), selectionOf(params), params.reason, params.notify));
        return { body: { changed: change.changed, finished: change.finished, notified: change.notified, recipients: changedView(change.recipients) } };
      },
    }),
  ],
};

const requeue: Route = {
  namespace: 'tern/v2',
  path: '/admin/queue/requeue',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      rate: null,
      summary:
        'Sends the chosen bounced or failed recipients again as new attempts, paid for again, while their message’s body is kept; never a suppressed address (operators, audited)',
      args: Type.Object({ ...changeArgs, state: Type.Optional(oneOf(REQUEUEABLE, { description: 'Only recipients that ended in this state.' })) }),
      async handle({ ctx, user, params }) {
        const change = valueOf(await ctx.core.queueControl.requeue(actorOf(user), selectionOf(params), params.reason ?? ''));
        const suppressed = change.suppressed.map((r) => ({ recipient_id: r.id, message_id: r.messageId, email: r.email }));
        return { body: { changed: change.changed, recipients: changedView(change.recipients), suppressed } };
      },
    }),
  ],
};

export const adminQueueRoutes: readonly Route[] = [
  list,
  summary,
  simpleChange('hold', 'Holds the chosen waiting recipients (queued, deferred): never attempted, never expired until released (operators, audited)'),
  simpleChange('release', 'Releases the chosen held recipients, due now; the time held does not count toward the max queue age (operators, audited)'),
  simpleChange('flush', 'Makes the chosen waiting recipients due now (operators, audited)'),
  purge,
  requeue,
];
