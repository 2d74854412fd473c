import { oembedRoutes } from '../../../shared/routes/oembed.ts';
import type { AppState } from '../../kernel/context.ts';
import { HttpError } from '../../kernel/errors.ts';
import { hooks } from '../../kernel/hooks.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { siteUrlOEmbedData } from './data.ts';
import { proxyExternal } from './proxy.ts';
import { xmlResponseFilter } from './xml.ts';

const invalidUrl = () => new HttpError(404, 'oembed_invalid_url', 'Not Found');

const embed = implement(oembedRoutes.embed, async (input, ctx) => {
  const data = await siteUrlOEmbedData(ctx, input.url, input.maxwidth);
  if (!data) throw invalidUrl();
  return ok(data);
});

const proxy = implement(
  oembedRoutes.proxy,
  async (input, ctx) => {
    // URLs of this site short-circuit to the embed answer (`get_oembed_response_data_for_url`).
    const own = await siteUrlOEmbedData(ctx, input.url, input.maxwidth);
    if (own) return ok(own);
    const data = await proxyExternal(ctx, {
      url: input.url,
      format: input.format,
      maxwidth: input.maxwidth,
      maxheight: input.maxheight,
      discover: input.discover,
      translation_language: input.translation_language,
    });
    if (!data) throw invalidUrl();
    return ok(data);
  },
  { async: true },
);

export const oembedEndpoints: Endpoint[] = [embed, proxy];

/** `format=xml` on `/embed` is served as XML by a response filter, so core's own errors are XML too. */
export function installOEmbed(state: AppState): void {
  hooks(state).restResponse.push(xmlResponseFilter);
}
