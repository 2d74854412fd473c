/**
 * The languages the project speaks: the server's content (`translation_language`, the `/et/` path segment)
 * and the door kiosk's screens. One list, so kiosk, server routes and stored settings cannot drift apart.
 */
export const LANGS = ['en', 'et'] as const;
export type Lang = (typeof LANGS)[number];

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}
