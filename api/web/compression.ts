// Which encoding an answer is sent in: Brotli or gzip when the browser says it takes it (Accept-Encoding), else
// none. Pages are compressed as they are sent; the static files once, when first read (web/assets.ts).
import type { IncomingMessage } from 'node:http';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import Negotiator from 'negotiator';

export type Encoding = 'br' | 'gzip' | 'identity';

const ENCODINGS: readonly Encoding[] = ['br', 'gzip', 'identity'];

/** The encoding Accept-Encoding prefers (negotiator; Brotli first on a tie), identity when it refuses both. */
export function encodingFor(req: IncomingMessage): Encoding {
  const chosen = new Negotiator(req).encoding(ENCODINGS, { preferred: ENCODINGS });
  return ENCODINGS.find((e) => e === chosen) ?? 'identity';
}

/** A page's HTML in the encoding chosen; a fast Brotli level, since each page is compressed once per request. */
export function compressed(text: string, encoding: Encoding): Buffer {
  const body = Buffer.from(text, 'utf8');
  if (encoding === 'br') return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  if (encoding === 'gzip') return gzipSync(body, { level: 6 });
  return body;
}
