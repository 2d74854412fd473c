import { boolean, custom, string } from '../http/params.ts';
import { z } from 'zod';
import { defineRoute, translationLanguage, type NamespaceDef } from '../http/route.ts';

/**
 * TEC's Views v2 endpoint (`tribe/views/v2` -> `evt/views/v2`): `/html` renders the HTML of the list or month
 * view for a view URL, as the calendar's front-end script requests it. Arguments as in TEC's Rest_Endpoint
 * (callback-style validation: a failure reads "Invalid parameter."). Handler in server/routes/views/.
 */
export const VIEWS_NS = 'evt/views/v2';
const tl = { translation_language: translationLanguage };
const cb = { style: 'callback' as const };

export const viewsRoutes = {
  html: defineRoute({
    id: 'views.html',
    namespace: VIEWS_NS,
    route: '/html',
    methods: ['GET', 'POST'],
    args: {
      url: string({
        ...cb,
        required: true,
        description: 'The URL of the view to render, e.g. /events/month/2026-12/ or /events/list/?tribe-bar-date=2026-12-01',
      }),
      view: string({ ...cb, description: 'The view slug: list or month' }),
      view_data: custom(
        z.preprocess((v) => (Array.isArray(v) && v.length === 0 ? {} : v), z.record(z.string(), z.unknown())),
        z.record(z.string(), z.unknown()),
        { ...cb, description: 'View state: eventDisplay, tribe-bar-date, tribe-bar-search, page' },
      ),
      prev_url: string({ ...cb, description: 'The URL of the view shown before this one' }),
      should_manage_url: boolean({ ...cb, description: 'Whether the front end should push the view URL to the browser history', default: true }),
      _wpnonce: string({ ...cb, description: 'REST nonce (not required: the views are public)' }),
      _tec_view_rest_nonce_primary: string({ ...cb, description: 'View nonce, primary (not required: the views are public)' }),
      _tec_view_rest_nonce_secondary: string({ ...cb, description: 'View nonce, secondary (not required: the views are public)' }),
      action: string({ ...cb, description: 'AJAX action name of the admin-ajax fallback' }),
      ...tl,
    },
    permission: 'public',
    summary: 'Renders the HTML of the events list view or month view.',
    doc: {
      responses: {
        '200': { description: 'The HTML of the view', media: 'text/html' },
        '400': { description: 'The URL, view or view data is invalid' },
      },
    },
  }),
};

export const viewsNamespace: NamespaceDef = {
  name: VIEWS_NS,
  routes: [viewsRoutes.html],
  doc: { title: 'Events views', description: 'Server-rendered HTML of the events calendar views (list and month).', version: '2.0.0', schemas: {} },
};
