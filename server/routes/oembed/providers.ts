/**
 * The oEmbed providers the proxy may reach: the only external hosts it will ever contact. Patterns come from
 * WordPress's own provider list (class-wp-oembed.php); `hosts` are the page and endpoint hosts a request (or a
 * redirect, or a discovered endpoint) may go to.
 */
export interface Provider {
  name: string;
  /** URLs this provider embeds. */
  patterns: readonly RegExp[];
  /** The provider's oEmbed endpoint; `{format}` becomes `json`. */
  endpoint: string;
  /** Host names (lower case); `*.example.com` also matches any subdomain. */
  hosts: readonly string[];
}

export const DEFAULT_PROVIDERS: readonly Provider[] = [
  {
    name: 'YouTube',
    patterns: [/^https?:\/\/((m|www)\.)?youtube\.com\/(watch|playlist|shorts\/|live\/)/i, /^https?:\/\/youtu\.be\/./i],
    endpoint: 'https://www.youtube.com/oembed',
    hosts: ['youtube.com', 'www.youtube.com', 'm.youtube.com', 'youtu.be'],
  },
  {
    name: 'Vimeo',
    patterns: [/^https?:\/\/(.+\.)?vimeo\.com\/./i],
    endpoint: 'https://vimeo.com/api/oembed.{format}',
    hosts: ['vimeo.com', '*.vimeo.com'],
  },
  {
    name: 'Dailymotion',
    patterns: [/^https?:\/\/(www\.)?dailymotion\.com\/./i, /^https?:\/\/dai\.ly\/./i],
    endpoint: 'https://www.dailymotion.com/services/oembed',
    hosts: ['dailymotion.com', 'www.dailymotion.com', 'dai.ly'],
  },
  {
    name: 'Flickr',
    patterns: [/^https?:\/\/(www\.)?flickr\.com\/./i, /^https?:\/\/flic\.kr\/./i],
    endpoint: 'https://www.flickr.com/services/oembed/',
    hosts: ['flickr.com', 'www.flickr.com', 'flic.kr'],
  },
  {
    name: 'SoundCloud',
    patterns: [/^https?:\/\/(www\.)?soundcloud\.com\/./i],
    endpoint: 'https://soundcloud.com/oembed',
    hosts: ['soundcloud.com', 'www.soundcloud.com'],
  },
  {
    name: 'Spotify',
    patterns: [/^https?:\/\/(open|play)\.spotify\.com\/./i],
    endpoint: 'https://open.spotify.com/oembed',
    hosts: ['open.spotify.com', 'play.spotify.com'],
  },
  {
    name: 'TED',
    patterns: [/^https?:\/\/(www\.|embed\.)?ted\.com\/talks\/./i],
    endpoint: 'https://www.ted.com/services/v1/oembed.{format}',
    hosts: ['ted.com', 'www.ted.com', 'embed.ted.com'],
  },
  {
    name: 'Mixcloud',
    patterns: [/^https?:\/\/(www\.)?mixcloud\.com\/./i],
    endpoint: 'https://app.mixcloud.com/oembed/',
    hosts: ['mixcloud.com', 'www.mixcloud.com', 'app.mixcloud.com'],
  },
];

/** The provider whose patterns match `url`, if any (`WP_oEmbed::get_provider` without discovery). */
export function matchProvider(providers: readonly Provider[], url: string): Provider | undefined {
  return providers.find((p) => p.patterns.some((re) => re.test(url)));
}

/** Whether `host` belongs to an allow-listed provider. */
export function isProviderHost(providers: readonly Provider[], host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return providers.some((p) => p.hosts.some((x) => (x.startsWith('*.') ? h.endsWith(x.slice(1)) : h === x)));
}
