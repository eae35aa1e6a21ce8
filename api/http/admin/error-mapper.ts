// The admin interface's error mapper: every failure of an admin route, of the server's own answers (no such
// route, an undecodable path), of a body and of validation, as {status_code, message, errors: {code, …}}. The one place an
// error becomes an admin reply; the refusals of the core are worded in refusal-errors.ts.
import { AdminError, adminError } from '../../../shared/errors.js';
import { BodyError } from '../../pipeline/body.js';
import { errorMapper, InvalidInput, type Answer } from '../../pipeline/pipeline.js';
import { adminValidationError } from './validation-errors.js';

const answerOf = (e: AdminError): Answer => ({ status: e.status, body: e.body(), headers: { ...e.headers } });

export const adminErrors = errorMapper({
  known(err) {
    if (err instanceof AdminError) return answerOf(err);
    if (err instanceof BodyError) return answerOf(adminError(err.code, err.message));
    if (err instanceof InvalidInput) return answerOf(adminValidationError(err.where, err.problem, err.codes));
    return undefined;
  },
  unavailable: () => answerOf(adminError('unavailable', 'Temporarily unavailable; retry shortly')),
  internal: () => answerOf(adminError('internal_error', 'Internal error; it has been logged')),
});
