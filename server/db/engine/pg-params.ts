/**
 * PostgreSQL's parameters at bind time: node-postgres binds `$1`, `$2`, ... while the statements keep SQLite's
 * placeholders, which both engines' texts share. This numbers them; it changes nothing else in the text (no
 * dialect rewriting: a statement's PostgreSQL text is written for PostgreSQL, see sql.ts).
 *
 * - `?` (and `?NNN`) bind the positional arguments in order; `@name` / `:name` / `$name` bind the named argument
 *   of an object argument, one number per name;
 * - `evt_now_utc()` is the app clock (tests move it): SQLite calls the function its connection registers, and
 *   here it binds the handle's clock as one more text parameter, so no session state and no extra round trip.
 *
 * String literals, quoted identifiers and comments are left alone.
 */

export interface Numbered {
  text: string;
  /** What each `$n` is bound from: a positional argument index, a named argument, or the app clock. */
  params: (number | string | { now: true })[];
}

const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|\bevt_now_utc\s*\(\s*\)|\?(\d*)|(?<![:\w])[@:$]([A-Za-z_]\w*)/g;

export function numberParams(sql: string): Numbered {
  const params: Numbered['params'] = [];
  const named = new Map<string, number>();
  let positional = 0;
  const text = sql.replace(TOKENS, (m, num: string | undefined, name: string | undefined) => {
    if (m.startsWith("'") || m.startsWith('"') || m.startsWith('--') || m.startsWith('/*')) return m;
    if (m.startsWith('evt_now_utc')) {
      params.push({ now: true });
      return `$${params.length}::text`;
    }
    if (name !== undefined) {
      let n = named.get(name);
      if (n === undefined) {
        params.push(name);
        named.set(name, (n = params.length));
      }
      return `$${n}`;
    }
    params.push(num ? Number(num) - 1 : positional++);
    return `$${params.length}`;
  });
  return { text, params };
}
