// Mail Tern sent itself, as the loopback sink received it: waiting for the message to one address, parsed.
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Sink, SunkMessage } from './sink.js';
import { until } from './wait.js';

export interface Received {
  sunk: SunkMessage;
  parsed: ParsedMail;
}

/** The `nth` message (from 1) the sink received for `address`, once it has arrived. */
export async function mailTo(sink: Sink, address: string, nth = 1, timeoutMs = 15_000): Promise<Received> {
  const sunk = await until(`message ${nth} to ${address}`, () => sink.messages.filter((m) => m.to.includes(address))[nth - 1], timeoutMs);
  return { sunk, parsed: await simpleParser(sunk.raw) };
}

/** How many messages the sink received for `address` so far. */
export const countTo = (sink: Sink, address: string): number => sink.messages.filter((m) => m.to.includes(address)).length;
