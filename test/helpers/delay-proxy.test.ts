import crypto from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnDelayProxy, startDelayProxy, type DelayProxy } from '../bench/delay-proxy.ts';
import { pgTurns } from '../bench/pg-turns.ts';

/**
 * The benches' delay proxy (test/bench/delay-proxy.ts) over real sockets: an upstream TCP server on loopback, a
 * client connecting through the proxy. Timing is checked as a lower bound only (a loaded machine is slower, never
 * faster).
 */

interface Upstream {
  port: number;
  /** Sockets accepted, in order. */
  accepted: net.Socket[];
  close: () => Promise<void>;
}

/** A TCP server whose connections `onConnection` handles. */
function upstream(onConnection: (s: net.Socket) => void): Promise<Upstream> {
  const accepted: net.Socket[] = [];
  const server = net.createServer((s) => {
    accepted.push(s);
    onConnection(s);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        accepted,
        close: () => {
          for (const s of accepted) s.destroy();
          return new Promise((done) => server.close(() => done()));
        },
      }),
    ),
  );
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host: '127.0.0.1' }, () => resolve(s));
    s.setNoDelay(true);
    s.once('error', reject);
  });
}

/** Resolves with the next chunk the socket receives. */
const nextData = (s: net.Socket) => new Promise<Buffer>((resolve) => s.once('data', resolve));

/** Collects everything the socket receives until it ends. */
function readAll(s: net.Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => s.once('end', () => resolve(Buffer.concat(chunks))));
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setUp(rttMs: number, onConnection: (s: net.Socket) => void): Promise<{ proxy: DelayProxy; up: Upstream }> {
  const up = await upstream(onConnection);
  cleanups.push(up.close);
  const proxy = await startDelayProxy({ host: '127.0.0.1', port: up.port }, rttMs);
  cleanups.push(proxy.close);
  return { proxy, up };
}

/** One byte echoed as a reply: a statement and its answer. */
const echo = (s: net.Socket) => s.on('data', (c: Buffer) => s.write(c));

describe('delay proxy', () => {
  for (const rtt of [0, 4]) {
    it(`forwards bytes intact and in order both ways, many chunks, at RTT ${rtt} ms`, async () => {
      const fromClient = crypto.randomBytes(300_000);
      const fromServer = crypto.randomBytes(500_000);
      let serverGot: Promise<Buffer> = Promise.resolve(Buffer.alloc(0));
      const { proxy } = await setUp(rtt, (s) => {
        serverGot = readAll(s);
        // Many writes of uneven sizes, some after a pause, then the end: all must arrive, in order, before it.
        void (async () => {
          for (let at = 0, i = 0; at < fromServer.length; i++) {
            const n = 1 + ((i * 7919) % 9000);
            s.write(fromServer.subarray(at, at + n));
            at += n;
            if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
          }
          s.end();
        })();
      });
      const c = await connect(proxy.port);
      const clientGot = readAll(c);
      for (let at = 0, i = 0; at < fromClient.length; i++) {
        const n = 1 + ((i * 104729) % 5000);
        c.write(fromClient.subarray(at, at + n));
        at += n;
        if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
      }
      c.end();
      expect((await clientGot).equals(fromServer)).toBe(true);
      expect((await serverGot).equals(fromClient)).toBe(true);
      expect(proxy.connections()).toBe(1);
    });
  }

  it('adds at least half the round-trip time each way, and at least the round-trip time to an exchange', async () => {
    const rtt = 30;
    let arrived = 0;
    const { proxy } = await setUp(rtt, (s) =>
      s.on('data', (c: Buffer) => {
        arrived = performance.now();
        s.write(c);
      }),
    );
    const c = await connect(proxy.port);
    cleanups.push(() => void c.destroy());
    for (let i = 0; i < 5; i++) {
      const sent = performance.now();
      c.write('x');
      await nextData(c);
      const back = performance.now();
      expect(arrived - sent).toBeGreaterThanOrEqual(rtt / 2);
      expect(back - arrived).toBeGreaterThanOrEqual(rtt / 2);
      expect(back - sent).toBeGreaterThanOrEqual(rtt);
    }
  });

  it('counts a round trip for each turn: data towards the server after data came back, per connection', async () => {
    const { proxy } = await setUp(2, echo);
    const a = await connect(proxy.port);
    const b = await connect(proxy.port);
    cleanups.push(() => void (a.destroy(), b.destroy()));
    expect(proxy.roundTrips()).toBe(0);
    // The first statement of a connection has no answer before it: no turn yet.
    a.write('1');
    await nextData(a);
    expect(proxy.roundTrips()).toBe(0);
    // Each further statement after an answer: one turn each.
    for (let i = 0; i < 5; i++) {
      a.write('2');
      await nextData(a);
    }
    expect(proxy.roundTrips()).toBe(5);
    // Another connection keeps its own state: its first statement is no turn, even after a's answers.
    b.write('3');
    await nextData(b);
    expect(proxy.roundTrips()).toBe(5);
    b.write('4');
    await nextData(b);
    expect(proxy.roundTrips()).toBe(6);
    // Several writes before the answer (a pipeline) are one turn: an echo of 3 separate bytes, then one more write.
    a.write('5');
    a.write('6');
    a.write('7');
    let got = '';
    while (got.length < 3) got += (await nextData(a)).toString();
    expect(got).toBe('567');
    expect(proxy.roundTrips()).toBe(7);
    expect(proxy.connections()).toBe(2);
  });

  it('counts the same at RTT 0, where it forwards at once', async () => {
    const { proxy } = await setUp(0, echo);
    const a = await connect(proxy.port);
    cleanups.push(() => void a.destroy());
    for (let i = 0; i < 4; i++) {
      a.write('q');
      await nextData(a);
    }
    expect(proxy.roundTrips()).toBe(3);
  });

  it('runs in a process of its own and reports its counters over IPC', async () => {
    const up = await upstream(echo);
    cleanups.push(up.close);
    const proxy = await spawnDelayProxy({ host: '127.0.0.1', port: up.port }, 2);
    cleanups.push(proxy.stop);
    const a = await connect(proxy.port);
    cleanups.push(() => void a.destroy());
    for (let i = 0; i < 3; i++) {
      a.write(`q${i}`);
      expect((await nextData(a)).toString()).toBe(`q${i}`);
    }
    expect(await proxy.counts()).toEqual({ roundTrips: 2, connections: 1 });
  });
});

/** A frontend message of the PostgreSQL protocol: type byte, length, body. */
function message(type: string, ...parts: (string | Buffer)[]): Buffer {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(`${p}\0`) : p)));
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

describe('pgTurns (the proxy trace of PostgreSQL statements)', () => {
  it('names the statements of each turn: simple queries, and prepared ones by the text their Parse gave, split anywhere', () => {
    const t = pgTurns();
    const ssl = Buffer.alloc(8);
    ssl.writeInt32BE(8, 0);
    ssl.writeInt32BE(80877103, 4);
    const startup = Buffer.concat([Buffer.alloc(8), Buffer.from('user\0me\0\0')]);
    startup.writeInt32BE(startup.length, 0);
    startup.writeInt32BE(196608, 4);
    const int16 = (n: number) => Buffer.from([n >> 8, n & 255]);
    const bind = (name: string) => message('B', '', name, int16(0), int16(0), int16(0));
    expect(t.feed(ssl, false)).toBe(null);
    expect(t.feed(startup, true)).toBe(null);
    // A Parse, Bind, Execute, Sync in one turn, split in the middle of a message.
    const first = Buffer.concat([
      message('P', 's1', 'SELECT  id\n FROM posts WHERE id = $1', int16(0)),
      bind('s1'),
      message('E', '', Buffer.alloc(4)),
      message('S'),
    ]);
    expect(t.feed(first.subarray(0, 11), true)).toBe(null);
    expect(t.feed(first.subarray(11), false)).toBe(null);
    // The next turn ends the first: its line names the statement once, whitespace folded.
    expect(t.feed(message('Q', 'BEGIN'), true)).toBe('SELECT id FROM posts WHERE id = $1');
    // A statement prepared turns ago, executed by name; two in one turn (a pipeline).
    expect(t.feed(Buffer.concat([bind('s1'), message('E', '', Buffer.alloc(4)), bind('s1'), message('S')]), true)).toBe('BEGIN');
    expect(t.feed(message('P', 's2', 'SELECT 2', int16(0)), true)).toBe('SELECT id FROM posts WHERE id = $1 | SELECT id FROM posts WHERE id = $1');
    expect(t.end()).toBe('prepare SELECT 2');
    expect(t.end()).toBe(null);
  });
});
