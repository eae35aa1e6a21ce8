// Reads a JSON request body with a size limit. A malformed or oversized body is a BodyError, which each
// interface's error mapper words in its own shape.
import type { IncomingMessage } from 'node:http';

export type BodyErrorCode = 'payload_too_large' | 'unsupported_media_type' | 'invalid_json';

/** Why a request body was refused, before any route saw it. */
export class BodyError extends Error {
  constructor(
    readonly code: BodyErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The body's bytes, refused past `limit` (as declared in `headers`, or as read). */
export async function readRawBody(req: AsyncIterable<Buffer>, headers: IncomingMessage['headers'], limit: number): Promise<Buffer> {
  const declared = Number(headers['content-length'] ?? 0);
  if (declared > limit) throw new BodyError('payload_too_large', `The request body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > limit) throw new BodyError('payload_too_large', `The request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = (await readRawBody(req as AsyncIterable<Buffer>, req.headers, limit)).toString('utf8');
  if (!text.trim()) return undefined;
  const type = String(req.headers['content-type'] ?? 'application/json').toLowerCase();
  if (!type.includes('json')) throw new BodyError('unsupported_media_type', 'The request body must be JSON (Content-Type: application/json)');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new BodyError('invalid_json', `The request body is not valid JSON: ${(err as Error).message}`);
  }
}
