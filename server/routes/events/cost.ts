export interface CostOut {
  text: string;
  details: { currency_symbol: string; currency_code: string; currency_position: string; values: string[] };
}

/** Numbers in a cost string ("10", "10 - 20", "€5,50") as TEC's cost utilities read them, ascending. */
function costValues(cost: string): string[] {
  const values = [...cost.matchAll(/\d+(?:[.,]\d+)?/g)].map((m) => m[0].replace(',', '.'));
  return [...new Set(values)].sort((a, b) => Number(a) - Number(b));
}

/** `tribe_get_cost( $event, true )`: symbol placed before or after, a range for several values, "Free" for zero. */
export function formatCost(cost: string, symbol: string, position: string, code: string): CostOut {
  const values = costValues(cost);
  const sym = symbol || (cost ? '$' : '');
  const pos = position || (cost ? 'prefix' : '');
  const details = { currency_symbol: sym, currency_code: code, currency_position: pos, values };
  if (!cost.trim()) return { text: '', details: { currency_symbol: symbol, currency_code: code, currency_position: position, values: [] } };
  if (!values.length) return { text: cost.trim(), details };
  const fmt = (v: string) => (pos === 'postfix' ? `${v}${sym}` : `${sym}${v}`);
  const nums = values.map(Number);
  if (nums.every((n) => n === 0)) return { text: 'Free', details };
  const min = values[0];
  const max = values[values.length - 1];
  return { text: min === max ? fmt(min) : `${fmt(min)} – ${fmt(max)}`, details };
}

/** A price in minor units as ET writes it into the cost: `25.00`. */
function twoDecimals(v: string): string {
  return Number(v).toFixed(2);
}

/**
 * The events API's `cost` and `cost_details` as the original answers them (TEC + ET): the event's own cost (PHP
 * `empty()` drops "" and "0", which TEC never stores) merged with the prices of its published tickets; the
 * symbol, position and code as stored ("" on a default install), the text with the default symbol as the
 * entity `&#x24;`, prices with two decimals once tickets take part, "Free" when every value is 0.
 */
export function restCost(cost: string, symbol: string, position: string, code: string, ticketPrices: readonly number[]): CostOut {
  const given = cost.trim() === '0' ? '' : cost.trim();
  const own = costValues(given);
  const values = [...new Set([...own, ...ticketPrices.map((p) => String(Number(p.toFixed(2))))])].sort((a, b) => Number(a) - Number(b));
  const details = { currency_symbol: symbol, currency_code: code, currency_position: position, values };
  // A cost without a number ("Free", "Donation") is shown as given; its value is the text in lower case.
  if (!values.length) return { text: given, details: { ...details, values: given ? [given.toLowerCase()] : [] } };
  if (values.every((v) => Number(v) === 0)) return { text: 'Free', details };
  const sym = symbol || '&#x24;';
  const num = ticketPrices.length ? twoDecimals : (v: string) => v;
  const fmt = (v: string) => (position === 'postfix' ? `${num(v)}${sym}` : `${sym}${num(v)}`);
  const min = values[0];
  const max = values[values.length - 1];
  return { text: min === max ? fmt(min) : `${fmt(min)} – ${fmt(max)}`, details };
}
