// POST /v2/emails and POST /v2/emails/batch: the sending interface, with its own error shape
// ({status_code, error_type, message, errors: {field: {code: text}}}).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import { AdminError, SendError } from '../../shared/errors.js';
import { readJsonBody } from '../body.js';
import { isTransientFailure } from '../../shared/transient.js';
import type { AppContext } from '../context.js';
import { authenticateSender, type Sender } from './auth.js';
import { Idempotency, type StoredReply } from './idempotency.js';
import { admitSend, recordSend, sendOne, takeSendRate } from './send.js';
import { SendRequestSchema } from './request.js';

export const MAX_BATCH = 100;

type Reply = StoredReply & { headers?: Record<string, string> };

function errorReply(err: unknown, ctx: AppContext): Reply {
  if (err instanceof SendError) return { status: err.status, body: err.body(), headers: { ...err.headers } };
  if (err instanceof AdminError) {
    // Body-level failures (malformed JSON, too large) keep their status in the sending shape.
    const type = err.status === 413 ? 'payload_too_large' : 'bad_request';
    return { status: err.status, body: new SendError(err.status, type, err.message, { body: { [err.code]: err.message } }).body() };
  }
  if (isTransientFailure(err)) {
    ctx.log.warn({ err: (err as Error).message }, 'temporarily unavailable while sending');
    return { status: 503, body: new SendError(503, 'unavailable', 'Temporarily unavailable; retry shortly', {}).body(), headers: { 'Retry-After': '5' } };
  }
  ctx.log.error({ err }, 'unexpected error while sending');
  return { status: 500, body: new SendError(500, 'internal_error', 'Internal error; it has been logged', {}).body() };
}

async function one(ctx: AppContext, sender: Sender, item: unknown): Promise<Reply> {
  await takeSendRate(ctx, sender);
  return { status: 200, body: await sendOne(ctx, sender, item) };
}

function batchItems(body: unknown): unknown[] {
  const items = Array.isArray(body) ? body : (body as { emails?: unknown } | undefined)?.emails;
  if (!Array.isArray(items) || items.length === 0) {
    throw new SendError(422, 'validation_error', 'The batch must be a non-empty array of emails, or {"emails": [...]}', { emails: { required: 'give 1 to 100 emails' } });
  }
  if (items.length > MAX_BATCH) throw new SendError(422, 'validation_error', `A batch holds at most ${MAX_BATCH} emails`, { emails: { max_limit: `at most ${MAX_BATCH}` } });
  return items;
}

/**
 * Each item is validated and sent on its own; the answer lists, in order, a message_id or an error.
 * The whole batch is one request against the send rate: counting every item would refuse most of a
 * 100-email batch at the default rate, and a refusal is a 429 with Retry-After for the whole call.
 * Items are validated and composed side by side, then recorded in their order (they share one commit), so
 * that when credits run short the later items are the ones refused.
 */
async function batch(ctx: AppContext, sender: Sender, body: unknown): Promise<Reply> {
  const items = batchItems(body);
  await takeSendRate(ctx, sender);
  const admitted = await Promise.allSettled(items.map((item) => admitSend(ctx, sender, item)));
  // Recorded in item order: each recordSend hands its message to the store before the next one starts.
  const recorded = await Promise.allSettled(admitted.map((s) => (s.status === 'fulfilled' ? recordSend(ctx, s.value) : Promise.reject(s.reason))));
  // Even an unexpected failure stays with its item: earlier items are already queued, and failing the whole
  // call would make the client resend them.
  const data = recorded.map((r) => (r.status === 'fulfilled' ? r.value : { error: errorReply(r.reason, ctx).body }));
  return { status: 200, body: { data } };
}

/** The body as text for the idempotency record; a body nested beyond what JSON.stringify can walk is refused. */
function bodyText(raw: unknown): string {
  try {
    return JSON.stringify(raw ?? null);
  } catch {
    throw new SendError(422, 'validation_error', 'The request body is nested too deeply', { body: { invalid: 'the JSON body is nested too deeply' } });
  }
}

/** Runs `work` once per Idempotency-Key, scoped to the team acted on (two teams never share a reply). */
async function idempotent(ctx: AppContext, req: IncomingMessage, sender: Sender, raw: unknown, work: () => Promise<Reply>): Promise<Reply> {
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string' || !key) return work();
  const idem = new Idempotency(ctx.redis);
  const text = bodyText(raw);
  const started = await idem.begin(sender.team.id, key, text);
  if ('replay' in started) return { ...started.replay, headers: { 'Idempotent-Replayed': 'true' } };
  const reply = await work().catch((err: unknown) => errorReply(err, ctx));
  await idem.finish(sender.team.id, key, text, reply);
  return reply;
}

async function handle(ctx: AppContext, req: IncomingMessage, work: (sender: Sender, body: unknown) => Promise<Reply>): Promise<Reply> {
  let teamId: number | undefined;
  try {
    const raw = await readJsonBody(req, ctx.config.api.sendBodyLimitBytes);
    const sender = await authenticateSender(ctx, req, raw);
    teamId = sender.team.id;
    return withTeam(await idempotent(ctx, req, sender, raw, () => work(sender, raw)), teamId);
  } catch (err) {
    return withTeam(errorReply(err, ctx), teamId);
  }
}

/** Like every response of the interface, a send echoes X-Account-Id with the team acted on, once known. */
function withTeam(reply: Reply, teamId: number | undefined): Reply {
  return teamId === undefined ? reply : { ...reply, headers: { ...reply.headers, 'X-Account-Id': String(teamId) } };
}

export function sendingHandler(ctx: AppContext, kind: 'one' | 'batch') {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const reply = await handle(ctx, req, (sender, body) => (kind === 'one' ? one(ctx, sender, body) : batch(ctx, sender, body)));
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store', ...reply.headers });
    res.end(text);
  };
}

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
