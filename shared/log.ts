// The JSON-lines logger (pino) every process and tool writes with.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Writes to stdout unless given a destination (tests capture the lines). */
export function createLogger(name: string, level: string, destination?: DestinationStream): Logger {
  const options = { name, level, base: { svc: name }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(options, destination) : pino(options);
}
