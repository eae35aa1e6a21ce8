// POST /v2/emails and POST /v2/emails/batch: the routes of the sending group, with its own error shape
// ({status_code, error_type, message, errors: {field: {code: text}}}).
import { Type } from '@sinclair/typebox';
import { SendError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import type { AppContext } from '../../pipeline/context.js';
import type { GroupRoute, RouteResponse } from '../../pipeline/route.js';
import type { Sender } from './auth.js';
import { sendErrors } from './error-mapper.js';
import { admitSend, recordSend, sendOne, takeSendRate } from './send.js';
import { SendRequestSchema } from './request.js';

export const MAX_BATCH = 100;

async function one(ctx: AppContext, sender: Sender, item: unknown, log: Logger): Promise<RouteResponse> {
  await takeSendRate(ctx, sender);
  return { status: 200, body: await sendOne(ctx, sender, item, log) };
}

function batchItems(body: unknown): unknown[] {
  const items = Array.isArray(body) ? body : (body as { emails?: unknown } | undefined)?.emails;
  if (!Array.isArray(items) || items.length === 0) {
    throw new SendError(422, 'validation_error', 'The batch must be a non-empty array of emails, or {"emails": [...]}', { emails: { required: 'give 1 to 100 emails' } });
  }
  if (items.length > MAX_BATCH)
    throw new SendError(422, 'validation_error', `A batch holds at most ${MAX_BATCH} emails`, { emails: { max_limit: `at most ${MAX_BATCH}` } });
  return items;
}

/**
 * Each item is validated and sent on its own; the answer lists, in order, a message_id or an error.
 * The whole batch is one request against the send rate: counting every item would refuse most of a
 * 100-email batch at the default rate, and a refusal is a 429 with Retry-After for the whole call.
 * Items are validated and composed side by side, then recorded in their order (they share one commit), so
 * that when credits run short the later items are the ones refused.
 */
async function batch(ctx: AppContext, sender: Sender, body: unknown, log: Logger): Promise<RouteResponse> {
  const items = batchItems(body);
  await takeSendRate(ctx, sender);
  const admitted = await Promise.allSettled(items.map((item) => admitSend(ctx, sender, item)));
  // Recorded in item order: each recordSend hands its message to the store before the next one starts.
  const recorded = await Promise.allSettled(
    admitted.map(async (s) => {
      // An item refused while being admitted keeps its refusal; recordSend starts synchronously, in item order.
      if (s.status === 'rejected') throw s.reason;
      return recordSend(ctx, s.value, log);
    }),
  );
  // Even an unexpected failure stays with its item: earlier items are already queued, and failing the whole
  // call would make the client resend them.
  const data = recorded.map((r) => (r.status === 'fulfilled' ? r.value : { error: sendErrors.answer(r.reason, log).body }));
  return { status: 200, body: { data } };
}

/** The sending group's routes; the body is the raw JSON, validated item by item in the sending shape. */
export const sendRoutes: ReadonlyArray<GroupRoute<Sender>> = [
  { method: 'POST', path: '/v2/emails', handle: ({ ctx, caller, body, log }) => one(ctx, caller, body, log) },
  { method: 'POST', path: '/v2/emails/batch', handle: ({ ctx, caller, body, log }) => batch(ctx, caller, body, log) },
];

const SendErrorBody = Type.Object({
  status_code: Type.Integer(),
  error_type: Type.String(),
  message: Type.String(),
  errors: Type.Record(Type.String(), Type.Record(Type.String(), Type.String())),
});

/** The two sending operations, for the OpenAPI document. */
export const sendingDocs = {
  request: SendRequestSchema,
  batchRequest: Type.Union([Type.Array(SendRequestSchema, { maxItems: MAX_BATCH }), Type.Object({ emails: Type.Array(SendRequestSchema, { maxItems: MAX_BATCH }) })]),
  response: Type.Object({ message_id: Type.String() }),
  batchResponse: Type.Object({ data: Type.Array(Type.Union([Type.Object({ message_id: Type.String() }), Type.Object({ error: SendErrorBody })])) }),
  error: SendErrorBody,
};
