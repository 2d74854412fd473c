import { z } from 'zod';
import { defineRoute, translationLanguage, type NamespaceDef, type RouteDef } from '../http/route.ts';

/**
 * `translation/v1`: the translation plugin's custom XML configuration (WPML's `custom-xml-config` routes),
 * renamed. As in the original the routes declare no arguments besides the language; `content` is read from the
 * request. Differences: a write of malformed XML is refused (the original stored anything), and the checks are a
 * strict well-formedness parse plus the document's root (`wpml-config`); errors are libxml2-shaped.
 * Handlers: server/routes/translation/.
 */

export const TRANSLATION_NS = 'translation/v1';
const ns = TRANSLATION_NS;
const tl = { translation_language: translationLanguage };

export const CONFIG_ROOT = 'wpml-config';
export const MAX_XML_CHARS = 256 * 1024;

/** One error, as PHP's `LibXMLError` serialises (level 3 fatal, 2 error). */
export const XmlError = z.object({
  level: z.number().int(),
  code: z.number().int(),
  column: z.number().int(),
  message: z.string(),
  file: z.string(),
  line: z.number().int(),
});

export const translationRoutes = {
  read: defineRoute({
    id: 'translation.custom-xml-config.read',
    namespace: ns,
    route: '/custom-xml-config',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'The stored custom XML configuration (a string; empty when none)',
    doc: { responses: { '200': { description: 'The XML, as a JSON string', schema: z.string() } } },
  }),
  update: defineRoute({
    id: 'translation.custom-xml-config.update',
    namespace: ns,
    route: '/custom-xml-config',
    methods: ['POST'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Stores `content` as the custom XML configuration once it is well-formed; an empty string removes it',
    doc: {
      responses: {
        '200': { description: 'The XML stored, as a JSON string', schema: z.string() },
        '400': { description: 'The content is missing, not a string, too long, or not well-formed XML (`invalid_xml`).' },
      },
    },
  }),
  validate: defineRoute({
    id: 'translation.custom-xml-config.validate',
    namespace: ns,
    route: '/custom-xml-config/validate',
    methods: ['POST'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'Checks `content`: an empty list when valid, else the errors with line and column',
    doc: { responses: { '200': { description: 'The errors (empty when the content is valid)', schema: 'XmlError[]' } } },
  }),
};

export const translationNamespace: NamespaceDef = {
  name: ns,
  routes: [translationRoutes.read, translationRoutes.update, translationRoutes.validate] as RouteDef[],
  doc: {
    title: 'Translation management',
    description: 'Custom XML configuration of the translation plugin.',
    version: '1.0.0',
    schemas: { XmlError },
  },
};
