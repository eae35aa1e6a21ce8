// Binds an smtp-server instance, turning a bind failure (port in use, no permission) into a rejection
// instead of an unhandled 'error' event; tells whether one still listens (readiness); and answers smtp-server's callbacks from promises.
import type { Server } from 'node:net';
import type { SMTPServer } from 'smtp-server';

export function listenSmtp(server: SMTPServer, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const net = (server as unknown as { server: Server }).server;
    net.once('error', reject);
    server.listen(port, host, () => {
      net.removeListener('error', reject);
      resolve();
    });
  });
}

/** Whether an smtp-server instance's socket is bound and accepting (false once it is closed). */
export function isListening(server: SMTPServer): boolean {
  return (server as unknown as { server: Server }).server.listening;
}

/**
 * Answers an smtp-server callback from a handler's promise: its value on success, or the refusal the listener
 * makes of the error (a reply code decided by the handler, or its own passing trouble as a 4xx).
 */
export function answer<T>(work: Promise<T>, cb: (err: Error | null, value?: T) => void, refusal: (err: Error) => Error): void {
  void work.then(
    (value) => cb(null, value),
    (err: Error) => cb(refusal(err)),
  );
}
