import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * Administration statements for the tests and benches (create and drop databases, ANALYZE, list backends), run
 * with Debian's `psql`, synchronously: the harness creates a database inside synchronous set-up code, and the
 * server's own driver (node-postgres) has only an asynchronous interface. `$1`, `$2`, ... in `text` are replaced
 * by the values as SQL string literals. Rows come back as objects of text values, keyed by column name.
 */
export class PsqlAdmin {
  constructor(readonly url: string) {}

  querySync(text: string, values: unknown[] = []): Record<string, string>[] {
    const sql = text.replace(/\$(\d+)/g, (_, i: string) => `'${String(values[Number(i) - 1]).replace(/'/g, "''")}'`);
    const out = execFileSync(psqlPath(), ['-X', '-q', '--csv', '-v', 'ON_ERROR_STOP=1', '-d', this.url, '-c', sql], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PGCONNECT_TIMEOUT: '10' },
    });
    return parseCsv(out);
  }

  end(): void {}
}

function psqlPath(): string {
  for (const p of ['/usr/lib/postgresql/15/bin/psql', '/usr/bin/psql']) if (fs.existsSync(p)) return p;
  return 'psql';
}

/** psql's --csv output: a header line, then rows (quoted fields may hold commas, quotes and newlines). */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  const [head, ...body] = rows;
  if (!head) return [];
  return body.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i] ?? ''])));
}
