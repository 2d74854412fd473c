import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../server/app.ts';
import { compileTrust } from '../../server/http/client-address.ts';
import { createLogger, logFunction, withRequestLog } from '../../server/log.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { loadConfig } from '../../server/config.ts';
import { mailIdle } from '../../server/mail/index.ts';
import { makeEvent, ticketId, tix } from '../server/tickets/fixtures.ts';

/**
 * EVT_TRUST_PROXY (issue 15 item 6): behind a load balancer every connection comes from the balancer, so the
 * per-address limits (CONTRACT section 3) must read the client from X-Forwarded-For, but only as a trusted proxy
 * wrote it: walking from the right, the first address that is not a trusted proxy is the client. Unset, the header
 * is ignored, as before. The per-address limit exercised here is the anonymous checkout limit (10 in 10 minutes).
 */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A JSON POST from `localAddress` (a loopback address: the "proxy" or a direct client), with an optional X-Forwarded-For. */
function post(url: string, body: unknown, opts: { localAddress?: string; xff?: string; cookie?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    if (opts.xff !== undefined) headers['x-forwarded-for'] = opts.xff;
    if (opts.cookie) headers.cookie = opts.cookie;
    const req = http.request(url, { method: 'POST', localAddress: opts.localAddress ?? '127.0.0.1', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }),
      );
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** One anonymous buyer: a new cart with one free ticket, then its checkout, both sent the same way. */
async function buy(s: TestServer, ticket: number, n: number, opts: { localAddress?: string; xff?: string }): Promise<Answer> {
  const cart = await post(`${tix(s)}/cart`, { provider: 'rsvp', tickets: [{ ticket_id: ticket, quantity: 1 }] }, opts);
  assert.equal(cart.status, 200, JSON.stringify(cart.body));
  const cookie = /evt_cart=[^;]+/.exec(String(cart.headers['set-cookie'] ?? ''))?.[0];
  assert.ok(cookie, 'the cart answer sets its cookie');
  return post(`${tix(s)}/cart/checkout`, { purchaser_name: `Buyer ${n}`, purchaser_email: `buyer${n}@example.test` }, { ...opts, cookie });
}

/** Sends `sends.length` checkouts in turn and returns their statuses. */
async function statuses(s: TestServer, ticket: number, sends: { localAddress?: string; xff?: string }[]): Promise<number[]> {
  const out: number[] = [];
  for (const [i, opts] of sends.entries()) {
    const r = await buy(s, ticket, i, opts);
    assert.ok(r.status === 201 || r.status === 429, `${r.status} ${JSON.stringify(r.body)}`);
    if (r.status === 429) assert.equal(r.body.code, 'rest_too_many_requests');
    out.push(r.status);
  }
  return out;
}

const TEN_THEN_LIMITED = [...Array(10).fill(201), 429];

describe('EVT_TRUST_PROXY unset: X-Forwarded-For is ignored', () => {
  let s: TestServer;
  let ticket: number;
  beforeAll(async () => {
    s = await startTestServer();
    ticket = await ticketId(s, await makeEvent(s), { name: 'Free', capacity: '1000' });
  });
  afterAll(async () => {
    await mailIdle(s.app.state);
    await s.close();
  });

  test('11 checkouts from one address, each naming another client, are limited as one address', async () => {
    const sends = Array.from({ length: 11 }, (_, i) => ({ xff: `203.0.113.${i + 1}` }));
    assert.deepEqual(await statuses(s, ticket, sends), TEN_THEN_LIMITED);
  });
});

describe('EVT_TRUST_PROXY=127.0.0.1: the client is the rightmost untrusted X-Forwarded-For address', () => {
  let s: TestServer;
  let ticket: number;
  beforeAll(async () => {
    s = await startTestServer({ EVT_TRUST_PROXY: '127.0.0.1' });
    ticket = await ticketId(s, await makeEvent(s), { name: 'Free', capacity: '1000' });
  });
  afterAll(async () => {
    await mailIdle(s.app.state);
    await s.close();
  });

  test('11 clients behind the proxy each get their own limit', async () => {
    const sends = Array.from({ length: 11 }, (_, i) => ({ xff: `198.51.100.${i + 1}` }));
    assert.deepEqual(await statuses(s, ticket, sends), Array(11).fill(201));
  });

  test('11 checkouts of one client behind the proxy: the 11th is 429', async () => {
    const sends = Array.from({ length: 11 }, () => ({ xff: '192.0.2.50' }));
    assert.deepEqual(await statuses(s, ticket, sends), TEN_THEN_LIMITED);
  });

  test('an IPv6 client behind the proxy is limited by its /64, as a direct one', async () => {
    const sends = Array.from({ length: 11 }, (_, i) => ({ xff: `2001:db8:1:2::${(i + 1).toString(16)}` }));
    assert.deepEqual(await statuses(s, ticket, sends), TEN_THEN_LIMITED);
  });

  test('a spoofed chain counts the address the proxy saw, not what the client wrote before it', async () => {
    // The client sends "X-Forwarded-For: <anything>"; the proxy appends the address it saw (5.6.7.8).
    const sends = Array.from({ length: 10 }, (_, i) => ({ xff: `9.9.9.${i + 1}, 5.6.7.8` }));
    assert.deepEqual(await statuses(s, ticket, sends), Array(10).fill(201));
    assert.deepEqual(await statuses(s, ticket, [{ xff: '1.2.3.4, 5.6.7.8' }]), [429]);
    // 1.2.3.4 itself was never charged.
    assert.deepEqual(await statuses(s, ticket, [{ xff: '1.2.3.4' }]), [201]);
  });

  test('a client that is not a trusted proxy cannot set its address', async () => {
    const sends = Array.from({ length: 11 }, (_, i) => ({ localAddress: '127.0.0.3', xff: `203.0.113.${i + 100}` }));
    assert.deepEqual(await statuses(s, ticket, sends), TEN_THEN_LIMITED);
  });
});

describe('EVT_TRUST_PROXY: the logs name the client', () => {
  test('the access log and the sign-in failure log carry the client the trusted proxy named, and the proxy as `via`', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-trust-'));
    const config = loadConfig({ EVT_DB: path.join(dir, 'evt.sqlite'), EVT_LOG: 'json', EVT_TRUST_PROXY: '127.0.0.1' });
    const lines: Record<string, any>[] = [];
    const logger = createLogger(config, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const app = await createApp({ config, log: logFunction(logger) });
    const server = http.createServer(withRequestLog(app.express, logger, compileTrust(config.trustProxy)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await fetch(`${base}/health`, { headers: { 'X-Forwarded-For': '1.2.3.4, 5.6.7.8' } });
      const bad = `Basic ${Buffer.from('nobody:wrong password').toString('base64')}`;
      await fetch(`${base}/wp-json/evt/events/v1/events`, { headers: { 'X-Forwarded-For': '5.6.7.9', authorization: bad } });
      await new Promise((r) => setTimeout(r, 50));
      const access = lines.find((l) => l.req?.url === '/health');
      assert.ok(access, JSON.stringify(lines));
      assert.equal(access.req.ip, '5.6.7.8');
      assert.match(access.req.via, /^(::ffff:)?127\.0\.0\.1$/);
      const failed = lines.find((l) => l.msg === 'sign-in failed');
      assert.ok(failed, JSON.stringify(lines));
      assert.equal(failed.ip, '5.6.7.9');
    } finally {
      await new Promise((r) => server.close(r));
      await app.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('EVT_TRUST_PROXY is checked at start-up', () => {
  const refused = (value: string, why: RegExp) => {
    assert.throws(
      () => loadConfig({ EVT_DB: ':memory:', EVT_TRUST_PROXY: value }),
      (e: Error) => {
        assert.match(e.message, /^Invalid configuration:\n {2}EVT_TRUST_PROXY: /);
        assert.match(e.message, why);
        return true;
      },
    );
  };
  const everyone = /trusting every address lets any client choose its own address with X-Forwarded-For/;

  test('trusting everyone is refused, with the reason', () => {
    refused('*', everyone);
    refused('true', everyone);
    refused('10.0.0.1, true', everyone);
    refused('1', everyone);
    refused('0.0.0.0/0', /covers every address/);
    refused('::/0', /covers every address/);
    refused('::ffff:0:0/96', /covers every address/);
  });

  test('entries that together cover every address are refused (issue 21, finding 9)', () => {
    // Accepted on main 738fe83: each entry alone was checked, not the list.
    refused('0.0.0.0/1,128.0.0.0/1', /covers every address/);
    refused('0.0.0.0/2, 64.0.0.0/2, 128.0.0.0/1', /covers every address/);
    refused('::ffff:0:0/97,::ffff:128.0.0.0/97', /covers every address/);
    refused('0.0.0.0/1, ::ffff:128.0.0.0/97', /covers every address/);
    refused(
      '10.0.0.1, 0.0.0.0/1, 128.0.0.0/255.0.0.0, 129.0.0.0/8, 130.0.0.0/7, 132.0.0.0/6, 136.0.0.0/5, 144.0.0.0/4, 160.0.0.0/3, 192.0.0.0/2',
      /covers every address/,
    );
    // Most of the space, but not all of it, is the operator's choice.
    assert.deepEqual(loadConfig({ EVT_DB: ':memory:', EVT_TRUST_PROXY: '0.0.0.0/1,128.0.0.0/2' }).trustProxy, ['0.0.0.0/1', '128.0.0.0/2']);
    assert.deepEqual(loadConfig({ EVT_DB: ':memory:', EVT_TRUST_PROXY: '2000::/3,loopback' }).trustProxy, ['2000::/3', 'loopback']);
  });

  test('a malformed entry is refused', () => {
    const bad = /is not an IP address, a CIDR range/;
    refused('10.0.0.0/33', bad);
    refused('10.0.0.0/8/1', bad);
    refused('10.0.0.256', bad);
    refused('proxy.internal', bad);
    refused('fd00::/129', bad);
  });

  test('addresses, CIDR ranges and the named ranges are accepted', () => {
    const c = loadConfig({ EVT_DB: ':memory:', EVT_TRUST_PROXY: ' 10.0.0.11, 10.1.0.0/16,fd00::/8 , loopback,uniquelocal, 192.168.0.0/255.255.0.0' });
    assert.deepEqual(c.trustProxy, ['10.0.0.11', '10.1.0.0/16', 'fd00::/8', 'loopback', 'uniquelocal', '192.168.0.0/255.255.0.0']);
    assert.deepEqual(loadConfig({ EVT_DB: ':memory:' }).trustProxy, []);
  });

  test('npm start with EVT_TRUST_PROXY=* stops with exit code 2 and says why', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: { ...process.env, EVT_TRUST_PROXY: '*', EVT_DB: ':memory:' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => proc.on('exit', r));
    assert.equal(code, 2);
    assert.match(err, /EVT_TRUST_PROXY: "\*" is refused: trusting every address/);
  });
});
