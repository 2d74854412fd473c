import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';

/**
 * Checks answers against the server's OpenAPI 3.0 documents. The documents themselves are checked against the
 * OpenAPI 3.0 schema by @seriousme/openapi-schema-validator; bodies are checked by Ajv (the JSON-schema
 * validator that package is built on) against the response schema the document gives for the status, with the
 * document's components in scope. A status the operation does not list, or a media type it does not list, is an
 * error: an undocumented answer fails the contract.
 */

export interface Doc {
  openapi: string;
  paths: Record<string, Record<string, DocOperation>>;
  components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
}

export interface DocOperation {
  operationId: string;
  parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown>; example?: unknown }[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: Record<string, unknown> }> }>;
  security?: Record<string, string[]>[];
}

/** Validates a whole document against the OpenAPI 3.0 JSON schema; returns the errors (none when valid). */
export async function documentErrors(doc: Doc): Promise<unknown[]> {
  const v = new Validator();
  const res = await v.validate(doc as unknown as Parameters<Validator['validate']>[0]);
  return res.valid ? [] : ((res.errors as unknown[]) ?? ['invalid']);
}

export class ResponseChecker {
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly docs: Record<string, Doc>) {
    // strict: false lets the OpenAPI-only keywords (example, nullable handled by Ajv itself, x-*) through.
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
  }

  /** The errors of one answer (empty when the document allows it). */
  check(ns: string, path: string, method: string, status: number, contentType: string | null, body: unknown): string[] {
    const op = this.docs[ns]?.paths[path]?.[method.toLowerCase()];
    if (!op) return [`${method} /${ns}${path} is not in the document`];
    const response = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
    if (!response) return [`status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`];
    if (!response.content) return body === undefined || body === '' ? [] : [`status ${status} documents no body, got one`];
    const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const entry = response.content[media];
    if (!entry) return [`media type ${media || '(none)'} is not documented for ${status} (documented: ${Object.keys(response.content).join(', ')})`];
    if (media !== 'application/json' || !entry.schema) return [];
    const key = `${ns} ${method} ${path} ${status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile({ ...entry.schema, components: this.docs[ns]!.components });
      this.cache.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 8)
      .map(
        (e) =>
          `${e.instancePath || '(root)'} ${e.message}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`,
      );
  }
}
