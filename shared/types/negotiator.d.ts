// negotiator 1.x's encoding and media type choices as web/ uses them: @types/negotiator describes 0.6, without the
// `preferred` option that breaks a tie of equal quality in the server's order (Brotli before gzip).
declare module 'negotiator' {
  import type { IncomingHttpHeaders } from 'node:http';

  class Negotiator {
    constructor(request: { headers: IncomingHttpHeaders });
    /** The best of `available` the request accepts; undefined when it refuses them all (`*;q=0`). */
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
    /** The media type of `available` Accept prefers (a tie goes to the first listed); undefined when it takes none. */
    mediaType(available: readonly string[]): string | undefined;
  }
  export = Negotiator;
}
