#!/usr/bin/env node
// Converts the test suite from node:test to vitest, mechanically and idempotently (a second run changes nothing).
//
//   node scripts/to-vitest.mjs            rewrite every .ts/.mts/.mjs file under test/
//   node scripts/to-vitest.mjs --check    change nothing; list what would change and exit 1 if anything would
//   node scripts/to-vitest.mjs FILE...    only these files
//
// What it rewrites (the node:test API this suite uses, plus the simple neighbours that map one to one):
//   import { ... } from 'node:test'      -> import { ... } from 'vitest'
//     before -> beforeAll, after -> afterAll (calls at the start of a line renamed too; when the file also
//     declares a variable named before/after, the import is aliased instead: `beforeAll as before`),
//     beforeEach/afterEach/describe/test/it/suite unchanged, mock -> vi, TestContext stays a type.
//   t.after(fn)                           -> t.onTestFinished(fn)   (`() => expr` becomes `async () => { await expr; }`; t = any test callback parameter, and helper
//                                            parameters typed `{ after(fn: () => void): void }`, whose type
//                                            becomes `{ onTestFinished(fn: () => unknown): void }`)
//   t.diagnostic(x)                       -> console.info(x)
//   t.name                                -> t.task.name
//   { skip: 'reason' } / { todo: 'why' }  -> { skip: true } / { todo: true }; { skip: expr } -> { skip: Boolean(expr) }
//   mock.fn(...)                          -> vi.fn(...)
//   { timeout }, test.skip/todo/only, t.skip(), t.signal: the same in vitest, left as they are.
// What it refuses (printed as "needs a hand edit", exit 1): subtests (t.test), t.plan, t.todo(), t.before,
// t.beforeEach/afterEach, t.mock / mock.method / mock.timers and any other mock.*, the `concurrency` or `only`
// test options, `run()` from node:test, any other import shape from node:test.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const check = args.includes('--check');
const given = args.filter((a) => a !== '--check');

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules') collect(p, out);
    } else if (/\.(ts|mts|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

const RENAME = { before: 'beforeAll', after: 'afterAll', mock: 'vi' };
const KEEP = new Set(['describe', 'test', 'it', 'suite', 'beforeEach', 'afterEach', 'TestContext', 'SuiteContext']);
const AFTER_TYPE = /\{\s*after\s*\(\s*fn\s*:\s*\(\)\s*=>\s*(?:void|unknown)\s*\)\s*:\s*void;?\s*\}/g;

/** `X.onTestFinished(() => expr)` -> `X.onTestFinished(async () => {\n  await expr;\n})`: finds the end of expr. */
function blockBodies(text, re) {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(re)) {
    const start = m.index + m[0].length;
    const i = exprEnd(text, start);
    const head = m[0].replace(/\(\(\)\s*=>\s*$/, '(');
    out += `${text.slice(last, m.index)}${head}async () => {\n${indentOf(text, m.index)}  await ${text.slice(start, i).trim()};\n${indentOf(text, m.index)}}`;
    last = i;
  }
  return out + text.slice(last);
}

/** End of the expression starting at `start`: the first `,` `)` `]` `}` outside brackets and strings. */
function exprEnd(text, start) {
  let depth = 0;
  let i = start;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (depth === 0) break;
      depth--;
    } else if (c === ',' && depth === 0) break;
  }
  return i;
}

/**
 * `test(name, { skip: 'reason' }, fn)`: node takes a reason string (or any value), vitest a boolean. A string
 * literal becomes `true`; any other expression `Boolean(expr)`, which keeps the reason in the source.
 */
function testOptions(text) {
  const head = /\b(?:test|it|describe|suite)(?:\.\w+)?\(\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)\s*,\s*\{/g;
  let out = '';
  let last = 0;
  for (const m of text.matchAll(head)) {
    const open = m.index + m[0].length;
    if (open < last) continue;
    const close = exprEnd(text, open);
    let body = text.slice(open, close);
    const key = /(^|,)\s*(skip|todo)\s*:\s*/g;
    for (let k = key.exec(body); k; k = key.exec(body)) {
      const start = k.index + k[0].length;
      const end = exprEnd(body, start);
      const value = body.slice(start, end).trim();
      let next = value;
      if (/^(['"`])(?:(?!\1)[^\\]|\\.)*\1$/.test(value)) next = 'true';
      else if (!/^(true|false)$/.test(value) && !/^Boolean\(/.test(value)) next = `Boolean(${value})`;
      body = `${body.slice(0, start)}${next}${body.slice(start + value.length)}`;
      key.lastIndex = start + next.length;
    }
    out += text.slice(last, open) + body;
    last = close;
  }
  return out + text.slice(last);
}

function indentOf(text, index) {
  return text.slice(text.lastIndexOf('\n', index) + 1).match(/^\s*/)[0];
}

/** @returns {{ text: string, problems: string[] }} */
export function convert(source, file = '') {
  let text = source;
  const problems = [];
  const importRe = /^import\s+(type\s+)?\{([^}]*)\}\s+from\s+['"]node:test['"];?[ \t]*$/gm;
  const imports = [...text.matchAll(importRe)];
  const otherImport = /^import\s+(?!(type\s+)?\{)[^;]*from\s+['"]node:test['"]/m.test(text) || /require\(['"]node:test['"]\)/.test(text);
  if (otherImport) problems.push("an import of 'node:test' that is not `import { ... } from 'node:test'`");
  const afterTyped = AFTER_TYPE.test(text);
  AFTER_TYPE.lastIndex = 0;
  // Files already on vitest go through too: the rewrites below are idempotent, so a re-run finishes a file.
  if (!imports.length && !afterTyped && !/from ['"]vitest['"]/.test(text)) return { text, problems };

  // Renaming the calls of before()/after() is safe unless the file declares a function of that name itself
  // (a local `const before = count()` is never called, so it does not matter).
  const declares = (name) =>
    new RegExp(
      `(?:\\bfunction\\s+${name}\\b|\\b(?:const|let|var)\\s+${name}\\s*(?::[^=]*)?=\\s*(?:async\\s*)?(?:function\\b|\\([^()]*\\)\\s*=>|\\w+\\s*=>))`,
    ).test(text.replace(importRe, ''));
  let usesVi = false;
  for (const m of imports) {
    const isType = Boolean(m[1]);
    const specs = m[2]
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const out = [];
    for (const spec of specs) {
      const [, typeKw = '', name, alias] = spec.match(/^(type\s+)?(\w+)(?:\s+as\s+(\w+))?$/) ?? [];
      if (!name) {
        problems.push(`import specifier "${spec}"`);
        out.push(spec);
        continue;
      }
      if (KEEP.has(name)) {
        out.push(spec);
        continue;
      }
      if (name in RENAME) {
        const target = RENAME[name];
        if (name === 'mock') usesVi = true;
        const local = alias ?? name;
        if (alias || name === 'mock' || declares(name)) {
          // Keep the local name the file uses; mock.* calls are rewritten below.
          out.push(name === 'mock' && !alias ? 'vi' : `${typeKw}${target} as ${local}`);
        } else {
          out.push(`${typeKw}${target}`);
          text = text.replace(new RegExp(`^(\\s*)${name}(\\s*\\()`, 'gm'), `$1${target}$2`);
          const left = text.replace(importRe, '').match(new RegExp(`(?<![\\w$.'"\`])${name}\\s*\\(`, 'g'));
          if (left) problems.push(`${left.length} call(s) of ${name}() not at the start of a line: rename to ${target} by hand`);
        }
        continue;
      }
      problems.push(`node:test export "${name}" has no vitest mapping here`);
      out.push(spec);
    }
    // Stable order, as a formatter would leave it.
    const unique = [...new Set(out)].sort((a, b) => a.replace(/^type\s+/, '').localeCompare(b.replace(/^type\s+/, '')));
    text = text.replace(m[0], `import ${isType ? 'type ' : ''}{ ${unique.join(', ')} } from 'vitest';`);
  }

  // mock -> vi
  if (usesVi || /(?<![\w$.])mock\.\w+/.test(text)) {
    text = text.replace(/(?<![\w$.])mock\.fn\(/g, 'vi.fn(');
    const other = text.match(/(?<![\w$.])mock\.(\w+)/g);
    if (other && /from 'vitest'/.test(text)) problems.push(`mock API without a mechanical vitest form: ${[...new Set(other)].join(', ')}`);
  }

  // Test-context parameters: `test('...', (t) => ...)`, `test('...', async (t) => ...)`, also with options.
  const ctxNames = new Set();
  const testCtx = new Set();
  for (const m of text.matchAll(
    /\b(?:test|it)(?:\.\w+)?\(\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`)\s*,\s*(?:\{[^{}]*\}\s*,\s*)?(?:async\s*)?(?:\(\s*(\w+)\s*(?::[^)]*)?\)|(\w+))\s*=>/g,
  )) {
    ctxNames.add(m[1] ?? m[2]);
    testCtx.add(m[1] ?? m[2]);
  }
  // Helper parameters typed as the part of the node:test context they use.
  for (const m of text.matchAll(/\b(\w+)\s*:\s*\{\s*after\s*\(\s*fn\s*:/g)) ctxNames.add(m[1]);
  text = text.replace(AFTER_TYPE, '{ onTestFinished(fn: () => unknown): void }');
  for (const t of ctxNames) {
    const id = t.replace(/\$/g, '\\$');
    text = text.replace(new RegExp(`(?<![\\w$.])${id}\\.after\\(`, 'g'), `${t}.onTestFinished(`);
    // vitest types the handler as returning void or a promise: `() => server.close()` (a Server) does not
    // type-check, `async () => server.close()` does, and a returned promise is still awaited.
    if (testCtx.has(t)) text = blockBodies(text, new RegExp(`(?<![\\w$.])${id}\\.onTestFinished\\(\\(\\)\\s*=>\\s*(?!\\{)`, 'g'));
    text = text.replace(new RegExp(`(?<![\\w$.])${id}\\.diagnostic\\(`, 'g'), 'console.info(');
    text = text.replace(new RegExp(`(?<![\\w$.])${id}\\.name\\b(?!\\s*\\()`, 'g'), `${t}.task.name`);
    const hand = text.match(
      new RegExp(`(?<![\\w$.])${id}\\.(test|plan|todo|before|beforeEach|afterEach|mock|runOnly|fullName|filePath|assert)\\b`, 'g'),
    );
    if (hand) problems.push(`test-context API without a mechanical vitest form: ${[...new Set(hand)].join(', ')}`);
  }

  // Options objects: node accepts a reason string for skip/todo, vitest a boolean.
  text = testOptions(text);
  if (/\b(?:test|it|describe)\([^()]*\{[^{}]*\bconcurrency\s*:/.test(text))
    problems.push('the `concurrency` test option (vitest: describe.concurrent / test.concurrent)');
  if (/from 'node:test'/.test(text)) problems.push("'node:test' is still imported");
  if (problems.length && file) problems.unshift(file);
  return { text, problems };
}

const files = given.length ? given.map((f) => resolve(f)) : collect(join(root, 'test'), []);
let changed = 0;
const hand = [];
for (const file of files.sort()) {
  const before = readFileSync(file, 'utf8');
  const { text, problems } = convert(before, relative(root, file));
  if (problems.length) hand.push(problems);
  if (text !== before) {
    changed++;
    if (check) console.log(`would change ${relative(root, file)}`);
    else writeFileSync(file, text);
  }
}
console.log(`${check ? 'would change' : 'changed'} ${changed} of ${files.length} files`);
for (const [file, ...problems] of hand) console.log(`needs a hand edit: ${file}\n  - ${problems.join('\n  - ')}`);
process.exit(hand.length || (check && changed) ? 1 : 0);
