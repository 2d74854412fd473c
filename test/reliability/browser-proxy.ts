import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type HoldMode = 'after-commit' | 'before-server';

/**
 * A pass-through proxy on 127.0.0.1 between the kiosk and the server, which can catch the kiosk's next
 * batch upload in flight: `after-commit` lets the server apply it and withholds the answer, `before-server`
 * keeps it from the server. Either way the kiosk is left mid-sync, the moment to kill its browser.
 */
export interface SyncTrap {
  base: string;
  /** Arms the trap; resolves when the next batch upload is caught. */
  arm(mode: HoldMode): Promise<void>;
  caught: number;
  close(): Promise<void>;
}

export async function startSyncTrap(target: string): Promise<SyncTrap> {
  const upstream = new URL(target);
  let armed: { mode: HoldMode; caught: () => void } | null = null;
  const held = new Set<http.ServerResponse>();
  const trap = { caught: 0 } as SyncTrap;

  const forward = (req: http.IncomingMessage, body: Buffer): Promise<http.IncomingMessage & { body: Buffer }> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host };
      const out = http.request({ host: '127.0.0.1', port: upstream.port, method: req.method, path: req.url, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Object.assign(res, { body: Buffer.concat(chunks) })));
        res.on('error', reject);
      });
      out.on('error', reject);
      out.end(body);
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const trapped = armed && req.method === 'POST' && /\/batch\/v1\/?(\?|$)/.test(req.url ?? '') ? armed : null;
        if (trapped) {
          armed = null;
          trap.caught++;
          held.add(res);
          if (trapped.mode === 'after-commit') await forward(req, body);
          trapped.caught();
          return;
        }
        try {
          const up = await forward(req, body);
          res.writeHead(up.statusCode ?? 502, up.headers);
          res.end(up.body);
        } catch {
          res.destroy();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  trap.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  trap.arm = (mode) =>
    new Promise<void>((resolve) => {
      armed = { mode, caught: resolve };
    });
  trap.close = () =>
    new Promise<void>((resolve) => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return trap;
}
