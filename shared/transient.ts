// Failures that pass by themselves: Redis unreachable, or SQLite's write lock held too long by another
// process. A request that meets one is answered 503 with Retry-After, so clients retry instead of giving up.
export function isTransientFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
  return err.name === 'MaxRetriesPerRequestError' || /Connection is closed|ECONNREFUSED|Stream isn't writeable|ECONNRESET/.test(err.message);
}
