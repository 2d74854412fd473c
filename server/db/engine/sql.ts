import type { Engine } from './types.ts';

/**
 * A statement's text. Most statements are one text both engines read alike (SQLite 3.39+ and PostgreSQL 15 share
 * `IS [NOT] DISTINCT FROM`, `ON CONFLICT`, `RETURNING`, `TRUE`/`FALSE`, `CAST(x AS BIGINT)`, double-quoted
 * identifiers, ...). Where the dialects differ, the statement (or the fragment of it that differs) is written once
 * per engine, and each engine prepares its own side as it is: nothing rewrites SQL text at run time. The one
 * mechanical step left is PostgreSQL's parameter numbering at bind time (pg-params.ts).
 */
export interface PerEngine {
  readonly sqlite: string;
  readonly pg: string;
}

export type Sql = string | PerEngine;

/** The text `engine` runs for `s`. */
export function sqlFor(engine: Engine, s: Sql): string {
  return typeof s === 'string' ? s : engine === 'sqlite' ? s.sqlite : s.pg;
}

/**
 * Composes a statement from shared text and per-engine fragments: `sql\`SELECT … WHERE ${inJson('p.id', 'id')}\``.
 * Stays a plain string (one text for both) when no fragment differs.
 */
export function sql(strings: TemplateStringsArray, ...parts: (Sql | number)[]): Sql {
  if (parts.every((p) => typeof p !== 'object')) return strings.reduce((out, s, i) => out + String(parts[i - 1]) + s);
  let sqlite = strings[0] as string;
  let pg = sqlite;
  parts.forEach((p, i) => {
    const tail = strings[i + 1] as string;
    sqlite += (typeof p === 'object' ? p.sqlite : String(p)) + tail;
    pg += (typeof p === 'object' ? p.pg : String(p)) + tail;
  });
  return { sqlite, pg };
}

/** `parts` joined by `sep` (a WHERE's conditions by ' AND '). */
export function joinSql(parts: readonly Sql[], sep: string): Sql {
  if (parts.every((p) => typeof p === 'string')) return parts.join(sep);
  return { sqlite: parts.map((p) => sqlFor('sqlite', p)).join(sep), pg: parts.map((p) => sqlFor('postgres', p)).join(sep) };
}

/**
 * `col [NOT] IN` the elements of the JSON array bound at this `?`. SQLite reads the array with json_each;
 * PostgreSQL with an array it computes once (an InitPlan): a set-returning function in FROM is planned as 100 rows
 * (a semi join over the whole table), an array it cannot see as a few elements (an index scan per element).
 * Deliberately not an array the planner can see (a literal made from the text, or a bound array): then a
 * prepared statement's custom plans for a few elements look cheaper than its generic plan, PostgreSQL keeps
 * planning every execution, and the seven joins of an attendee read took 1.5-5 ms to plan each time (measured
 * with EXPLAIN of the prepared statement). The price: a column where one value is most rows (every attendee of
 * a bulk import in one order) is planned as if each element matched that many; the checkout reads its new
 * attendees by ID for that reason (presentOrders). `kind` is the elements' type: PostgreSQL compares no bigint
 * with text.
 */
export function inJson(col: string, kind: 'id' | 'text', not = false): PerEngine {
  return inJsonOf('?', col, kind, not);
}

/** Like inJson, the JSON array read from `source` (a column, or an expression) instead of a bound `?`. */
export function inJsonOf(source: string, col: string, kind: 'id' | 'text', not = false): PerEngine {
  const elements = `json_array_elements_text(${source}::json)${kind === 'id' ? '::bigint' : ''}`;
  return {
    sqlite: `${col} ${not ? 'NOT IN' : 'IN'} (SELECT value FROM json_each(${source}))`,
    pg: `${col} ${not ? '<> ALL' : '= ANY'}(ARRAY(SELECT ${elements}))`,
  };
}

/**
 * The elements of the JSON array bound at this `?` as a table `alias(value, key)`, key counted from 0 as
 * SQLite's json_each does; `kind` is the type of `value`.
 */
export function jsonElements(alias: string, kind: 'id' | 'text'): PerEngine {
  return {
    sqlite: `json_each(?) AS ${alias}`,
    pg: `(SELECT ${kind === 'id' ? 'e.value::bigint' : 'e.value'} AS value, e.key - 1 AS key FROM json_array_elements_text(?::json) WITH ORDINALITY AS e(value, key)) AS ${alias}`,
  };
}

/** LIKE ignoring ASCII case: SQLite's LIKE does; PostgreSQL's ILIKE (under LC_CTYPE C, ASCII only, as SQLite). */
export const LIKE_NOCASE: PerEngine = { sqlite: 'LIKE', pg: 'ILIKE' };
