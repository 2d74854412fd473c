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
