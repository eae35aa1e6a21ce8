// Reads a JSON request body with a size limit. Malformed or oversized bodies become clear admin errors.
import type { IncomingMessage } from 'node:http';
import { adminError } from '../shared/errors.js';

export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw adminError('payload_too_large', `The request body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw adminError('payload_too_large', `The request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return undefined;
  const type = String(req.headers['content-type'] ?? 'application/json').toLowerCase();
  if (!type.includes('json')) throw adminError('unsupported_media_type', 'The request body must be JSON (Content-Type: application/json)');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw adminError('invalid_json', `The request body is not valid JSON: ${(err as Error).message}`);
  }
}
