// Binds an smtp-server instance, turning a bind failure (port in use, no permission) into a rejection
// instead of an unhandled 'error' event.
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
