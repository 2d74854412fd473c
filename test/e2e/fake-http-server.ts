import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { FakeDoorServer } from '../renderer/fake-door-server.ts';

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css' };

export interface HttpServer {
  base: string;
  close(): Promise<void>;
}

function listen(handler: http.RequestListener): Promise<HttpServer> {
  const server = http.createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    );
  });
}

function serveFile(distDir: string, rel: string, res: http.ServerResponse): void {
  const file = path.join(distDir, path.normalize(rel || 'index.html'));
  if (!file.startsWith(distDir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) return void res.writeHead(404).end();
  res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
  fs.createReadStream(file).pipe(res);
}

/** A built kiosk served at `/kiosk/` on its own origin (as the Electron shell's app:// origin is its own). */
export function serveKiosk(distDir: string): Promise<HttpServer> {
  return listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!url.pathname.startsWith('/kiosk/')) return void res.writeHead(404).end();
    serveFile(distDir, url.pathname.slice('/kiosk/'.length), res);
  });
}

export interface FakeHttpServer extends HttpServer {
  /** Interface root, e.g. `http://127.0.0.1:PORT/en/wp-json/`. */
  root: string;
  model: FakeDoorServer;
}

/**
 * The contract model (test/renderer/fake-door-server.ts) behind real HTTP on 127.0.0.1, with the kiosk at
 * `/kiosk/` when `distDir` is given. For the bench and for end-to-end runs where the real server's
 * tickets namespace is not there yet.
 */
export async function startFakeHttpServer(model = new FakeDoorServer(), distDir?: string): Promise<FakeHttpServer> {
  const srv = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (distDir && url.pathname.startsWith('/kiosk/')) return serveFile(distDir, url.pathname.slice('/kiosk/'.length), res);
    const at = url.pathname.indexOf('/wp-json/');
    if (at < 0) return void res.writeHead(404).end();
    // CORS as WordPress answers it: the kiosk runs on its own origin (app:// in Electron).
    const cors = {
      'Access-Control-Allow-Origin': req.headers.origin ?? '*',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type',
      'Access-Control-Allow-Methods': 'OPTIONS, GET, POST, PUT, PATCH, DELETE',
      'Access-Control-Expose-Headers': 'X-ET-TOTAL, X-ET-TOTAL-PAGES, X-EVT-Cursor, Date',
    };
    if (req.method === 'OPTIONS') return void res.writeHead(200, cors).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const out = model.handle({
        method: req.method ?? 'GET',
        path: url.pathname.slice(at + '/wp-json/'.length) + url.search,
        authorization: req.headers.authorization ?? null,
        body: text ? JSON.parse(text) : null,
      });
      // The model's clock, when set, is the server's `Date` (a kiosk checks its own clock against it).
      const date = model.now ? { Date: new Date(model.now()).toUTCString() } : {};
      res.writeHead(out.status, { 'Content-Type': 'application/json; charset=UTF-8', ...cors, ...date, ...out.headers });
      res.end(JSON.stringify(out.body));
    });
  });
  model.baseUrl = srv.base;
  return { ...srv, root: `${srv.base}/en/wp-json/`, model };
}
