// The application core: every use case the interfaces (HTTP /v2, SMTP submission, the CLI, later the
// dashboard) call. Built once per process from what the runtime opened.
import type { Runtime } from '../shared/runtime.js';
import { Intake } from '../intake/intake.js';
import { DisposableFilter } from '../intake/disposable.js';
import { SenderAuthorization } from './sending/sender-authorization.js';
import { MessageSending } from './sending/send-message.js';

export interface Core {
  /** Who may send, from which address, and how fast. */
  readonly senders: SenderAuthorization;
  /** Admitting and recording messages (the intake). */
  readonly sending: MessageSending;
}

export function createCore(rt: Runtime): Core {
  const intake = new Intake(rt.store, rt.redis, new DisposableFilter(rt.config.disposableDomains), rt.log);
  const senders = new SenderAuthorization({ store: rt.store, redis: rt.redis, keyCache: rt.keyCache });
  return { senders, sending: new MessageSending(senders, intake) };
}
