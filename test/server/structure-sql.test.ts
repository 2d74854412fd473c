import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';

/**
 * SQL lives in server/db/ only (issue 15, item 1): the repositories are the one place a second engine (PostgreSQL)
 * has to translate, so no other server file may prepare, run or spell a statement.
 */

const ROOT = path.resolve(import.meta.dirname, '../../server');

/**
 * Files outside server/db/ allowed to hold SQL, each with its reason (the rate limits' SQL is in
 * db/repos/shared-state.ts). The operators' tools in server/ops/ work on a database file as a whole, through
 * one engine's own means, so no second engine translates their statements.
 */
const EXEMPT: Record<string, string> = {
  'ops/backup.ts': "SQLite's online backup of the file, then its integrity_check",
  'ops/copy-to-postgres.ts': 'reads every table of a SQLite file and writes it into PostgreSQL, each side in its own SQL',
  'ops/server-lock.ts': "an exclusive lock on a SQLite file of its own beside the database's",
};

const RULES: { name: string; re: RegExp }[] = [
  { name: 'stmt()/rowReader() call', re: /\b(?:stmt|rowReader)\s*\(/ },
  { name: '.prepare()/.pragma() call', re: /\.\s*(?:prepare|pragma)\s*\(/ },
  // RegExp#exec takes a string too: only a database's exec (by its name) or one given SQL text directly counts.
  { name: 'database .exec() call', re: /\b(?:db|database|copy)\s*\.\s*exec\s*\(|\.\s*exec\s*\(\s*['"`]/i },
  { name: 'better-sqlite3 import', re: /from\s+['"]better-sqlite3['"]|require\(\s*['"]better-sqlite3['"]\s*\)/ },
  { name: 'SQL statement text', re: /\b(?:SELECT|INSERT INTO|INSERT OR \w+ INTO|UPDATE \w+ SET|DELETE FROM|REPLACE INTO)\b/ },
  {
    name: 'SQL transaction or pragma text',
    re: /['"`]\s*(?:BEGIN(?: IMMEDIATE| EXCLUSIVE| DEFERRED)?|COMMIT|ROLLBACK|SAVEPOINT \w+|PRAGMA \w+)\s*['"`;]/,
  },
];

function serverFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...serverFiles(p));
    else if (/\.(?:ts|mts|cts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The source without comments and types (esbuild drops them), so prose about SQL does not count, code does. */
function code(source: string): string {
  return transformSync(source, { loader: 'ts', legalComments: 'none' }).code;
}

/** `file:line: rule: text` for every SQL use in `text` (a file's code). */
function sqlUses(rel: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const r of RULES) if (r.re.test(line)) out.push(`${rel}:${i + 1}: ${r.name}: ${line.trim().slice(0, 160)}`);
  });
  return out;
}

describe('SQL only in server/db/', () => {
  test('no server file outside server/db/ prepares, runs or spells SQL', () => {
    const found: string[] = [];
    for (const file of serverFiles(ROOT)) {
      const rel = path.relative(ROOT, file).split(path.sep).join('/');
      if (rel.startsWith('db/') || rel in EXEMPT) continue;
      found.push(...sqlUses(rel, code(fs.readFileSync(file, 'utf8'))));
    }
    assert.deepEqual(found, []);
  });

  test('the rules see what they are for and pass what is not SQL', () => {
    const hits = (src: string) => sqlUses('x.ts', code(src)).length;
    assert.equal(hits("stmt(db, 'x').get();"), 1);
    assert.equal(hits("rowReader(db, 'x').all();"), 1);
    assert.equal(hits("ctx.db.prepare('x');"), 1);
    assert.equal(hits("db.pragma('busy_timeout = 5000');"), 1);
    assert.equal(hits("db.exec('COMMIT');"), 2);
    assert.equal(hits('state.db.exec(text);'), 1);
    assert.equal(hits("import Database from 'better-sqlite3';\nnew Database('f');"), 1);
    assert.equal(hits('const q = `SELECT id ${from}`;'), 1);
    assert.equal(hits('const q = "UPDATE orders SET status = ?";'), 1);
    assert.equal(hits("const q = 'DELETE FROM x';"), 1);
    // Not SQL: a RegExp's exec, HTTP methods, prose in comments, lower-case words in messages.
    assert.equal(hits('const m = /^a(b)$/.exec(s); const n = PATTERN.exec(s);'), 0);
    assert.equal(hits("const allow = ['GET', 'POST', 'DELETE'];"), 0);
    assert.equal(hits('// SELECT * FROM posts: why the query reads what it reads\nconst x = 1;'), 0);
    assert.equal(hits("throw new Error('select a ticket; delete from the list');"), 0);
  });
});

/** The files whose statements are still in the SQLite dialect (being rewritten in another branch). */
const LEGACY_SQLITE_DIALECT = ['db/repos/carts.ts', 'db/repos/orders.ts'];

describe('SQL written for the engine it runs on (issue 20)', () => {
  test("only the legacy files use stmt(), the one path that translates SQLite's dialect for PostgreSQL", () => {
    const found: string[] = [];
    for (const file of serverFiles(ROOT)) {
      const rel = path.relative(ROOT, file).split(path.sep).join('/');
      if (rel === 'db/connection.ts' || LEGACY_SQLITE_DIALECT.includes(rel)) continue;
      const text = code(fs.readFileSync(file, 'utf8'));
      if (/\bstmt\s*\(|\bprepareSqliteDialect\s*\(/.test(text) && !rel.startsWith('db/engine/')) found.push(rel);
      if (/legacy-translate/.test(text) && rel !== 'db/engine/postgres.ts') found.push(`${rel}: imports legacy-translate`);
    }
    assert.deepEqual(found, []);
  });
});
