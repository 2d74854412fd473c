import { viewsRoutes } from '../../../shared/routes/views.ts';
import { invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { renderView } from '../../site/views/render.ts';
import { readViewState, ViewStateError, type ViewState } from '../../site/views/state.ts';

/** `View::make_for_rest($request)->send_html()`: the view's HTML, public and published events only. */
const html = implement(viewsRoutes.html, async (input, ctx) => {
  const { config } = ctx.app;
  let state: ViewState;
  try {
    state = readViewState(input.url, config.publicUrl, input.view, input.view_data);
  } catch (e) {
    if (e instanceof ViewStateError) throw invalidParam(e.param);
    throw e;
  }
  // Content language: translation_language, else the view URL's segment, else the request's.
  const explicit = ctx.req.params.translation_language;
  const lang = explicit === 'en' || explicit === 'et' ? explicit : (state.lang ?? ctx.lang);
  const payload = await renderView(
    {
      db: ctx.db,
      base: config.publicUrl,
      lang,
      segment: state.lang,
      timezone: config.timezone,
      restUrl: ctx.urls.rest('/evt/views/v2/html'),
      shouldManageUrl: input.should_manage_url,
    },
    state,
  );
  return { status: 200, body: null, raw: { contentType: 'text/html; charset=UTF-8', payload } };
});

export const viewsEndpoints: Endpoint[] = [html];
