// The admin interface's error mapper: every failure of an admin route, of the server's own answers (no such
// route, an undecodable path) and of a body, as {status_code, message, errors: {code, …}}. The one place an
// error becomes an admin reply; the refusals of the core are worded in refusal-errors.ts.
import { AdminError, adminError } from '../../shared/errors.js';
import { BodyError } from '../body.js';
import { errorMapper, type Answer } from '../pipeline.js';

const answerOf = (e: AdminError): Answer => ({ status: e.status, body: e.body(), headers: { ...e.headers } });

export const adminErrors = errorMapper({
  known(err) {
    if (err instanceof AdminError) return answerOf(err);
    if (err instanceof BodyError) return answerOf(adminError(err.code, err.message));
    return undefined;
  },
  unavailable: () => answerOf(adminError('unavailable', 'Temporarily unavailable; retry shortly')),
  internal: () => answerOf(adminError('internal_error', 'Internal error; it has been logged')),
});
