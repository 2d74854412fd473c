import { z } from 'zod';
import { custom, enumString, SLOW, string, type ArgJson } from '../http/params.ts';
import { defineRoute, type RouteDef } from '../http/route.ts';

export const MAX_BATCH = 25;

export const BatchItem = z.object({
  method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
  path: z.string(),
  body: z.record(z.string(), z.unknown()).optional(),
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
});
export type BatchItem = z.infer<typeof BatchItem>;

const batchRequests = z.array(BatchItem).max(MAX_BATCH);

/**
 * The item schema core's batch route shows in the indexes (`WP_REST_Server::get_batch_request_schema`'s items;
 * `properties: []` is PHP's empty array).
 */
const BATCH_ITEM_JSON = {
  type: 'object',
  properties: {
    method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'], default: 'POST' },
    path: { type: 'string', required: true },
    body: { type: 'object', properties: [], additionalProperties: true },
    headers: { type: 'object', properties: [], additionalProperties: { type: ['string', 'array'], items: { type: 'string' } } },
  },
} as unknown as ArgJson;

const BATCH_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/**
 * `batchRequests`' answer for the batch a kiosk sends (items of method, path and a JSON body), without Zod's
 * walk of every body; anything else (headers, odd bodies, errors) goes to the schema.
 */
export function acceptBatchRequests(v: unknown): unknown {
  if (!Array.isArray(v) || v.length > MAX_BATCH) return SLOW;
  const out: BatchItem[] = [];
  for (const item of v) {
    if (!isPlainObject(item) || item.headers !== undefined) return SLOW;
    const method = item.method === undefined ? 'POST' : item.method;
    if (typeof method !== 'string' || !BATCH_METHODS.has(method) || typeof item.path !== 'string') return SLOW;
    const body = item.body;
    if (body === undefined) {
      out.push({ method: method as BatchItem['method'], path: item.path });
      continue;
    }
    if (!isPlainObject(body) || Object.hasOwn(body, '__proto__')) return SLOW;
    out.push({ method: method as BatchItem['method'], path: item.path, body: { ...body } });
  }
  return out;
}

/** The interface root: the site index. */
export const siteIndexRoute = defineRoute({
  id: 'core.index',
  namespace: '',
  route: '/',
  methods: ['GET'],
  args: { context: string({ default: 'view' }) },
  permission: 'public',
  publicCache: true,
  summary: 'The site index: every namespace and route with its arguments.',
});

export const batchRoute = defineRoute({
  id: 'core.batch',
  namespace: '',
  route: '/batch/v1',
  methods: ['POST'],
  args: {
    validation: enumString(['require-all-validate', 'normal'], { default: 'normal' as const }),
    requests: custom(batchRequests, batchRequests, { required: true as const, extra: { items: BATCH_ITEM_JSON } }, acceptBatchRequests),
  },
  permission: 'public',
  summary: 'Runs up to 25 write requests in one call.',
});

/** Every namespace answers at its own root (its index) and at `/doc` (its OpenAPI document). */
export function namespaceRoutes(namespace: string): { index: RouteDef; doc: RouteDef } {
  return {
    index: defineRoute({
      id: `${namespace}.index`,
      namespace,
      route: '',
      methods: ['GET'],
      args: { namespace: string({ default: namespace }), context: string({ default: 'view' }) },
      permission: 'public',
      publicCache: true,
      summary: `Index of the ${namespace} namespace.`,
      doc: { responses: { '200': { description: 'The namespace, its routes and their arguments', schema: 'NamespaceIndex' } }, exact: true },
    }),
    doc: defineRoute({
      id: `${namespace}.doc`,
      namespace,
      route: '/doc',
      methods: ['GET'],
      args: {},
      permission: 'public',
      publicCache: true,
      summary: `OpenAPI 3.0.0 document of the ${namespace} namespace.`,
      doc: { responses: { '200': { description: 'Returns the documentation in OpenAPI format.', schema: 'OpenApiDocument' } }, exact: true },
    }),
  };
}
