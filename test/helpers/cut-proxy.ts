import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on loopback that can be cut and restored: the network between a venue hub and its site. Cut, it
 * resets every open connection and every new one (as a dropped uplink looks to the hub: refused or reset, never
 * answered); restored, it forwards again.
 */
export interface CutProxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  cut(): void;
  restore(): void;
  readonly isCut: boolean;
  close(): Promise<void>;
}

export async function startCutProxy(
  targetPort: number,
  targetHost = '127.0.0.1',
  /** Sees every chunk the client sends (a test kills a process the moment a request is on its way). */
  watch?: (chunk: Buffer) => void,
): Promise<CutProxy> {
  let down = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) return client.resetAndDestroy();
    const upstream = net.connect(targetPort, targetHost);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    if (watch) client.on('data', watch);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    cut() {
      down = true;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    get isCut() {
      return down;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
