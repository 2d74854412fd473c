import { z } from 'zod';
import { argJson, type ArgJson } from '../../shared/http/params.ts';
import { openApiPath, type NamespaceDef, type RouteDef } from '../../shared/http/route.ts';
import type { Registry, RouteEntry } from './registry.ts';
import type { Urls } from './context.ts';

/** Removes Zod's safe-integer bounds (WordPress shows none) and draft-only keys, recursively. */
function cleanSchema<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cleanSchema) as T;
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    if (k === '$schema') continue;
    if ((k === 'minimum' && val === Number.MIN_SAFE_INTEGER) || (k === 'maximum' && val === Number.MAX_SAFE_INTEGER)) continue;
    out[k] = cleanSchema(val);
  }
  return out as T;
}

function endpointArgs(def: RouteDef): Record<string, ArgJson> {
  const out: Record<string, ArgJson> = {};
  for (const [name, p] of Object.entries(def.args)) out[name] = argJson(p);
  return out;
}

/** One route's data exactly as `WP_REST_Server::get_data_for_route` builds it. */
export function routeData(entry: RouteEntry, urls: Urls): Record<string, unknown> {
  const methods: string[] = [];
  const endpoints = entry.endpoints.map((e) => {
    for (const m of e.def.methods) if (!methods.includes(m)) methods.push(m);
    const ep: Record<string, unknown> = { methods: [...e.def.methods] };
    if (e.def.batch) ep.allow_batch = { v1: true };
    ep.args = endpointArgs(e.def);
    return ep;
  });
  const data: Record<string, unknown> = { namespace: entry.namespace, methods, endpoints };
  if (!/[({]/.test(entry.key)) data._links = { self: [{ href: urls.rest(entry.key) }] };
  return data;
}

export function routesData(registry: Registry, urls: Urls, namespace?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of registry.routes) {
    if (namespace !== undefined && entry.namespace.toLowerCase() !== namespace.toLowerCase()) continue;
    out[entry.key] = routeData(entry, urls);
  }
  return out;
}

// ---- OpenAPI 3.0.0 ----

function toOpenApiSchema(a: ArgJson): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  for (const k of ['type', 'items', 'enum', 'format', 'minimum', 'maximum', 'minItems', 'maxItems', 'minLength', 'maxLength', 'default', 'properties', 'additionalProperties']) {
    if (a[k] !== undefined) s[k] = a[k];
  }
  if (Array.isArray(s.type)) s.type = (s.type as string[])[0];
  if (s.type === undefined && s.items === undefined) {
    // An untyped WordPress arg takes any value; OpenAPI 3.0 says so with an empty schema.
    delete s.type;
  }
  if (s.items && typeof s.items === 'object') s.items = toOpenApiSchema(s.items as ArgJson);
  return cleanSchema(s);
}

function operation(def: RouteDef, method: string): Record<string, unknown> {
  // The route's named groups: [, name, pattern].
  const groups = [...def.route.matchAll(/\(\?P<([a-zA-Z_][a-zA-Z0-9_]*)>([^)]*)\)/g)];
  const inPath = new Set(groups.map((m) => m[1]));
  const parameters: Record<string, unknown>[] = [];
  const bodyProps: Record<string, unknown> = {};
  const bodyRequired: string[] = [];
  const isWrite = method === 'post' || method === 'put' || method === 'patch';
  for (const [name, p] of Object.entries(def.args)) {
    const a = argJson(p);
    const schema = toOpenApiSchema(a);
    if (inPath.has(name)) {
      parameters.push({ name, in: 'path', description: a.description ?? '', required: true, schema });
    } else if (isWrite) {
      bodyProps[name] = a.description ? { ...schema, description: a.description } : schema;
      if (p.required) bodyRequired.push(name);
    } else {
      const param: Record<string, unknown> = { name, in: 'query', description: a.description ?? '', required: p.required, schema };
      if (schema.type === 'array') {
        param.style = 'form';
        param.explode = false;
      }
      parameters.push(param);
    }
  }
  // A path parameter the route does not declare as an argument (the original registered none) must still be
  // described: OpenAPI requires every templated path segment to be.
  for (const m of groups) {
    if (m[1] in def.args) continue;
    parameters.unshift({ name: m[1], in: 'path', description: '', required: true, schema: m[2] === '\\d+' ? { type: 'integer' } : { type: 'string' } });
  }
  const op: Record<string, unknown> = { summary: def.summary, operationId: `${def.id}.${method}` };
  if (parameters.length) op.parameters = parameters;
  if (isWrite && Object.keys(bodyProps).length) {
    const schema: Record<string, unknown> = { type: 'object', properties: bodyProps };
    if (bodyRequired.length) schema.required = bodyRequired;
    op.requestBody = {
      required: bodyRequired.length > 0,
      content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
    };
  }
  const responses: Record<string, unknown> = {};
  const declared = def.doc ? def.doc.responses : undefined;
  for (const [code, r] of Object.entries(declared ?? { '200': { description: 'Success' } })) {
    responses[code] = r.schema
      ? { description: r.description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${r.schema}` } } } }
      : { description: r.description };
  }
  if (!responses['400']) responses['400'] = { description: 'A required parameter is missing or a parameter is invalid.' };
  op.responses = responses;
  return op;
}

export function openApiDocument(registry: Registry, ns: NamespaceDef, urls: Urls): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of registry.routes) {
    if (entry.namespace !== ns.name) continue;
    for (const e of entry.endpoints) {
      if (e.def.doc === false) continue;
      const p = openApiPath(e.def.route) || '/';
      paths[p] ??= {};
      for (const m of e.def.methods) paths[p][m.toLowerCase()] = operation(e.def, m.toLowerCase());
    }
  }
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(ns.doc.schemas)) {
    schemas[name] = cleanSchema(z.toJSONSchema(schema, { target: 'openapi-3.0', unrepresentable: 'any', io: 'output' }));
  }
  return {
    openapi: '3.0.0',
    info: { version: ns.doc.version, title: ns.doc.title, description: ns.doc.description },
    servers: [{ url: urls.rest(`/${ns.name}/`) }],
    paths,
    components: { schemas },
  };
}
