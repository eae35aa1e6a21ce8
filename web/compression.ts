// Which encoding an answer is sent in: Brotli or gzip when the browser says it takes it (Accept-Encoding), else
// none. Pages are compressed as they are sent; the static files once, when first read (web/assets.ts).
import type { IncomingMessage } from 'node:http';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip' | 'identity';

/** The encodings Accept-Encoding allows (a q=0 refuses one), Brotli first. */
export function encodingFor(req: IncomingMessage): Encoding {
  const header = req.headers['accept-encoding'];
  const offered = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name) offered.set(name, q ? Number(q.slice(2)) : 1);
  }
  const accepts = (name: string) => (offered.get(name) ?? offered.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return 'identity';
}

/** A page's HTML in the encoding chosen; a fast Brotli level, since each page is compressed once per request. */
export function compressed(text: string, encoding: Encoding): Buffer {
  const body = Buffer.from(text, 'utf8');
  if (encoding === 'br') return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  if (encoding === 'gzip') return gzipSync(body, { level: 6 });
  return body;
}
