import type { Config } from './config.ts';
import type { Db } from './db/connection.ts';
import { getSiteSecret } from './db/repos/site-options.ts';
import { sharedStateOf } from './db/change-feed.ts';
import { userNames } from './db/repos/users.ts';
import type { AppState, Ctx, Lang } from './kernel/context.ts';
import { makeUrls } from './kernel/context.ts';
import { buildRegistry, installModules } from './routes/index.ts';
import { ResponseCache } from './http/response-cache.ts';

/**
 * A request context for work done outside HTTP (the CLI's demo): an administrator caller, so the same write
 * functions the routes use can fill the database.
 */
export async function systemContext(db: Db, config: Config, userId: number, lang: Lang = 'en'): Promise<Ctx> {
  const secret = (await getSiteSecret(db)) ?? 'system';
  const app: AppState = {
    db,
    config,
    secret,
    sharedState: sharedStateOf(db),
    contentVersion: 0,
    services: { registry: buildRegistry(), responseCache: new ResponseCache(config.cache) },
    log: () => {},
  };
  await installModules(app);
  const user = await userNames(db, userId);
  return {
    app,
    db,
    caller: {
      kind: 'user',
      userId,
      login: user?.login ?? 'system',
      displayName: user?.display_name ?? 'System',
      role: 'administrator',
      appPasswordId: 0,
    },
    lang,
    urls: makeUrls(config.publicUrl, null),
    req: { method: 'POST', route: '', query: {}, body: {}, params: {}, headers: {}, ip: '127.0.0.1', cookies: {}, userAgent: 'doorstep-cli' },
    inBatch: false,
  };
}
