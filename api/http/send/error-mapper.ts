// The sending interface's error mapper: every failure of POST /v2/emails and /v2/emails/batch, whole
// requests and batch items alike, as {status_code, error_type, message, errors: {field: {code: text}}}. The
// one place an error becomes a sending reply; the refusals of the core are worded in refusal-errors.ts.
import { SendError, type SendErrorType } from '../../../shared/errors.js';
import { BodyError, type BodyErrorCode } from '../../pipeline/body.js';
import { errorMapper, type Answer } from '../../pipeline/pipeline.js';

const answerOf = (e: SendError): Answer => ({ status: e.status, body: e.body(), headers: { ...e.headers } });

/** A refused body keeps its HTTP status; the error type is the sending table's nearest one. */
const BODY_ERRORS: Readonly<Record<BodyErrorCode, [status: number, type: SendErrorType]>> = {
  payload_too_large: [413, 'payload_too_large'],
  unsupported_media_type: [415, 'bad_request'],
  invalid_json: [400, 'bad_request'],
};

export const sendErrors = errorMapper({
  known(err) {
    if (err instanceof SendError) return answerOf(err);
    if (err instanceof BodyError) {
      const [status, type] = BODY_ERRORS[err.code];
      return answerOf(new SendError(status, type, err.message, { body: { [err.code]: err.message } }));
    }
    return undefined;
  },
  unavailable: () => answerOf(new SendError(503, 'unavailable', 'Temporarily unavailable; retry shortly', {})),
  internal: () => answerOf(new SendError(500, 'internal_error', 'Internal error; it has been logged', {})),
});
