import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../helpers/server.ts';
import fc from 'fast-check';
import { NAMESPACES, buildRegistry, unboundRoutes } from '../../server/routes/index.ts';
import { namespaceRoutes } from '../../shared/routes/core.ts';
import { Registry, type Endpoint } from '../../server/http/registry.ts';
import type { Method } from '../../shared/http/route.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('route table', () => {
  test('matching through the prefix buckets finds what a plain first-match scan of every route finds', () => {
    checkBuckets(buildRegistry());
    // Patterns chosen to straddle the buckets: syntax inside the first two segments, quantifiers, alternation.
    const tricky = new Registry();
    const routes = ['/b/c', '/(?P<x>\\w+)/c', '/b', 'c?/d', '/b/(?P<id>\\d+)', '/(?P<any>[a-z]+)/b/c', '/b/(e|f)', '/b/c/d', ''];
    routes.forEach((route, i) =>
      tricky.add({
        def: { id: `t${i}`, namespace: 'a', route, methods: i % 2 ? ['GET'] : ['POST'] },
        handler: () => ({ status: 200, body: null }),
        async: false,
      } as unknown as Endpoint),
    );
    checkBuckets(tricky);
  });

  function checkBuckets(reg: Registry) {
    const plain = (path: string, method: Method) => {
      let pathMatched: string | null = null;
      for (const e of reg.routes) {
        const m = e.regex.exec(path);
        if (!m) continue;
        pathMatched ??= e.key;
        const ep = e.endpoints.find((x) => x.def.methods.includes(method));
        if (ep) return { kind: 'found', key: e.key, id: ep.def.id, params: { ...(m.groups ?? {}) } };
      }
      return pathMatched ? { kind: 'method', key: pathMatched } : { kind: 'none' };
    };
    const seen = (path: string, method: Method) => {
      const r = reg.match(path, method);
      return r.kind === 'found'
        ? { kind: r.kind, key: r.entry.key, id: r.endpoint.def.id, params: r.pathParams }
        : r.kind === 'method'
          ? { kind: r.kind, key: r.entry.key }
          : { kind: r.kind };
    };
    // Paths made from the route patterns themselves (parameters filled in, case changed), and noise around them.
    const concrete = reg.routes.map((e) => e.key.replace(/\(\?P<[^>]+>[^)]*\)/g, '7').replace(/[\\^$]/g, ''));
    const path = fc.oneof(
      fc.constantFrom(...concrete),
      fc.tuple(fc.constantFrom(...concrete), fc.constantFrom('', '/', '/x', '/12', 'abc')).map(([a, b]) => a + b),
      fc.constantFrom(...concrete).map((p) => p.toUpperCase()),
      fc
        .array(
          fc.constantFrom('evt', 'tickets', 'v1', 'events', 'attendees', '7', 'batch', 'wp', 'oembed', '1.0', '', 'a', 'b', 'bc', 'c', 'd', 'e', 'x'),
          { maxLength: 6 },
        )
        .map((a) => `/${a.join('/')}`),
    );
    fc.assert(
      fc.property(path, fc.constantFrom<Method>('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), (p, m) => {
        assert.deepEqual(seen(p, m), plain(p, m), `${m} ${p}`);
      }),
      { numRuns: 4000 },
    );
  }

  test('every shared route definition has a handler', () => {
    assert.deepEqual(unboundRoutes(), []);
  });

  test('every route takes translation_language; every write of the evt namespaces may be batched', () => {
    for (const { ns } of NAMESPACES) {
      for (const def of ns.routes) {
        assert.ok('translation_language' in def.args, `${ns.name} ${def.id} takes translation_language`);
        if ((ns.name === 'evt/events/v1' || ns.name === 'evt/tickets/v1') && def.methods.some((m) => m !== 'GET'))
          assert.equal(def.batch, true, `${ns.name} ${def.id} opts in to batch`);
      }
    }
  });

  test('the site index lists every namespace and every route with its args', async () => {
    const r = await call(s.root);
    assert.equal(r.status, 200);
    for (const k of [
      'name',
      'description',
      'url',
      'home',
      'gmt_offset',
      'timezone_string',
      'page_for_posts',
      'page_on_front',
      'show_on_front',
      'namespaces',
      'authentication',
      'routes',
    ])
      assert.ok(k in r.body, k);
    assert.equal(typeof r.body.gmt_offset, 'number');
    assert.deepEqual(r.body.authentication, []);
    assert.deepEqual(
      r.body.namespaces,
      NAMESPACES.map((n) => n.ns.name),
    );
    const byId = r.body.routes['/evt/events/v1/events/(?P<id>\\d+)'];
    assert.equal(byId.namespace, 'evt/events/v1');
    assert.deepEqual(byId.methods, ['GET', 'DELETE', 'POST', 'PUT', 'PATCH']);
    assert.deepEqual(
      byId.endpoints.map((e: { methods: string[] }) => e.methods),
      [['GET'], ['DELETE'], ['POST', 'PUT', 'PATCH']],
    );
    assert.deepEqual(byId.endpoints[0].args.id, { description: 'the event post ID', type: 'integer', minimum: 0, required: true });
    assert.deepEqual(byId.endpoints[1].allow_batch, { v1: true });
    assert.equal(byId._links, undefined);
    const list = r.body.routes['/evt/events/v1/events'];
    assert.deepEqual(list._links, { self: [{ href: `${s.root}evt/events/v1/events` }] });
    assert.deepEqual(list.endpoints[0].args.per_page, {
      description: 'The number of events to return on each page (at most 50)',
      default: 3,
      type: 'integer',
      minimum: 1,
      required: false,
    });
    assert.deepEqual(list.endpoints[0].args.translation_language, {
      description: 'The language of the content to read or write.',
      type: 'string',
      enum: ['en', 'et'],
      required: false,
    });
    const batch = r.body.routes['/batch/v1'];
    assert.equal(batch.endpoints[0].args.requests.maxItems, 25);
    // Every registered route appears once, and each of its endpoints in the index.
    for (const { ns } of NAMESPACES) {
      for (const def of ns.routes) {
        const key = `/${ns.name}${def.route}`;
        assert.ok(r.body.routes[key], `${key} in the index`);
        assert.ok(
          r.body.routes[key].endpoints.some((e: { methods: string[] }) => e.methods.join() === def.methods.join()),
          `${key} ${def.methods}`,
        );
      }
    }
  });

  test('each namespace has an index and an OpenAPI 3.0.0 /doc generated from the same table', async () => {
    for (const { ns } of NAMESPACES) {
      const idx = await call(`${s.root}${ns.name}`);
      assert.equal(idx.status, 200, ns.name);
      assert.equal(idx.body.namespace, ns.name);
      assert.deepEqual(idx.body._links, { up: [{ href: s.root }] });
      assert.ok(Object.keys(idx.body.routes).every((k) => k.startsWith(`/${ns.name}`)));
      const doc = await call(`${s.root}${ns.name}/doc`);
      assert.equal(doc.status, 200);
      assert.equal(doc.body.openapi, '3.0.0');
      assert.equal(doc.body.info.title, ns.doc.title);
      assert.deepEqual(doc.body.servers, [{ url: `${s.root}${ns.name}/` }]);
      for (const def of [...ns.routes, ...Object.values(namespaceRoutes(ns.name))]) {
        const path = def.route.replace(/\(\?P<([a-z_]+)>[^)]*\)/g, '{$1}') || '/';
        for (const m of def.methods) assert.ok(doc.body.paths[path]?.[m.toLowerCase()], `${ns.name} ${m} ${path} documented`);
      }
    }
    const events = (await call(`${s.root}evt/events/v1/doc`)).body;
    // The original's schemas first, in its order; then the archives and the shared error envelope.
    assert.deepEqual(Object.keys(events.components.schemas).slice(0, 8), [
      'ImageSize',
      'CostDetails',
      'Term',
      'Image',
      'DateDetails',
      'Event',
      'Venue',
      'Organizer',
    ]);
    const get = events.paths['/events'].get;
    assert.deepEqual(
      get.parameters.find((p: { name: string }) => p.name === 'categories'),
      {
        name: 'categories',
        in: 'query',
        description: 'Events should be assigned one of the specified categories slugs or IDs',
        required: false,
        schema: { type: 'array', items: { type: 'string' }, maxItems: 1000 },
        style: 'form',
        explode: false,
      },
    );
    assert.ok(events.paths['/events'].post.requestBody.content['application/json'].schema.required.includes('title'));
  });

  test('every operation of every /doc has a success schema, the error envelope, security, bounds and path examples', async () => {
    const missing: string[] = [];
    let ops = 0;
    for (const { ns } of NAMESPACES) {
      const doc = (await call(`${s.root}${ns.name}/doc`)).body;
      assert.deepEqual(Object.keys(doc.components.securitySchemes), ['applicationPassword', 'apiKey', 'apiKeyQuery']);
      assert.ok(doc.components.schemas.Error, `${ns.name} has the error envelope`);
      for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          ops++;
          const label = `${method.toUpperCase()} /${ns.name}${path}`;
          const ok = Object.entries<any>(op.responses).filter(([code]) => code.startsWith('2'));
          if (!ok.length || ok.some(([, r]) => !r.content || Object.values<any>(r.content).some((c) => !c.schema)))
            missing.push(`${label}: success schema`);
          // The namespace index and /doc take no parameter that can fail: they document no 400.
          for (const code of ['/', '/doc'].includes(path) ? ['401'] : ['400', '401'])
            if (!op.responses[code]?.content?.['application/json']?.schema) missing.push(`${label}: ${code} envelope`);
          if (op['x-required-capability'] && !op.responses['403']) missing.push(`${label}: 403`);
          if (!Array.isArray(op.security) || !op.security.length) missing.push(`${label}: security`);
          for (const p of op.parameters ?? []) if (p.in === 'path' && p.example === undefined) missing.push(`${label}: example of ${p.name}`);
          if (/\{/.test(path) && !op.responses['404'] && !['/doc', '/'].includes(path)) missing.push(`${label}: 404`);
        }
      }
    }
    assert.deepEqual(missing, []);
    assert.ok(ops > 180, `${ops} operations`);
    const events = (await call(`${s.root}evt/events/v1/doc`)).body;
    const perPage = (path: string) => events.paths[path].get.parameters.find((p: { name: string }) => p.name === 'per_page').schema;
    for (const p of ['/events', '/venues', '/organizers', '/categories', '/tags']) assert.equal(perPage(p).maximum, 50, `${p} per_page maximum`);
    assert.deepEqual(events.paths['/events'].get.security, [{}, { applicationPassword: [] }, { apiKey: [] }, { apiKeyQuery: [] }]);
    assert.deepEqual(events.paths['/events'].post.security, [{ applicationPassword: [] }], 'a door key cannot create events');
    assert.deepEqual(events.paths['/events'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/EventArchive' });
    const tickets = (await call(`${s.root}evt/tickets/v1/doc`)).body;
    assert.equal(tickets.paths['/tickets'].get.parameters.find((p: { name: string }) => p.name === 'per_page').schema.maximum, 100);
    assert.ok(tickets.paths['/qr'].get.responses['201'], 'the QR check-in route is documented');
    assert.deepEqual(
      tickets.paths['/attendees/{id}'].post.security,
      [{ applicationPassword: [] }, { apiKey: [] }, { apiKeyQuery: [] }],
      'a door key may check in',
    );
    // The site index keeps the original's args: the document-only bound is not in it.
    const idx = (await call(s.root)).body;
    assert.equal(idx.routes['/evt/events/v1/events'].endpoints[0].args.per_page.maximum, undefined);
  });

  test('an unknown namespace index is rest_no_route', async () => {
    const r = await call(`${s.root}evt/nothing/v9`);
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'rest_no_route');
  });
});
