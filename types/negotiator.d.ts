// negotiator 1.x's encoding choice as web/compression.ts uses it: @types/negotiator describes 0.6, without the
// `preferred` option that breaks a tie of equal quality in the server's order (Brotli before gzip).
declare module 'negotiator' {
  import type { IncomingHttpHeaders } from 'node:http';

  class Negotiator {
    constructor(request: { headers: IncomingHttpHeaders });
    /** The best of `available` the request accepts; undefined when it refuses them all (`*;q=0`). */
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
  export = Negotiator;
}
