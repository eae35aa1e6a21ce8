// Idempotency-Key on the sending routes: the group runs its handlers inside `idempotent`, which hands the key,
// the team acted on and the request's body to the core (core/sending/idempotency.ts: which replies are kept,
// where and how long) and translates its outcome: a replay with Idempotent-Replayed, or a sending error.
import { SendError } from '../../../shared/errors.js';
import type { IdempotencyRefusal } from '../../../shared/core/sending/idempotency.js';
import type { Call } from '../../pipeline/pipeline.js';
import type { GroupRoute, RouteResponse } from '../../pipeline/route.js';
import type { Sender } from './auth.js';
import { sendErrors } from './error-mapper.js';

const REFUSALS: Readonly<Record<IdempotencyRefusal, () => SendError>> = {
  key_too_long: () => new SendError(400, 'bad_request', 'Idempotency-Key is too long', { idempotency_key: { invalid: 'at most 255 characters' } }),
  other_request: () =>
    new SendError(409, 'conflict', 'This Idempotency-Key was used with another request body', {
      idempotency_key: { conflict: 'reuse a key only for the same request' },
    }),
  in_progress: () =>
    new SendError(409, 'conflict', 'A request with this Idempotency-Key is still being processed', { idempotency_key: { in_progress: 'retry shortly' } }),
};

/** The body as text for the idempotency record; a body nested beyond what JSON.stringify can walk is refused. */
function bodyText(raw: unknown): string {
  try {
    return JSON.stringify(raw ?? null);
  } catch {
    throw new SendError(422, 'validation_error', 'The request body is nested too deeply', { body: { invalid: 'the JSON body is nested too deeply' } });
  }
}

/** Runs `handler` once per Idempotency-Key, scoped to the team acted on (two teams never share a reply). */
export async function idempotent(call: Call<Sender, GroupRoute<Sender>>, handler: () => Promise<RouteResponse>): Promise<RouteResponse> {
  const key = call.req.headers['idempotency-key'];
  if (typeof key !== 'string' || !key) return handler();
  const idempotency = call.ctx.core.idempotency;
  const started = await idempotency.begin(call.caller.team.id, key, bodyText(call.body));
  if (started.kind === 'refused') throw REFUSALS[started.refusal]();
  if (started.kind === 'replay') return { ...started.reply, headers: { 'Idempotent-Replayed': 'true' } };
  // A failure is answered here, so that the core sees it and releases the key for a retry.
  const reply = await handler().then(
    (r) => ({ status: r.status ?? 200, body: r.body, headers: r.headers ?? {} }),
    (err: unknown) => sendErrors.answer(err, call.log),
  );
  // The message is committed by now: a keeper that fails here (a Redis failover, a database outage) costs the
  // remembered reply, never the answer. A retry with the key meets the reservation (409 until its hold ends) or,
  // once it lapsed or on a new Redis master, is sent again.
  await idempotency.finish(started.held, { status: reply.status, body: reply.body }).catch((err: Error) => {
    call.log.warn({ err: err.message, idempotency_key: key }, 'idempotency reply not stored');
  });
  return reply;
}
