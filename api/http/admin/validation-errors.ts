// How /v2 words a request that failed validation: a 422 `validation_failed` (or the field's own code) naming
// the first wrong field, `{field}` in errors. The one place a validation problem becomes an admin error.
import { adminError, type AdminError, type AdminErrorCode } from '../../../shared/errors.js';
import type { InputPart, InputProblem } from '../../pipeline/validate.js';

function describe(problem: InputProblem, field: string, where: InputPart): string {
  if (problem.keyword === 'required') return `${field} is required`;
  if (problem.keyword === 'additionalProperties') return `${field} is not a known field`;
  if (!field) return `The ${where} ${problem.text}`;
  return `${field} ${problem.text}`;
}

/**
 * The admin error for a problem in one part of the request; `problem` undefined means the body was left out.
 * A route may give some top-level fields their own code (an unsupported webhook event, an invalid url).
 */
export function adminValidationError(where: InputPart, problem: InputProblem | undefined, codes: Readonly<Record<string, AdminErrorCode>> = {}): AdminError {
  if (!problem) return adminError('validation_failed', 'A JSON request body is required', { field: 'body' });
  const path = problem.path.join('.');
  const field = path || where;
  // Own keys only: a field named __proto__ or constructor must not pick up Object.prototype's members.
  const top = field.split('.')[0]!;
  const code = Object.hasOwn(codes, top) ? codes[top]! : 'validation_failed';
  return adminError(code, describe(problem, path, where), { field });
}
