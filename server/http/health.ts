import type { Request, Response } from 'express';
import type { AppState } from '../kernel/context.ts';
import { databaseAnswers } from '../db/repos/database.ts';

/**
 * `GET /health` (CONTRACT section 2), for load balancers and service managers: `200 {"status":"ok"}` when the
 * database answers a query, `503 {"status":"unavailable"}` when it does not, or while the server is shutting
 * down (so a balancer stops sending before the connections close). Outside every namespace, never cached, no
 * authentication, and nothing about the site in the answer.
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
    res.end(JSON.stringify({ status: ok ? 'ok' : 'unavailable' }));
  };
}
