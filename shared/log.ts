// The JSON-lines logger (pino) every process and tool writes with.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(name: string, level: string): Logger {
  return pino({ name, level, base: { svc: name }, timestamp: pino.stdTimeFunctions.isoTime });
}
