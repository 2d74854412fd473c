import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The server's layers, read from its import graph: `server/kernel/` (context, services, errors, results, hook
 * types) is a leaf; `server/http/` is the HTTP machinery and sits on the kernel; `server/routes/` are the
 * namespaces, on both; `server/domain/` holds what a write means (checks beyond the schemas, defaults, relations)
 * for the routes to call, and knows no route; `server/app.ts` composes them. Type-only imports count: a type import is still a
 * dependency a reader follows, and it is how the old circle through `http/hooks.ts` and the events routes ran.
 */
const SERVER = path.resolve(import.meta.dirname, '../../server');

function serverFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...serverFiles(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

// `import ... from '...'`, `export ... from '...'` (also across lines), `import '...'` and `import('...')`.
const IMPORT = /^\s*(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The server files each server file imports (relative specifiers only: packages are outside the layers). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (spec?.startsWith('.')) deps.push(path.resolve(path.dirname(f), spec));
    }
    graph.set(f, deps);
  }
  return graph;
}

type Layer = 'kernel' | 'http' | 'domain' | 'routes' | 'app';

/** The layer a server path belongs to, or null for the folders outside this check (db, auth, mail, ...). */
function layerOf(p: string): Layer | null {
  const rel = path.relative(SERVER, p).split(path.sep);
  if (rel[0] === 'kernel' || rel[0] === 'http' || rel[0] === 'domain' || rel[0] === 'routes') return rel[0];
  if (rel.length === 1 && rel[0] === 'app.ts') return 'app';
  return null;
}

/** A cycle in the layer graph (as the list of layers on it), or null. */
function layerCycle(edges: Map<Layer, Set<Layer>>): Layer[] | null {
  const state = new Map<Layer, 'open' | 'done'>();
  const stack: Layer[] = [];
  const visit = (n: Layer): Layer[] | null => {
    if (state.get(n) === 'done') return null;
    if (state.get(n) === 'open') return [...stack.slice(stack.indexOf(n)), n];
    state.set(n, 'open');
    stack.push(n);
    for (const m of edges.get(n) ?? []) {
      const c = visit(m);
      if (c) return c;
    }
    stack.pop();
    state.set(n, 'done');
    return null;
  };
  for (const n of edges.keys()) {
    const c = visit(n);
    if (c) return c;
  }
  return null;
}

describe('server structure', () => {
  const graph = importGraph(serverFiles(SERVER));
  const rel = (p: string) => path.relative(SERVER, p);
  const crossings = (from: Layer, to: readonly Layer[]) =>
    [...graph].flatMap(([f, deps]) =>
      layerOf(f) === from ? deps.filter((d) => to.includes(layerOf(d) as Layer)).map((d) => `${rel(f)} -> ${rel(d)}`) : [],
    );

  test('the import reader sees the imports (multi-line, type-only, re-exports)', () => {
    const deps = (f: string) => (graph.get(path.join(SERVER, f)) ?? []).map(rel);
    // app.ts imports http/incoming.ts over several lines; kernel/hooks.ts imports its event types type-only.
    assert.ok(deps('app.ts').includes(path.join('http', 'incoming.ts')));
    assert.ok(deps(path.join('kernel', 'hooks.ts')).includes(path.join('db', 'repos', 'event-query.ts')));
    assert.ok(graph.size > 100, `only ${graph.size} server files read`);
  });

  test('the kernel is a leaf: it imports nothing from http/, domain/, routes/ or the composition root', () => {
    assert.deepEqual(crossings('kernel', ['http', 'domain', 'routes', 'app']), []);
  });

  test('the kernel reaches outside itself only to shared/, and to server/config.ts and server/db/ for types', () => {
    const SHARED = path.resolve(SERVER, '../shared');
    const outside: string[] = [];
    for (const f of graph.keys()) {
      if (layerOf(f) !== 'kernel') continue;
      for (const m of fs.readFileSync(f, 'utf8').matchAll(IMPORT)) {
        const spec = m[1] ?? m[2];
        if (!spec?.startsWith('.')) continue;
        const target = path.resolve(path.dirname(f), spec);
        if (layerOf(target) === 'kernel' || !path.relative(SHARED, target).startsWith('..')) continue;
        const typeOnly = /^\s*(?:import|export)\s+type\s/.test(m[0]);
        const typesBelow = rel(target) === 'config.ts' || rel(target).startsWith(`db${path.sep}`);
        if (!(typeOnly && typesBelow)) outside.push(`${rel(f)} -> ${rel(target)}`);
      }
    }
    assert.deepEqual(outside, []);
  });

  test('the HTTP machinery imports no domain, no namespace and not the composition root', () => {
    assert.deepEqual(crossings('http', ['domain', 'routes', 'app']), []);
  });

  test('the domain imports no namespace and not the composition root', () => {
    assert.deepEqual(crossings('domain', ['routes', 'app']), []);
  });

  test('routes/ do not import the composition root', () => {
    assert.deepEqual(crossings('routes', ['app']), []);
  });

  test('services are read by their typed names, never through a cast or a computed string key', () => {
    // `AppState.services` is one interface (kernel/services.ts, merged into by each service's owner); a cast
    // or a `services[\`rate:${name}\`]` key would step around its types.
    const untyped = /\bservices(?:\.\w+)?\s+as\s|\bservices\[(?!name\])/;
    const found = [...graph.keys()].flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter((line) => untyped.test(line) && !/^\s*(\*|\/\/)/.test(line))
        .map((line) => `${rel(f)}: ${line.trim()}`),
    );
    assert.deepEqual(found, []);
  });

  test('no import cycle among kernel/, http/, domain/, routes/ and app.ts', () => {
    const edges = new Map<Layer, Set<Layer>>();
    for (const [f, deps] of graph) {
      const from = layerOf(f);
      if (!from) continue;
      for (const d of deps) {
        const to = layerOf(d);
        if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    assert.equal(layerCycle(edges)?.join(' -> ') ?? null, null);
  });
});
