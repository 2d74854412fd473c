import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import qs from 'qs';
import type { Lang } from '../kernel/context.ts';
import { HttpError } from '../kernel/errors.ts';

export const BODY_LIMIT = 1024 * 1024;

const QS_OPTIONS = { depth: 10, arrayLimit: 200, parameterLimit: 5000, allowPrototypes: false } as const;

export interface RestTarget {
  route: string;
  langSegment: Lang | null;
  query: Record<string, unknown>;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Normalises a route: leading slash, no trailing slash (WordPress un-trailing-slashes before matching). */
export function normaliseRoute(route: string): string {
  let r = route.startsWith('/') ? route : `/${route}`;
  r = r.replace(/\/{2,}/g, '/');
  if (r.length > 1) r = r.replace(/\/+$/, '');
  return r || '/';
}

/**
 * Finds the REST route in a URL: `/{lang}/wp-json/<route>`, `/wp-json/<route>`, or `?rest_route=<route>` on the
 * site root, `/index.php` or a language root. Returns null for URLs that are not REST requests.
 */
export function resolveRestTarget(url: string): RestTarget | null {
  const q = url.indexOf('?');
  const pathname = q < 0 ? url : url.slice(0, q);
  const m = /^\/(?:(en|et)\/)?wp-json(\/.*)?$/i.exec(pathname);
  const root = m ? null : /^\/(?:(en|et)\/?)?(?:index\.php)?$/i.exec(pathname);
  // Site pages and kiosk files are neither: their query strings are not parsed here.
  if (!m && !root) return null;
  const query = qs.parse(q < 0 ? '' : url.slice(q + 1), QS_OPTIONS) as Record<string, unknown>;
  if (m) {
    const lang = (m[1]?.toLowerCase() as Lang | undefined) ?? null;
    return { route: normaliseRoute(safeDecode(m[2] ?? '/')), langSegment: lang, query };
  }
  if (typeof query.rest_route !== 'string') return null;
  const lang = (root![1]?.toLowerCase() as Lang | undefined) ?? null;
  return { route: normaliseRoute(query.rest_route), langSegment: lang, query };
}

/** Seconds a body may take after its headers unless the server says otherwise (CONTRACT section 3). */
export const BODY_TIMEOUT_MS = 30_000;

/**
 * Reads a request body of at most `limit` bytes. A body that has not fully arrived `timeoutMs` after this call
 * (made as soon as the headers are in) fails with `408 rest_request_timeout`; the caller answers and closes
 * the connection (see `closeAfterResponse`), so a client trickling a body cannot hold a request open.
 */
export function readBody(req: IncomingMessage, opts: { limit?: number; timeoutMs?: number } = {}): Promise<Buffer> {
  const limit = opts.limit ?? BODY_LIMIT;
  const timeoutMs = opts.timeoutMs ?? BODY_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(payloadTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const timer = setTimeout(() => {
      if (failed) return;
      failed = true;
      chunks.length = 0;
      // Stop taking the rest of it: the answer closes the connection.
      req.pause();
      reject(requestTimeout(timeoutMs));
    }, timeoutMs);
    timer.unref();
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        clearTimeout(timer);
        chunks.length = 0;
        reject(payloadTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      clearTimeout(timer);
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('close', () => clearTimeout(timer));
    req.on('error', (e) => {
      clearTimeout(timer);
      if (!failed) reject(new HttpError(400, 'rest_invalid_body', `The request body could not be read: ${e.message}`));
    });
  });
}

function requestTimeout(timeoutMs: number): HttpError {
  return new HttpError(408, 'rest_request_timeout', 'The request body did not arrive in time.', { timeout: Math.round(timeoutMs / 1000) });
}

/** True for the error of a body that did not arrive in time: its answer must close the connection. */
export function isRequestTimeout(e: unknown): boolean {
  return e instanceof HttpError && e.status === 408;
}

/**
 * Marks an answer as the connection's last (`Connection: close`) and ends the socket once it is written, so a
 * client still sending a late body cannot keep it; a socket not closed by the peer is destroyed soon after.
 */
export function closeAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  res.once('finish', () => {
    const socket = req.socket;
    socket.end();
    setTimeout(() => socket.destroy(), 1000).unref();
  });
}

function payloadTooLarge(): HttpError {
  return new HttpError(413, 'rest_payload_too_large', 'The request body is larger than the 1 MiB limit.', { limit: BODY_LIMIT });
}

/** A file part of a multipart body (bounded by the body limit like everything else in it). */
export interface UploadedFile {
  /** The part's form field name. */
  field: string;
  /** The file name the client gave (`filename=` of its Content-Disposition); may be empty. */
  filename: string;
  mimeType: string;
  data: Buffer;
}

export interface ParsedBody {
  body: Record<string, unknown>;
  json: Record<string, unknown> | null;
  jsonError: boolean;
  /** File parts of a multipart body. Only routes that take files read them (see `withFileParams`); others ignore them, as WordPress leaves `$_FILES` to routes that want it. */
  files: UploadedFile[];
}

/** How many form fields a body may carry: the same cap as a urlencoded body's `parameterLimit`. */
export const MAX_FORM_FIELDS = QS_OPTIONS.parameterLimit;
/** How many file parts a multipart body may carry. */
export const MAX_FILE_PARTS = 10;
/** Longest form field name in a multipart body (busboy would otherwise cut longer names silently). */
const MAX_FIELD_NAME = 1024;

/**
 * JSON when the content type says so (a syntax error is reported after routing, as core does), a multipart
 * form (`multipart/form-data`, as WordPress takes `FormData` bodies), a form when urlencoded or untyped, else
 * no parameters. A malformed multipart body
 * fails with `400 rest_invalid_multipart`, one with too many parts with `413 rest_too_many_parts`.
 */
export async function parseBody(buf: Buffer, contentType: string | undefined): Promise<ParsedBody> {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (buf.length === 0) return { body: {}, json: null, jsonError: false, files: [] };
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      const v: unknown = JSON.parse(buf.toString('utf8'));
      const json = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
      return { body: {}, json, jsonError: false, files: [] };
    } catch {
      return { body: {}, json: null, jsonError: true, files: [] };
    }
  }
  // As WordPress (`WP_REST_Request::parse_body_params`): only a urlencoded body, or one without a type, is a
  // form; `text/plain` (what a cross-site HTML form may also send) and other types carry no parameters.
  if (type === '' || type === 'application/x-www-form-urlencoded') {
    return { body: parseForm(buf.toString('utf8')), json: null, jsonError: false, files: [] };
  }
  if (type === 'multipart/form-data') return parseMultipart(buf, contentType!);
  return { body: {}, json: null, jsonError: false, files: [] };
}

function parseForm(text: string): Record<string, unknown> {
  return qs.parse(text, QS_OPTIONS) as Record<string, unknown>;
}

function invalidMultipart(detail: string): HttpError {
  return new HttpError(400, 'rest_invalid_multipart', `The multipart/form-data body could not be read: ${detail}`);
}

/**
 * A whole multipart body (already read within the body limit and timeout) parsed with busboy. Its fields become
 * form parameters exactly as a urlencoded body's do: they are re-encoded in order and parsed with the same qs
 * options, so `venue[city]`, `tags[]` and repeated names give the same structure either way.
 */
function parseMultipart(buf: Buffer, contentType: string): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        limits: {
          fields: MAX_FORM_FIELDS,
          files: MAX_FILE_PARTS,
          parts: MAX_FORM_FIELDS + MAX_FILE_PARTS,
          fieldNameSize: MAX_FIELD_NAME,
          fieldSize: BODY_LIMIT,
          fileSize: BODY_LIMIT,
          headerPairs: 20,
        },
      });
    } catch (e) {
      // No boundary, or a content type busboy cannot read.
      reject(invalidMultipart((e as Error).message));
      return;
    }
    const pairs: string[] = [];
    const files: UploadedFile[] = [];
    let failure: HttpError | null = null;
    let settled = false;
    const fail = (e: HttpError) => {
      failure ??= e;
    };
    const tooMany = (what: string, limit: number) =>
      fail(new HttpError(413, 'rest_too_many_parts', `The multipart body has more than ${limit} ${what}.`, { limit }));
    bb.on('field', (name, value, info) => {
      // busboy applies fieldNameSize to urlencoded bodies only: the length is checked here for multipart ones.
      if (info.nameTruncated || Buffer.byteLength(name) > MAX_FIELD_NAME)
        return fail(invalidMultipart(`a field name is longer than ${MAX_FIELD_NAME} bytes.`));
      if (info.valueTruncated) return fail(invalidMultipart('a field value is too long.'));
      pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    });
    bb.on('file', (name, stream, info) => {
      if (Buffer.byteLength(name) > MAX_FIELD_NAME) fail(invalidMultipart(`a field name is longer than ${MAX_FIELD_NAME} bytes.`));
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        files.push({ field: name, filename: info.filename ?? '', mimeType: info.mimeType, data: Buffer.concat(chunks) });
      });
      stream.on('error', () => {});
    });
    bb.on('fieldsLimit', () => tooMany('fields', MAX_FORM_FIELDS));
    bb.on('filesLimit', () => tooMany('files', MAX_FILE_PARTS));
    bb.on('partsLimit', () => tooMany('parts', MAX_FORM_FIELDS + MAX_FILE_PARTS));
    bb.on('error', (e: Error) => {
      if (settled) return;
      settled = true;
      reject(failure ?? invalidMultipart(e.message));
    });
    bb.on('close', () => {
      if (settled) return;
      settled = true;
      if (failure) reject(failure);
      else resolve({ body: parseForm(pairs.join('&')), json: null, jsonError: false, files });
    });
    try {
      bb.end(buf);
    } catch (e) {
      if (!settled) {
        settled = true;
        reject(failure ?? invalidMultipart((e as Error).message));
      }
    }
  });
}

/**
 * The routes that take a file from a multipart body, and how its part becomes their parameters. Every other
 * route ignores file parts (WordPress puts them in `$_FILES`, which only upload routes read).
 */
const FILE_ROUTES: Record<string, (body: Record<string, unknown>, files: UploadedFile[]) => Record<string, unknown>> = {
  // protected-files/v1 POST /files takes `filename` and base64 `content`: a file part named `file` (as
  // wp/v2/media takes it) or `content` gives both, its bytes and its name unless a `filename` field is sent.
  'protected-files.upload': (body, files) => {
    const file = files.find((f) => f.field === 'file' || f.field === 'content');
    if (!file) return body;
    const out: Record<string, unknown> = { ...body, content: file.data.toString('base64') };
    if (typeof body.filename !== 'string' || body.filename === '') out.filename = file.filename;
    return out;
  },
};

/** The form parameters of a request to the endpoint `endpointId`, with its file parts where it takes files. */
export function withFileParams(endpointId: string, body: Record<string, unknown>, files: UploadedFile[]): Record<string, unknown> {
  if (!files.length || !Object.hasOwn(FILE_ROUTES, endpointId)) return body;
  return FILE_ROUTES[endpointId](body, files);
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    if (k) out[k] = safeDecode(part.slice(i + 1).trim());
  }
  return out;
}
