/**
 * Prices are stored in minor units of their currency; these helpers turn them into Event Tickets' strings
 * (`"$1.00"`, raw `"1"`) and parse editor input back. Pure, shared by the server and the renderer.
 */

export interface CurrencyFormat {
  symbol: string;
  placement: 'prefix' | 'postfix';
  decimal_point: string;
  thousands_sep: string;
  number_of_decimals: number;
}

const FORMATS: Record<string, Partial<CurrencyFormat>> = {
  USD: { symbol: '$' },
  EUR: { symbol: '€' },
  GBP: { symbol: '£' },
  CAD: { symbol: 'CA$' },
  AUD: { symbol: 'A$' },
  CHF: { symbol: 'CHF ' },
  SEK: { symbol: ' kr', placement: 'postfix' },
  NOK: { symbol: ' kr', placement: 'postfix' },
  DKK: { symbol: ' kr', placement: 'postfix' },
  PLN: { symbol: ' zł', placement: 'postfix' },
  JPY: { symbol: '¥', number_of_decimals: 0 },
};

export const DEFAULT_CURRENCY = 'USD';

/** A 3-letter ISO 4217 code. */
export function isCurrencyCode(s: string): boolean {
  return /^[A-Za-z]{3}$/.test(s);
}

/** How a currency is written; unknown codes show the code itself before the amount. */
export function currencyFormat(code: string): CurrencyFormat {
  const c = code.toUpperCase();
  return { symbol: `${c} `, placement: 'prefix', decimal_point: '.', thousands_sep: ',', number_of_decimals: 2, ...FORMATS[c] };
}

/** `"$1,234.50"` */
export function formatMoney(minor: number, code: string): string {
  const f = currencyFormat(code);
  const neg = minor < 0;
  const abs = Math.abs(minor);
  const s = 10 ** f.number_of_decimals;
  const whole = Math.floor(abs / s)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, f.thousands_sep);
  const frac = f.number_of_decimals ? f.decimal_point + String(abs % s).padStart(f.number_of_decimals, '0') : '';
  const amount = `${neg ? '-' : ''}${whole}${frac}`;
  return f.placement === 'prefix' ? `${f.symbol}${amount}` : `${amount}${f.symbol}`;
}

/** The raw price as a plain decimal: `"10"`, `"10.50"` (no symbol, no grouping). */
export function rawPrice(minor: number, code: string): string {
  const decimals = currencyFormat(code).number_of_decimals;
  const s = 10 ** decimals;
  const whole = Math.floor(minor / s);
  const frac = minor % s;
  if (!frac) return String(whole);
  return `${whole}.${String(frac).padStart(decimals, '0')}`;
}

/**
 * Parses an editor price ("10", "10.5", "1,234.50"); blank is 0. Null for negative, non-numeric or
 * over-precise input.
 */
export function parsePrice(input: string, code: string): number | null {
  const t = input.trim().replace(/,(?=\d{3}(\D|$))/g, '');
  if (t === '') return 0;
  const m = /^(\d+)(?:\.(\d+))?$/.exec(t);
  if (!m) return null;
  const decimals = currencyFormat(code).number_of_decimals;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) return null;
  const minor = Number(m[1]) * 10 ** decimals + Number(frac.padEnd(decimals, '0') || '0');
  return Number.isSafeInteger(minor) ? minor : null;
}
