import { z } from 'zod';
import { boolean, custom, enumString, string } from '../http/params.ts';
import { defineRoute, translationLanguage, type NamespaceDef } from '../http/route.ts';

/**
 * WordPress core's `oembed/1.0` namespace (class-wp-oembed-controller.php): `embed` for this site's posts,
 * `proxy` for editors (this site's posts, or an allow-listed external provider). Handlers in
 * server/routes/oembed/.
 */

export const OEMBED_NS = 'oembed/1.0';
const ns = OEMBED_NS;
const tl = { translation_language: translationLanguage };

/** `oembed_default_width`. */
export const OEMBED_DEFAULT_WIDTH = 600;

/** PHP `absint`: intval (leading digits of a string, 0 for anything else) made non-negative. */
export function absint(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.min(Math.abs(Math.trunc(v)), Number.MAX_SAFE_INTEGER) : 0;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const m = /^\s*[+-]?(\d+(?:\.\d*)?(?:e[+-]?\d+)?)/i.exec(v);
    return m ? absint(Number(m[1])) : 0;
  }
  if (Array.isArray(v)) return v.length ? 1 : 0;
  return 0;
}

const absintSchema = z.preprocess(absint, z.number().int().min(0));

/** `wp_oembed_ensure_format`: anything but `xml` is `json`. */
const ensureFormat = z.preprocess((v) => (v === 'xml' ? 'xml' : 'json'), z.enum(['json', 'xml']));

const urlArg = string({ description: 'The URL of the resource for which to fetch oEmbed data.', required: true, format: 'uri' });

/** The oEmbed 1.0 response, key order as `get_oembed_response_data` + the rich-type filter build it. */
export const OEmbedResponse = z.object({
  version: z.string(),
  provider_name: z.string(),
  provider_url: z.string(),
  author_name: z.string(),
  author_url: z.string(),
  title: z.string(),
  type: z.enum(['rich', 'video', 'photo', 'link']),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  html: z.string().optional(),
  thumbnail_url: z.string().optional(),
  thumbnail_width: z.number().int().optional(),
  thumbnail_height: z.number().int().optional(),
});
export type OEmbedResponse = z.infer<typeof OEmbedResponse>;

export const oembedRoutes = {
  embed: defineRoute({
    id: 'oembed.embed',
    namespace: ns,
    route: '/embed',
    methods: ['GET'],
    args: {
      url: urlArg,
      format: custom(ensureFormat, z.unknown(), { default: 'json' as const }),
      maxwidth: custom(absintSchema, z.unknown(), { default: OEMBED_DEFAULT_WIDTH }),
      ...tl,
    },
    permission: 'public',
    summary: 'oEmbed data of a page of this site (an event, venue or organizer), as JSON or XML.',
    doc: {
      responses: {
        '200': { description: 'The oEmbed data of the page (format=xml: as XML)', schema: 'OEmbedResponse', media: ['application/json', 'text/xml'] },
        '404': { description: 'The URL is not an embeddable page of this site (oembed_invalid_url)' },
      },
    },
  }),
  proxy: defineRoute({
    id: 'oembed.proxy',
    namespace: ns,
    route: '/proxy',
    methods: ['GET'],
    args: {
      url: urlArg,
      format: enumString(['json', 'xml'], { description: 'The oEmbed format to use.', default: 'json' as const }),
      maxwidth: custom(absintSchema, z.number().int(), {
        description: 'The maximum width of the embed frame in pixels.',
        default: OEMBED_DEFAULT_WIDTH,
      }),
      maxheight: custom(absintSchema, z.number().int(), { description: 'The maximum height of the embed frame in pixels.' }),
      discover: boolean({ description: 'Whether to perform an oEmbed discovery request for unsanctioned providers.', default: true }),
      ...tl,
    },
    permission: 'edit_events',
    forbiddenMessage: 'Sorry, you are not allowed to make proxied oEmbed requests.',
    summary: 'oEmbed data of any URL: this site answers itself, other URLs only through allow-listed providers.',
    doc: {
      responses: {
        '200': { description: 'The oEmbed data of the URL (format=xml: as XML)', schema: 'OEmbedResponse', media: ['application/json', 'text/xml'] },
        '401': { description: 'Not signed in' },
        '403': { description: 'The user may not make proxied oEmbed requests' },
        '404': { description: 'No allow-listed provider answered for the URL (oembed_invalid_url)' },
      },
    },
  }),
};

export const oembedNamespace: NamespaceDef = {
  name: ns,
  routes: [oembedRoutes.embed, oembedRoutes.proxy],
  doc: {
    title: 'oEmbed',
    description: 'oEmbed 1.0 provider for the pages of this site, and a proxy to allow-listed oEmbed providers.',
    version: '1.0.0',
    schemas: { OEmbedResponse },
  },
};
