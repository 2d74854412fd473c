/** The operations of the server's OpenAPI documents (`GET /wp-json/` namespaces, then `/<ns>/doc` each). */

export interface Schema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  $ref?: string;
}

export interface Param {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  ns: string;
  /** OpenAPI path inside the namespace, e.g. `/attendees/{id}`. */
  path: string;
  method: string;
  params: Param[];
  /** Request body properties (JSON and form share them), when the operation takes a body. */
  body: { properties: Record<string, Schema>; required: string[] } | null;
  /** `METHOD /ns/path`, for reports. */
  label: string;
}

interface Doc {
  paths: Record<string, Record<string, { parameters?: Param[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
}

export async function loadOperations(root: string): Promise<{ namespaces: string[]; ops: Operation[] }> {
  const index = (await (await fetch(root)).json()) as { namespaces: string[] };
  const ops: Operation[] = [];
  for (const ns of index.namespaces) {
    const res = await fetch(`${root}${ns}/doc`);
    if (res.status !== 200) throw new Error(`GET /${ns}/doc: HTTP ${res.status}`);
    const doc = (await res.json()) as Doc;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const schema = op.requestBody?.content['application/json']?.schema ?? op.requestBody?.content['application/x-www-form-urlencoded']?.schema;
        ops.push({
          ns,
          path,
          method: method.toUpperCase(),
          params: op.parameters ?? [],
          body: schema ? { properties: schema.properties ?? {}, required: schema.required ?? [] } : null,
          label: `${method.toUpperCase()} /${ns}${path}`,
        });
      }
    }
  }
  return { namespaces: index.namespaces, ops };
}
