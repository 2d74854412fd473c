import { z } from 'zod';
import { argJson, type ArgJson } from '../../shared/http/params.ts';
import { openApiPath, type DocResponse, type NamespaceDef, type RouteDef } from '../../shared/http/route.ts';
import { roleCan } from '../../shared/auth.ts';
import type { Registry, RouteEntry } from './registry.ts';
import type { Urls } from '../kernel/context.ts';

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
  // OpenAPI 3.0 allows `nullable` only beside `type`: a nullable union or reference says null as one more
  // alternative (`enum: [null]` is how 3.0 writes the null type).
  // OpenAPI 3.0.3: a nullable enum lists null among its values, or null is still refused.
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (out.nullable === true && out.type === undefined) {
    delete out.nullable;
    const nullAlt = { type: 'string', nullable: true, enum: [null] };
    const alts = (out.anyOf ?? out.oneOf) as unknown[] | undefined;
    if (alts) out.anyOf ? (out.anyOf = [...alts, nullAlt]) : (out.oneOf = [...alts, nullAlt]);
    else if (out.$ref !== undefined) return { anyOf: [{ $ref: out.$ref }, nullAlt] } as T;
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
  for (const k of [
    'type',
    'items',
    'enum',
    'format',
    'minimum',
    'maximum',
    'minItems',
    'maxItems',
    'minLength',
    'maxLength',
    'default',
    'properties',
    'additionalProperties',
  ]) {
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

/** The WordPress error envelope every 4xx (and 5xx) answer of the evt namespaces carries. */
const ErrorEnvelope = z.object({
  code: z.string(),
  message: z.string(),
  data: z.looseObject({
    status: z.number().int(),
    params: z.record(z.string(), z.string()).optional(),
    details: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
  }),
  /** WP_Error's further data, e.g. `term_exists` repeats the clashing term's ID. */
  additional_data: z.array(z.unknown()).optional(),
});

/** A namespace index (`GET /<namespace>`), as WordPress builds it. */
const NamespaceIndex = z.object({
  namespace: z.string(),
  routes: z.record(
    z.string(),
    z.looseObject({
      namespace: z.string(),
      methods: z.array(z.string()),
      endpoints: z.array(z.looseObject({ methods: z.array(z.string()), args: z.record(z.string(), z.unknown()) })),
    }),
  ),
  _links: z.looseObject({ up: z.array(z.object({ href: z.string() })) }),
});

const OpenApiDocumentShape = z.looseObject({
  openapi: z.literal('3.0.0'),
  info: z.looseObject({ title: z.string(), description: z.string(), version: z.string() }),
  servers: z.array(z.object({ url: z.string() })),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.looseObject({ schemas: z.record(z.string(), z.unknown()) }),
});

/** Schemas every namespace document carries besides its own. */
const COMMON_SCHEMAS: Record<string, z.ZodType> = { Error: ErrorEnvelope, NamespaceIndex, OpenApiDocument: OpenApiDocumentShape };

export const SECURITY_SCHEMES = {
  applicationPassword: {
    type: 'http',
    scheme: 'basic',
    description: 'A user login and one of its application passwords (`Authorization: Basic base64(login:password)`).',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key of a door device (`Authorization: Bearer dsk_<id>_<secret>`); it acts with the door role, limited to its event when it names one.',
  },
  apiKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'api_key',
    description: 'The same API key as the `api_key` query (or form body) parameter, as the ticket QR check-in link carries it.',
  },
} as const;

/** Roles that hold a capability (the door role is what an API key acts with). */
function securityFor(permission: RouteDef['permission']): Record<string, string[]>[] {
  const basic: Record<string, string[]> = { applicationPassword: [] };
  const keys: Record<string, string[]>[] = [{ apiKey: [] }, { apiKeyQuery: [] }];
  if (permission === 'public') return [{}, basic, ...keys];
  if (permission === 'authenticated' || roleCan('door', permission)) return [basic, ...keys];
  return [basic];
}

const ERROR_TEXT: Record<string, string> = {
  '400': 'A required parameter is missing or a parameter is invalid (`rest_missing_callback_param`, `rest_invalid_param`, `rest_invalid_json`).',
  '401': 'Not signed in where the route needs it, or the credentials presented are invalid or revoked (`rest_forbidden`, `incorrect_password`).',
  '403': 'The caller is signed in but may not do this (`rest_forbidden`).',
  '404': 'No such object (or one the caller may not see).',
  '408': 'The request body did not arrive in time (`rest_request_timeout`).',
  '413': 'The request body is over 1 MiB (`rest_payload_too_large`).',
  '429': 'Too many failed sign-ins from this address or for this login (`rest_too_many_requests`; see `Retry-After`).',
};

function schemaRef(schema: string | z.ZodType): Record<string, unknown> {
  if (typeof schema !== 'string')
    return cleanSchema(z.toJSONSchema(schema, { target: 'openapi-3.0', unrepresentable: 'any', io: 'output' }) as Record<string, unknown>);
  if (schema.endsWith('[]')) return { type: 'array', items: { $ref: `#/components/schemas/${schema.slice(0, -2)}` } };
  return { $ref: `#/components/schemas/${schema}` };
}

function responseObject(r: DocResponse, errorStatus: boolean, errorSchema = 'Error'): Record<string, unknown> {
  const schema = r.schema ?? (errorStatus ? errorSchema : undefined);
  if (r.media !== undefined) {
    const media = typeof r.media === 'string' ? [r.media] : r.media;
    const content: Record<string, unknown> = {};
    for (const m of media)
      content[m] =
        m === 'application/json' && schema
          ? { schema: schemaRef(schema) }
          : { schema: { type: 'string', ...(m.startsWith('image/png') || m.includes('zip') ? { format: 'binary' } : {}) } };
    return { description: r.description, content };
  }
  if (!schema) return { description: r.description };
  return { description: r.description, content: { 'application/json': { schema: schemaRef(schema) } } };
}

function exampleFor(name: string, schema: Record<string, unknown>, def: RouteDef): unknown {
  const given = def.doc?.examples?.[name];
  if (given !== undefined) return given;
  if (schema.type === 'integer' || schema.type === 'number') return 42;
  if (name === 'slug') return 'summer-jazz-night';
  return 'example';
}

function operation(def: RouteDef, method: string, errorSchema: string): Record<string, unknown> {
  // The route's named groups: [, name, pattern].
  const groups = [...def.route.matchAll(/\(\?P<([a-zA-Z_][a-zA-Z0-9_]*)>([^)]*)\)/g)];
  const inPath = new Set(groups.map((m) => m[1]));
  const parameters: Record<string, unknown>[] = [];
  const bodyProps: Record<string, unknown> = {};
  const bodyRequired: string[] = [];
  const isWrite = method === 'post' || method === 'put' || method === 'patch';
  const bounds = def.doc?.paramBounds ?? {};
  for (const [name, p] of Object.entries(def.args)) {
    const a = argJson(p);
    const schema = { ...toOpenApiSchema(a), ...(bounds[name] ?? {}) };
    if (inPath.has(name)) {
      parameters.push({ in: 'path', schema, description: a.description ?? '', required: true, name, example: exampleFor(name, schema, def) });
    } else if (isWrite) {
      bodyProps[name] = a.description ? { description: a.description, ...schema } : schema;
      if (p.required) bodyRequired.push(name);
    } else {
      const param: Record<string, unknown> = { in: 'query', schema, description: a.description ?? '', required: p.required, name };
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
    const schema = m[2] === '\\d+' ? { type: 'integer' } : { type: 'string' };
    parameters.unshift({ in: 'path', schema, description: '', required: true, name: m[1], example: exampleFor(m[1], schema, def) });
  }
  // Parameters the handler reads from the request itself (routes that, like the original, declare none).
  for (const x of def.doc?.extraParams ?? []) {
    if (x.in === 'body' && isWrite) {
      bodyProps[x.name] = { description: x.description, ...x.schema };
      if (x.required) bodyRequired.push(x.name);
    } else if (x.in !== 'body') {
      parameters.push({ in: x.in, schema: x.schema, description: x.description, required: x.required ?? false, name: x.name });
    }
  }
  const op: Record<string, unknown> = { summary: def.summary, operationId: `${def.id}.${method}` };
  if (def.permission !== 'public') op['x-required-capability'] = def.permission;
  if (parameters.length) op.parameters = parameters;
  if (isWrite && Object.keys(bodyProps).length) {
    const schema: Record<string, unknown> = { type: 'object', properties: bodyProps };
    if (bodyRequired.length) schema.required = bodyRequired;
    op.requestBody = {
      required: bodyRequired.length > 0,
      content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
    };
  }
  const declared = def.doc?.responses ?? {};
  const responses: Record<string, unknown> = {};
  for (const [code, r] of Object.entries(declared)) responses[code] = responseObject(r, Number(code) >= 400, errorSchema);
  // Error answers every endpoint can give: bad credentials and the sign-in limit are checked before routing;
  // parameters are validated before the handler; a body can be too large.
  const auto = ['401', '429'];
  if (!def.doc?.exact) {
    auto.push('400');
    if (def.permission !== 'public') auto.push('403');
    if (groups.length) auto.push('404');
  }
  if (isWrite || method === 'delete') auto.push('408', '413');
  for (const code of auto) responses[code] ??= responseObject({ description: ERROR_TEXT[code]! }, true, errorSchema);
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  op.security = securityFor(def.permission);
  return op;
}

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete'];

export function openApiDocument(registry: Registry, ns: NamespaceDef, urls: Urls): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of registry.routes) {
    if (entry.namespace !== ns.name) continue;
    for (const e of entry.endpoints) {
      const p = openApiPath(e.def.route) || '/';
      paths[p] ??= {};
      for (const m of e.def.methods) paths[p][m.toLowerCase()] = operation(e.def, m.toLowerCase(), ns.doc.errorSchema ?? 'Error');
    }
  }
  // Key order as the original's documents: a parameter is `in, schema, description, required, name`, a body
  // property starts with its description, and a path lists its operations get, post, put, patch, delete.
  for (const [p, item] of Object.entries(paths))
    paths[p] = Object.fromEntries(Object.entries(item).sort(([a], [b]) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)));
  const schemas: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries({ ...ns.doc.schemas, ...COMMON_SCHEMAS })) {
    schemas[name] = cleanSchema(z.toJSONSchema(schema, { target: 'openapi-3.0', unrepresentable: 'any', io: 'output' }));
  }
  return {
    openapi: '3.0.0',
    info: { version: ns.doc.version, title: ns.doc.title, description: ns.doc.description },
    servers: [{ url: urls.rest(`/${ns.name}/`) }],
    paths,
    components: { schemas, securitySchemes: SECURITY_SCHEMES },
  };
}
