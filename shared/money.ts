// Amounts of money as people type them ("19.99") and as Tern keeps them (minor units, 1999): converted exactly
// from the decimal text, digit by digit, never through a float (0.1 + 0.2 is not 0.3 in binary).

/** How many decimals the currency's minor unit has (EUR 2, JPY 0), as Intl knows it; undefined for no currency. */
export function currencyDigits(currency: string): number | undefined {
  if (!/^[A-Z]{3}$/.test(currency)) return undefined;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  } catch {
    return undefined;
  }
}

/**
 * "19.99" in a currency of 2 decimals as 1999: digits, then at most as many decimals as the currency has, after a
 * point; no sign, no thousands separator, no exponent. Undefined for anything else.
 */
export function minorUnitsOf(text: string, digits: number): number | undefined {
  const parts = /^(\d{1,13})(?:\.(\d+))?$/.exec(text);
  if (!parts) return undefined;
  const fraction = parts[2] ?? '';
  if (fraction.length > digits) return undefined;
  return Number(`${parts[1]}${fraction.padEnd(digits, '0')}`);
}
