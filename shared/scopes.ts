// Admin-key scopes, exactly as the specification's table. A :write scope includes its :read.
export const SCOPES = [
  'domains:read',
  'domains:write',
  'emails:read',
  'emails:send',
  'suppressions:read',
  'suppressions:write',
  'webhooks:read',
  'webhooks:write',
  'api_keys:read',
  'api_keys:write',
  'teams:read',
  'teams:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** Whether a key granted `granted` may act under `required`. */
export function allows(granted: readonly Scope[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  return required.endsWith(':read') && granted.includes(required.replace(/:read$/, ':write') as Scope);
}

/** The first of `required` that `granted` does not allow, or null when all are allowed. */
export function missingScope(granted: readonly Scope[], required: readonly Scope[]): Scope | null {
  return required.find((scope) => !allows(granted, scope)) ?? null;
}

/** Parses `s1,s2` or `all` (the CLI's form). */
export function parseScopes(text: string): Scope[] {
  if (text.trim() === 'all') return [...SCOPES];
  const list = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = list.filter((s) => !isScope(s));
  if (unknown.length) throw new Error(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  return [...new Set(list as Scope[])];
}
