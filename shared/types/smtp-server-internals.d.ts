// The part of smtp-server's connection class that mta/prompt-greeting.ts uses (the package exports the
// module as `smtp-server/lib/smtp-connection`; @types/smtp-server does not describe it).
declare module 'smtp-server/lib/smtp-connection' {
  import type { EventEmitter } from 'node:events';
  import type { Socket } from 'node:net';
  import type { SMTPServer } from 'smtp-server';

  export class SMTPConnection extends EventEmitter {
    constructor(server: SMTPServer, socket: Socket, options?: unknown);
    /** The host name the server gives itself in replies. */
    name: string;
    /** Binds the socket's events and parser, then calls back (after an upgrade on implicit-TLS ports). */
    _setListeners(callback: () => void): void;
    /** Resolves the client's name and sends the greeting. */
    connectionReady(next?: () => void): void;
    send(code: number, data: string, context?: boolean): void;
  }
}
