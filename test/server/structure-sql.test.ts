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
  { name: 'statement()/rowReader() call', re: /\b(?:statement|rowReader)\s*\(/ },
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
    assert.equal(hits("statement(db, 'x').get();"), 1);
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

describe('SQL written for the engine it runs on (issue 20)', () => {
  // Each engine runs its own side of a statement as it is (engine/sql.ts): nothing translates SQL text from one
  // dialect to the other at run time, so no file may bring a translator back, nor the SQLite-dialect path the
  // last repositories used (stmt(), prepareSqliteDialect).
  const TRANSLATOR = [
    { name: 'imports a translator', re: /from\s+['"][^'"]*\/(?:dialect|legacy-translate)(?:\.[cm]?[jt]s)?['"]/ },
    { name: 'calls a translator', re: /\btranslate(?:Ddl)?\s*\(/ },
    { name: 'defines a translator', re: /\bfunction\s+translate(?:Ddl)?\b/ },
    { name: 'the SQLite-dialect path', re: /\bstmt\s*\(|\bprepareSqliteDialect\b/ },
  ];
  const uses = (rel: string, text: string) => TRANSLATOR.filter((r) => r.re.test(text)).map((r) => `${rel}: ${r.name}`);

  test('no file imports or calls a SQL translator', () => {
    const found: string[] = [];
    for (const file of serverFiles(ROOT)) {
      const rel = path.relative(ROOT, file).split(path.sep).join('/');
      found.push(...uses(rel, code(fs.readFileSync(file, 'utf8'))));
    }
    for (const gone of ['db/dialect.ts', 'db/engine/legacy-translate.ts']) assert.equal(fs.existsSync(path.join(ROOT, gone)), false, gone);
    assert.deepEqual(found, []);
  });

  test('the check sees a translator', () => {
    assert.deepEqual(uses('x.ts', code("import { translate } from '../dialect.ts';\nexport const t = translate('x');")), [
      'x.ts: imports a translator',
      'x.ts: calls a translator',
    ]);
    assert.equal(uses('x.ts', code("import { t } from './engine/legacy-translate.ts';\nexport const x = t;")).length, 1);
    assert.equal(uses('x.ts', code("export const s = stmt(db, 'SELECT 1');")).length, 1);
    assert.deepEqual(uses('x.ts', code("import { sql } from './engine/sql.ts';\nexport const s = sql`SELECT 1`;")), []);
  });
});
