import { z } from 'zod';
import { custom, enumString, string } from '../http/params.ts';
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
    requests: custom(batchRequests, batchRequests, { required: true }),
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
      doc: false,
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
      doc: { responses: { '200': { description: 'Returns the documentation in OpenAPI format.' } } },
    }),
  };
}
