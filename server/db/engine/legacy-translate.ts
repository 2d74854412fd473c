/**
 * LEGACY, for two files only: db/repos/carts.ts and db/repos/orders.ts (being rewritten in another branch), whose
 * statements are still written in the SQLite dialect and reach PostgreSQL through `statement()` (connection.ts), which
 * translates them here when they are prepared. Every other statement is written for the engine it runs on
 * (engine/sql.ts) and is never translated; once those two files are, this file goes.
 *
 * The rules are mechanical, on the text outside string literals and comments:
 *
 * - `?` and `@name` / `:name` / `$name` parameters -> `$1`, `$2`, ...; `evt_now_utc()` -> the app clock's parameter;
 * - `json_each(x)` -> `json_array_elements_text(x::json) WITH ORDINALITY`, `x IN (SELECT value FROM json_each(?))`
 *   -> `x = ANY(ARRAY(...))`;
 * - `INSERT OR IGNORE` -> `ON CONFLICT DO NOTHING`; `INSERT OR REPLACE` -> an upsert on the table's primary key;
 *   INSERTs into a table with a single integer key get `RETURNING key` (better-sqlite3's `lastInsertRowid`);
 * - `LIKE` -> `ILIKE`; `COLLATE NOCASE` -> `lower()`; scalar `MAX`/`MIN` -> `GREATEST`/`LEAST`; `a IS b` ->
 *   `IS NOT DISTINCT FROM`; `CAST(x AS INTEGER|REAL)` -> bigint / double precision; WHERE 0 / 1 -> FALSE / TRUE;
 *   `FROM (SELECT …)` without an alias gets one; camelCase names are quoted; `? IS NULL` gets a type.
 */

export interface TableKey {
  /** Primary key columns, in order. */
  columns: string[];
  /** True when the key is one integer column (an id that INSERT should hand back). */
  integer: boolean;
}

export interface Translation {
  text: string;
  /** What each `$n` is bound from: a positional argument index, a named argument, or the app clock. */
  params: (number | string | { now: true })[];
  /** The column INSERT ... RETURNING hands back for lastInsertRowid, if any. */
  returning: string | null;
  reader: boolean;
}

const MASK = '\u0000';

/** Replaces string literals, quoted identifiers and comments with placeholders; `restore` puts them back. */
function mask(sql: string): { text: string; restore: (s: string) => string } {
  const saved: string[] = [];
  const text = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g, (m) => {
    saved.push(m.startsWith('--') || m.startsWith('/*') ? ' ' : m);
    return `${MASK}${saved.length - 1}${MASK}`;
  });
  const restore = (s: string) => s.replace(new RegExp(`${MASK}(\\d+)${MASK}`, 'g'), (_, i) => saved[Number(i)] as string);
  return { text, restore };
}

/** Index of the parenthesis closing the one at `open`. */
function closing(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Splits `s` at its top-level commas. */
function topLevelArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

const ID_COLUMN = /(?:^|[\s(.,])(?:\w+_)?id\s*$/i;

/**
 * `x [NOT] IN (SELECT value FROM json_each($n))` -> `x = ANY(ARRAY(…))` / `x <> ALL(ARRAY(…))`. The same rows, but
 * PostgreSQL plans a set-returning function in FROM as 100 rows (so a semi join over the whole table: every post
 * and attendee read to check out one ticket), while an array it cannot see is planned as a few elements: an index
 * scan per element. The array is computed once per run (an InitPlan).
 */
function rewriteJsonIn(s: string): string {
  return s.replace(
    /([\w.]+(?:\s*\([^()]*\))?)\s+(NOT\s+)?IN\s*\(\s*SELECT\s+value\s+FROM\s+json_each\s*\(\s*(\$\d+)\s*\)\s*\)/gi,
    (_, col: string, not: string | undefined, param: string) => {
      const elements = `json_array_elements_text(${param}::json)`;
      const array = ID_COLUMN.test(col) ? `ARRAY(SELECT ${elements}::bigint)` : `ARRAY(SELECT ${elements})`;
      return `${col} ${not ? '<> ALL' : '= ANY'}(${array})`;
    },
  );
}

function rewriteJsonEach(s: string): string {
  let out = '';
  let i = 0;
  const re = /\bjson_each\s*\(/gi;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const open = m.index + m[0].length - 1;
    const close = closing(s, open);
    if (close < 0) break;
    const arg = s.slice(open + 1, close);
    // The subquery this json_each sits in: what it is compared with decides the type of `value`.
    const before = s.slice(0, m.index);
    const sub = before.lastIndexOf('(');
    const lead = sub >= 0 ? before.slice(0, sub) : '';
    const after = s.slice(close + 1, close + 80);
    const inIds = /(?:^|[\s(.,])(?:\w+_)?id\s+(?:NOT\s+)?IN\s*$/i.test(lead);
    // A CTE whose (last) column is an ID: `WITH RECURSIVE d(id) AS (SELECT value FROM json_each(?) …`.
    const cteIds = /[(,]\s*(?:\w+_)?id\s*\)\s*AS\s*$/i.test(lead);
    const valueIsId = /^\s*WHERE\s+value\s*=\s*(?:\w+\.)?(?:\w+_)?id\b/i.test(after);
    const typed = inIds || cteIds || valueIsId ? 'bigint' : 'text';
    const src = `json_array_elements_text((${arg})::json) WITH ORDINALITY AS json_each_(value, key)`;
    out +=
      s.slice(i, m.index) +
      (typed === 'text' ? `(SELECT value, key - 1 AS key FROM ${src})` : `(SELECT value::bigint AS value, key - 1 AS key FROM ${src})`);
    out += ' AS json_each';
    i = close + 1;
    re.lastIndex = close + 1;
  }
  return out + s.slice(i);
}

/** `MAX(a, b)` / `MIN(a, b)` (scalar, two or more arguments) -> GREATEST / LEAST. */
function rewriteScalarMinMax(s: string): string {
  const re = /\b(MAX|MIN)\s*\(/gi;
  let out = s;
  for (let m = re.exec(out); m; m = re.exec(out)) {
    const open = m.index + m[0].length - 1;
    const close = closing(out, open);
    if (close < 0) break;
    if (topLevelArgs(out.slice(open + 1, close)).length > 1) {
      const fn = m[1]?.toUpperCase() === 'MAX' ? 'GREATEST' : 'LEAST';
      out = out.slice(0, m.index) + fn + out.slice(m.index + m[1]!.length);
    }
  }
  return out;
}

const NOT_ALIAS =
  /^(?:WHERE|GROUP|ORDER|LIMIT|OFFSET|JOIN|LEFT|RIGHT|INNER|CROSS|FULL|NATURAL|UNION|INTERSECT|EXCEPT|ON|USING|HAVING|WINDOW|RETURNING)$/i;

/** `FROM (SELECT …)` / `JOIN (SELECT …)` without an alias (SQLite allows it; PostgreSQL 15 does not) get one. */
function aliasSubqueries(s: string): string {
  const re = /\b(?:FROM|JOIN)\s*\(\s*(?=SELECT\b|WITH\b|VALUES\b)/gi;
  let out = s;
  let k = 0;
  for (let m = re.exec(out); m; m = re.exec(out)) {
    const open = out.indexOf('(', m.index);
    const close = closing(out, open);
    if (close < 0) break;
    const next = /^\s*(?:AS\s+)?([A-Za-z_]\w*)/i.exec(out.slice(close + 1));
    if (!next || NOT_ALIAS.test(next[1] as string)) out = `${out.slice(0, close + 1)} AS evt_sub${++k}${out.slice(close + 1)}`;
  }
  return out;
}

function insertTable(s: string): string | null {
  const m = /^\s*(?:INSERT|REPLACE)\s+(?:OR\s+\w+\s+)?INTO\s+(\w+)/i.exec(s);
  return m ? (m[1] as string).toLowerCase() : null;
}

/** Appends `clause` before a RETURNING (or at the end). */
function beforeReturning(s: string, clause: string): string {
  const r = /\sRETURNING\s/i.exec(s);
  const body = s.replace(/;\s*$/, '');
  return r ? `${body.slice(0, r.index)} ${clause}${body.slice(r.index)}` : `${body} ${clause}`;
}

function rewriteCore(s: string, keyOf: (table: string) => TableKey | null): { text: string; returning: string | null } {
  let t = s;
  t = rewriteJsonEach(rewriteJsonIn(t));
  t = t.replace(/\bCAST\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\s+AS\s+INTEGER\s*\)/gi, 'CAST($1 AS bigint)');
  t = t.replace(/\bCAST\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\s+AS\s+REAL\s*\)/gi, 'CAST($1 AS double precision)');
  t = t.replace(/((?:[\w.]+|\$\d+|lower\([^()]*\)))\s*=\s*([\w.]+|\$\d+)\s+COLLATE\s+NOCASE\b/gi, 'lower($1) = lower($2)');
  t = t.replace(/([\w.]+)\s+COLLATE\s+NOCASE\b/gi, 'lower($1)');
  t = t.replace(/\bNOT\s+LIKE\b/gi, 'NOT ILIKE').replace(/(?<!NOT\s+|I)\bLIKE\b/gi, 'ILIKE');
  t = t.replace(/\bIS\s+NOT\s+(?!NULL\b|DISTINCT\b|TRUE\b|FALSE\b)/gi, 'IS DISTINCT FROM ');
  t = t.replace(/\bIS\s+(?!NOT\b|NULL\b|DISTINCT\b|TRUE\b|FALSE\b)/gi, 'IS NOT DISTINCT FROM ');
  // camelCase aliases (`SUM(…) AS checkedIn`) keep their case, as in SQLite: PostgreSQL folds unquoted names.
  t = t.replace(/(?<![\w$"])([a-z_][a-z0-9_]*[A-Z]\w*)\b(?!\s*\()/g, '"$1"');
  t = rewriteScalarMinMax(t);
  t = aliasSubqueries(t);
  // SQLite's integer truth values where PostgreSQL wants a boolean: `WHERE 0 AND …`, `OR 1)`.
  t = t.replace(
    /\b(WHERE|AND|OR|ON|NOT)\s+([01])(?=\s*(?:$|\)|AND\b|OR\b|ORDER\b|GROUP\b|LIMIT\b))/gi,
    (_, k: string, v: string) => `${k} ${v === '1' ? 'TRUE' : 'FALSE'}`,
  );
  let returning: string | null = null;
  const table = insertTable(t);
  if (table) {
    const key = keyOf(table);
    const orIgnore = /^\s*INSERT\s+OR\s+IGNORE\s+INTO/i.test(t);
    const orReplace = /^\s*(?:INSERT\s+OR\s+REPLACE|REPLACE)\s+INTO/i.test(t);
    t = t.replace(/^\s*(?:INSERT\s+OR\s+\w+|REPLACE)\s+INTO/i, 'INSERT INTO');
    if (orIgnore) t = beforeReturning(t, 'ON CONFLICT DO NOTHING');
    if (orReplace) {
      if (!key) throw new Error(`INSERT OR REPLACE into ${table}: no primary key known`);
      const cols =
        /^\s*INSERT\s+INTO\s+\w+\s*\(([^)]*)\)/i
          .exec(t)?.[1]
          ?.split(',')
          .map((c) => c.trim()) ?? [];
      const set = cols.filter((c) => !key.columns.includes(c.toLowerCase()));
      t = beforeReturning(
        t,
        `ON CONFLICT (${key.columns.join(', ')}) DO ${set.length ? `UPDATE SET ${set.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}` : 'NOTHING'}`,
      );
    }
    // SQLite lets the last ON CONFLICT clause name no target; PostgreSQL wants one for DO UPDATE: the primary key.
    if (/\bON\s+CONFLICT\s+DO\s+UPDATE\b/i.test(t)) {
      if (!key) throw new Error(`ON CONFLICT DO UPDATE on ${table}: no primary key known`);
      t = t.replace(/\bON\s+CONFLICT\s+DO\s+UPDATE\b/i, `ON CONFLICT (${key.columns.join(', ')}) DO UPDATE`);
    }
    if (key?.integer && !/\sRETURNING\s/i.test(t)) {
      returning = key.columns[0] as string;
      t = `${t.replace(/;\s*$/, '')} RETURNING ${returning}`;
    }
  }
  return { text: t, returning };
}

/**
 * `$n IS [NOT] NULL` gives PostgreSQL no type for `$n` ("could not determine data type of parameter"): the
 * parameter is cast where it is tested, to bigint when the same parameter is also compared with an ID column
 * (`@event IS NULL OR event_id = @event`), to text otherwise (SQLite's parameters are bound as text here anyway).
 */
function typeNullTests(s: string): string {
  return s.replace(/(\$\d+)(?!\d|::)(?=\s+IS\s+(?:NOT\s+)?NULL\b)/gi, (param: string) => {
    const p = param.replace('$', '\\$');
    const withId = new RegExp(
      `(?:^|[\\s(.,])(?:\\w+_)?id\\s*(?:=|<>|!=)\\s*${p}(?!\\d)|${p}(?!\\d)\\s*(?:=|<>|!=)\\s*(?:\\w+\\.)?(?:\\w+_)?id\\b`,
      'i',
    );
    return `${param}::${withId.test(s) ? 'bigint' : 'text'}`;
  });
}

/** Translates one statement's SQLite text for PostgreSQL. */
export function translate(sql: string, keyOf: (table: string) => TableKey | null = () => null): Translation {
  const { text: masked, restore } = mask(sql);
  const params: Translation['params'] = [];
  const named = new Map<string, number>();
  let positional = 0;
  let t = masked.replace(/\bevt_now_utc\s*\(\s*\)|\?(\d*)|(?<![:\w])[@:$]([A-Za-z_]\w*)/g, (m, num: string | undefined, name: string | undefined) => {
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
  const core = rewriteCore(typeNullTests(t), keyOf);
  t = restore(core.text);
  const reader = /^\s*(?:SELECT|WITH|VALUES)\b/i.test(t) || core.returning !== null || /\sRETURNING\s/i.test(t);
  return { text: t, params, returning: core.returning, reader };
}
