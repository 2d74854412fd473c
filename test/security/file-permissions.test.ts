import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../server/db/connection.ts';
import { loadConfig } from '../../server/config.ts';
import { writePairingQr } from '../../server/pairing.ts';
import { fileDeliver } from '../../server/mail/transport.ts';
import { runCli } from '../../server/cli.ts';

/**
 * The database, its WAL and shared-memory files, and every file holding a key or a ticket code are written
 * 0600 in 0700 folders (CONTRACT section 3), whatever the process umask: the test runs with umask 000, under
 * which anything created with default modes is world-readable.
 */

const mode = (p: string) => fs.statSync(p).mode & 0o777;
const octal = (m: number) => m.toString(8).padStart(4, '0');
function assertMode(p: string, want: number): void {
  assert.equal(octal(mode(p)), octal(want), p);
}

let root: string;
let oldUmask: number;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-perms-'));
  oldUmask = process.umask(0);
});
afterAll(() => {
  process.umask(oldUmask);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('file permissions', () => {
  test('a new database: its folders 0700, the file, WAL and SHM 0600', async () => {
    const file = path.join(root, 'new', 'data', 'evt.sqlite');
    const db = await openDatabase(file);
    try {
      await db.prepare("INSERT INTO options (name, value) VALUES ('perm-test', 'x')").run();
      assertMode(path.join(root, 'new'), 0o700);
      assertMode(path.join(root, 'new', 'data'), 0o700);
      assertMode(file, 0o600);
      assert.ok(fs.existsSync(`${file}-wal`), 'WAL mode writes a -wal file');
      assertMode(`${file}-wal`, 0o600);
      assertMode(`${file}-shm`, 0o600);
    } finally {
      await db.close();
    }
  });

  test('an existing database left readable by others is closed up when opened; its existing folder is left alone', async () => {
    const dir = path.join(root, 'old');
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    const file = path.join(dir, 'evt.sqlite');
    let db = await openDatabase(file);
    await db.prepare("INSERT INTO options (name, value) VALUES ('perm-test', 'x')").run();
    await db.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      fs.writeFileSync(f, '', { flag: 'a' });
      fs.chmodSync(f, 0o644);
    }
    db = await openDatabase(file);
    try {
      assertMode(file, 0o600);
      await db.prepare("UPDATE options SET value = 'y' WHERE name = 'perm-test'").run();
      assertMode(`${file}-wal`, 0o600);
      assertMode(`${file}-shm`, 0o600);
      // A folder the operator made (it may be shared, like /tmp) keeps its mode.
      assertMode(dir, 0o755);
    } finally {
      await db.close();
    }
  });

  test('pairing QR images (they hold the door key) are 0600 in a 0700 folder', async () => {
    const dataDir = path.join(root, 'pairing-data');
    const config = loadConfig({ EVT_DB: ':memory:', EVT_DATA_DIR: dataDir, EVT_LOG: 'off' });
    const files = await writePairingQr(config, 7, 'http://door.example/kiosk/#pair=secret');
    assertMode(dataDir, 0o700);
    assertMode(path.join(dataDir, 'pairing'), 0o700);
    assertMode(files.png, 0o600);
    assertMode(files.svg, 0o600);
    // Written again over an old readable file: still 0600.
    fs.chmodSync(files.png, 0o644);
    fs.chmodSync(path.join(dataDir, 'pairing'), 0o755);
    await writePairingQr(config, 7, 'http://door.example/kiosk/#pair=secret');
    assertMode(files.png, 0o600);
    assertMode(path.join(dataDir, 'pairing'), 0o700);
  });

  test('mail .eml files (they hold ticket codes) are 0600 in a 0700 folder, also when the folder existed', async () => {
    const dir = path.join(root, 'mail');
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o755);
    const deliver = fileDeliver(dir);
    const r = await deliver({ from: 'a@example.test', to: 'b@example.test', subject: 'Your ticket', text: 'code 0123456789' }, { id: 1, attempt: 1 });
    assert.equal(r.ok, true, r.error ?? '');
    assertMode(dir, 0o700);
    assertMode(path.join(dir, r.emlFile!), 0o600);
  });

  test('the demo writes its ticket QR images and pairing images 0600 in 0700 folders', async () => {
    const dataDir = path.join(root, 'demo');
    const lines: string[] = [];
    await runCli(['demo', '--events', '4', '--attendees', '20'], { EVT_DB: path.join(dataDir, 'evt.sqlite'), EVT_LOG: 'off' }, (l) => lines.push(l));
    for (const sub of ['', 'demo-qr', 'pairing']) assertMode(path.join(dataDir, sub), 0o700);
    const images = [
      ...fs.readdirSync(path.join(dataDir, 'demo-qr')).map((f) => path.join(dataDir, 'demo-qr', f)),
      ...fs.readdirSync(path.join(dataDir, 'pairing')).map((f) => path.join(dataDir, 'pairing', f)),
    ];
    assert.ok(images.length >= 3, lines.join('\n'));
    for (const f of images) assertMode(f, 0o600);
  });
});
