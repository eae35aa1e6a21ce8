// Submission servers that greet at once. smtp-server holds every greeting for 100 ms to catch clients that
// talk before it (an anti-spam test for port 25, like Postfix's postscreen pregreet test). On the
// submission ports every client must authenticate before it can do anything, Postfix's submission service
// greets at once, and the pause alone held a client with 50 sessions under 500 messages a second. The MX
// listener keeps smtp-server's pause.
//
// smtp-server offers no option for this, so `connect` is smtp-server's own (3.21.6) less the timer; the
// package is pinned (package.json) and test/submission.test.ts checks both the prompt greeting and the refusal past
// maxClients, so a change inside smtp-server shows as a failing test, not as a silent change of behaviour.
import type { Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection';

interface ServerInternals {
  connections: Set<SMTPConnection>;
  options: { maxClients?: number };
  _onError(err: Error): void;
  _onClientConnect(data: unknown): void;
}

export class PromptGreetingSmtpServer extends SMTPServer {
  override connect(socket: Socket, socketOptions: unknown): void {
    const self = this as unknown as ServerInternals;
    const connection = new SMTPConnection(this, socket, socketOptions);
    self.connections.add(connection);
    connection.on('error', (err: Error) => self._onError(err));
    connection.on('connect', (data: unknown) => self._onClientConnect(data));
    connection._setListeners(() => {
      const max = self.options.maxClients;
      if (max && self.connections.size > max) return connection.send(421, `${connection.name} Too many connected clients, try again in a moment`, false);
      connection.connectionReady();
    });
  }
}
