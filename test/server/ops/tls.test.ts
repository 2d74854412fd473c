import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../../server/cli.ts';
import { loadConfig } from '../../../server/config.ts';
import { createApp } from '../../../server/app.ts';
import { pairingLink } from '../../../server/pairing.ts';
import { PairingPayload, readPairing } from '../../../shared/checkin/pairing.ts';

let dir: string;
const run = async (env: Record<string, string>, ...argv: string[]) => {
  const lines: string[] = [];
  await runCli(argv, env, (l) => lines.push(l));
  return lines;
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-tls-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function get(url: string, ca: string): Promise<{ status: number; body: string; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        const peer = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
        res.on('end', () => resolve({ status: res.statusCode!, body, fingerprint: peer.fingerprint256.replace(/:/g, '').toLowerCase() }));
      })
      .on('error', reject);
  });
}

describe('HTTPS (issue 12 item 8, server side)', () => {
  test('tls-selfsigned makes a certificate the server serves; /health answers over https to a client that trusts it', async () => {
    const env = { EVT_DB: path.join(dir, 'evt.sqlite'), EVT_LOG: 'off' };
    const out = await run(env, 'tls-selfsigned', '--host', 'localhost', '--host', '127.0.0.1', '--out', path.join(dir, 'tls'));
    const fingerprint = out[out.length - 1];
    assert.match(fingerprint, /^[0-9a-f]{64}$/);
    const certFile = path.join(dir, 'tls', 'cert.pem');
    const keyFile = path.join(dir, 'tls', 'key.pem');
    assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
    const cert = fs.readFileSync(certFile, 'utf8');
    const x509 = new crypto.X509Certificate(cert);
    assert.equal(crypto.createHash('sha256').update(x509.raw).digest('hex'), fingerprint);
    assert.match(x509.subjectAltName!, /DNS:localhost/);
    assert.match(x509.subjectAltName!, /IP Address:127\.0\.0\.1/);
    await assert.rejects(run(env, 'tls-selfsigned', '--out', path.join(dir, 'tls')), /exists: pass --force/);
    await assert.rejects(run(env, 'tls-selfsigned', '--host', 'bad host!', '--out', path.join(dir, 'tls2')), /neither a host name nor an IP/);

    const tlsEnv = { ...env, PORT: '0', EVT_TLS_CERT: certFile, EVT_TLS_KEY: keyFile };
    const config = loadConfig(tlsEnv);
    assert.equal(config.publicUrl, 'https://127.0.0.1:0', 'the public URL defaults to https');
    assert.equal(config.tls?.fingerprint, fingerprint);
    const app = await createApp({ config });
    const server = https.createServer({ cert: config.tls!.cert, key: config.tls!.key }, app.express);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (server.address() as AddressInfo).port;
      const r = await get(`https://localhost:${port}/health`, cert);
      assert.equal(r.status, 200);
      assert.deepEqual(JSON.parse(r.body), { status: 'ok' });
      assert.equal(r.fingerprint, fingerprint);
      // A client that does not trust it is refused.
      await assert.rejects(get(`https://localhost:${port}/health`, ''), /self.signed|unable to verify|certificate/i);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await app.close();
    }

    // Door keys made while HTTPS is configured: the pairing link carries the fingerprint.
    await run(tlsEnv, 'user', 'add', 'org', '--role', 'organizer');
    const db = await (await import('../../../server/db/connection.ts')).openDatabase(env.EVT_DB);
    const { insertEvent } = await import('../../helpers/tickets-fixture.ts');
    const eventId = await insertEvent(db);
    await db.close();
    const created = await run(tlsEnv, 'api-key', 'create', '--label', 'Door 1', '--event', String(eventId));
    const link = created.find((l) => l.startsWith('Pairing link: '))!.slice('Pairing link: '.length);
    const read = readPairing(link);
    assert.equal(read.kind, 'ok');
    assert.ok(read.kind === 'ok');
    // The event's signing key rides along (CONTRACT section 8); the rest is the TLS pairing.
    const { signing_key, signing_key_id, ...rest } = read.payload;
    assert.match(signing_key ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.ok(signing_key_id);
    assert.deepEqual(rest, {
      url: 'https://127.0.0.1:0/en/wp-json/',
      api_key: created[created.length - 1],
      event_id: eventId,
      fingerprint,
    });
    // Without TLS, no fingerprint (a plain-http pairing is as before).
    const plain = readPairing(pairingLink(loadConfig(env), 'dsk_1_x', 5));
    assert.ok(plain.kind === 'ok' && !('fingerprint' in plain.payload));
  });

  test("the pairing payload's fingerprint is validated and normalised", () => {
    const base = { url: 'https://door.example/en/wp-json/', api_key: 'dsk_1_abc', event_id: 3 };
    const hex = 'ab'.repeat(32);
    assert.equal(PairingPayload.parse({ ...base, fingerprint: hex }).fingerprint, hex);
    assert.equal(PairingPayload.parse({ ...base, fingerprint: hex.toUpperCase().match(/../g)!.join(':') }).fingerprint, hex);
    for (const bad of ['ab'.repeat(31), 'zz'.repeat(32), 'ab'.repeat(33), '', 42])
      assert.equal(PairingPayload.safeParse({ ...base, fingerprint: bad }).success, false, String(bad));
    assert.equal(PairingPayload.parse(base).fingerprint, undefined);
  });
});
