// Practical checks of addresses as they appear in a send request or an SMTP envelope.

const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/;

/** True for `local@domain` with a dot-atom local part and a syntactically valid domain. */
export function isValidEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at < 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!LOCAL.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  return /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))+$/.test(domain);
}

/** The domain part, lower-cased. */
export const domainOfEmail = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();
