// The sending operations of the OpenAPI document (their error shape differs from the admin one).
import type { TSchema } from '@sinclair/typebox';
import { sendingDocs } from './routes.js';

const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

const errorContent = { 'application/json': { schema: plain(sendingDocs.error) } };

function operation(summary: string, operationId: string, request: TSchema, response: TSchema): Record<string, unknown> {
  return {
    operationId,
    summary,
    tags: ['Sending'],
    security: [{ sendingKey: [] }, { adminKey: [] }],
    'x-required-scopes': ['emails:send'],
    parameters: [
      { name: 'X-Account-Id', in: 'header', required: false, description: 'With an admin key: the team to send as', schema: { type: 'integer', minimum: 1 } },
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Same key and body within 24 h: the first response, nothing sent again',
        schema: { type: 'string', maxLength: 255 },
      },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: plain(request) } } },
    responses: {
      200: { description: 'Accepted (durably queued)', content: { 'application/json': { schema: plain(response) } } },
      401: { description: 'api_key.required', content: errorContent },
      403: { description: 'api_key.invalid, account.insufficient_balance, account.suspended', content: errorContent },
      409: { description: 'Idempotency-Key reused with another body', content: errorContent },
      422: { description: 'Validation: from.domain_not_verified, from.domain_not_allowed, subject.required, content.required, to.max_limit, …', content: errorContent },
      429: { description: 'account.limit_per_second exceeded', content: errorContent },
    },
  };
}

export function sendingPaths(): Record<string, Record<string, unknown>> {
  return {
    '/v2/emails': { post: operation('Send one email', 'postEmails', sendingDocs.request, sendingDocs.response) },
    '/v2/emails/batch': {
      post: operation('Send up to 100 emails; each is validated on its own', 'postEmailsBatch', sendingDocs.batchRequest, sendingDocs.batchResponse),
    },
  };
}
