import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { pickEncoding } from '../../../server/http/compress.ts';

/** Compression of answers (issue 14 item 4), read off the wire: Node's fetch would decode it unseen. */
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
  for (let i = 0; i < 6; i++) {
    const r = await fetch(`${s.root}evt/events/v1/events`, {
      method: 'POST',
      headers: { authorization: s.admin, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: `Night ${i}`,
        description: 'An evening of music. '.repeat(20),
        start_date: '2031-01-01 10:00',
        end_date: '2031-01-01 11:00',
      }),
    });
    assert.equal(r.status, 201);
  }
});
afterAll(() => s.close());

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const archive = () => `${s.root}evt/events/v1/events?per_page=50&start_date=2030-01-01&end_date=2040-01-01`;

describe('compression', () => {
  test('a JSON answer above 1 KB goes gzip when only gzip is asked for, and decodes to the same JSON', async () => {
    const plain = await get(archive());
    assert.equal(plain.status, 200);
    assert.ok(plain.body.length > 1024, `answer of ${plain.body.length} bytes`);
    const gz = await get(archive(), { 'accept-encoding': 'gzip' });
    assert.equal(gz.status, 200);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.match(String(gz.headers.vary), /accept-encoding/i);
    assert.ok(gz.body.length < plain.body.length / 2, `${gz.body.length} of ${plain.body.length}`);
    assert.deepEqual(JSON.parse(zlib.gunzipSync(gz.body).toString()), JSON.parse(plain.body.toString()));
    // Again, from the response cache (the compressed form kept with the entry), and for a signed-in caller.
    const again = await get(archive(), { 'accept-encoding': 'gzip' });
    assert.deepEqual(zlib.gunzipSync(again.body), zlib.gunzipSync(gz.body));
    const admin = await get(archive(), { 'accept-encoding': 'gzip', authorization: s.admin });
    assert.equal(admin.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(zlib.gunzipSync(admin.body).toString()).total, 6);
  });

  test('brotli when asked for first choice; identity when no coding is accepted or gzip has q=0', async () => {
    const br = await get(archive(), { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(JSON.parse(zlib.brotliDecompressSync(br.body).toString()).total, 6);
    for (const accept of [undefined, 'identity', 'gzip;q=0', 'deflate']) {
      const r = await get(archive(), accept ? { 'accept-encoding': accept } : {});
      assert.equal(r.headers['content-encoding'], undefined, `Accept-Encoding: ${accept}`);
      assert.equal(JSON.parse(r.body.toString()).total, 6);
    }
  });

  test('a tiny answer is never compressed, and HEAD carries no encoded body', async () => {
    const tiny = await get(`${s.root}evt/events/v1/events/999999`, { 'accept-encoding': 'gzip, br' });
    assert.equal(tiny.status, 404);
    assert.ok(tiny.body.length < 1024);
    assert.equal(tiny.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(tiny.body.toString()).code, 'rest-event-not-found');
    const head = await get(archive(), { 'accept-encoding': 'gzip' }, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-encoding'], undefined);
    assert.equal(head.body.length, 0);
  });

  test("the kiosk's built files go compressed when asked for, and as they are otherwise", async (t) => {
    const dist = path.resolve(import.meta.dirname, '../../../renderer/dist');
    if (!fs.existsSync(path.join(dist, 'index.html'))) return t.skip('kiosk not built (npm run build:kiosk)');
    const asset = fs.readdirSync(path.join(dist, 'assets')).find((f) => f.endsWith('.js'));
    assert.ok(asset);
    const file = fs.readFileSync(path.join(dist, 'assets', asset));
    const gz = await get(`${s.base}/kiosk/assets/${asset}`, { 'accept-encoding': 'gzip' });
    assert.equal(gz.status, 200);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.match(String(gz.headers['content-type']), /javascript/);
    assert.match(String(gz.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.ok(zlib.gunzipSync(gz.body).equals(file));
    assert.ok(gz.body.length < file.length / 2);
    const page = await get(`${s.base}/kiosk/`, { 'accept-encoding': 'br' });
    assert.equal(page.headers['content-encoding'], 'br');
    assert.ok(zlib.brotliDecompressSync(page.body).equals(fs.readFileSync(path.join(dist, 'index.html'))));
    const plain = await get(`${s.base}/kiosk/assets/${asset}`);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.body.equals(file));
    const outside = await get(`${s.base}/kiosk/..%2f..%2fpackage.json`, { 'accept-encoding': 'gzip' });
    assert.notEqual(outside.status, 200);
  });

  test('Accept-Encoding is read as RFC 9110 says', () => {
    assert.equal(pickEncoding(undefined), null);
    assert.equal(pickEncoding('gzip'), 'gzip');
    assert.equal(pickEncoding('gzip, br'), 'br');
    assert.equal(pickEncoding('br;q=0, gzip;q=0.5'), 'gzip');
    assert.equal(pickEncoding('GZIP;Q=0'), null);
    assert.equal(pickEncoding('*'), 'br');
    assert.equal(pickEncoding('*;q=0, gzip'), 'gzip');
    assert.equal(pickEncoding('identity, deflate'), null);
  });
});
