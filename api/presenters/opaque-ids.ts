// The dashboard's opaque string ids for things whose id is an integer in the store (sending keys, admin keys,
// webhooks): a kind prefix and the integer in base 36 (`sk_2s`, `ak_3`, `wh_a`). The one place the encoding is chosen; a bare integer,
// another kind's id or a non-canonical form decodes to nothing, and the route answers it as a missing thing.
export type OpaqueKind = 'sending_key' | 'admin_key' | 'webhook';

const PREFIX: Readonly<Record<OpaqueKind, string>> = { sending_key: 'sk', admin_key: 'ak', webhook: 'wh' };

export const opaqueId = (kind: OpaqueKind, id: number): string => `${PREFIX[kind]}_${id.toString(36)}`;

/** The integer an opaque id of `kind` names, or undefined for anything else (the thing is then not found). */
export function idOf(kind: OpaqueKind, opaque: string): number | undefined {
  const found = /^([a-z]+)_([0-9a-z]{1,10})$/.exec(opaque);
  if (!found || found[1] !== PREFIX[kind]) return undefined;
  const id = parseInt(found[2]!, 36);
  // Only the canonical spelling names the thing: `sk_0a` or `SK_A` is not `sk_a`.
  return Number.isSafeInteger(id) && id > 0 && id.toString(36) === found[2] ? id : undefined;
}
