// Passwords of dashboard users: Argon2id hashes (OWASP's parameters), the length rule, one-time passwords,
// and a dummy hash so that a login for an unknown email does the same work as one with a wrong password.
import { randomBytes, randomInt } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';

/** OWASP Password Storage Cheat Sheet: Argon2id, 19 MiB, 2 iterations, 1 lane. */
const ARGON2ID = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Counted in characters (code points); see docs/decisions.md, "Dashboard passwords". */
export const PASSWORD_LENGTH = { min: 12, max: 200 } as const;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Why a chosen password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_LENGTH.min || length > PASSWORD_LENGTH.max) return `password must have ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`;
  return undefined;
}

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2ID);

/** False for a wrong password and for a hash that does not parse (never an exception). */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;

/** A hash of a random password nobody knows, made once per process, with the same parameters as real ones. */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummy;
}

/** `length` characters drawn uniformly from [A-Za-z0-9]. */
export function randomAlphanumeric(length: number): string {
  return Array.from({ length }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join('');
}

/** A one-time password: 24 characters from [A-Za-z0-9] (about 143 bits). */
export const oneTimePassword = (): string => randomAlphanumeric(24);
