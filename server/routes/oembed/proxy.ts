import crypto from 'node:crypto';
import type { Ctx } from '../../kernel/context.ts';
import { FetchRefused, guardedFetch, type FetchPolicy } from '../../net/guarded-fetch.ts';
import { getCachedOEmbed, putCachedOEmbed } from '../../db/repos/oembed-cache.ts';
import { discoverLink, externalAnswer } from './external.ts';
import { isProviderHost, matchProvider } from './providers.ts';
import { proxyDeps, type ProxyDeps } from './proxy-deps.ts';

/** `rest_oembed_ttl`: a day. */
const TTL_SECONDS = 24 * 60 * 60;

export interface ProxyArgs {
  url: string;
  format: string;
  maxwidth: number;
  maxheight?: number;
  discover: boolean;
  translation_language?: string;
}

/** The transient key: every argument that shapes the answer (WordPress hashes `get_params()` minus the nonce). */
export function cacheKey(args: ProxyArgs): string {
  const sorted = Object.fromEntries(
    Object.entries(args)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return `oembed_${crypto.createHash('sha256').update(JSON.stringify(sorted)).digest('hex')}`;
}

function policyFor(deps: ProxyDeps, maxBytes?: number): FetchPolicy {
  return { ...deps.policy, maxBytes: maxBytes ?? deps.policy.maxBytes, isAllowedHost: (u) => isProviderHost(deps.providers, u.hostname) };
}

async function getJson(url: string, policy: FetchPolicy): Promise<unknown> {
  const res = await guardedFetch(url, policy, { accept: 'application/json' });
  if (res.status < 200 || res.status >= 300) throw new FetchRefused(`provider answered ${res.status}`);
  return JSON.parse(res.body.toString('utf8')) as unknown;
}

/**
 * `WP_oEmbed::get_data`: the provider whose pattern matches (or, with `discover`, the endpoint announced by the
 * page itself, when the page and the endpoint are both on allow-listed hosts), asked for JSON with the size
 * limits. Returns null on any failure; the reason is logged, never sent.
 */
async function fetchExternal(ctx: Ctx, args: ProxyArgs, deps: ProxyDeps): Promise<Record<string, unknown> | null> {
  try {
    let endpoint: URL;
    const provider = matchProvider(deps.providers, args.url);
    if (provider) {
      endpoint = new URL(provider.endpoint.replace('{format}', 'json'));
    } else {
      if (!args.discover) return null;
      const page = await guardedFetch(args.url, policyFor(deps, deps.discoveryMaxBytes), { accept: 'text/html' });
      if (page.status < 200 || page.status >= 300) return null;
      const link = discoverLink(page.body.toString('utf8'), page.url);
      if (!link) return null;
      endpoint = new URL(link);
    }
    endpoint.searchParams.set('maxwidth', String(args.maxwidth));
    if (args.maxheight !== undefined) endpoint.searchParams.set('maxheight', String(args.maxheight));
    endpoint.searchParams.set('url', args.url);
    endpoint.searchParams.set('dnt', '1');
    endpoint.searchParams.set('format', 'json');
    return externalAnswer(await getJson(endpoint.href, policyFor(deps)), args.url);
  } catch (e) {
    ctx.app.log({ level: 'info', msg: 'oembed proxy failed', reason: e instanceof Error ? e.message : String(e) });
    return null;
  }
}

/** The proxy for a URL that is not this site's: cached answer, else a fresh one (cached for a day). */
export async function proxyExternal(ctx: Ctx, args: ProxyArgs): Promise<Record<string, unknown> | null> {
  const deps = proxyDeps(ctx.app);
  const key = cacheKey(args);
  const cached = await getCachedOEmbed(ctx.db, key, deps.now());
  if (cached && typeof cached === 'object') return cached as Record<string, unknown>;
  const data = await fetchExternal(ctx, args, deps);
  if (data) await putCachedOEmbed(ctx.db, key, data, deps.now(), TTL_SECONDS);
  return data;
}
