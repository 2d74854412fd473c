import { z } from 'zod';
import { integer, string } from '../http/params.ts';
import { defineRoute, translationLanguage, type NamespaceDef, type RouteDef } from '../http/route.ts';

/**
 * `protected-files/v1`: Prevent Direct Access (Lite)'s REST routes, renamed. As in the original the four
 * routes declare no arguments (the path ID is read from the URL) and need `manage_options`. Added: `POST /files`
 * uploads a file as an attachment post, so there are files to protect. Handlers: server/routes/protected-files/.
 */

export const PROTECTED_FILES_NS = 'protected-files/v1';
const ns = PROTECTED_FILES_NS;
const tl = { translation_language: translationLanguage };

/** Upload limits, shared so a client can check before sending. */
export const MAX_UPLOAD_BYTES = 512 * 1024;
export const UPLOAD_TYPES = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
} as const;
export type UploadExt = keyof typeof UPLOAD_TYPES;

/**
 * A file name as a client may send it: one plain segment with an allowed extension. Anything that could be
 * read as a path (separators, `..`, NUL, percent escapes, a leading dot) is refused outright.
 */
export function validUploadName(name: string): UploadExt | null {
  if (name.length < 3 || name.length > 120) return null;
  if (!/^[A-Za-z0-9][A-Za-z0-9 ._()-]*$/.test(name) || name.includes('..')) return null;
  const ext = /\.([A-Za-z0-9]{1,5})$/.exec(name)?.[1]?.toLowerCase();
  return ext && ext in UPLOAD_TYPES ? (ext as UploadExt) : null;
}

export const ProtectedFileInfo = z.object({
  is_protected: z.boolean(),
  post: z.object({ title: z.string(), edit_url: z.string(), s3_link: z.boolean(), is_file_deleted: z.boolean() }),
  role_setting: z.object({ file_access_permission: z.string(), whitelist_roles: z.string() }),
  file: z.object({
    id: z.number().int(),
    name: z.string(),
    mime_type: z.string(),
    filesize: z.number().int(),
    sha256: z.string(),
    parent: z.number().int(),
    url: z.string().nullable(),
    created: z.string(),
  }),
});

export const PrivateLink = z.object({
  ID: z.number().int(),
  post_id: z.number().int(),
  time: z.number().int(),
  url: z.string(),
  full_url: z.string(),
  is_prevented: z.number().int(),
  hits_count: z.number().int(),
  limit_downloads: z.null(),
  expired_date: z.number().int(),
  expired: z.boolean(),
});

export const Unprotected = z.object({
  ID: z.number().int(),
  post_id: z.number().int(),
  time: z.number().int(),
  url: z.string(),
  is_prevented: z.number().int(),
  revoked_links: z.number().int(),
});

const idRoute = (path: string) => `/${path}/(?P<id>\\d+)`;

export const protectedFilesRoutes = {
  protect: defineRoute({
    id: 'protected-files.protect',
    namespace: ns,
    route: idRoute('files'),
    methods: ['POST'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Protects the file: it is then served only through its private URLs; answers with a new private link',
    doc: { responses: { '200': { description: 'The new private link', schema: 'PrivateLink' } } },
  }),
  privateUrls: defineRoute({
    id: 'protected-files.private-urls',
    namespace: ns,
    route: idRoute('private-urls'),
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Lists the live private links of a protected file',
    doc: { responses: { '200': { description: 'The live private links (none when the file is not protected)', schema: 'PrivateLink[]' } } },
  }),
  read: defineRoute({
    id: 'protected-files.read',
    namespace: ns,
    route: idRoute('files'),
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Whether the file is protected, with its metadata',
    doc: { responses: { '200': { description: 'The file', schema: 'ProtectedFileInfo' } } },
  }),
  unprotect: defineRoute({
    id: 'protected-files.unprotect',
    namespace: ns,
    route: idRoute('un-protect-files'),
    methods: ['POST'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Unprotects the file: it is served publicly again and its private links stop working',
    doc: { responses: { '200': { description: 'The file, public again, and how many links were revoked', schema: 'Unprotected' } } },
  }),
  upload: defineRoute({
    id: 'protected-files.upload',
    namespace: ns,
    route: '/files',
    methods: ['POST'],
    permission: 'edit_events',
    args: {
      filename: string({
        description: `The file name: letters, digits, space, . _ ( ) -, ending in one of ${Object.keys(UPLOAD_TYPES).join(', ')}`,
        required: true,
      }),
      content: string({ description: `The file's bytes, base64-encoded (at most ${MAX_UPLOAD_BYTES} bytes decoded)`, required: true }),
      post_id: integer({ description: 'The post the file is attached to', minimum: 1 }),
      ...tl,
    },
    summary: 'Uploads a file as an attachment (an extension of this server)',
    doc: {
      responses: {
        '201': { description: 'The stored file', schema: 'ProtectedFileInfo' },
        '404': { description: 'No such post to attach the file to.' },
        '413': { description: 'The file is over the upload limit (`rest_upload_too_large`).' },
      },
    },
  }),
};

export const protectedFilesNamespace: NamespaceDef = {
  name: ns,
  routes: [
    protectedFilesRoutes.protect,
    protectedFilesRoutes.privateUrls,
    protectedFilesRoutes.read,
    protectedFilesRoutes.unprotect,
    protectedFilesRoutes.upload,
  ] as RouteDef[],
  doc: {
    title: 'Protected files',
    description: 'Protect files attached to posts; a protected file is served only through expiring private links.',
    version: '1.0.0',
    schemas: { ProtectedFileInfo, PrivateLink, Unprotected },
  },
};
