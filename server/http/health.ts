import type { Request, Response } from 'express';
import type { AppState } from '../kernel/context.ts';
import { databaseAnswers } from '../db/repos/database.ts';
import type { Hub } from '../hub/hub.ts';

async function upstreamOf(hub: Hub): Promise<Record<string, unknown> | undefined> {
  try {
    const s = await hub.status();
    return {
      reachable: s.reachable,
      last_contact: s.last_contact,
      pending: s.pending,
      offline_since: s.offline_since,
      key_refused: s.key_refused,
      conflicts: s.conflicts,
    };
  } catch {
    return undefined;
  }
}

/**
 * `GET /health` (CONTRACT section 2), for load balancers and service managers: `200 {"status":"ok"}` when the
 * database answers a query, `503 {"status":"unavailable"}` when it does not, or while the server is shutting
 * down (so a balancer stops sending before the connections close). Outside every namespace, never cached, no
 * authentication, and nothing about the site in the answer (a venue hub adds `upstream`: CONTRACT section 9).
 */
export function health(state: AppState) {
  return async (_req: Request, res: Response): Promise<void> => {
    let ok = false;
    if (!state.services.draining) {
      try {
        ok = await databaseAnswers(state.db);
      } catch {
        ok = false;
      }
    }
    res.status(ok ? 200 : 503);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', 'application/json; charset=UTF-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Readable by a kiosk page of another origin (it shows a venue hub's link to the site); no credentials.
    res.setHeader('Access-Control-Allow-Origin', '*');
    // A venue hub adds how it stands with the site (CONTRACT section 9); it stays 200 while the site is away.
    const hub = state.services.hub;
    const upstream = hub && ok ? await upstreamOf(hub) : undefined;
    res.end(JSON.stringify({ status: ok ? 'ok' : 'unavailable', ...(upstream ? { upstream } : {}) }));
  };
}
